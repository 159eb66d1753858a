"""Unicode NFC on the frozen tables of ``unicode_nfc`` (Unicode 9.0.0, Hugging Face ``tokenizers``' version).

Never the running Python's ``unicodedata``: CPython 3.11 has Unicode 14 and Pyodide 16, and the
reference normalizes as Unicode 9.0 did, so the three would disagree on marks added since. Only the
spans that can change are normalized: a character that is a starter, is not the second half of any
composition and has no decomposition (quick check "yes") is a boundary NFC never moves or joins, so
the text between such characters is normalized piece by piece and everything else is copied.
"""

from __future__ import annotations

import re

_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_L_COUNT, _V_COUNT, _T_COUNT = 19, 21, 28
_N_COUNT = _V_COUNT * _T_COUNT
_S_COUNT = _L_COUNT * _N_COUNT


class _Tables:
    def __init__(self) -> None:
        from . import unicode_nfc as data

        self.combining = {cp: c for first, last, c in data.COMBINING for cp in range(first, last + 1)}
        self.decomposition = data.DECOMPOSITION
        self.compose = {data.DECOMPOSITION[c]: c for c in data.COMPOSITES}
        seconds = {pair[1] for pair in self.compose}
        # Characters that are not NFC boundaries: non-starters, composition seconds, anything that
        # decomposes, and the Hangul vowels and trailing consonants (which compose algorithmically).
        special = set(self.combining) | seconds | set(self.decomposition)
        special |= set(range(_V_BASE, _V_BASE + _V_COUNT)) | set(range(_T_BASE + 1, _T_BASE + _T_COUNT))
        ranges: list[list[int]] = []
        for cp in sorted(special):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
        body = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)
        # One boundary character before the run (it may compose with the run), then the run.
        self.spans = re.compile(f"[^{body}]?[{body}]+", re.DOTALL)


_TABLES: _Tables | None = None


def _tables() -> _Tables:
    global _TABLES  # built once on first use: a memo of constant data, not state a call changes
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES


def _decompose(code_point: int, table: _Tables, out: list[int]) -> None:
    if _S_BASE <= code_point < _S_BASE + _S_COUNT:
        index = code_point - _S_BASE
        out.append(_L_BASE + index // _N_COUNT)
        out.append(_V_BASE + (index % _N_COUNT) // _T_COUNT)
        if index % _T_COUNT:
            out.append(_T_BASE + index % _T_COUNT)
        return
    parts = table.decomposition.get(code_point)
    if parts is None:
        out.append(code_point)
        return
    for part in parts:
        _decompose(part, table, out)


def _nfc_span(span: str, table: _Tables) -> str:
    combining = table.combining
    points: list[int] = []
    for character in span:
        _decompose(ord(character), table, points)
    # Canonical ordering: a stable sort of each run of non-starters by combining class.
    i = 0
    size = len(points)
    while i < size:
        if combining.get(points[i], 0) == 0:
            i += 1
            continue
        j = i
        while j < size and combining.get(points[j], 0) != 0:
            j += 1
        if j - i > 1:
            points[i:j] = sorted(points[i:j], key=lambda cp: combining[cp])
        i = j
    # Canonical composition.
    compose = table.compose
    result: list[int] = []
    starter = -1  # index in result of the last starter
    last_class = -1
    for cp in points:
        cls = combining.get(cp, 0)
        if starter >= 0 and (last_class < cls or (last_class == 0 and len(result) - 1 == starter)):
            first = result[starter]
            composed = None
            if _L_BASE <= first < _L_BASE + _L_COUNT and _V_BASE <= cp < _V_BASE + _V_COUNT:
                composed = _S_BASE + ((first - _L_BASE) * _V_COUNT + cp - _V_BASE) * _T_COUNT
            elif _S_BASE <= first < _S_BASE + _S_COUNT and (first - _S_BASE) % _T_COUNT == 0 and _T_BASE < cp < _T_BASE + _T_COUNT:
                composed = first + cp - _T_BASE
            else:
                composed = compose.get((first, cp))
            if composed is not None:
                result[starter] = composed
                continue
        if cls == 0:
            starter = len(result)
            last_class = 0
        else:
            last_class = cls
        result.append(cp)
    return "".join(map(chr, result))


def nfc(text: str) -> str:
    """``text`` in Normalization Form C, as Unicode 9.0.0 defines it."""
    if text.isascii():
        return text
    table = _tables()
    parts = []
    done = 0
    for match in table.spans.finditer(text):
        start, end = match.span()
        parts.append(text[done:start])
        parts.append(_nfc_span(text[start:end], table))
        done = end
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)
