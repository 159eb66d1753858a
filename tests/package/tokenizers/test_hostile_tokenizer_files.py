"""Hostile tokenizer files: small files that would take unbounded memory
or time are bounded or refused by name; malformed ones are one line and exit 2 in ``count``,
``check`` and ``mcp --tokenizer-file``; an id that would collide with the merge map's marker is
refused. The property tests over every reader are in ``test_hostile_file_properties.py``.

No test here times anything: work is measured by what it allocates (``tracemalloc``) or by the
lookups it makes (a counting dict), which the unbounded code makes orders of magnitude more of."""

from __future__ import annotations

import copy
import json
import tracemalloc

import pytest

import _tokenizer_files as tf
from cli_calls import call_cli, one_line_error
from conftest import ROOT
from fitproof.tokenizers import TokenizerFileError, from_bytes
from fitproof.tokenizers.merges import NO_MERGE
from fitproof.tokenizers.literal_alternation import LiteralAlternation
from fitproof.tokenizers.regex import Patterns, PatternUnsupported


def peak_bytes(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Lookups(dict):
    """A dict that counts its ``get`` and ``in`` lookups."""

    calls = 0

    def get(self, key, default=None):
        Lookups.calls += 1
        return super().get(key, default)

    def __contains__(self, key):
        Lookups.calls += 1
        return super().__contains__(key)


# --- memory and time: bounded ---------------------------------------------------------------


def test_a_unigram_json_of_long_pieces_takes_memory_linear_in_them():
    """60 pieces of 4,000 distinct characters: every prefix of each (the old index) is 480 MB."""
    import random

    rng = random.Random(1)
    data = tf.unigram_json(8)
    long = ["".join(rng.choice("abcdefgh") for _ in range(4000)) for _ in range(60)]
    data["model"]["vocab"] += [[piece, -1.0] for piece in long]
    blob = json.dumps(data).encode()
    tokenizers = []
    assert peak_bytes(lambda: tokenizers.append(from_bytes(blob, "long.json"))) < 30 * len(blob)
    assert tokenizers[0].count(long[7]) == 2  # ▁ and the piece itself


def test_a_model_file_of_long_pieces_loads_small_and_its_viterbi_looks_up_a_bounded_number_of_pieces():
    """40 pieces of 7,999 bytes (320 KB): 1.3 GB and past 30 s for 8,000 a's before; sentencepiece's count."""
    import sentencepiece

    distinct = tf.model_file(8, long_pieces=40, seed=5)  # every prefix of each: 1.3 GB
    assert peak_bytes(lambda: from_bytes(distinct, "distinct.model")) < 30 * len(distinct)
    data = tf.model_file(8, long_pieces=40)
    ours = from_bytes(data, "long.model")
    reference = sentencepiece.SentencePieceProcessor(model_proto=data)
    ours.value_of = Lookups(ours.value_of)
    Lookups.calls = 0
    for text in ("a" * 2000, "a" * 7998 + "7", "a" * 7997 + "12"):
        assert ours.ids(text) == reference.encode(text)
    Lookups.calls = 0
    ours.count("a" * 2000)
    assert Lookups.calls < 50 * 2000, Lookups.calls  # the old walk: up to 7,999 a place, 2 million here


def test_a_long_unigram_piece_is_found_as_tokenizers_finds_it():
    from tokenizers import Tokenizer

    data = tf.unigram_json(8, piece_length=300)
    data["model"]["vocab"] += [["a" * 17, -2.0], ["a" * 33, -2.5], ["a" * 64 + "b", -1.0], ["a" * 9, -1.5]]
    data["pre_tokenizer"] = None
    reference = Tokenizer.from_str(json.dumps(data))
    ours = from_bytes(json.dumps(data).encode(), "long.json")
    for text in ("a" * 300, "a" * 301, "a" * 64 + "b", "a" * 100 + "b" * 3, "a" * 40, "ab" * 30):
        assert ours.ids(text) == reference.encode(text, add_special_tokens=False).ids, text


def test_too_many_lengths_under_one_long_head_are_refused_by_name():
    data = tf.unigram_json(8)
    data["model"]["vocab"] += [["h" * 64 + "x" * k, -1.0] for k in range(1, 34)]  # 33 lengths, 65 to 97, under "h" * 64
    with pytest.raises(TokenizerFileError, match=r"\$\.model\.vocab: 33 pieces of different lengths between 65 and 128 characters"):
        from_bytes(json.dumps(data).encode(), "wide.json")


def test_many_added_tokens_with_one_long_head_split_as_the_alternation():
    texts = ["<" * 40 + "x" * k for k in range(20)] + [f"<t{i}>" for i in range(3000)]  # the walk, not the regex
    data = tf.byte_level_json(8, added=tuple(texts))
    ours = from_bytes(json.dumps(data).encode(), "added.json")
    text = "<" * 40 + "x" * 7 + "<t12><" + "<" * 39 + "x"
    assert [part for part, added in ours.split(text) if added] == ["<" * 40 + "x" * 7, "<t12>", "<" * 40 + "x"]


@pytest.mark.parametrize("pattern", [r"(a+)+b", r"(a*)*", r"(a|a)*", r"(?:ab?){2,}", r"(?:a|b)+", r"a*a*a*", r"a*a*b", r"a*(?:b*c)?"])
def test_a_pattern_that_can_backtrack_without_bound_is_refused_by_name(pattern):
    with pytest.raises(PatternUnsupported, match="can backtrack without bound"):
        Patterns([pattern])
    data = tf.byte_level_json(8, pattern=pattern)
    with pytest.raises(TokenizerFileError, match="its split pattern is not supported: .*can backtrack without bound"):
        from_bytes(json.dumps(data).encode(), "redos.json")


def model_patterns() -> list[str]:
    from fitproof.tokenizers import byte_level_json, gguf, rank_tokenizer

    found = [byte_level_json.GPT2_PATTERN, rank_tokenizer.O200K_PATTERN, gguf._LLAMA3, gguf._QWEN2, gguf._GPT4O, *gguf._DEEPSEEK3]

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "Split" and "Regex" in node.get("pattern", {}):
                found.append(node["pattern"]["Regex"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    models = ROOT / "tests" / "data" / "models"
    for name in ("llama3_1", "qwen3", "deepseek_v3", "gptoss"):
        path = models / name / "tokenizer.json"
        if path.is_file():
            walk(json.loads(path.read_bytes())["pre_tokenizer"])
    tekken = models / "mistral" / "tekken_240911.json"
    if tekken.is_file():
        found.append(json.loads(tekken.read_bytes())["config"]["pattern"])
    return found


def test_every_models_own_pattern_passes_the_backtracking_rule():
    patterns = model_patterns()
    assert len(patterns) >= 10
    Patterns(patterns)
    for harmless in (r"(?i:'s|'t)?", r"\p{N}{1,3}", r"(?:ab)+", r"a*b*", r"\s+(?!\S)", r"(?:a|b)?c+", r"((a))*"):
        Patterns([harmless])


def test_literal_alternatives_load_in_memory_linear_in_their_count():
    """Each literal was tested at every boundary (and kept in every signature): 4,000 of them took 16 s and 150 MB."""

    def load(count: int) -> int:
        return peak_bytes(lambda: Patterns(["|".join(chr(0x4E00 + i) for i in range(count))]))

    small, large = load(1000), load(4000)
    assert large < 8 * small and large < 40 * 1024 * 1024, (small, large)
    ours = from_bytes(json.dumps(tf.byte_level_json(8, pattern="|".join(chr(0x4E00 + i) for i in range(4000)))).encode(), "alts.json")
    assert ours.count("\u4e00\u4e01x") == 2 * 3 + 1  # each CJK character is 3 bytes (no merges), x one


def test_literal_alternatives_match_where_re_matches_them():
    """The first alternative in the pattern's order wins at a place (not the longest): on random sets
    of literals, some the prefix of another, some repeated, some longer than the short walk."""
    import random
    import re

    rng = random.Random(3)
    for _ in range(300):
        literals = ["".join(rng.choice("abc") for _ in range(rng.choice((1, 2, 3, 5, 8, 9, 12, 20)))) for _ in range(rng.randint(32, 60))]
        for _ in range(rng.randint(0, 10)):  # a prefix of a literal placed after it, or before it
            literal = rng.choice(literals)
            literals.insert(rng.randrange(len(literals) + 1), literal[: rng.randint(1, len(literal))])
        text = "".join(rng.choice(literals + list("abcd")) for _ in range(rng.choice((0, 1, 10, 100))))
        pos, endpos = rng.randint(0, 3), rng.choice((len(text), len(text) - 2, 1_000_000))
        expected = [m.span() for m in re.compile("|".join(literals)).finditer(text, pos, endpos)]
        assert [m.span() for m in LiteralAlternation(literals).finditer(text, pos, endpos)] == expected, (literals, text)
        patterns = Patterns(["(?:" + "|".join(literals) + ")"])
        assert isinstance(patterns.compiled[0], LiteralAlternation)
        assert [m.span() for m in patterns.compiled[0].finditer(patterns.codes(text), pos, endpos)] == expected


def test_literal_alternatives_cost_lookups_independent_of_their_count():
    """re tried the alternatives one after another at each place: 10,000 words, 10,000 tries a place."""
    text = " ".join(tf._words(3000))
    for count in (100, 10_000):
        matcher = Patterns(["|".join(tf._words(count + 30)[30:])]).compiled[0]
        assert isinstance(matcher, LiteralAlternation)
        matcher.order, Lookups.calls = Lookups(matcher.order), 0
        codes = Patterns(["|".join(tf._words(count + 30)[30:])]).codes(text)
        list(matcher.finditer(codes))
        assert Lookups.calls < 4 * len(text), (count, Lookups.calls)
    ours = from_bytes(json.dumps(tf.byte_level_json(8, pattern="|".join(tf._words(10_030)[30:]))).encode(), "words.json")
    assert ours.count("ad xyz") == 6


# --- malformed files: one line, exit 2, in count, check and mcp ------------------------------


def _mutated(base: dict, change) -> bytes:
    data = copy.deepcopy(base)
    change(data)
    return json.dumps(data).encode()


def _gguf(change) -> bytes:
    metadata = tf.gguf_metadata(8)
    change(metadata)
    return tf.gguf_file(metadata)


_SPLIT = tf.byte_level_json(8, pattern="a")
MALFORMED = {
    "normalizers a number": (
        _mutated(tf.unigram_json(), lambda d: d.update(normalizer={"type": "Sequence", "normalizers": 5})),
        "$.normalizer.normalizers is 5, not a list",
    ),
    "pretokenizers a number": (
        _mutated(tf.byte_level_json(), lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": 5})),
        "$.pre_tokenizer.pretokenizers is 5, not a list",
    ),
    "added_tokens a number": (_mutated(tf.byte_level_json(), lambda d: d.update(added_tokens=5)), "$.added_tokens is 5, not a list"),
    "a Split Regex that is a number": (
        _mutated(_SPLIT, lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(pattern={"Regex": 5})),
        "$.pre_tokenizer.pretokenizers[0].pattern is {'Regex': 5}",
    ),
    "a Split pattern that is a number": (
        _mutated(_SPLIT, lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(pattern=5)),
        "$.pre_tokenizer.pretokenizers[0].pattern is 5",
    ),
    "a repetition count past re's limit": (
        json.dumps(tf.byte_level_json(8, pattern="a{1,99999999999}")).encode(),
        "cannot be compiled (OverflowError",
    ),
    "nesting 100,000 deep": (b'{"model":' * 100_000 + b"1" + b"}" * 100_000, "nested too deep"),
    "tekken vocab entries that are numbers": (
        _mutated(tf.tekken_json(), lambda d: d["vocab"].__setitem__(3, 5)),
        "$.vocab[3] is 5, not an object",
    ),
    "a tekken entry without its rank": (
        _mutated(tf.tekken_json(), lambda d: d["vocab"][3].pop("rank")),
        "$.vocab[3].rank is None, not a token id",
    ),
    "a tekken rank that is no integer": (
        _mutated(tf.tekken_json(), lambda d: d["vocab"][3].update(rank="3")),
        "$.vocab[3].rank is '3', not a token id",
    ),
    "GGUF tokenizer.ggml.pre an array": (
        _gguf(lambda m: m.update({"tokenizer.ggml.pre": ["llama-bpe"]})),
        "GGUF pre-tokenizer ['llama-bpe']",
    ),
    "a flag that is not a boolean": (
        _mutated(tf.unigram_json(), lambda d: d["model"].update(byte_fallback=[1])),
        "$.model.byte_fallback is [1], not true or false",
    ),
    "a Metaspace split that is a list": (
        _mutated(tf.unigram_json(), lambda d: d["pre_tokenizer"].update(split=[1])),
        "$.pre_tokenizer.split is [1], not true or false",
    ),
    "GGUF token types a number": (
        _gguf(lambda m: m.update({"tokenizer.ggml.token_type": 5})),
        "tokenizer.ggml.token_type is 5, not an array of whole numbers",
    ),
}


@pytest.fixture(scope="module")
def malformed_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("malformed")
    paths = {}
    for index, (name, (data, _)) in enumerate(MALFORMED.items()):
        paths[name] = folder / f"file{index}"
        paths[name].write_bytes(data)
    return paths


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_file_is_refused_at_load_by_its_path(name):
    data, message = MALFORMED[name]
    with pytest.raises(TokenizerFileError) as raised:
        from_bytes(data, "hostile")
    assert message in str(raised.value), str(raised.value)


REQUIRED = {"mode": "required", "budget": 100, "tokenizer": "t", "items": [{"id": "a", "content": "hi", "required": True, "priority": 1}]}


@pytest.mark.parametrize("name", list(MALFORMED))
@pytest.mark.parametrize("command", ["count", "check", "mcp"])
def test_a_malformed_file_is_one_line_and_exit_2_in_every_command(malformed_files, name, command):
    spec = f"t={malformed_files[name]}"
    if command == "count":
        argv, stdin = ["count", "--tokenizer-file", spec], b"hello"
    elif command == "check":
        argv, stdin = ["check", "-", "--tokenizer-file", spec], json.dumps(REQUIRED).encode()
    else:
        argv, stdin = ["mcp", "--tokenizer-file", spec], b""
    code, out, err = call_cli(argv, stdin=stdin)
    assert code == 2 and out == "" and one_line_error(err), (code, out, err)
    assert MALFORMED[name][1] in err


def test_a_malformed_file_through_the_installed_command_prints_no_traceback(malformed_files):
    import subprocess
    import sys

    path = malformed_files["GGUF tokenizer.ggml.pre an array"]
    result = subprocess.run(
        [sys.executable, "-m", "fitproof", "count", "--tokenizer-file", f"t={path}"], input=b"hi", capture_output=True, timeout=60
    )
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err and err.count("\n") == 1, err


# --- ids: none that collides with the merge map's marker --------------------------------------


def he_tokenizer(he_id: int) -> bytes:
    data = tf.byte_level_json(0, added=())
    data["model"]["vocab"]["he"] = he_id
    data["model"]["merges"] = [["h", "e"]]
    return json.dumps(data).encode()


def test_an_id_past_2_to_the_32_is_refused_and_he_counts_one_below_it():
    """An id of 2**62 made "he"'s merge NO_MERGE: "he" counted 2, silently. tokenizers refuses ids past u32."""
    assert NO_MERGE == 1 << 62
    for bad in (1 << 62, 1 << 32, -1):
        with pytest.raises(
            TokenizerFileError, match=r"model\.vocab\['he'\] is .*, not a token id \(a whole number from 0 to 4,294,967,295\)"
        ):
            from_bytes(he_tokenizer(bad), "he.json")
    assert from_bytes(he_tokenizer((1 << 32) - 1), "he.json").count("he") == 1
    assert from_bytes(he_tokenizer(256), "he.json").count("he") == 1


@pytest.mark.parametrize(
    "data, message",
    [
        (_mutated(tf.byte_level_json(), lambda d: d["added_tokens"][0].update(id=1 << 62)), "$.added_tokens[0].id is 4611686018427387904"),
        (_mutated(tf.tekken_json(), lambda d: d["vocab"][3].update(rank=1 << 40)), "$.vocab[3].rank is 1099511627776, not a token id"),
        (_mutated(tf.tekken_json(), lambda d: d["vocab"][3].update(rank=2)), "gives two tokens the same rank"),
        (_mutated(tf.tekken_json(), lambda d: d["vocab"][3].update(rank=3.0)), "$.vocab[3].rank is 3.0, not a token id"),
    ],
)
def test_other_ids_out_of_range_are_refused_by_their_path(data, message):
    with pytest.raises(TokenizerFileError) as raised:
        from_bytes(data, "ids")
    assert message in str(raised.value), str(raised.value)
