"""Every tokenizer-file reader against hostile mutations of a small valid file: a value of the wrong
type at any place, a key dropped, deep nesting, a long text or list, an id out of range, the bytes
cut short or flipped. Loading either gives a tokenizer or raises ``TokenizerFileError`` (a
``FitproofError``), never another exception; a tokenizer that loads counts a few short texts or
raises that error. One property per reader: byte-level BPE tokenizer.json, SentencePiece
tokenizer.json (Unigram and BPE with byte fallback), ``.model``, tekken, GGUF, tiktoken rank file.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import _tokenizer_files as tf
from fitproof import FitproofError
from fitproof.tokenizers import TokenizerFileError, exact, from_bytes
from fitproof.tokenizers.rank_tokenizer import O200K_PATTERN, RankTokenizer

TEXTS = ("hello world", "<|end|> aa", "a" * 40, "  \n\t x", "日本語 ▁ test", "")
# (no explain phase: its line tracer makes a failing example's reruns of these loops take minutes)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)


DEEP = re.compile(r'"\\u0000deep(\d+)"')  # a deep nesting stands in the tree as this text, written out as brackets


def deep(depth: int) -> str:
    return f"\0deep{depth}"


def nested(found: re.Match) -> str:
    depth = int(found.group(1))
    return "[" * depth + "1" + "]" * depth


HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 1 << 32, (1 << 32) - 1, 1 << 62, 1.5, 1e300]),
    st.text(max_size=6),
    st.sampled_from(["Sequence", "Split", "ByteLevel", "Metaspace", "NFC", "BPE", "Unigram", "(a+)+b", "a{1,99999999999}", "\\p{L}+"]),
    st.lists(st.integers(0, 3), max_size=3),
    st.dictionaries(st.sampled_from(["type", "Regex", "String", "pattern", "content", "id"]), st.integers(0, 3) | st.text(max_size=3)),
    st.integers(200, 3000).map(deep) | st.integers(20_000, 100_000).map(deep),
    st.integers(1000, 20_000).map(lambda n: "a" * n),
    st.integers(100, 3000).map(lambda n: [0] * n),
)


def paths(node, at=()):
    """Every place in a parsed JSON file, as a tuple of keys and indices (the root first)."""
    yield at
    if isinstance(node, dict):  # (a vocabulary: its first and last few entries, so that the file's structure is hit as often)
        keys = list(node)
        for key in keys if len(keys) <= 12 else keys[:3] + keys[-2:]:
            yield from paths(node[key], (*at, key))
    elif isinstance(node, list):  # (a long list: its first and last few items)
        for index in sorted(set(range(min(6, len(node)))) | set(range(max(0, len(node) - 3), len(node)))):
            yield from paths(node[index], (*at, index))


def mutate_json(draw, base: dict) -> bytes:
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        places = [place for place in paths(data) if place]
        if not places:
            break
        place = draw(st.sampled_from(places))
        parent = data
        for key in place[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(place[-1], None)
        else:
            parent[place[-1]] = draw(HOSTILE)
    text = DEEP.sub(nested, json.dumps(data))
    if draw(st.integers(0, 9)) == 0:  # cut short
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode()


def loads_or_refuses(data: bytes, where: str) -> None:
    try:
        tokenizer = from_bytes(data, where)
    except TokenizerFileError:
        return
    for text in TEXTS:
        try:
            assert tokenizer.count(text) >= 0
            tokenizer.count_prompt(text)
            tokenizer.tokens(text)
        except TokenizerFileError:
            pass


def flip_bytes(draw, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 3))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == 0 and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == 1:
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif kind == 2:
            del data[at : at + draw(st.integers(1, 16))]
        else:
            data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


@SETTINGS
@given(st.data())
def test_a_hostile_byte_level_tokenizer_json_loads_or_is_refused(data):
    base = tf.byte_level_json(12, pattern=r"\p{L}+|\s+") if data.draw(st.booleans()) else tf.byte_level_json(12)
    loads_or_refuses(mutate_json(data.draw, base), "bpe.json")


@SETTINGS
@given(st.data())
def test_a_hostile_sentencepiece_tokenizer_json_loads_or_is_refused(data):
    unigram = tf.unigram_json(12)
    unigram["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": True, "strip_right": True}]}
    bpe = {
        "version": "1.0",
        "added_tokens": [tf.added_token(3, "<s>")],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": None,
        "model": {
            "type": "BPE",
            "byte_fallback": True,
            "fuse_unk": False,
            "unk_token": "<unk>",
            "vocab": {"<unk>": 0, "a": 1, "\u2581": 2, "\u2581a": 3, "<0x41>": 4},
            "merges": [["\u2581", "a"]],
        },
    }
    loads_or_refuses(mutate_json(data.draw, data.draw(st.sampled_from([unigram, bpe]))), "sp.json")


@SETTINGS
@given(st.data())
def test_a_hostile_model_file_loads_or_is_refused(data):
    if data.draw(st.booleans()):
        blob = flip_bytes(data.draw, tf.model_file(8, model_type=data.draw(st.sampled_from([1, 2]))))
    else:  # well-formed protobuf, hostile pieces: any text, score and type, any model type and flags
        pieces = data.draw(
            st.lists(
                st.tuples(
                    st.text(min_size=0, max_size=6) | st.integers(20, 300).map(lambda n: "a" * n),
                    st.floats(width=32, allow_nan=True, allow_infinity=True),
                    st.integers(0, 9),
                ),
                max_size=12,
            )
        )
        body = b"".join(tf.model_piece(text, score, kind) for text, score, kind in pieces)
        trainer = tf.key(3, 0) + tf.varint(data.draw(st.integers(0, 5))) + tf.key(35, 0) + tf.varint(data.draw(st.integers(0, 1)))
        blob = body + tf.delimited(2, trainer) + tf.delimited(3, tf.delimited(1, b"identity"))
    if blob[:1] != b"\x0a":  # (a .model is known by its first field's key)
        blob = b"\x0a" + blob
    loads_or_refuses(blob, "hostile.model")


@SETTINGS
@given(st.data())
def test_a_hostile_tekken_file_loads_or_is_refused(data):
    loads_or_refuses(mutate_json(data.draw, tf.tekken_json(40)), "tekken.json")


GGUF_VALUES = st.one_of(
    st.text(max_size=8),
    st.integers(-(2**31), 2**31 - 1),
    st.booleans(),
    st.lists(st.text(max_size=4), max_size=5),
    st.lists(st.integers(-5, 5), min_size=1, max_size=5),
    st.sampled_from(["gpt2", "llama", "llama-bpe", "qwen2", "deepseek-v3", "gpt-4o"]),
)


@SETTINGS
@given(st.data())
def test_a_hostile_gguf_header_loads_or_is_refused(data):
    metadata = tf.gguf_metadata(12)
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(sorted(metadata) + ["tokenizer.chat_template"]))
        if data.draw(st.booleans()):
            metadata.pop(key, None)
        else:
            metadata[key] = data.draw(GGUF_VALUES)
    blob = tf.gguf_file(metadata)
    if data.draw(st.booleans()):
        blob = b"GGUF" + flip_bytes(data.draw, blob[4:])
    loads_or_refuses(blob, "hostile.gguf")


def rank_file() -> bytes:
    import base64

    tokens = [bytes([b]) for b in range(256)] + [b"he", b"ll", b"hell", b"hello", b" w", b" wo"]
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for rank, token in enumerate(tokens))


@SETTINGS
@given(st.data())
def test_a_hostile_rank_file_is_read_or_refused(data):
    blob = flip_bytes(data.draw, rank_file())
    # the published files are pinned by SHA-256 (any change is refused first); pinned to this one's, the parse itself is tried
    pinned = data.draw(st.booleans())
    name = "o200k_base" if not pinned else "hostile"
    saved = dict(exact.RANK_FILES)
    if pinned:
        exact.RANK_FILES["hostile"] = exact.RankFile("hostile.tiktoken", hashlib.sha256(blob).hexdigest())
    try:
        try:
            ranks = exact.parse_ranks(blob, name)
        except FitproofError:
            return
    finally:
        exact.RANK_FILES.clear()
        exact.RANK_FILES.update(saved)
    tokenizer = RankTokenizer("hostile", "0" * 64, "hostile.tiktoken", ranks, O200K_PATTERN, (), ())
    for text in TEXTS:
        assert tokenizer.count(text) >= 0


def test_the_property_catches_a_reader_that_lets_a_wrong_type_through(monkeypatch):
    """With the tekken reader's rank check taken out, a rank that is a text loads and its count
    fails with a TypeError: the property's helper lets that through (the test would fail)."""
    import pytest

    from fitproof.tokenizers import tekken as tekken_module

    monkeypatch.setattr(tekken_module, "read_token_id", lambda value, where, at: value)
    data = tf.tekken_json(40)
    assert base64_of(b"aa") == data["vocab"][256]["token_bytes"]
    data["vocab"][256]["rank"] = "256"
    with pytest.raises(TypeError):
        loads_or_refuses(json.dumps(data).encode(), "tekken.json")


def base64_of(token: bytes) -> str:
    import base64

    return base64.b64encode(token).decode()
