"""The tokenizer and chat template in a GGUF model file's header (what LM Studio and Ollama keep on disk).

Only the header's key-value metadata is read, front to back with bounded reads; the tensor
descriptions and the weights after it are never read. A truncated or malformed header, or one whose
sizes do not fit the file, is refused with ``TokenizerFileError`` saying where it broke.

A byte-level BPE tokenizer (``tokenizer.ggml.model`` = ``gpt2``) is rebuilt as the model's
``tokenizer.json`` describes it: ``tokenizer.ggml.tokens`` and ``merges`` are the vocabulary and
merges, tokens of type control (3) or user-defined (4) are added tokens (matched in the text, as
``tokenizers`` does), and ``tokenizer.ggml.pre`` names the pre-tokenizer (and Qwen's NFC), since a GGUF
file does not store the patterns themselves. Counts are those of the model's tokenizer.json route.
"""

from __future__ import annotations

import io
import os
import struct
from typing import IO

from .._base.errors import TokenizerFileError
from .base import MAX_TOKEN_ID
from .byte_level_json import BPETokenizer

MAX_STRING = 64 * 1024 * 1024  # one metadata string (a chat template is ~10 KB, a token a few bytes)
MAX_ITEMS = 16 * 1024 * 1024  # one metadata array (a vocabulary is ~200,000 tokens)
MAX_KEYS = 1 << 16
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9

_LLAMA3 = (
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
)
_QWEN2 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
_GPT4O = (
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
)
_DEEPSEEK3 = (
    "\\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
)


def _pre(*patterns: str) -> dict:
    splits = [{"type": "Split", "pattern": {"Regex": p}, "behavior": "Isolated", "invert": False} for p in patterns]
    return {"type": "Sequence", "pretokenizers": splits + [{"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}


# tokenizer.ggml.pre -> (pre-tokenizer, normalizer, ignore_merges), as each model's tokenizer.json has them.
PRE_TOKENIZERS = {
    "llama-bpe": (_pre(_LLAMA3), None, True),  # Llama 3, 3.1, 3.2, 3.3
    "qwen2": (_pre(_QWEN2), {"type": "NFC"}, False),  # Qwen 2, 2.5, 3
    "deepseek-v3": (_pre(*_DEEPSEEK3), None, False),  # DeepSeek V3, R1
    "gpt-4o": (_pre(_GPT4O), None, True),  # GPT-OSS (o200k)
}


class _Reader:
    def __init__(self, handle: IO[bytes], where: str, size: int | None):
        self.handle = handle
        self.where = where
        self.size = size  # the file's size when known: no length may point past it
        self.offset = 0

    def fail(self, what: str) -> TokenizerFileError:
        return TokenizerFileError(f"{self.where}: GGUF header at byte {self.offset}: {what}")

    def read(self, count: int) -> bytes:
        if self.size is not None and self.offset + count > self.size:
            raise self.fail(f"needs {count:,} more bytes but the file ends at byte {self.size:,} (truncated or corrupt)")
        data = self.handle.read(count)
        if len(data) != count:
            raise self.fail(f"truncated: wanted {count:,} bytes, got {len(data):,}")
        self.offset += count
        return data

    def scalar(self, fmt: str):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        length = self.scalar("<Q")
        if length > MAX_STRING:
            raise self.fail(f"a string of {length:,} bytes (more than {MAX_STRING >> 20} MiB)")
        data = self.read(length)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string that is not UTF-8") from None

    def value(self, kind: int, depth: int = 0):
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            if depth:
                raise self.fail("an array of arrays")
            inner = self.scalar("<I")
            count = self.scalar("<Q")
            if count > MAX_ITEMS:
                raise self.fail(f"an array of {count:,} items (more than {MAX_ITEMS:,})")
            if inner in _SCALARS:
                width = struct.calcsize(_SCALARS[inner])
                return list(struct.unpack(f"<{count}{_SCALARS[inner][1]}", self.read(width * count)))
            if inner != _STRING:
                raise self.fail(f"an array of unknown type {inner}")
            if self.size is not None and count * 8 > self.size - self.offset:
                raise self.fail(f"an array of {count:,} strings that cannot fit in the file")
            return [self.string() for _ in range(count)]
        raise self.fail(f"a value of unknown type {kind}")


def read_metadata(handle: IO[bytes], where: str) -> dict:
    """The header's key-value metadata; the file position is left just after it (tensors never read)."""
    size = None
    try:
        size = os.fstat(handle.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):
        if isinstance(handle, io.BytesIO):
            size = len(handle.getbuffer())
    reader = _Reader(handle, where, size)
    if reader.read(4) != b"GGUF":
        raise reader.fail("not a GGUF file (no GGUF magic)")
    version = reader.scalar("<I")
    if version not in (2, 3):
        raise reader.fail(f"GGUF version {version} is not supported (2 and 3 are)")
    reader.scalar("<Q")  # tensor count: the tensors are not read
    keys = reader.scalar("<Q")
    if keys > MAX_KEYS:
        raise reader.fail(f"{keys:,} metadata keys (more than {MAX_KEYS:,})")
    metadata = {}
    for _ in range(keys):
        key = reader.string()
        metadata[key] = reader.value(reader.scalar("<I"))
    return metadata


def tokenizer_from_metadata(metadata: dict, where: str, name: str, sha256: str) -> BPETokenizer:
    model = metadata.get("tokenizer.ggml.model")
    if model is None:
        raise TokenizerFileError(f"{where}: the GGUF header has no tokenizer (no tokenizer.ggml.model)")
    if model != "gpt2":
        raise TokenizerFileError(
            f"{where}: GGUF tokenizer model {_short(model)} is not supported (only byte-level BPE, 'gpt2', is; "
            "'llama' SentencePiece and others are refused, not approximated)"
        )
    pre = metadata.get("tokenizer.ggml.pre", "default")
    if not isinstance(pre, str) or pre not in PRE_TOKENIZERS:
        raise TokenizerFileError(f"{where}: GGUF pre-tokenizer {_short(pre)} is not supported; supported: {', '.join(PRE_TOKENIZERS)}")
    tokens = _array(metadata, "tokenizer.ggml.tokens", str, "texts", where)
    merges = _array(metadata, "tokenizer.ggml.merges", str, "texts", where)
    if "tokenizer.ggml.token_type" in metadata:
        types = _array(metadata, "tokenizer.ggml.token_type", int, "whole numbers", where)
    else:
        types = [1] * len(tokens)
    if len(types) != len(tokens):
        raise TokenizerFileError(f"{where}: the GGUF header has {len(tokens):,} tokens but {len(types):,} token types")
    if len(tokens) > MAX_TOKEN_ID:
        raise TokenizerFileError(f"{where}: the GGUF header has {len(tokens):,} tokens (more than {MAX_TOKEN_ID:,})")
    template = metadata.get("tokenizer.chat_template")
    if template is not None and not isinstance(template, str):
        raise TokenizerFileError(f"{where}: the GGUF header's tokenizer.chat_template is {_short(template)}, not a string")
    pre_tokenizer, normalizer, ignore_merges = PRE_TOKENIZERS[pre]
    added = [
        {"id": i, "content": token, "special": kind == 3, "normalized": False}
        for i, (token, kind) in enumerate(zip(tokens, types))
        if kind in (3, 4)
    ]
    data = {
        "model": {"type": "BPE", "vocab": {token: i for i, token in enumerate(tokens)}, "merges": merges, "ignore_merges": ignore_merges},
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "added_tokens": added,
    }
    tokenizer = BPETokenizer(data, name, sha256, where)
    tokenizer.kind = f"GGUF (byte-level BPE, pre-tokenizer {pre})"
    tokenizer.chat_template = template
    return tokenizer


def _array(metadata: dict, key: str, kind: type, what: str, where: str) -> list:
    """A metadata array whose items are all ``kind`` (a GGUF array holds one type)."""
    value = metadata.get(key)
    if not isinstance(value, list) or (value and type(value[0]) is not kind):
        raise TokenizerFileError(f"{where}: the GGUF header's {key} is {_short(value)}, not an array of {what}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_gguf_header(handle: IO[bytes], where: str, name: str) -> BPETokenizer:
    """The tokenizer of the GGUF file open as ``handle``. Its SHA-256 is the header's (the metadata
    bytes), not the whole file's: the weights are never read."""
    import hashlib

    start = handle.tell()
    metadata = read_metadata(handle, where)
    length = handle.tell() - start
    handle.seek(start)
    digest = hashlib.sha256(handle.read(length)).hexdigest()
    return tokenizer_from_metadata(metadata, where, name, digest)


def tokenizer_from_gguf(data: bytes, where: str, name: str) -> BPETokenizer:
    """From a GGUF file's bytes in memory (the page: the whole file, or only its start up to the end of
    the metadata); the SHA-256 recorded is the header's, as ``read_gguf_header`` gives it."""
    return read_gguf_header(io.BytesIO(data), where, name)
