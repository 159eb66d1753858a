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

TOKENIZERS = EXACT + ("estimate",)


def check_name(tokenizer: object) -> str:
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; known: {', '.join(TOKENIZERS)}")
    return tokenizer


def count_tokens(text: str, tokenizer: str = "o200k_base") -> int:
    """The number of tokens in ``text``: exact for ``o200k_base`` and ``cl100k_base``.

    ``estimate`` is the heuristic of the ``blocks`` mode (seed 001). Raises ``ValueError`` for an
    unknown name or a non-string text, and ``TokenizerUnavailable`` (a ``ValueError``) when the
    rank file is missing or not the published one.
    """
    check_name(tokenizer)
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    if tokenizer == "estimate":
        return estimate_tokens(text)
    return exact.ENCODINGS[tokenizer].count(text)


def read_tokenizer(value: object, allowed: tuple[str, ...] = TOKENIZERS) -> str:
    """A tokenizer name from an input, its rank file loaded: raises ``Invalid`` (a one-line reason) otherwise."""
    if not isinstance(value, str) or value not in allowed:
        guess = closest_name(value, allowed) if isinstance(value, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        raise Invalid(f"expected one of {', '.join(allowed)}, got {preview(value)}{hint}")
    if value in exact.ENCODINGS:
        try:
            exact.ENCODINGS[value].load()
        except TokenizerUnavailable as error:
            raise Unavailable(str(error)) from None
    return value


def counter(tokenizer: str) -> Callable[[str], int]:
    """``text -> count`` for a known tokenizer name (its rank file already loaded by ``read_tokenizer``)."""
    return estimate_tokens if tokenizer == "estimate" else exact.ENCODINGS[tokenizer].count


__all__ = [
    "TOKENIZERS", "EXACT", "ENCODINGS", "RANK_FILES", "TokenizerUnavailable",
    "check_name", "count_tokens", "read_tokenizer", "counter", "estimate_tokens",
]
