"""Which pieces of a vocabulary begin at a place in a text, in memory linear in the vocabulary: what
Unigram's Viterbi (``sentencepiece_json.Lattice``, ``sentencepiece_model_file``) and the added-token
matcher (``base.AddedTokens``) walk.

The short end is walked character by character through a set of the pieces' proper prefixes of up
to ``SHORT`` characters (most pieces are shorter: one dict lookup per step, as before). A longer
piece is reached through its *heads*: its first 8, 16, 32... characters, each doubling, each naming
the lengths of the pieces that begin with it and end before the next head's length (and whether
longer ones do). So a piece of n characters costs about 2n characters of heads, not every prefix of
it (a 60,000-character piece: 120 KB, not 1.8 GB), and a place in the text costs the walk, then one
lookup per head and per length met.

Past 32 characters, more than ``WIDE`` different lengths under one head would make each place in a
text cost that many lookups: such a vocabulary is refused (``TooWide``), with the head named.
"""

from __future__ import annotations

from typing import Container, Iterable

from .._base.errors import TokenizerFileError

SHORT = 8  # characters walked one by one
WIDE = 32  # lengths under one head, from heads of 32 characters on


class PieceIndex:
    """``prefixes``: the pieces' proper prefixes of up to ``short`` characters; ``longer(text, start,
    pieces)``: the ends of the pieces longer than ``short`` that begin at ``start`` (ascending)."""

    def __init__(self, pieces: Iterable[str], where: str, what: str, short: int = SHORT):
        self.short = short
        prefixes: set[str] = set()
        heads: dict[str, tuple[set[int], list[bool]]] = {}
        for piece in pieces:
            size = len(piece)
            for k in range(1, min(size, short + 1)):
                prefixes.add(piece[:k])
            head = short
            while size > head:
                entry = heads.get(piece[:head])
                if entry is None:
                    entry = heads[piece[:head]] = (set(), [False])
                if size <= 2 * head:
                    entry[0].add(size)
                else:
                    entry[1][0] = True
                head *= 2
        self.prefixes = frozenset(prefixes)
        self.heads: dict[str, tuple[tuple[int, ...], bool]] = {}
        for beginning, (lengths, more) in heads.items():
            if len(beginning) >= 32 and len(lengths) > WIDE:
                raise TokenizerFileError(
                    f"{where}: {what}: {len(lengths)} pieces of different lengths between {len(beginning) + 1} and {2 * len(beginning)} "
                    f"characters begin with the same {len(beginning)} characters {_cut(beginning)} (at most {WIDE} may: each would be "
                    "looked up at every place such text is met)"
                )
            self.heads[beginning] = (tuple(sorted(lengths)), more[0])

    def longer(self, text: str, start: int, pieces: Container[str]) -> list[int]:
        """The ends of the pieces (those in ``pieces``) longer than ``short`` that begin at ``start``."""
        heads, n = self.heads, len(text)
        ends: list[int] = []
        head = self.short
        while start + head < n:
            entry = heads.get(text[start : start + head])
            if entry is None:
                break
            lengths, more = entry
            for length in lengths:
                end = start + length
                if end > n:
                    break
                if text[start:end] in pieces:
                    ends.append(end)
            if not more:
                break
            head *= 2
        return ends


def _cut(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."
