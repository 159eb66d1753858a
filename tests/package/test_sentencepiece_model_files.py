"""SentencePiece ``.model`` files (tokenizers/spm.py, protobuf.py, charsmap.py) and Unigram tokenizer.json
files (tokenizers/sentencepiece.py): every count equals the reference library's.

References (test extra): ``sentencepiece`` 0.2.3 (``SentencePieceProcessor.encode(text)``) for .model
files, Hugging Face ``tokenizers`` 0.23.3 for tokenizer.json. The models are trained here, offline,
by ``sentencepiece.SentencePieceTrainer`` on generated text: BPE and Unigram, with and without byte
fallback, the identity normalizer and the default ``nmt_nfkc`` character map, user-defined pieces.
"""

import copy
import functools
import io
import json
import struct

import pytest

import _text
from context_budget.tokenizers import TokenizerFileError, exact, from_bytes, load_tokenizer
from context_budget.tokenizers import files as files_module
from context_budget.tokenizers import spm as spm_module

STRINGS = 50_000

MODELS = {
    "bpe, byte fallback, identity": dict(model_type="bpe", byte_fallback=True, normalization_rule_name="identity",
                                         vocab_size=2000),
    "bpe, nmt_nfkc, user-defined, no dummy prefix": dict(model_type="bpe", vocab_size=2000, add_dummy_prefix=False,
                                                         user_defined_symbols=["<tag>", "foo"]),
    "unigram, byte fallback, identity": dict(model_type="unigram", byte_fallback=True, normalization_rule_name="identity",
                                             vocab_size=1200),
    "unigram, nmt_nfkc, extra whitespace kept, user-defined": dict(model_type="unigram", vocab_size=900,
                                                                   remove_extra_whitespaces=False, user_defined_symbols=["foo"]),
}


@functools.lru_cache(maxsize=None)
def trained(name: str) -> bytes:
    import sentencepiece

    lines = _text.mixed_text(300_000).splitlines() + [exact.without_lone_surrogates(t) for t in _text.strings(200, seed=1)]
    writer = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter([line for line in lines if line.strip()]),
                                             model_writer=writer, minloglevel=2, num_threads=1, **MODELS[name])
    return writer.getvalue()


def corpus(count: int, seed: int) -> list[str]:
    return [exact.without_lone_surrogates(text) for text in _text.strings(count, seed=seed)]


CASES = ["", " ", "   ", "  a  b  ", "\u2581", "x\u2581 ", "\u2581\u2581", "\x00", "\t x \n", "foo<tag>foofoo",
         "Ｆｕｌｌ　ｗｉｄｔｈ ①② ﬁ ㍻ ｶﾞ", "\U0010fffd\U000e0001 \ufeff", "a" * 3000, " " * 3000 + "x",
         # letters and other characters followed by combining marks (NFKC composes some of them)
         "e\u0301\u0300\u0302 A\u030a n\u0303x", "ab\u0308\u0308c", "\u00e9\u0301", "\u0434\u0301 \uac00\u0301",
         "\U0001f600\u0301", "x\u0301", "\u0301\u0301", "e\u20dd", "1\u20e3 #\ufe0f\u20e3"]


@pytest.fixture(scope="module")
def strings():
    return corpus(STRINGS, seed=33) + CASES


@pytest.mark.parametrize("name", MODELS)
def test_model_file_counts_equal_sentencepiece_on_50000_strings(name, strings, tmp_path):
    import sentencepiece

    data = trained(name)
    path = tmp_path / "tokenizer.model"
    path.write_bytes(data)
    ours, ref = load_tokenizer(path), sentencepiece.SentencePieceProcessor(model_file=str(path))
    assert isinstance(ours, spm_module.SentencePieceModel)
    expected = ref.encode(strings)
    mismatches = [text for text, ids in zip(strings, expected) if ours.count(text) != len(ids)]
    assert len(strings) >= 50_000 and mismatches == []


@pytest.mark.parametrize("name", [name for name in MODELS if "nmt_nfkc" in name])
def test_the_character_maps_runs_normalize_text_as_its_walk_rule_by_rule_does(name, strings):
    """charsmap.py copies runs of characters that no rule can start at (a regex) instead of walking
    the trie at each one; the walk alone (no runs) normalizes every string the same. (A sample:
    the walk is slow; the 50,000-string counts above go through the runs against sentencepiece.)"""
    fast = from_bytes(trained(name), "trained.model")
    walk = copy.copy(fast)
    walk.charsmap = copy.copy(fast.charsmap)
    walk.charsmap._copied = None
    texts = strings[:5000] + CASES + [_text.mixed_text(30_000)]
    assert [text for text in texts if fast.normalize(text) != walk.normalize(text)] == []
    assert fast.charsmap.chunks("plain words, copied in runs") == ["plain", " ", "words,", " ", "copied", " ", "in", " ", "runs"]


@pytest.mark.parametrize("name", MODELS)
def test_model_file_ids_and_long_pieces_equal_sentencepiece(name):
    """Ids, not only counts; long texts (Unigram's float32 score reset runs past 100,000)."""
    import sentencepiece

    data = trained(name)
    ours, ref = from_bytes(data, "trained.model"), sentencepiece.SentencePieceProcessor(model_proto=data)
    texts = corpus(500, seed=34) + CASES + [_text.mixed_text(30_000)] + _text.long_pieces(20_000)
    for text, ids in zip(texts, ref.encode(texts)):
        assert ours.ids(text) == ids, text[:40]


def unigram_json(data: bytes, pre_tokenizer: dict) -> str:
    """A tokenizer.json for a trained Unigram model (identity normalizer), written as tokenizers writes one."""
    model = from_bytes(data, "trained.model")
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": model.texts[i], "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i in range(3)],
        "normalizer": None, "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": model.unk_id, "byte_fallback": model.byte_fallback,
                  "vocab": [[piece, score] for piece, score in zip(model.texts, model.scores)]},
    })


PRE_TOKENIZERS = {
    "Metaspace": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    "WhitespaceSplit, Metaspace (T5)": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}]},
    "Metaspace first, unsplit": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False},
}


@pytest.mark.parametrize("pre", PRE_TOKENIZERS)
def test_unigram_tokenizer_json_counts_equal_tokenizers(pre, strings):
    from tokenizers import Tokenizer

    raw = unigram_json(trained("unigram, byte fallback, identity"), PRE_TOKENIZERS[pre])
    ours, ref = from_bytes(raw.encode(), "unigram.json"), Tokenizer.from_str(raw)
    assert ours.kind == "tokenizer.json (SentencePiece Unigram)"
    texts = strings if pre.startswith("WhitespaceSplit") else strings[:5_000] + CASES + ["<s>hi</s> x<unk>"]
    expected = [len(encoding.ids) for encoding in ref.encode_batch(texts, add_special_tokens=False)]
    mismatches = [text for text, count in zip(texts, expected) if ours.count(text) != count]
    assert mismatches == []
    for text in texts[:300] + CASES:
        assert ours.ids(text) == ref.encode(text, add_special_tokens=False).ids, text[:40]


# --- hostile files -----------------------------------------------------------------------------

def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def delimited(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def piece(text: str, score: float = 0.0, kind: int = 1, score_bits: bytes | None = None) -> bytes:
    body = delimited(1, text.encode()) + key(2, 5) + (score_bits or struct.pack("<f", score)) + key(3, 0) + varint(kind)
    return delimited(1, body)


def model_proto(pieces: bytes, model_type: int = 2) -> bytes:
    trainer = key(3, 0) + varint(model_type)
    normalizer = delimited(1, b"identity") + key(3, 0) + varint(1)
    return pieces + delimited(2, trainer) + delimited(3, normalizer)


SMALL = piece("<unk>", 0, 2) + piece("a", -1) + piece("\u2581", -2) + piece("\u2581a", -3)


def test_a_small_hand_written_model_counts_as_sentencepiece_does():
    import sentencepiece

    data = model_proto(SMALL)
    ref, ours = sentencepiece.SentencePieceProcessor(model_proto=data), from_bytes(data, "small.model")
    for text in ("a", "a a", "aa  a", "b", "ab b", ""):
        assert ours.ids(text) == ref.encode(text), text


@pytest.mark.parametrize("data, message", [
    (model_proto(SMALL)[:-7], "protobuf byte "),  # truncated inside the normalizer spec
    (model_proto(SMALL)[:37], "protobuf byte "),  # truncated inside a piece
    (b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "protobuf byte 1: a varint longer than 10 bytes"),
    (b"\x0a\x05ab", "protobuf byte 0: field 1 says 5 bytes, but its message has 2 left"),
    (b"\x0a\x01\x0b", "protobuf byte 2: field 1 has wire type 3 (groups and unknown types are not read)"),
    (model_proto(SMALL, model_type=3), "a SentencePiece word model: only Unigram and BPE models are supported"),
    (model_proto(SMALL, model_type=4), "a SentencePiece char model"),
    (model_proto(piece("<unk>", 0, 2) + piece("a", score_bits=struct.pack("<f", float("nan")))),
     "piece 1's score is nan, not a finite number"),
    (model_proto(piece("<unk>", 0, 2) + piece("a", score_bits=struct.pack("<f", float("inf")))),
     "piece 1's score is inf, not a finite number"),
    (model_proto(piece("a", -1)), "needs exactly one unknown piece, this one has 0"),
    (model_proto(piece("<unk>", 0, 2) + piece("a", -1) + piece("a", -2)), "piece 2 ('a') is already defined"),
    (model_proto(piece("<unk>", 0, 2) + piece("a", -1, kind=9)), "piece 1 has the unknown type 9"),
    (model_proto(piece("<unk>", 0, 2) + delimited(1, key(2, 5) + b"\0\0\0\0")), "piece 1 has no text"),
    (model_proto(piece("<unk>", 0, 2) + delimited(1, delimited(1, b"\xff"))), "piece 1's text is not UTF-8"),
    (model_proto(SMALL) + delimited(3, delimited(2, b"\x01\x00")), "too short to hold its trie's size"),
    (model_proto(SMALL) + delimited(3, delimited(2, b"\x40\x00\x00\x00abcd")), "says its trie is 64 bytes in a map of 8"),
])
def test_a_hostile_model_file_is_refused_with_its_name_and_byte_offset(tmp_path, data, message):
    path = tmp_path / "hostile.model"
    path.write_bytes(data)
    with pytest.raises(TokenizerFileError) as raised:
        load_tokenizer(path)
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value)


def test_a_model_with_too_many_pieces_is_refused(monkeypatch):
    monkeypatch.setattr(spm_module, "MAX_PIECES", 3)
    files_module._MEMO.clear()  # parsed anew, not the earlier test's tokenizer of the same bytes
    with pytest.raises(TokenizerFileError, match=r"big\.model: .*protobuf byte \d+: more than 3 pieces"):
        from_bytes(model_proto(SMALL), "big.model")


def test_a_model_file_is_read_from_bytes_as_the_page_gives_them():
    """``from_bytes`` (the page's way in) tells a .model file by its first byte, and records its digest."""
    import hashlib

    data = trained("bpe, byte fallback, identity")
    model = from_bytes(data, "tokenizer.model", "model")
    assert model.sha256 == hashlib.sha256(data).hexdigest() and model.kind == "SentencePiece .model (BPE, byte fallback)"
    text = "Hello  world 日本\U0010fffd"
    assert b"".join(model.tokens(text)) == b" " + text.replace("  ", " ").encode()
    assert [model.by_bytes.get(token) for token in model.tokens(text)] == model.ids(text)
