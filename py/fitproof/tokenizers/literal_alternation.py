"""A split pattern that is only literal alternatives (``the|of|and|...``, ten thousand of them), run
in time independent of their number: ``re`` tries each alternative in turn at each place.

The matches are ``re``'s (and Oniguruma's): scanning left to right, at each place the first
alternative *in the pattern's order* that matches there wins (not the longest), then the scan goes
on after it. The alternatives that begin at a place are found through ``PieceIndex`` (a walk of
their short prefixes, then their heads): each place costs the walk, not the count. ``regex.py``
makes one when every alternative is a run of characters that each have a code of their own.
"""

from __future__ import annotations

import sys
from typing import Callable, Iterator

from .._base.errors import TokenizerFileError
from .piece_index import PieceIndex

MIN_ALTERNATIVES = 32  # fewer: re's own alternation is as quick


class LiteralMatch:
    """What ``finditer`` yields: the span of one match, as ``re.Match`` gives it."""

    __slots__ = ("_start", "_end")

    def __init__(self, start: int, end: int) -> None:
        self._start, self._end = start, end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end


class LiteralAlternation:
    """``finditer`` over a string as ``re.compile("|".join(map(re.escape, literals))).finditer``
    finds (the literals non-empty)."""

    def __init__(self, literals: list[str]) -> None:
        self.order: dict[str, int] = {}
        for index, literal in enumerate(literals):
            self.order.setdefault(literal, index)  # a repeated literal: its first place is its rank
        self.index = PieceIndex(self.order, "<pattern>", "the pattern's literal alternatives")  # (TooWide: TokenizerFileError)
        self.short = self.index.short

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[LiteralMatch]:
        text = string[pos:endpos] if pos or endpos < len(string) else string
        order, prefixes, longer, short = self.order, self.index.prefixes, self.index.longer, self.short
        n = len(text)
        at = 0
        while at < n:
            best = best_end = -1
            end = at
            limit = at + short if at + short < n else n
            while end < limit:
                end += 1
                piece = text[at:end]
                rank = order.get(piece)
                if rank is not None and (best < 0 or rank < best):
                    best, best_end = rank, end
                if piece not in prefixes:
                    break
            else:
                if end == at + short:
                    for end in longer(text, at, order):
                        rank = order[text[at:end]]
                        if best < 0 or rank < best:
                            best, best_end = rank, end
            if best < 0:
                at += 1
            else:
                yield LiteralMatch(pos + at, pos + best_end)
                at = best_end


def literal_alternation(parts: list, codes_of: Callable[[tuple], list[str]]) -> LiteralAlternation | None:
    """The matcher for a parsed pattern (``regex._Parser``'s parts; ``codes_of``: an atom's codes) of
    alternatives that are each a run of atoms of one code, optionally in one group; None when ``re``
    should run it (another pattern, few alternatives, an empty one, too many lengths under one head)."""
    if len(parts) >= 2 and parts[0] in ("(", "(?:") and parts[-1] == ")":
        parts = parts[1:-1]
    alternatives: list[list[str]] = [[]]
    for part in parts:
        if part == "|":
            alternatives.append([])
            continue
        codes = codes_of(part) if isinstance(part, tuple) and len(part) == 2 else []
        if len(codes) != 1:
            return None
        alternatives[-1].append(codes[0])
    if len(alternatives) < MIN_ALTERNATIVES or any(not codes for codes in alternatives):
        return None
    try:
        return LiteralAlternation(["".join(codes) for codes in alternatives])
    except TokenizerFileError:
        return None
