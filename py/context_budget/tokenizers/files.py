"""A tokenizer from a file's bytes or its path: which kind of file it is, read by the module for that kind.

A Hugging Face ``tokenizer.json`` and a tekken JSON file are read by ``model``, a GGUF file's
header by ``gguf`` (which builds the same ``tokenizer.json`` shape and hands it to ``model``). A
file read once is remembered by its SHA-256, so a second load of the same bytes costs its hash.
"""

from __future__ import annotations

import json

from .gguf import read_gguf_header, tokenizer_from_gguf
from .model import BPETokenizer, MAX_FILE_BYTES, Tokenizer, TokenizerFileError, tekken


# SHA-256 -> a tokenizer already built from those bytes: loading the same file again (the page, a
# second registry) costs its hash, not a second parse. Bounded: a memo of constant data.
_MEMO: dict[str, Tokenizer] = {}
MEMO_LIMIT = 4


def _named_copy(tokenizer: Tokenizer, name: str, source: str) -> Tokenizer:
    import copy

    named = copy.copy(tokenizer)  # shares the (read-only) vocabulary, merges and piece counts
    named.name, named.source = name, source
    return named


def from_bytes(data: bytes, source: str = "<bytes>", name: str | None = None) -> Tokenizer:
    """A tokenizer from a file's contents: a tokenizer.json, a tekken JSON file or a GGUF file."""
    data = bytes(data)
    label = name or source
    if data[:4] == b"GGUF":
        return tokenizer_from_gguf(data, source, label)
    import hashlib

    sha = hashlib.sha256(data).hexdigest()
    known = _MEMO.get(sha)
    if known is not None:
        return _named_copy(known, label, source)
    tokenizer = _parse(data, source, label, sha)
    if len(_MEMO) >= MEMO_LIMIT:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[sha] = tokenizer
    return tokenizer


def _parse(data: bytes, source: str, label: str, sha: str) -> Tokenizer:
    if data[:1] == b"\x0a" and data.lstrip()[:1] not in (b"{", b"["):  # a protobuf's first field: SentencePiece's .model
        from .spm import from_model_bytes

        return from_model_bytes(data, label, sha, source)
    try:
        parsed = json.loads(data)
    except (UnicodeDecodeError, ValueError) as error:
        raise TokenizerFileError(f"{source}: not JSON ({error}) and not a GGUF file") from None
    if not isinstance(parsed, dict):
        raise TokenizerFileError(f"{source}: a JSON {type(parsed).__name__}, not a tokenizer file (an object)")
    if "model" in parsed:
        from .sentencepiece import from_json  # SentencePiece's BPE (byte fallback, ▁) and Unigram

        return from_json(parsed, label, sha, source) or BPETokenizer(parsed, label, sha, source)
    if "vocab" in parsed and "config" in parsed:
        return tekken(parsed, label, sha, source)
    raise TokenizerFileError(f"{source}: neither a Hugging Face tokenizer.json (no \"model\") nor a tekken file "
                             "(no \"config\" and \"vocab\")")


def load_tokenizer(path, name: str | None = None) -> Tokenizer:
    """The tokenizer in the file at ``path`` (a tokenizer.json, a tekken JSON file or a GGUF file).

    Raises ``TokenizerFileError`` (a ``ValueError``) naming the path and what is wrong. A GGUF file's
    header is read alone (never its weights).
    """
    import os

    where = os.fspath(path)
    try:
        with open(where, "rb") as handle:
            head = handle.read(4)
            if head == b"GGUF":
                handle.seek(0)
                return read_gguf_header(handle, where, name or where)
            handle.seek(0)
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise TokenizerFileError(f"{where}: cannot read it: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise TokenizerFileError(f"{where}: larger than {MAX_FILE_BYTES >> 20} MiB, not a tokenizer file")
    return from_bytes(data, where, name)
