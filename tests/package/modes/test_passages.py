"""The passages mode against the method of seed 004, the retrieval example it adapts, written out;
and the library API for real tokenizers."""

import pytest
from hypothesis import given, strategies as st

from fitproof import PackError, evaluate, pack_passages
from fitproof.tokenizers.estimate import estimate_tokens
from fitproof.modes import passages as passages_mode


def naive_pack(question, passages, limit, count):
    """The retrieval example's method, written out: render and count every complete candidate prompt."""

    def render(parts):
        return "Question: " + question + "\nSources:\n" + "".join(f"[{key}] {text}\n" for key, text in parts) + "Answer:"

    if count(render([])) > limit:
        return None
    chosen, skipped = [], []
    for passage in passages:
        if count(render(chosen + [passage])) <= limit:
            chosen.append(passage)
        else:
            skipped.append(passage[0])
    return [key for key, _ in chosen], skipped, render(chosen), count(render(chosen))


def _reference(name):
    """tiktoken itself (the test extra), so the exact counters are proved against another implementation."""
    import _text

    encoding = _text.reference_encoding(name)
    return lambda text: len(encoding.encode_ordinary(text))


COUNTERS = {
    "words": lambda text: len(text.split()),
    "estimate": estimate_tokens,
    "o200k_base": _reference("o200k_base"),
    "cl100k_base": _reference("cl100k_base"),
}
# Texts mixing ASCII, Python-only and JavaScript-only whitespace, astral characters and newlines,
# and what the tokenizers' patterns treat specially (contractions, digits, slashes, CR, trailing space).
TEXT = st.lists(
    st.sampled_from(
        [
            "a",
            "b",
            " ",
            "\n",
            "\t",
            "\u3000",
            "\u0085",
            "\u200b",
            "\ufeff",
            "\x1c",
            "\U0001f600",
            "é",
            "[",
            "'s",
            "A",
            "1",
            "/",
            ".",
            "\r",
            "  \n\n",
            "\u0301",
        ]
    ),
    max_size=25,
).map("".join)
PASSAGES = st.lists(
    st.tuples(st.text(st.sampled_from("abcxyz \u3000"), min_size=1, max_size=3).filter(lambda key: key.strip()), TEXT), max_size=10
).map(lambda pairs: list({key: (key, text) for key, text in pairs}.values()))


@given(question=TEXT, passages=PASSAGES, limit=st.integers(0, 80), counter=st.sampled_from(sorted(COUNTERS)))
def test_linear_mode_equals_recounting_every_candidate(question, passages, limit, counter):
    """Counting each passage once gives exactly what re-counting every complete candidate prompt gives."""
    report = evaluate(
        {
            "mode": "passages",
            "question": question,
            "limit": limit,
            "counter": counter,
            "passages": [{"id": key, "text": text} for key, text in passages],
        }
    )
    expected = naive_pack(question, passages, limit, COUNTERS[counter])
    if expected is None:
        assert report["pass"] is False and report["errors"][0]["path"] == "$.limit"
        return
    assert (report["chosen"], report["skipped"], report["prompt"], report["units"]) == expected
    assert report["pass"] is True, report["checks"]
    for row in report["trace"]:
        assert row["kept"] == (row["units_with"] <= limit)


@given(question=TEXT, passages=PASSAGES, limit=st.integers(0, 80), counter=st.sampled_from(sorted(COUNTERS)))
def test_library_api_matches_the_seed(question, passages, limit, counter):
    expected = naive_pack(question, passages, limit, COUNTERS[counter])
    if expected is None:
        with pytest.raises(PackError, match="without passages"):
            pack_passages(question, passages, limit, COUNTERS[counter])
        return
    packed = pack_passages(question, passages, limit, COUNTERS[counter])
    assert ([key for key, _ in packed.chosen], packed.skipped, packed.prompt, packed.units) == expected


def test_library_api_with_a_tokenizer_like_counter():
    calls = []

    def characters(text):  # any callable works: here one unit per character
        calls.append(text)
        return len(text)

    packed = pack_passages("q", [("a", "x" * 10), ("b", "y")], 40, characters)
    assert packed.chosen == [("b", "y")] and packed.skipped == ["a"]
    assert packed.units == len(packed.prompt) == 34
    assert len(calls) == 3  # the base prompt, then one complete candidate per passage


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None])
def test_counter_must_return_non_negative_integers(bad):
    with pytest.raises(PackError, match="non-negative integer"):
        pack_passages("q", [("a", "x")], 10, lambda text: bad)


@pytest.mark.parametrize(
    "args, message",
    [
        (("q", [], -1), "limit"),
        (("q", [], 2.0), "limit"),
        (("q", [("a", "x"), ("a", "y")], 99), "unique"),
        (("q", [("", "x")], 99), "non-empty"),
        (("q", [("a",)], 99), "pair"),
        (("q", [], 0), "over the limit"),
    ],
)
def test_library_api_rejects_invalid_input(args, message):
    with pytest.raises(PackError, match=message):
        pack_passages(*args, lambda text: len(text.split()))


@pytest.mark.parametrize("count", [None, "o200k_base", 3])
def test_a_count_that_is_not_a_function_is_a_pack_error(count):
    """It was a bare TypeError ("'NoneType' object is not callable") from deep inside."""
    with pytest.raises(PackError, match="count must be a function from a text to its number of tokens"):
        pack_passages("q", [("a", "x")], 99, count)


SEED = {
    "mode": "passages",
    "question": "why",
    "limit": 9,
    "counter": "words",
    "passages": [{"id": "a", "text": "one two"}, {"id": "b", "text": "one two three four five"}, {"id": "c", "text": "six"}],
}


@pytest.mark.parametrize(
    "tamper, failing, detail",
    [
        (lambda r: r.update(units=8), "prompt within limit", "re-counts to 9"),
        (lambda r: r.update(prompt=r["prompt"].replace("six", "six seven"), units=10), "prompt within limit", "over the limit"),
        (lambda r: r.update(prompt=r["prompt"].replace("[a] one two\n", "")), "prompt is a fresh render", "fresh render"),
        (lambda r: r.update(chosen=["c", "a"]), "retrieval order kept", "retrieval order"),
        (lambda r: r.update(chosen=["a"], skipped=["b", "c"]), "skipped passages did not fit", "'c' would have fit"),
        (lambda r: r.update(chosen=["a", "b", "c"], skipped=[]), "skipped passages did not fit", "over 9"),
    ],
)
def test_passages_checks_fail_on_wrong_results(tamper, failing, detail):
    result = passages_mode.run(SEED)
    assert all(check["pass"] for check in passages_mode.verify(SEED, result))
    tamper(result)
    checks = {check["name"]: check for check in passages_mode.verify(SEED, result)}
    assert checks[failing]["pass"] is False
    assert detail in checks[failing]["detail"]


def test_pack_passages_refuses_shapes_it_would_misread():
    """A {id, text} dict was unpacked by its keys (the prompt said "[id] text"), a two-letter
    string became the pair ("a", "b"), and None was a bare TypeError."""
    words = lambda text: len(text.split())  # noqa: E731
    packed = pack_passages("Why?", [{"id": "a", "text": "hello"}], 100, words)  # the passages mode's own shape
    assert packed.chosen == [("a", "hello")] and "[a] hello" in packed.prompt
    for passages, said in (
        (["ab"], 'passage 0 must be an \\(id, text\\) pair, got "ab"'),
        (None, "passages must be a list of \\(id, text\\) pairs"),
        ("ab", "passages must be a list"),
        ([{"id": "a", "text": "x", "score": 1}], "passage 0 must be an \\(id, text\\) pair"),
        ([("a", "x"), ("b", "y"), ("a", "z")], 'passage ids must be unique: passage 2 repeats the id "a"'),
    ):
        with pytest.raises(PackError, match=said):
            pack_passages("Why?", passages, 100, words)
