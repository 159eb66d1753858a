"""SentencePiece's precompiled character map (``nmt_nfkc`` and the other built-in normalizations).

The map is a darts-clone double-array trie over UTF-8 bytes, followed by the NUL-terminated
replacement texts its values point into; ``sentencepiece``'s normalizer replaces, at each position,
the longest prefix the trie holds (else copies one character). Every offset read from the file is
checked: a map that points outside itself is refused with the byte where it does, never a traceback.
"""

from __future__ import annotations

import re
import sys
from array import array

from . import graphemes
from .._base.errors import TokenizerFileError


class CharsMap:
    def __init__(self, blob: bytes, where: str, what: str):
        if len(blob) < 4:
            raise TokenizerFileError(f"{where}: {what} is {len(blob)} bytes, too short to hold its trie's size")
        size = int.from_bytes(blob[:4], "little")
        if size % 4 or size > len(blob) - 4 or size == 0:
            raise TokenizerFileError(f"{where}: {what} says its trie is {size:,} bytes in a map of {len(blob):,}")
        units = array("I" if array("I").itemsize == 4 else "L")  # 32-bit units, little-endian in the file
        units.frombytes(blob[4 : 4 + size])
        if sys.byteorder == "big":  # pragma: no cover
            units.byteswap()
        self.units = units
        self.replacements = blob[4 + size :]
        self.where, self.what = where, what
        self._copied = self._runs(*self._inert())

    # Characters that the normalizer copies as they are, in runs found at C speed: those whose first
    # byte starts no rule, and ASCII characters with no rule of their own whose longer rules all go
    # on with a byte of a non-ASCII character (NFKC's letter + combining mark): such a character is
    # copied unless one of those bytes comes next (so characters that begin with them are never
    # inside a run, and a run does not end before one).
    SPACES_APART = True  # sentencepiece collapses spaces one chunk at a time: a space is never in a run

    def _inert(self) -> tuple[list[int], list[list[int]], set[int]]:
        """(the ASCII bytes, the 2-, 3- and 4-byte characters' lead bytes, the followers) of the runs."""
        units = self.units
        root = (units[0] >> 10) << ((units[0] & (1 << 9)) >> 6)  # the trie's root, from unit 0
        count = len(units)
        children = {b: self._child(root, b) for b in range(256)}
        # a byte whose place is outside the trie is walked too (PrecompiledMap refuses the map there)
        starters = {b for b, node in children.items() if node is not None or root ^ b >= count}
        plain, followers = [], set()
        for b in range(0x80):
            if b == 0x20 and self.SPACES_APART:
                continue
            if b not in starters:
                plain.append(b)
                continue
            node = children[b]
            if node is None or (units[root ^ b] >> 8) & 1:  # outside, or a rule of its own (the leaf flag is on the unit its byte labels)
                continue
            after = {c for c in range(256) if self._child(node, c) is not None or node ^ c >= count}
            if min(after, default=0x80) >= 0x80:
                plain.append(b)
                followers |= after
        leads = [
            [b for b in range(first, last + 1) if b not in starters and b not in followers]
            for first, last in ((0xC2, 0xDF), (0xE0, 0xEF), (0xF0, 0xF4))
        ]
        return plain, leads, followers

    @staticmethod
    def _runs(plain: list[int], leads: list[list[int]], followers: set[int]) -> re.Pattern | None:
        """The runs as a regex over the text's UTF-8 bytes (whole characters only), or None."""
        ascii_bytes = "".join(f"\\x{b:02x}" for b in plain)
        parts = [f"[{ascii_bytes}]"] if ascii_bytes else []
        for more, group in enumerate(leads, 1):
            if group:
                parts.append("[" + "".join(f"\\x{b:02x}" for b in group) + f"][\\x80-\\xbf]{{{more}}}")
        ahead = "(?![" + "".join(f"\\x{c:02x}" for c in sorted(followers)) + "])" if followers else ""
        return re.compile(("(?:" + "|".join(parts) + ")+" + ahead).encode("ascii")) if parts else None

    def _child(self, node: int, byte: int) -> int | None:
        """The trie's node under ``node`` for ``byte``, or None."""
        units = self.units
        position = node ^ byte
        if position >= len(units) or units[position] & ((1 << 31) | 0xFF) != byte:
            return None
        return position ^ ((units[position] >> 10) << ((units[position] & (1 << 9)) >> 6))

    def _longest(self, data: bytes, start: int, end: int = -1, first: bool = False) -> tuple[int, int]:
        """(length, value) of the longest rule that ``data[start:]`` starts with, or (0, 0).

        With ``first``, as ``tokenizers``' Precompiled searches ``data[start:end]``: the first rule
        met on the way (the shortest), the walk stopping at a NUL byte, and a node outside the trie
        refused (tokenizers would panic) instead of ending the walk."""
        units = self.units
        count = len(units)
        position = 0
        unit = units[0]
        position ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        best_length = best_value = 0
        for i in range(start, len(data) if end < 0 else end):
            byte = data[i]
            position ^= byte
            if position >= count:
                if first and byte:
                    raise TokenizerFileError(f"{self.where}: {self.what}: a node points past the trie")
                return best_length, best_value
            unit = units[position]
            if unit & ((1 << 31) | 0xFF) != byte or (first and not byte):
                break
            position ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                if position >= count:
                    raise TokenizerFileError(f"{self.where}: {self.what}: a leaf points past the trie")
                best_length, best_value = i + 1 - start, units[position] & ((1 << 31) - 1)
                if first:
                    break
        return best_length, best_value

    def _replacement(self, value: int) -> str:
        end = self.replacements.find(b"\x00", value)
        if end < 0:
            end = len(self.replacements)
        try:
            return self.replacements[value:end].decode("utf-8")
        except UnicodeDecodeError:
            raise TokenizerFileError(f"{self.where}: {self.what}: the rule at {value:,} is not UTF-8") from None

    def chunks(self, text: str) -> list[str]:
        """``text`` as the normalizer cuts and rewrites it: one entry per prefix it consumed."""
        data = text.encode("utf-8")
        result = []
        i = 0
        n = len(data)
        replacements = len(self.replacements)
        copied = self._copied
        while i < n:
            if copied is not None:
                run = copied.match(data, i)
                if run is not None:
                    result.append(data[i : run.end()].decode("utf-8"))
                    i = run.end()
                    continue
            length, value = self._longest(data, i)
            if length == 0 or value >= replacements:
                step = _char_length(data[i])
                result.append(data[i : i + step].decode("utf-8"))
                i += step
            else:
                result.append(self._replacement(value))
                i += length
        return result

    def normalize(self, text: str) -> str:
        return "".join(self.chunks(text))


def _char_length(lead: int) -> int:
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _utf8_length(char: str) -> int:
    code_point = ord(char)
    return 1 if code_point < 0x80 else 2 if code_point < 0x800 else 3 if code_point < 0x10000 else 4


def _code_points(lead: int, more: int) -> tuple[int, int]:
    """The first and last code point whose UTF-8 form starts with ``lead`` and has ``more`` bytes after it."""
    low = (lead & (0x7F >> (more + 1))) << (6 * more)
    return max(low, (0x80, 0x800, 0x10000)[more - 1]), min(low + (1 << (6 * more)) - 1, 0x10FFFF)


class PrecompiledMap(CharsMap):
    """Hugging Face ``tokenizers``' ``Precompiled`` normalizer (a tokenizer.json's copy of the same map).

    ``tokenizers`` (``normalizers/precompiled.rs`` and the crate ``spm_precompiled``) does not replace
    longest prefixes: it cuts the text into extended grapheme clusters (``graphemes.py``), and a
    cluster shorter than 6 UTF-8 bytes that starts with a rule is replaced WHOLE by the first rule
    met on its walk (the shortest prefix that is a rule, whatever of the cluster comes after it);
    otherwise each character alone is replaced by its first rule, or kept. So ``ﬁ`` + U+0301 is
    ``fi`` (the accent is dropped), and NFKC's letter + mark rules apply only within a cluster.
    Runs of characters that no rule can touch are copied at C speed, as ``CharsMap`` copies them
    (spaces included: nothing collapses them here). A rule pointing outside the map, where
    ``tokenizers`` would panic, is refused with a ``TokenizerFileError`` when it is met.
    """

    SPACES_APART = False
    CACHE_LIMIT = 1 << 16
    PIECE_CHARS = 64  # pieces this long or shorter are remembered
    _cuts: re.Pattern | None = None  # after a space, unless a GB9/GB9a character follows (made on first use)

    def __init__(self, blob: bytes, where: str, what: str):
        super().__init__(blob, where, what)
        try:
            self.replacements.decode("utf-8")
        except UnicodeDecodeError as error:  # spm_precompiled refuses the map
            raise TokenizerFileError(f"{where}: {what}: its replacement texts are not UTF-8 (byte {error.start:,} of them)") from None
        self._done: dict[str, str | None] = {}
        self._pieces: dict[str, str] = {}

    @staticmethod
    def _runs(plain: list[int], leads: list[list[int]], followers: set[int]) -> re.Pattern | None:
        """The runs as a regex over the text's characters."""

        def spans(bytes_: list[int] | set[int], more: int) -> str:
            return "".join("\\U%08x-\\U%08x" % _code_points(b, more) for b in sorted(bytes_))

        inside = "".join(f"\\x{b:02x}" for b in plain) + "".join(spans(group, more) for more, group in enumerate(leads, 1))
        if not inside:
            return None
        ahead = "".join(
            spans({b for b in followers if first <= b <= last}, more)
            for more, first, last in ((1, 0xC2, 0xDF), (2, 0xE0, 0xEF), (3, 0xF0, 0xF4))
        )
        return re.compile(f"[{inside}]+" + (f"(?![{ahead}])" if ahead else ""))

    def _first(self, chunk: str) -> str | None:
        """What ``transform`` gives for ``chunk``: the replacement of its first rule, or None."""
        done = self._done
        if chunk in done:
            return done[chunk]
        data = chunk.encode("utf-8")
        length, value = self._longest(data, 0, len(data), first=True)
        if length == 0:
            result = None
        elif value > len(self.replacements):
            raise TokenizerFileError(
                f"{self.where}: {self.what}: a rule points at byte {value:,} of replacement texts that are {len(self.replacements):,} bytes"
            )
        else:
            result = self._replacement(value)
        if len(done) >= self.CACHE_LIMIT:
            done.clear()
        done[chunk] = result
        return result

    def normalize(self, text: str) -> str:
        """The text cut after each space that a cluster surely starts after (no Extend, ZWJ or
        SpacingMark next; no rule's look-back passes a space), each piece normalized once."""
        if self._copied is not None and self._copied.fullmatch(text):
            return text  # nothing the map can touch
        cuts = PrecompiledMap._cuts
        if cuts is None:
            cuts = PrecompiledMap._cuts = re.compile("(?<= )(?=[^" + graphemes.characters_of("exkzs") + "])")
        pieces, short, piece_of = self._pieces, self.PIECE_CHARS, self._normalize
        result = []
        for piece in cuts.split(text):
            done = pieces.get(piece)
            if done is None:
                done = piece_of(piece)
                if len(piece) <= short:
                    if len(pieces) >= self.CACHE_LIMIT:
                        pieces.clear()
                    pieces[piece] = done
            result.append(done)
        return "".join(result)

    def _normalize(self, text: str) -> str:
        copied, first, breaks = self._copied, self._first, graphemes.breaks
        n = len(text)
        result = []
        codes = ""
        i = 0
        while i < n:
            if copied is not None:
                run = copied.match(text, i)
                if run is not None:
                    result.append(run.group())
                    i = run.end()
                    continue
            if not codes:
                codes = graphemes.classes(text)
            if breaks(codes, i):  # a cluster starts here: replaced whole when short and a rule starts it
                end, size = i + 1, _utf8_length(text[i])
                while size < 6 and end < n and not breaks(codes, end):
                    size += _utf8_length(text[end])
                    end += 1
                if size < 6:
                    whole = first(text[i:end])
                    if whole is not None:
                        result.append(whole)
                        i = end
                        continue
            single = first(text[i])
            result.append(text[i] if single is None else single)
            i += 1
        return "".join(result)

    def chunks(self, text: str) -> list[str]:
        return [self.normalize(text)]
