"""The exact tokenizers: every count equals tiktoken's ``encode_ordinary``, in the standard library only.

The reference is PyPI's tiktoken (test extra) built from the same local rank files, with the
pattern and special tokens of tiktoken_ext.openai_public: nothing is downloaded.
"""

import json
import random
import unicodedata
from bisect import bisect_right

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, generated_table_is_current

import _text
from fitproof import count_tokens
from fitproof.tokenizers import exact, unicode_classes

COUNTS = ROOT / "tests" / "data" / "token_counts.json"


@pytest.fixture(scope="module", params=exact.EXACT)
def pair(request):
    return request.param, _text.reference_encoding(request.param)


def test_differential_corpus_50000_strings(pair):
    """≥ 50,000 generated strings per encoding, every kind of text: 0 mismatches."""
    name, reference = pair
    mismatches = [text for text in _text.strings(50_000, seed=11) if count_tokens(text, name) != len(reference.encode_ordinary(text))]
    assert mismatches == []


def test_differential_long_pieces(pair):
    """Pieces of 20,000+ characters (one run of a letter, a minified blob, CJK, marks...)."""
    name, reference = pair
    for text in _text.long_pieces(20_000):
        assert count_tokens(text, name) == len(reference.encode_ordinary(text)), text[:20]


def test_tokens_are_tiktokens_bytes(pair):
    """Not only the count: each token's bytes, as the page's token view shows them."""
    name, reference = pair
    for text in _text.strings(2_000, seed=12) + [_text.mixed_text(20_000)]:
        expected = [reference.decode_single_token_bytes(token) for token in reference.encode_ordinary(text)]
        assert exact.ENCODINGS[name].tokens(text) == expected


@given(st.text(max_size=60))
def test_differential_any_string(text):
    for name in exact.EXACT:
        assert count_tokens(text, name) == len(REFERENCES[name].encode_ordinary(text))


REFERENCES = {name: _text.reference_encoding(name) for name in exact.EXACT}


def test_special_token_text_and_surrogates_count_as_tiktoken_does():
    enc = REFERENCES["o200k_base"]
    for text in ["<|endoftext|>", "a<|endofprompt|>b", "\ud800", "x\udfffy", "\ud83d\ude00", "\ud83d\ud83d"]:
        assert count_tokens(text) == len(enc.encode_ordinary(text))
    assert count_tokens("\ud83d\ude00") == count_tokens("😀")  # a pair written as two code points joins


def reference_merge(piece, ranks):
    """The rule written plainly: merge the lowest-ranked adjacent pair, leftmost on ties, until none."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while True:
        candidates = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks]
        if not candidates:
            return parts
        _, i = min(candidates)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@pytest.mark.parametrize("name", exact.EXACT)
def test_scan_and_heap_merges_equal_the_plain_rule(name):
    ranks = exact.ENCODINGS[name].ranks
    rng = random.Random(5)
    for _ in range(400):
        text = "".join(_text.fragment(rng, ["\U00016100"]) for _ in range(3))
        piece = text.encode("utf-8", "replace")[:80]
        expected = [len(part) for part in reference_merge(piece, ranks)]
        for merge in (exact.merge, exact.merge_with_heap):
            bounds = merge(piece, ranks)
            assert [b - a for a, b in zip(bounds, bounds[1:])] == expected


def test_class_table_agrees_with_running_unicodedata():
    """Every character both Unicode versions assign has the class the running Python gives it.

    A wrong table cannot pass: any letter, mark, number or space filed under another class fails here
    (characters new since the running Python's Unicode are covered by the differential tests).
    """
    code_of = {"Lu": "A", "Lt": "A", "Ll": "a", "Lm": "o", "Lo": "o", "Mn": "k", "Mc": "k", "Me": "k", "Nd": "0", "Nl": "0", "No": "0"}
    white = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
    wrong = []
    starts, codes = unicode_classes.STARTS, unicode_classes.CODES
    for code_point in range(0x110000):
        category = unicodedata.category(chr(code_point))
        if category == "Cn":
            continue
        expected = "_" if code_point in white else code_of.get(category, ".")
        if codes[bisect_right(starts, code_point) - 1] != expected:
            wrong.append(f"U+{code_point:04X} {category}")
    assert wrong == []


def test_class_table_is_the_generators_output():
    """The committed table is what scripts/make_unicode_classes.py writes from Unicode 16.0.0."""
    pytest.importorskip("unicodedata2")
    generated_table_is_current("make_unicode_classes.py")
    assert unicode_classes.UNICODE_VERSION == "16.0.0"


def test_long_runs_are_not_quadratic():
    """100,000 identical letters merge through the heap; bench/tokenizer.py measures the growth to a million."""
    assert count_tokens("a" * 100_000) == len(REFERENCES["o200k_base"].encode_ordinary("a" * 100_000))
    assert count_tokens("b" * 100_000, "cl100k_base") == len(REFERENCES["cl100k_base"].encode_ordinary("b" * 100_000))


def test_committed_counts_are_tiktokens():
    """tests/data/token_counts.json (checked in the page too) holds tiktoken's own counts."""
    cases = json.loads(COUNTS.read_text(encoding="utf-8"))
    assert len(cases) >= 300
    for case in cases:
        for name in exact.EXACT:
            assert case[name] == len(REFERENCES[name].encode_ordinary(case["text"]))
            assert count_tokens(case["text"], name) == case[name]


def test_estimate_is_the_blocks_heuristic():
    from fitproof.tokenizers.estimate import estimate_tokens

    assert count_tokens("Hello there, world.\nSecond line", "estimate") == estimate_tokens("Hello there, world.\nSecond line")


@pytest.mark.parametrize("bad", ["gtp-4o", "O200K_BASE", "", None, 3])
def test_unknown_tokenizer_lists_the_known_ones(bad):
    with pytest.raises(ValueError, match="unknown tokenizer .*o200k_base, cl100k_base, estimate"):
        count_tokens("x", bad)


def test_text_must_be_a_string():
    with pytest.raises(ValueError, match="text must be a string, got bytes"):
        count_tokens(b"x")


def test_missing_rank_file_says_where_it_looked_and_how_to_install(monkeypatch, tmp_path):
    monkeypatch.delenv(exact.DATA_ENV, raising=False)
    monkeypatch.setattr(exact, "CHECKOUT_DATA", tmp_path / "nowhere")
    encoding = exact.Encoding("o200k_base")
    with pytest.raises(exact.TokenizerUnavailable) as caught:
        encoding.count("x")
    message = str(caught.value)
    assert "\n" not in message
    assert "o200k_base.tiktoken" in message and str(tmp_path / "nowhere") in message
    assert "$FITPROOF_TOKENIZER_DATA (not set)" in message and "npm ci" in message


def test_environment_directory_comes_first_and_a_wrong_hash_is_refused(monkeypatch, tmp_path):
    (tmp_path / "cl100k_base.tiktoken").write_bytes(b"IQ== 0\n")
    monkeypatch.setenv(exact.DATA_ENV, str(tmp_path))
    encoding = exact.Encoding("cl100k_base")
    with pytest.raises(exact.TokenizerUnavailable, match="SHA-256 [0-9a-f]{64}, not the published 2239") as raised:
        encoding.count("x")
    assert f"cl100k_base's rank file {tmp_path / 'cl100k_base.tiktoken'} has SHA-256" in str(raised.value)  # which copy is bad


def test_environment_directory_without_the_file_falls_back_to_the_checkout(monkeypatch, tmp_path):
    monkeypatch.setenv(exact.DATA_ENV, str(tmp_path))
    assert exact.Encoding("cl100k_base").count("hello world") == 2
