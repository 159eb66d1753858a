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
        # Characters whose first byte starts no rule are copied as they are, in runs found at C speed
        # (spaces stay apart: the normalizer collapses them one chunk at a time).
        root = (units[0] >> 10) << ((units[0] & (1 << 9)) >> 6)
        starters = {b for b in range(256) if (root ^ b) < len(units) and units[root ^ b] & ((1 << 31) | 0xFF) == b}
        ascii_bytes = "".join(f"\\x{b:02x}" for b in range(0x80) if b not in starters and b != 0x20)
        leads = "".join(f"\\x{b:02x}" for b in range(0xC2, 0xF5) if b not in starters)
        parts = ([f"[{ascii_bytes}]"] if ascii_bytes else []) + ([f"[{leads}][\\x80-\\xbf]{{1,3}}"] if leads else [])
        self._copied = re.compile(("(?:" + "|".join(parts) + ")+").encode("ascii")) if parts else None

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
