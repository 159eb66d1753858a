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

from .model import TokenizerFileError


class CharsMap:
    def __init__(self, blob: bytes, where: str, what: str):
        if len(blob) < 4:
            raise TokenizerFileError(f"{where}: {what} is {len(blob)} bytes, too short to hold its trie's size")
        size = int.from_bytes(blob[:4], "little")
        if size % 4 or size > len(blob) - 4 or size == 0:
            raise TokenizerFileError(f"{where}: {what} says its trie is {size:,} bytes in a map of {len(blob):,}")
        units = array("I" if array("I").itemsize == 4 else "L")  # 32-bit units, little-endian in the file
        units.frombytes(blob[4:4 + size])
        if sys.byteorder == "big":  # pragma: no cover
            units.byteswap()
        self.units = units
        self.replacements = blob[4 + size:]
        self.where, self.what = where, what
        # Characters that the normalizer copies as they are, in runs found at C speed: those whose
        # first byte starts no rule, and ASCII characters with no rule of their own whose longer
        # rules all go on with a byte of a non-ASCII character (NFKC's letter + combining mark):
        # such a character is copied unless one of those bytes comes next (so characters that begin
        # with them are never inside a run, and a run does not end before one). Spaces stay apart
        # (the normalizer collapses them one chunk at a time).
        root = (units[0] >> 10) << ((units[0] & (1 << 9)) >> 6)  # the trie's root, from unit 0
        children = {b: self._child(root, b) for b in range(256)}
        starters = {b for b, node in children.items() if node is not None}
        plain, followers = [], set()
        for b in range(0x80):
            node = children[b]
            if b == 0x20:
                continue
            if node is None:
                plain.append(b)
                continue
            if (units[root ^ b] >> 8) & 1:  # a rule of its own (the leaf flag is on the unit its byte labels)
                continue
            after = {c for c in range(256) if self._child(node, c) is not None}
            if min(after, default=0x80) >= 0x80:
                plain.append(b)
                followers |= after
        ascii_bytes = "".join(f"\\x{b:02x}" for b in plain)
        parts = [f"[{ascii_bytes}]"] if ascii_bytes else []
        for first, last, more in ((0xC2, 0xDF, 1), (0xE0, 0xEF, 2), (0xF0, 0xF4, 3)):  # whole characters only
            leads = "".join(f"\\x{b:02x}" for b in range(first, last + 1) if b not in starters and b not in followers)
            if leads:
                parts.append(f"[{leads}][\\x80-\\xbf]{{{more}}}")
        ahead = "(?![" + "".join(f"\\x{c:02x}" for c in sorted(followers)) + "])" if followers else ""
        self._copied = re.compile(("(?:" + "|".join(parts) + ")+" + ahead).encode("ascii")) if parts else None

    def _child(self, node: int, byte: int) -> int | None:
        """The trie's node under ``node`` for ``byte``, or None."""
        units = self.units
        position = node ^ byte
        if position >= len(units) or units[position] & ((1 << 31) | 0xFF) != byte:
            return None
        return position ^ ((units[position] >> 10) << ((units[position] & (1 << 9)) >> 6))

    def _longest(self, data: bytes, start: int) -> tuple[int, int]:
        """(length, value) of the longest rule that ``data[start:]`` starts with, or (0, 0)."""
        units = self.units
        count = len(units)
        position = 0
        unit = units[0]
        position ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        best_length = best_value = 0
        for i in range(start, len(data)):
            byte = data[i]
            position ^= byte
            if position >= count:
                return best_length, best_value
            unit = units[position]
            if unit & ((1 << 31) | 0xFF) != byte:
                break
            position ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                if position >= count:
                    raise TokenizerFileError(f"{self.where}: {self.what}: a leaf points past the trie")
                best_length, best_value = i + 1 - start, units[position] & ((1 << 31) - 1)
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
                    result.append(data[i:run.end()].decode("utf-8"))
                    i = run.end()
                    continue
            length, value = self._longest(data, i)
            if length == 0 or value >= replacements:
                step = _char_length(data[i])
                result.append(data[i:i + step].decode("utf-8"))
                i += step
            else:
                result.append(self._replacement(value))
                i += length
        return result

    def normalize(self, text: str) -> str:
        return "".join(self.chunks(text))


def _char_length(lead: int) -> int:
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
