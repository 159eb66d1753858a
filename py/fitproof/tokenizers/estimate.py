"""The token estimate of seed 001, the C# refund-assistant pipeline mode ``blocks`` adapts
(docs/contract.md, "Where the modes come from"), shared by the ``blocks`` and ``passages`` modes.

A heuristic, not a model tokenizer: 0 for blank text; otherwise, on the trimmed text,
max(1, max(ceil(chars / 4), ceil(words * 1.2)) + newlines), where chars counts UTF-16
code units (as .NET's ``string.Length``), words are maximal runs of non-whitespace and
newlines counts ``\\n``. Whitespace is JavaScript's (see ``_values.JS_WHITESPACE``), the
same set that decides blank ids, so one definition holds across the project.
"""

from __future__ import annotations

import math
import re

from .._base.values import JS_WHITESPACE

WORD = re.compile(f"[^{re.escape(JS_WHITESPACE)}]+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_length(text: str) -> int:
    """Code units: one per character, two for a character outside the Basic Multilingual Plane."""
    return len(text) + len(_ASTRAL.findall(text)) if not text.isascii() else len(text)


# Each ASCII byte as 0 (JavaScript whitespace) or 1 (part of a word).
_IS_WORD_BYTE = bytes(0 if chr(byte) in JS_WHITESPACE else 1 for byte in range(128)) + bytes(128)


def word_count(text: str) -> int:
    """Maximal runs of characters other than JavaScript's whitespace.

    ASCII text (the common case) is counted in C without making a string per word: as
    bytes of 0 (whitespace) and 1, a word starts at the first byte or after each 0, 1.
    """
    if text.isascii():
        marks = text.encode("ascii").translate(_IS_WORD_BYTE)
        return marks.count(b"\x00\x01") + (marks[:1] == b"\x01")
    return len(WORD.findall(text))


def estimate_tokens(text: str) -> int:
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        return 0
    return estimate_from_stats(utf16_length(trimmed), word_count(trimmed), trimmed.count("\n"))


def estimate_from_stats(units: int, words: int, newlines: int) -> int:
    """The estimate of a trimmed, non-blank text from its code units, words and newlines."""
    by_characters = -(-units // 4)
    by_words = math.ceil(words * 1.2)  # the same double arithmetic as C#'s Math.Ceiling
    return max(1, max(by_characters, by_words) + newlines)
