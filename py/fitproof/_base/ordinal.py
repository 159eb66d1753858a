"""Ordinal id order: the order of UTF-16 code units.

This is the order JavaScript's ``<`` and .NET's ``StringComparer.Ordinal`` give, so a
port to either selects the same items. Python compares code points instead; the two
orders differ only when a string holds a character outside the Basic Multilingual
Plane (its UTF-16 form starts with a surrogate, 0xD800..0xDBFF, which sorts below
0xE000..0xFFFF although the code point is larger).
"""

from __future__ import annotations

import re
from itertools import compress, islice
from operator import eq
from typing import Iterable

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(ids: list[str]) -> bool:
    """Whether any id holds a surrogate code point (a Python string can; JSON text decoded by Python can too)."""
    joined = "".join(ids)
    return not joined.isascii() and _SURROGATE.search(joined) is not None


def identity_key(text: str) -> str:
    """The id as the contract compares it, by UTF-16 code units: "\\ud83d\\ude00" and "😀" are the same id.

    A surrogate pair written as two code points is joined into the one character it encodes;
    lone surrogates stay as they are.
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def utf16_units(text: str) -> bytes:
    """The UTF-16 code units of ``text`` as big-endian bytes (byte order = unit order).

    ``surrogatepass`` keeps lone surrogates, which are valid JavaScript strings.
    """
    return text.encode("utf-16-be", "surrogatepass")


def has_astral(ids: list[str]) -> bool:
    """Whether any id holds a character outside the Basic Multilingual Plane."""
    joined = "".join(ids)
    return not joined.isascii() and _ASTRAL.search(joined) is not None


def ordinal_keys(ids: list[str]) -> list:
    """Sort keys giving ordinal order for ``ids``: the ids themselves unless one is astral."""
    return list(map(utf16_units, ids)) if has_astral(ids) else ids


def ranked_order(ids: list[str], ranks: list, descending: bool = False, positions: Iterable[int] | None = None) -> list[int]:
    """Input positions by rank (highest first when ``descending``), ties by ordinal id.

    One sort by rank (a list's ``__getitem__`` as the key keeps the comparisons in C, and
    floats get CPython's fast float compare), then each run of equal ranks is put in
    ordinal id order: sorting every id first cost more than both steps together, since
    ids share long prefixes and most runs are short.
    ``positions`` is the input order to start from (a permutation, for re-running the rule).
    """
    positions = range(len(ids)) if positions is None else positions
    order = sorted(positions, key=ranks.__getitem__, reverse=descending)
    in_order = list(map(ranks.__getitem__, order))
    # i where the rank at i equals the one before it: each i continues a run of ties.
    ties = list(compress(range(1, len(in_order)), map(eq, in_order, islice(in_order, 1, None))))
    if not ties:
        return order
    keys = ordinal_keys(ids)
    by_id = keys.__getitem__

    def put_in_id_order(start: int, end: int) -> None:
        if end == start + 1:  # most runs are a pair: one comparison, not a sort
            first, second = order[start], order[end]
            if keys[second] < keys[first]:
                order[start], order[end] = second, first
        else:
            order[start : end + 1] = sorted(order[start : end + 1], key=by_id)

    end = ties[0]
    start = end - 1
    for index in islice(ties, 1, None):
        if index != end + 1:  # a new run begins: order the one that ended
            put_in_id_order(start, end)
            start = index - 1
        end = index
    put_in_id_order(start, end)
    return order
