"""Parsing JSON text strictly: no duplicate keys, no NaN or Infinity, errors with line and column.

The standard parser does the work at full speed; it only lacks positions for the rules
it has no opinion on. When a hook rejects something, a small scanner walks the
(valid up to that point) text again to find where.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

# CPython refuses to convert integers longer than this to and from text (3.11+).
MAX_INTEGER_DIGITS = 4300
# CPython 3.11's parser gives up near 1,000 levels; Pyodide's overflows its stack and
# dies at a few thousand. One limit, well under both, gives every runtime the same answer.
MAX_DEPTH = 512

_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_STRING = re.compile(rb'"[^"]*"')
_PAIR = re.compile(rb"\[\]|\{\}")


class JSONInputError(ValueError):
    """JSON text that cannot be accepted; ``line`` and ``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f" at line {line} column {column}" if line is not None else ""
        super().__init__(f"{message}{where}")
        self.line = line
        self.column = column


class _Rejected(Exception):
    pass


def _object(pairs: list) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Rejected
    return result


def _constant(name: str) -> float:
    raise _Rejected


def _integer(digits: str) -> int:
    if len(digits) > MAX_INTEGER_DIGITS:
        raise _Rejected
    return int(digits)


def decode_utf8(data: bytes) -> str:
    """UTF-8 text, a leading byte order mark dropped; anything else is an error."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JSONInputError(f"input is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    return text[1:] if text.startswith("\ufeff") else text


def nesting_within(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON ``text`` nests arrays and objects at most ``limit`` deep (checked before
    parsing, since too deep a parse can crash the runtime instead of raising).

    Drops escaped backslashes and quotes, keeps only brackets and quotes (a C-level byte
    translate), drops the strings, and peels innermost ``[]``/``{}`` pairs one level per pass. Text
    that is not valid JSON is judged by how deep the parser would go before failing.
    """
    if text.count("[") + text.count("{") <= limit:
        return True
    structure = text.encode("utf-8", "surrogatepass")
    if b"\\" in structure:  # escaped backslashes first, then escaped quotes: neither delimits a string
        structure = structure.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = structure.translate(None, _NOT_STRUCTURE)
    structure = _STRING.sub(b"", structure.replace(b'""', b""))
    levels = 0
    while structure:
        peeled = _PAIR.sub(b"", structure)  # one pass removes exactly the innermost level
        if len(peeled) == len(structure):
            # Unbalanced (not valid JSON): the parser would still descend into what stays open.
            return levels + structure.count(b"[") + structure.count(b"{") <= limit
        levels += 1
        if levels > limit:
            return False
        structure = peeled
    return True


def loads(text: str) -> object:
    if not nesting_within(text):
        raise JSONInputError(f"JSON nests arrays and objects more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant, parse_int=_integer)
    except _Rejected:
        raise _locate(text) from None
    except json.JSONDecodeError as error:
        raise JSONInputError(f"invalid JSON: {error.msg}", error.lineno, error.colno) from None
    except RecursionError:
        raise JSONInputError("JSON nests too deeply to parse") from None


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - text.rfind("\n", 0, index)


def _locate(text: str) -> JSONInputError:
    """Find the first duplicate key, NaN/Infinity or over-long integer in ``text``."""
    objects: list[set | None] = []  # one entry per open container: its keys, or None for an array
    expect_key = False
    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if char == '"':
            value, after = scanstring(text, index + 1)
            if expect_key:
                keys = objects[-1]
                if value in keys:
                    return JSONInputError(f"duplicate key {json.dumps(value)}", *_position(text, index))
                keys.add(value)
                expect_key = False
            index = after
            continue
        if char == "{":
            objects.append(set())
            expect_key = True
        elif char == "[":
            objects.append(None)
        elif char in "}]":
            objects.pop()
        elif char == ",":
            expect_key = bool(objects) and objects[-1] is not None
        elif char in "NI" or (char == "-" and text.startswith("Infinity", index + 1)):
            word = "NaN" if char == "N" else "Infinity"
            return JSONInputError(f"{word} is not a JSON number", *_position(text, index))
        elif char.isdigit():
            start = index
            while index < end and text[index].isdigit():
                index += 1
            if index - start > MAX_INTEGER_DIGITS and (index >= end or text[index] not in ".eE"):
                return JSONInputError(f"integer with more than {MAX_INTEGER_DIGITS} digits", *_position(text, start))
            continue
        index += 1
    return JSONInputError("JSON rejected")
