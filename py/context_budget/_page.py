"""What the web page asks Python besides checking and formatting: which rank files an input needs,
and the token view. JSON text in and out, so the worker only moves strings and bytes."""

from __future__ import annotations

import json

from . import _strict_json
from .tokenizers import EXACT, TokenizerUnavailable, resolve
from .tokenizers.models import MODEL_ENCODINGS, PREFIX_ENCODINGS
from .tokenizers import exact as _tokenizer
from .tokenizers.estimate import estimate_tokens


# How the model names that count with an exact tokenizer begin (a cheap look at the text).
_MODEL_STARTS = tuple(sorted({f'"{name[:6]}' for name in MODEL_ENCODINGS} | {f'"{prefix[:6]}' for prefix, _ in PREFIX_ENCODINGS}))


def tokenizers_needed(text: str) -> list[str]:
    """The exact tokenizers an input names (``tokenizer``, or ``counter`` in passages) not loaded yet.

    The ``messages`` mode counts with o200k_base when it names none. Unparsable text needs
    nothing: the check reports the syntax error without counting. The text is parsed only
    when it could name a tokenizer that is not loaded (the check parses it anyway).
    """
    # The names the text could mean (a cheap look before parsing it all a second time); a
    # JSON escape (\u) could spell any of them.
    if "\\u" not in text:
        could = [name for name in EXACT if name in text or (name == "o200k_base" and '"messages"' in text)
                 or any(start in text for start in _MODEL_STARTS)]  # a model name counts with one of them
        if all(_tokenizer.ENCODINGS[name].loaded for name in could):
            return []
    try:
        data = _strict_json.loads(text)  # refuses deep nesting before parsing, which crashes Pyodide's parser
    except _strict_json.JSONInputError:
        return []
    if not isinstance(data, dict):
        return []
    named = [resolve(data.get("tokenizer")), resolve(data.get("counter"))]  # a model name (gpt-4o) is its encoding
    if data.get("mode") == "messages" and "tokenizer" not in data:
        named.append("o200k_base")
    return [name for name in EXACT if name in named and not _tokenizer.ENCODINGS[name].loaded]


def provide_ranks(name: str, data: bytes) -> str:
    """Load a fetched rank file (its SHA-256 is checked); "" when it is good, else the one-line reason."""
    if hasattr(data, "to_bytes"):  # a JavaScript Uint8Array, as Pyodide passes it
        data = data.to_bytes()
    try:
        _tokenizer.ENCODINGS[name].load_bytes(data)
    except TokenizerUnavailable as error:
        return str(error)
    return ""


def token_view(text: str, tokenizer: str) -> str:
    """``{tokenizer, count, estimate, segments: [{text, tokens, ids}]}``: the text cut at its token boundaries.

    A token can end inside a character (a CJK character or an emoji is often two or three tokens);
    such tokens are joined into one segment that says how many tokens it holds, so every segment
    is readable text and the segments' ``tokens`` add up to ``count``. ``ids`` are the tokens'
    ids (their ranks in the tokenizer's file), as a model receives them.
    """
    if tokenizer not in _tokenizer.ENCODINGS:
        raise ValueError(f"the token view needs o200k_base or cl100k_base, got {tokenizer!r}")
    encoding = _tokenizer.ENCODINGS[tokenizer]
    ranks = encoding.ranks
    segments: list[dict] = []
    pending, ids = b"", []
    for token in encoding.tokens(text):
        pending += token
        ids.append(ranks[token])
        try:
            piece = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue
        segments.append({"text": piece, "tokens": len(ids), "ids": ids})
        pending, ids = b"", []
    if pending:  # only text with lone surrogates (counted as U+FFFD) can leave bytes here
        segments.append({"text": pending.decode("utf-8", "replace"), "tokens": len(ids), "ids": ids})
    count = sum(segment["tokens"] for segment in segments)
    return json.dumps({"tokenizer": tokenizer, "count": count, "estimate": estimate_tokens(text), "segments": segments})


def count_texts(texts_json: str, tokenizer: str) -> str:
    """The counts of a JSON list of texts, as a JSON list (the page's tests compare them with tiktoken's)."""
    count = _tokenizer.ENCODINGS[tokenizer].count
    return json.dumps([count(text) for text in json.loads(texts_json)])
