"""Small synthetic tokenizer files of every kind the package reads, for the hostile-file tests and
``bench/hostile_tokenizers.py`` (both import this module: pytest puts bench/ on the path).

Each builder returns a file's bytes (or, for the JSON kinds, the parsed object before it is
written, so that a test can break one field): a byte-level BPE ``tokenizer.json``, a Unigram
``tokenizer.json``, a SentencePiece ``.model`` protobuf, a tekken JSON file and a GGUF header.
``grown(kind, size)`` makes one of about ``size`` bytes, a vocabulary grown until it is that large.
"""

from __future__ import annotations

import base64
import json
import struct

META = "\u2581"


def _byte_alphabet() -> list[str]:
    """GPT-2's ``bytes_to_unicode``: the character ``ByteLevel`` writes for each byte, by byte."""
    printable = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    by_byte = dict(zip(printable, chars))
    return [chr(by_byte[b]) for b in range(256)]


BYTE_CHARS = _byte_alphabet()


def level(text: str) -> str:
    """``text``'s UTF-8 bytes written as ``ByteLevel`` writes them."""
    return "".join(BYTE_CHARS[b] for b in text.encode("utf-8"))


def _words(count: int) -> list[str]:
    """``count`` distinct lower-case words of growing length (a, b, ..., z, aa, ab, ...)."""
    words, n = [], 0
    while len(words) < count:
        n += 1
        word, k = "", n
        while k:
            k, r = divmod(k - 1, 26)
            word = chr(97 + r) + word
        words.append(word)
    return words


def added_token(token_id: int, text: str) -> dict:
    """An added special token as ``tokenizers`` writes one (every field: it refuses one without)."""
    return {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}


def byte_level_json(words: int = 8, added: tuple[str, ...] = ("<|end|>",), pattern: str | None = None) -> dict:
    """A byte-level BPE tokenizer.json: the 256 byte tokens, then each word of ``_words(words)``
    longer than one letter merged from its first letters and its last one."""
    vocab = {char: b for b, char in enumerate(BYTE_CHARS)}
    merges = []
    for word in _words(words):
        if len(word) < 2:
            continue
        left, right = level(word[:-1]), level(word[-1])
        if left not in vocab:
            continue
        merges.append([left, right])
        vocab.setdefault(left + right, len(vocab))
    pre = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    if pattern is not None:
        pre = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        }
    added_tokens = [added_token(len(vocab) + i, text) for i, text in enumerate(added)]
    return {
        "version": "1.0",
        "added_tokens": added_tokens,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": pre,
        "model": {"type": "BPE", "dropout": None, "vocab": vocab, "merges": merges},
    }


def unigram_json(words: int = 8, piece_length: int = 0) -> dict:
    """A Unigram tokenizer.json (T5's shape: Metaspace): ``<unk>``, the letters, ``▁``, words; and,
    with ``piece_length``, one piece of that many ``a``s."""
    vocab = [["<unk>", 0.0], [META, -2.0]] + [[chr(97 + i), -3.0] for i in range(26)]
    vocab += [[META + word, -1.0 - len(word) / 10] for word in _words(words)]
    if piece_length:
        vocab.append(["a" * piece_length, -1.0])
    return {
        "version": "1.0",
        "added_tokens": [added_token(0, "<unk>")],
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False},
    }


# --- SentencePiece's .model (protobuf) ---


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


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def delimited(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def model_piece(text: str, score: float = 0.0, kind: int = 1) -> bytes:
    body = delimited(1, text.encode("utf-8")) + key(2, 5) + struct.pack("<f", score) + key(3, 0) + varint(kind)
    return delimited(1, body)


def model_file(words: int = 8, model_type: int = 1, long_pieces: int = 0, piece_bytes: int = 7999, seed: int | None = None) -> bytes:
    """A ``.model`` file (Unigram by default, 2: BPE): ``<unk>``, ``<s>``, ``</s>``, ``▁``, the letters,
    ``▁`` + each word; and ``long_pieces`` pieces of ``piece_bytes`` bytes (``a``s, then the piece's
    number; with a ``seed``, random letters instead)."""
    import random

    rng = random.Random(seed)
    # (a list joined once: adding bytes to bytes copies them all, quadratic in a 50 MB file)
    pieces = [model_piece("<unk>", 0.0, 2), model_piece("<s>", 0.0, 3), model_piece("</s>", 0.0, 3), model_piece(META, -2.0)]
    pieces += [model_piece(chr(97 + i), -3.0) for i in range(26)]
    seen = {META} | {chr(97 + i) for i in range(26)}
    for word in _words(words):
        if META + word not in seen:
            seen.add(META + word)
            pieces.append(model_piece(META + word, -1.0 - len(word) / 10))
    for i in range(long_pieces):
        text = "a" * (piece_bytes - len(str(i))) + str(i) if seed is None else "".join(rng.choice("abcdefgh") for _ in range(piece_bytes))
        pieces.append(model_piece(text, -1.0))
    trainer = key(3, 0) + varint(model_type)
    normalizer = delimited(1, b"identity") + key(3, 0) + varint(1)
    return b"".join(pieces) + delimited(2, trainer) + delimited(3, normalizer)


# --- tekken ---

TEKKEN_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"
    r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def tekken_json(words: int = 8, specials: int = 3) -> dict:
    """A tekken file: ``specials`` control tokens, the 256 bytes, then words made by merging."""
    tokens = [bytes([b]) for b in range(256)]
    known = set(tokens)
    for word in _words(words):
        data = word.encode()
        if len(data) > 1 and data[:-1] in known and data not in known:
            tokens.append(data)
            known.add(data)
    vocab = [{"rank": rank, "token_bytes": base64.b64encode(token).decode(), "token_str": None} for rank, token in enumerate(tokens)]
    special_tokens = [{"rank": i, "token_str": f"<special_{i}>", "is_control": True} for i in range(specials)]
    return {
        "config": {
            "pattern": TEKKEN_PATTERN,
            "num_vocab_tokens": len(tokens),
            "default_vocab_size": len(tokens) + specials,
            "default_num_special_tokens": specials,
            "version": "v7",
        },
        "vocab": vocab,
        "special_tokens": special_tokens,
    }


# --- GGUF ---


def _gguf_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def gguf_value(value) -> bytes:
    """A metadata value with its type: str 8, int (uint32) 4, a list of str or of int 9."""
    if isinstance(value, str):
        return struct.pack("<I", 8) + _gguf_string(value)
    if isinstance(value, bool):
        return struct.pack("<I", 7) + struct.pack("<?", value)
    if isinstance(value, int):
        return struct.pack("<I", 5) + struct.pack("<i", value)
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return struct.pack("<I", 9) + struct.pack("<IQ", 8, len(value)) + b"".join(map(_gguf_string, value))
        return struct.pack("<I", 9) + struct.pack("<IQ", 5, len(value)) + b"".join(struct.pack("<i", item) for item in value)
    raise TypeError(value)


def gguf_file(metadata: dict) -> bytes:
    body = b"".join(_gguf_string(key) + gguf_value(value) for key, value in metadata.items())
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(metadata)) + body


def gguf_metadata(words: int = 8) -> dict:
    """A GGUF header's tokenizer (gpt2, pre-tokenizer llama-bpe) with the words of ``byte_level_json``."""
    data = byte_level_json(words, added=())
    tokens = sorted(data["model"]["vocab"], key=data["model"]["vocab"].__getitem__)
    merges = [" ".join(pair) for pair in data["model"]["merges"]]
    tokens.append("<|end|>")
    return {
        "general.architecture": "llama",
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": "llama-bpe",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": [1] * (len(tokens) - 1) + [3],
        "tokenizer.ggml.merges": merges,
    }


def as_bytes(kind: str, words: int) -> bytes:
    """A file of ``kind`` (``byte_level``, ``unigram``, ``model``, ``tekken``, ``gguf``) with ``words`` words."""
    if kind == "byte_level":
        return json.dumps(byte_level_json(words)).encode()
    if kind == "unigram":
        return json.dumps(unigram_json(words)).encode()
    if kind == "model":
        return model_file(words)
    if kind == "tekken":
        return json.dumps(tekken_json(words)).encode()
    if kind == "gguf":
        return gguf_file(gguf_metadata(words))
    raise ValueError(kind)


KINDS = ("byte_level", "unigram", "model", "tekken", "gguf")
