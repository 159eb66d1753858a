"""A tokenizer from a file's bytes or its path: which kind of file it is, read by the module for that kind.

A Hugging Face ``tokenizer.json`` is read by ``sentencepiece_json`` (SentencePiece BPE, Unigram) or
``byte_level_json``, a tekken JSON file by ``tekken``, a SentencePiece ``.model`` by
``sentencepiece_model_file``, a GGUF file's header by ``gguf`` (which builds the same ``tokenizer.json``
shape and hands it to ``byte_level_json``). A
file read once is remembered by its SHA-256, so a second load of the same bytes costs its hash.
"""

from __future__ import annotations

import json

from .gguf import read_gguf_header, tokenizer_from_gguf
from .._base.capped import TooLarge, read_capped
from .._base.errors import TokenizerFileError
from .base import MAX_FILE_BYTES, Tokenizer
from .byte_level_json import BPETokenizer
from .merges import MergePairs
from .tekken import tekken
from .._base.errors import ArgumentError, ArgumentTypeError


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
    try:
        return _read(data, source, label, sha)
    except RecursionError:  # JSON nested deeper than Python's parser goes (100,000 brackets), or a step that deep
        raise TokenizerFileError(f"{source}: nested too deep to be a tokenizer file (arrays or objects inside each other)") from None


def _read(data: bytes, source: str, label: str, sha: str) -> Tokenizer:
    if data[:1] == b"\x0a" and data.lstrip()[:1] not in (b"{", b"["):  # a protobuf's first field: SentencePiece's .model
        from .sentencepiece_model_file import from_model_bytes

        return from_model_bytes(data, label, sha, source)
    try:
        parsed = read_json(data, sha)
    except (UnicodeDecodeError, ValueError) as error:
        raise TokenizerFileError(f"{source}: not JSON ({error}) and not a GGUF file") from None
    if not isinstance(parsed, dict):
        raise TokenizerFileError(f"{source}: a JSON {type(parsed).__name__}, not a tokenizer file (an object)")
    if "model" in parsed:
        from .sentencepiece_json import from_json  # SentencePiece's BPE (byte fallback, ▁) and Unigram

        return from_json(parsed, label, sha, source) or BPETokenizer(parsed, label, sha, source)
    if "vocab" in parsed and "config" in parsed:
        return tekken(parsed, label, sha, source)
    raise TokenizerFileError(f'{source}: neither a Hugging Face tokenizer.json (no "model") nor a tekken file (no "config" and "vocab")')


_MERGES = b'"merges": ['


def read_json(data: bytes, sha: str):
    """``json.loads(data)``, with the merges of a file written as ``tokenizers`` writes one (indented,
    a ``[left, right]`` pair over four lines) read as two lists of texts (a ``MergePairs``).

    Half a million two-item lists cost Gemma 3's load ~0.2 s more than their texts: the garbage
    collector walks them again and again while they are made. So the merges' array is cut out of
    the bytes; each pair's ``],`` and ``[`` lines, at the pairs' indentation, become ``,0,``; the
    result is one JSON list of texts with a 0 between pairs, and the rest of the file is read with a
    string in the array's place. Every step is checked, and anything else takes ``json.loads``:

    - the key is on a line of its own, after spaces only, so it is a key (a JSON text holds no raw
      line break) and the array after it its value; the array must read as one JSON value that
      ends on the file's last line holding the key's indentation and ``]``;
    - a line break begins each replaced text, so its brackets and comma are the file's own: each
      replacement joins two neighbouring arrays with a 0 between them;
    - the texts read must be n pairs with their n - 1 zeros exactly: with as many replacements as
      zeros, every third item a number and every other one a text, no pair can have had more or
      fewer than two items;
    - the string put in the array's place names the file's SHA-256 (no file can hold its own) and
      must come back as ``$.model.merges``.
    """
    at = data.find(_MERGES)
    if at < 0:
        return json.loads(data)
    line = data.rfind(b"\n", 0, at) + 1
    indent = data[line:at]
    start = at + len(_MERGES) - 1
    end = data.rfind(b"\n" + indent + b"]", start) + 1 + len(indent)  # (the last: merges end the file)
    pair = data[start : start + 2 + len(indent) + 8]  # "[\n" + the pairs' indentation + "[\n"
    inner = pair[2:].partition(b"[")[0]
    if (
        indent.strip(b" ")
        or end <= len(indent)
        or not pair.startswith(b"[\n" + indent)
        or inner.strip(b" ")
        or not pair.startswith(b"[\n" + inner + b"[\n")
    ):
        return json.loads(data)
    between = b"\n" + inner + b"],\n" + inner + b"[\n"
    span = data[start : end + 1]
    joined = span.replace(between, b",0,\n")
    joins = (len(span) - len(joined)) // (len(between) - 4)
    try:
        outer = json.loads(joined)
    except ValueError:
        return json.loads(data)
    items = outer[0] if type(outer) is list and len(outer) == 1 and type(outer[0]) is list else []
    lefts, rights, zeros = items[0::3], items[1::3], items[2::3]
    if (
        len(items) != 3 * joins + 2
        or set(map(type, lefts)) != {str}
        or set(map(type, rights)) != {str}
        or not set(map(type, zeros)) <= {int}
    ):
        return json.loads(data)
    mark = "merges of " + sha
    try:
        parsed = json.loads(data[:start] + json.dumps(mark).encode() + data[end + 1 :])
    except ValueError:  # (the error json.loads gives names its place in the file's own bytes)
        return json.loads(data)
    model = parsed.get("model") if type(parsed) is dict else None
    if type(model) is not dict or model.get("merges") != mark:
        return json.loads(data)
    model["merges"] = MergePairs(lefts, rights)
    return parsed


def load_tokenizer(path, name: str | None = None) -> Tokenizer:
    """The tokenizer in the file at ``path`` (a tokenizer.json, a tekken JSON file or a GGUF file).

    Raises ``TokenizerFileError`` (a ``ValueError``) naming the path and what is wrong. A GGUF file's
    header is read alone (never its weights).
    """
    import os

    if not isinstance(path, (str, os.PathLike)) or isinstance(os.fspath(path), bytes):
        raise ArgumentTypeError(f"path must be a file name (a str or a path), got {type(path).__name__}", "path", path)
    where = os.fspath(path)
    if not where:
        raise ArgumentError("path must be a file name, got an empty one", "path", path)
    try:
        with open(where, "rb") as handle:
            head = handle.read(4)
            if head == b"GGUF":
                handle.seek(0)
                return read_gguf_header(handle, where, name or where)
            handle.seek(0)
            data = read_capped(handle, MAX_FILE_BYTES)
    except OSError as error:
        raise TokenizerFileError(f"{where}: cannot read it: {error.strerror or error}") from None
    except TooLarge as error:
        raise TokenizerFileError(f"{where}: {error}, not a tokenizer file") from None
    return from_bytes(data, where, name)
