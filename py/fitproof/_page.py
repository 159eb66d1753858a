"""What the web page asks Python besides checking and formatting: which rank files an input needs,
and the token view. JSON text in and out, so the worker only moves strings and bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import _envelope
from ._base import strict_json as _strict_json
from ._base.errors import TokenizerFileError
from .tokenizers import EXACT, TokenizerUnavailable, resolve
from .tokenizers.registry import NAME, RESERVED, TokenizerRegistry, using_tokenizers
from .tokenizers.model_names import MODEL_ENCODINGS, PREFIX_ENCODINGS
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
        could = [
            name
            for name in EXACT
            if name in text or (name == "o200k_base" and '"messages"' in text) or any(start in text for start in _MODEL_STARTS)
        ]  # a model name counts with one of them
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


# The tokenizers the user chose from their own files on this page: the worker's, so they last as
# long as the page is open and are never stored (a kept start-up snapshot is made in another
# Python, before any file is read).
SESSION = TokenizerRegistry()

# Of a GGUF model file, only its start is read: the header (tokenizer and chat template) comes first.
GGUF_HEAD_BYTES = 64 << 20


def check_text(text: str) -> str:
    """The envelope, with the session's tokenizers known by their names in every mode."""
    with using_tokenizers(SESSION):
        return _envelope.check_text(text)


def model_tokenizer_name(file_name: str) -> str:
    """The name a chosen file's tokenizer is known by: its file name without the extension
    (``tokenizer`` and names no input could use become ``model``)."""
    stem = file_name.rsplit("/", 1)[-1]
    for ending in (".json", ".gguf", ".model"):
        if stem.lower().endswith(ending):
            stem = stem[: -len(ending)]
    stem = "-".join(part for part in "".join(c if c.isascii() and (c.isalnum() or c in "_.:-") else " " for c in stem).split())
    if stem.lower() in ("", "tokenizer") or stem in RESERVED or resolve(stem) != stem or not NAME.fullmatch(stem):
        return "model"
    return stem


def load_model_tokenizer(data, file_name: str, size: int = -1) -> str:
    """Read a chosen file's bytes (a tokenizer.json, a tekken file, or a GGUF file's start) and name
    its tokenizer for this page session. JSON ``{ok: true, name, kind, sha256}`` or ``{ok: false,
    error}``, the reason in one line: the page never shows a traceback."""
    if hasattr(data, "to_bytes"):  # a JavaScript Uint8Array, as Pyodide passes it
        data = data.to_bytes()
    from .tokenizers.files import from_bytes

    name = model_tokenizer_name(file_name)
    try:
        tokenizer = from_bytes(data, file_name, name)
    except TokenizerFileError as error:
        message = str(error)
        if data[:4] == b"GGUF" and size > len(data):
            message += f" (the page reads the first {GGUF_HEAD_BYTES >> 20} MiB of a GGUF file; its header is longer)"
        return json.dumps({"ok": False, "error": message})
    except Exception as error:  # a file no loader foresaw: still one line, never a traceback
        return json.dumps({"ok": False, "error": f"{file_name}: not a tokenizer file this page can read ({type(error).__name__})"})
    SESSION.register(name, tokenizer)
    return json.dumps({"ok": True, "name": name, "kind": tokenizer.kind, "sha256": tokenizer.sha256, "file": file_name})


def _model_id(tokenizer):
    """token bytes -> its id in the model's file, or None (an added token the file keeps apart)."""
    by_bytes = getattr(tokenizer, "by_bytes", None)
    if by_bytes is not None:
        return by_bytes.get
    ranks = tokenizer.ranks
    offset = 1000 if tokenizer.kind == "tekken" else 0  # tekken's ids are its ranks after 1,000 control tokens
    from .tokenizers.rank_tokenizer import HARMONY_SPECIALS

    def id_of(token: bytes):
        rank = ranks.get(token)
        if rank is not None:
            return rank + offset
        return HARMONY_SPECIALS.get(token.decode("utf-8", "replace"))

    return id_of


def token_view(text: str, tokenizer: str) -> str:
    """``{tokenizer, count, estimate, segments: [{text, tokens, ids}]}``: the text cut at its token boundaries.

    A token can end inside a character (a CJK character or an emoji is often two or three tokens);
    such tokens are joined into one segment that says how many tokens it holds, so every segment
    is readable text and the segments' ``tokens`` add up to ``count``. ``ids`` are the tokens'
    ids (their ranks in the tokenizer's file), as a model receives them; a model file's added
    token the file keeps apart from its vocabulary has the id ``null``. ``tokenizer`` is
    o200k_base, cl100k_base or a name of this session's tokenizers (``sha256`` then says which file).
    A chosen file that cannot count the text (its character map points outside itself there)
    gives ``{tokenizer, error}``.
    """
    model = SESSION.get(tokenizer)
    if model is not None:
        try:
            tokens, id_of = model.tokens(text), _model_id(model)
        except TokenizerFileError as error:  # a file found broken only while it counted this text: one line
            return json.dumps({"tokenizer": tokenizer, "error": f"This file cannot count this text: {error}"})
    elif tokenizer in _tokenizer.ENCODINGS:
        encoding = _tokenizer.ENCODINGS[tokenizer]
        tokens, id_of = encoding.tokens(text), encoding.ranks.__getitem__
    else:
        raise ValueError(f"the token view needs o200k_base, cl100k_base or a tokenizer file chosen on this page, got {tokenizer!r}")
    segments: list[dict] = []
    pending, ids = b"", []
    for token in tokens:
        pending += token
        ids.append(id_of(token))
        try:
            piece = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue
        segments.append({"text": piece, "tokens": len(ids), "ids": ids})
        pending, ids = b"", []
    if pending:  # only text with lone surrogates (counted as U+FFFD) can leave bytes here
        segments.append({"text": pending.decode("utf-8", "replace"), "tokens": len(ids), "ids": ids})
    count = sum(segment["tokens"] for segment in segments)
    answer = {"tokenizer": tokenizer, "count": count, "estimate": estimate_tokens(text), "segments": segments}
    if model is not None:
        answer["sha256"] = model.sha256
    return json.dumps(answer)


def count_texts(texts_json: str, tokenizer: str) -> str:
    """The counts of a JSON list of texts, as a JSON list (the page's tests compare them with tiktoken's)."""
    count = _tokenizer.ENCODINGS[tokenizer].count
    return json.dumps([count(text) for text in json.loads(texts_json)])


def take_away(text: str, description: str) -> str:
    """ "Take this with you": the input ``text`` as a fixture case (``{description, input,
    expect}``, for the pytest plugin and ``fitproof fixtures``) and as the Python call that
    gives the same report. ``expect`` holds what ``fixtures new`` writes by default: ``pass``, the
    mode's list (or the errors) and a claim's verdict, as this report has them. JSON text out:
    ``{ok, case, python, expect}``, or ``{ok: false, error}`` for text that is not JSON."""
    from ._evaluation.claims import LIST_KEY
    from ._evaluation.evaluate import evaluate

    try:
        document = _strict_json.loads(text)
    except _strict_json.JSONInputError as error:
        return _envelope.to_json(_envelope.unreadable(error), ascii_only=True)
    with using_tokenizers(SESSION):
        report = evaluate(document)
    expect: dict = {"pass": report["pass"]}
    checks = [f'assert report["pass"] is {report["pass"]}']
    by_name: Mapping[str, Any] = report  # read by the mode's word for its kept list
    key = "errors" if "errors" in report else LIST_KEY.get(str(report.get("mode")))
    if key is not None and key in by_name:
        expect[key] = by_name[key]
        checks.append(f'assert report["{key}"] == {by_name[key]!r}')
    if "claim" in report:
        expect["claim"] = {"pass": report["claim"]["pass"]}
        checks.append(f'assert report["claim"]["pass"] is {report["claim"]["pass"]}')
    case = {"description": description, "input": document, "expect": expect}
    written = _envelope.to_json(document, indent=2)
    literal = f'r"""\n{written}\n"""' if '"""' not in written and "\r" not in written else repr(written)
    program = "\n".join(
        [
            "import json",
            "",
            "from fitproof import evaluate",
            "",
            f"report = evaluate(json.loads({literal}))",
            *checks,
            'print(report["summary"])',
            "",
        ]
    )
    return _envelope.to_json(
        {"ok": True, "case": _envelope.to_json(case, indent=2) + "\n", "python": program, "summary": report["summary"]}, ascii_only=True
    )
