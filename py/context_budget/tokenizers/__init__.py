"""The tokenizers by name: OpenAI's exact ``o200k_base`` and ``cl100k_base`` (``exact``, on the
frozen character classes of ``unicode_classes``) and the ``estimate`` heuristic (``estimate``).

To add a tokenizer: give it a module here with a ``text -> count`` function, add its name to
``TOKENIZERS`` and a branch to ``count_tokens`` and ``counter``; an exact one also needs its
rank file in ``exact.RANK_FILES`` and a pre-tokenizer pattern in ``exact.PATTERNS``.
"""

from __future__ import annotations

from typing import Callable

from .._values import Invalid, Unavailable, closest_name, json_text, preview
from . import exact
from .estimate import estimate_tokens
from .exact import ENCODINGS, EXACT, RANK_FILES, TokenizerUnavailable
from .models import counted_encoding, uncounted_reason

TOKENIZERS = EXACT + ("estimate",)


def resolve(tokenizer: object) -> object:
    """A model name (``gpt-4o``, ``gpt-4o-2024-08-06``; ``models.py``) as its encoding; any other value as it is."""
    return counted_encoding(tokenizer) or tokenizer


def check_name(tokenizer: object) -> str:
    tokenizer = resolve(tokenizer)
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise ValueError(uncounted_reason(tokenizer) or f"unknown tokenizer {tokenizer!r}; known: {', '.join(TOKENIZERS)} or a model name such as gpt-4o")
    return tokenizer


def count_tokens(text: str, tokenizer: str = "o200k_base") -> int:
    """The number of tokens in ``text``: exact for ``o200k_base`` and ``cl100k_base``.

    ``estimate`` is the heuristic of the ``blocks`` mode (seed 001). Raises ``ValueError`` for an
    unknown name or a non-string text, and ``TokenizerUnavailable`` (a ``ValueError``) when the
    rank file is missing or not the published one.
    """
    tokenizer = check_name(tokenizer)
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    if tokenizer == "estimate":
        return estimate_tokens(text)
    return exact.ENCODINGS[tokenizer].count(text)


def read_tokenizer(value: object, allowed: tuple[str, ...] = TOKENIZERS) -> str:
    """A tokenizer name from an input (or a model name, read as its encoding), its rank file loaded:
    raises ``Invalid`` (a one-line reason) otherwise."""
    if counted_encoding(value) in allowed:
        value = counted_encoding(value)
    if not isinstance(value, str) or value not in allowed:
        if uncounted_reason(value):
            raise Invalid(f"{uncounted_reason(value)}; got {preview(value)}")
        guess = closest_name(value, allowed) if isinstance(value, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        models = " or a model name such as gpt-4o" if any(name in EXACT for name in allowed) else ""
        raise Invalid(f"expected one of {', '.join(allowed)}{models}, got {preview(value)}{hint}")
    if value in exact.ENCODINGS:
        try:
            exact.ENCODINGS[value].load()
        except TokenizerUnavailable as error:
            raise Unavailable(str(error)) from None
    return value


def counter(tokenizer: str) -> Callable[[str], int]:
    """``text -> count`` for a known tokenizer name (its rank file already loaded by ``read_tokenizer``)."""
    tokenizer = resolve(tokenizer)  # type: ignore[assignment]
    return estimate_tokens if tokenizer == "estimate" else exact.ENCODINGS[tokenizer].count


__all__ = [
    "TOKENIZERS", "EXACT", "ENCODINGS", "RANK_FILES", "TokenizerUnavailable",
    "check_name", "count_tokens", "read_tokenizer", "counter", "estimate_tokens", "resolve",
]
