"""files.read_json: a tokenizer.json's merges read as two lists of texts (no half a million small
lists for the garbage collector to walk), else ``json.loads``. Whatever the bytes, the document it
gives is the one ``json.loads`` gives, with the merges as pairs."""

import hashlib
import json

import pytest
from hypothesis import given, strategies as st

from fitproof.tokenizers import files as files_module
from fitproof.tokenizers.merges import MergePairs, merge_sides

from model_files import MODELS


def read(data: bytes):
    return files_module.read_json(data, hashlib.sha256(data).hexdigest())


def as_loaded(document):
    """The document as json.loads gives it: a MergePairs in $.model.merges made a list of pairs."""
    model = document.get("model") if isinstance(document, dict) else None
    if isinstance(model, dict) and isinstance(model.get("merges"), MergePairs):
        model["merges"] = list(model["merges"])
    return document


@pytest.mark.parametrize("folder, apart", [("gemma3", True), ("gptoss", True), ("llama2", False)])
def test_model_files_read_as_json_loads_reads_them(folder, apart):
    """Gemma 3's and GPT-OSS's merges are [left, right] pairs, indented (as Qwen 3's): read apart.
    Llama 2's write a merge as one "left right" text (as Llama 3.1's and DeepSeek V3's): json.loads
    reads them, as before. (Every model file's counts are tested against tokenizers elsewhere.)"""
    path = MODELS / folder / "tokenizer.json"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run python3 scripts/fetch_model_tokenizers (scripts/test runs it)")
    data = path.read_bytes()
    document, expected = read(data), json.loads(data)
    merges, expected_merges = document["model"].pop("merges"), expected["model"].pop("merges")
    assert isinstance(merges, MergePairs) is apart
    assert merge_sides(merges, "read") == merge_sides(expected_merges, "loaded")
    assert document == expected  # the rest, vocabulary included


def pretty(model_merges, indent=2, **more) -> bytes:
    return json.dumps(
        {"version": "1.0", **more.pop("before", {}), "model": {"type": "BPE", "vocab": {"a": 0}, "merges": model_merges, **more}},
        indent=indent,
        ensure_ascii=False,
    ).encode()


def test_a_small_pretty_file_is_read_apart():
    data = pretty([["a", "b"], ["ab", "c"], ["\n],\n    [\n", '"]']])
    document = read(data)
    assert isinstance(document["model"]["merges"], MergePairs)
    assert list(document["model"]["merges"]) == [["a", "b"], ["ab", "c"], ["\n],\n    [\n", '"]']]
    assert as_loaded(document) == json.loads(data)


# Files the merges cannot be read apart from: json.loads reads them, with the same result (or error).
ODD = {
    "a pair of three": pretty([["a", "b", "c"], ["d", "e"]]),
    "a pair of one, then of three": pretty([["a"], ["b", "c", "d"]]),
    "five texts in one pair": pretty([["a", "b", "c", "d", "e"]]),
    "a number in a pair": pretty([["a", 0], ["b", "c"]]),
    "a zero where the joins put theirs": pretty([["a", "b", 0, "c", "d"]]),
    "a list in a pair": pretty([[["a"], "b"]]),
    "merges as texts": pretty(["a b", "c d"]),
    "no merges": pretty([]),
    "one merge": pretty([["a", "b"]]),
    "compact": json.dumps({"model": {"merges": [["a", "b"], ["c", "d"]]}}).encode(),
    "a tab before the key": pretty([["a", "b"]]).replace(b'    "merges"', b'\t"merges"'),
    "the model's merges named twice": pretty([["a", "b"], ["c", "d"]]).replace(b"\n  }\n}", b',\n    "merges": [["x", "y"]]\n  }\n}'),
    "merges in another object first": pretty([["a", "b"], ["c", "d"]], before={"decoder": {"merges": [["q", "r"], ["s", "t"]]}}),
    "something after the merges": pretty([["a", "b"], ["c", "d"]], after=[1, 2]),
    "a mark-like text as the merges": b"",  # made in the test (a file cannot hold its own SHA-256's mark)
    "not JSON after the merges": pretty([["a", "b"], ["c", "d"]])[:-2],
    "not UTF-8": pretty([["a", "b"], ["c", "d"]]).replace(b'"a"', b'"\xff"'),
}


@pytest.mark.parametrize("name", ODD)
def test_an_odd_file_reads_as_json_loads_reads_it(name):
    data = ODD[name]
    if not data:
        data = pretty("merges of " + "0" * 64)
    try:
        expected = json.loads(data)
    except ValueError as error:
        with pytest.raises(type(error)) as raised:
            read(data)
        assert str(raised.value) == str(error)  # the place named is the file's own
        return
    assert as_loaded(read(data)) == expected


texts = st.text(alphabet=st.sampled_from(list('ab ],["\\\n\t{}:0') + ["\u2581", "\u00e9", "\U0001f600"]), max_size=6)
items = st.one_of(texts, st.integers(-1, 1), st.lists(texts, max_size=2))


@given(
    merges=st.lists(st.lists(items, min_size=0, max_size=4), max_size=6),
    indent=st.integers(0, 4),
    other=st.lists(st.lists(texts, min_size=2, max_size=2), max_size=3),
    where=st.sampled_from(["model", "before", "twice"]),
)
def test_any_merges_read_as_json_loads_reads_them(merges, indent, other, where):
    """Any merges, any indentation, a second "merges" before the model's or after it: the same
    document as json.loads, or the same error."""
    if where == "model":
        data = pretty(merges, indent=indent or None)
    elif where == "before":
        data = pretty(other, indent=indent or None, before={"decoder": {"merges": merges}})
    else:
        data = pretty(merges, indent=indent or None).replace(b"]\n  }\n}", b'],\n    "merges": ' + json.dumps(other).encode() + b"\n  }\n}")
    assert as_loaded(read(data)) == json.loads(data)
