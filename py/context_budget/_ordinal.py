"""Ordinal id order: the order of UTF-16 code units.

This is the order JavaScript's ``<`` and .NET's ``StringComparer.Ordinal`` give, so a
port to either selects the same items. Python compares code points instead; the two
orders differ only when a string holds a character outside the Basic Multilingual
Plane (its UTF-16 form starts with a surrogate, 0xD800..0xDBFF, which sorts below
0xE000..0xFFFF although the code point is larger).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_units(text: str) -> bytes:
    """The UTF-16 code units of ``text`` as big-endian bytes (byte order = unit order).

    ``surrogatepass`` keeps lone surrogates, which are valid JavaScript strings.
    """
    return text.encode("utf-16-be", "surrogatepass")


def ordinal_key_for(ids: Iterable[str]) -> Callable[[str], object]:
    """A sort key giving ordinal order for every id in ``ids``.

    When no id holds an astral character, code point order already is code unit order
    and the id itself is the cheapest key; otherwise every id is encoded, so all keys
    of one sort have the same type.
    """
    if any(_ASTRAL.search(item) for item in ids):
        return utf16_units
    return _identity


def _identity(text: str) -> str:
    return text
