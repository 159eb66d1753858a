"""Parsing JSON text strictly: no duplicate keys, no NaN or Infinity, errors with line and column.

The standard parser does the work at full speed; it only lacks positions for the rules
it has no opinion on. When a hook rejects something, a small scanner walks the
(valid up to that point) text again to find where.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from json.decoder import scanstring  # type: ignore[attr-defined]  # it is there at run time; typeshed omits it

from .errors import FitproofError

# CPython refuses to convert integers longer than this to and from text (3.11+).
MAX_INTEGER_DIGITS = 4300
# CPython 3.11's parser gives up near 1,000 levels; Pyodide's overflows its stack and
# dies at a few thousand. One limit, well under both, gives every runtime the same answer.
MAX_DEPTH = 512

_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_STRING = re.compile(rb'"[^"]*"')
_DEPTH_STEP = [0] * 256
for _byte in b"[{":
    _DEPTH_STEP[_byte] = 1
for _byte in b"]}":
    _DEPTH_STEP[_byte] = -1


class JSONInputError(FitproofError, ValueError):
    """JSON text that cannot be accepted; ``line`` and ``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, *, after_value: bool = False) -> None:
        where = f" at line {line} column {column}" if line is not None else ""
        super().__init__(f"{message}{where}")
        self.line = line
        self.column = column
        self.after_value = after_value  # a whole JSON value, then more text (a JSONL file, often)

    def within(self, what: str) -> "JSONInputError":
        """The same error, its message first saying which input (``what``) it came from."""
        said = JSONInputError(f"{what}: {self}", after_value=self.after_value)  # the message has the position already
        said.line, said.column = self.line, self.column
        return said


class _Rejected(FitproofError):
    """A value the strict reader refuses (raised inside the parser's hooks, then located)."""


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


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)
_CHECKED_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant, parse_int=_integer)


def decode_utf8(data: bytes) -> str:
    """UTF-8 text, a leading byte order mark dropped; anything else is an error."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # Line and column as for any other error: the column counts the characters before it.
        line_start = data.rfind(b"\n", 0, error.start) + 1
        if line_start == 0 and data.startswith(b"\xef\xbb\xbf"):  # a byte order mark is not a column (it is dropped)
            line_start = 3
        column = len(data[line_start : error.start].decode("utf-8", "replace")) + 1
        raise JSONInputError(
            f"input is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})",
            data.count(b"\n", 0, error.start) + 1,
            column,
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def nesting_within(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON ``text`` nests arrays and objects at most ``limit`` deep (checked before
    parsing, since too deep a parse can crash the runtime instead of raising).

    Drops escaped backslashes and quotes, keeps only brackets and quotes (a C-level byte
    translate), drops the strings, and takes the largest running count of open brackets. Text
    that is not valid JSON is judged by how deep the parser would go before failing.
    """
    if text.count("[") + text.count("{") <= limit:
        return True
    structure = text.encode("utf-8", "surrogatepass")
    if b"\\" in structure:  # escaped backslashes first, then escaped quotes: neither delimits a string
        structure = structure.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = structure.translate(None, _NOT_STRUCTURE)
    structure = _STRING.sub(b"", structure.replace(b'""', b""))
    # The deepest point is the largest running count of openers minus closers: one C-level
    # pass, whatever the depth (peeling one level per pass would be quadratic in it).
    # Unbalanced text (not valid JSON) is judged by how deep the parser would go before failing.
    return max(accumulate(map(_DEPTH_STEP.__getitem__, structure)), default=0) <= limit


def loads(text: str) -> object:
    if not nesting_within(text):
        raise JSONInputError(f"JSON nests arrays and objects more than {MAX_DEPTH} levels deep", *_position(text, _too_deep_at(text)))
    # CPython's int() refuses integers of more than 4,300 digits by default, the same rule
    # as ours: the per-integer hook (a Python call for every integer, a fifth of the parse)
    # is needed only when a program changed that limit.
    decoder = _DECODER if sys.get_int_max_str_digits() == MAX_INTEGER_DIGITS else _CHECKED_DECODER
    try:
        return decoder.decode(text)
    except _Rejected:
        raise _locate(text) from None
    except json.JSONDecodeError as error:
        # The json module's wording and even its positions change between Python versions
        # (3.13 added its own trailing-comma message); the page runs another version than
        # the CLI, so the error is described by our own scan.
        message, index = first_syntax_error(text)
        if message is None:
            raise JSONInputError(f"invalid JSON: {error.msg}", error.lineno, error.colno) from None
        raise JSONInputError(f"invalid JSON: {message}", *_position(text, index), after_value=message is EXTRA_DATA) from None
    except RecursionError:
        raise JSONInputError("JSON nests too deeply to parse") from None
    except ValueError:  # int() refused an over-long integer (JSONDecodeError is caught above)
        raise _locate(text) from None


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_ESCAPES = set('"\\/bfnrtu')
_HEX = set("0123456789abcdefABCDEF")
_CLOSER = {"{": "}", "[": "]"}
# The parser accepts NaN and Infinity (the strict reader rejects them with its own message).
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


EXTRA_DATA = "extra data after the JSON value"


def first_syntax_error(text: str) -> tuple[str | None, int]:
    """The first place where ``text`` is not JSON, and what is wrong there; ``(None, 0)`` if none.

    An iterative scan (no recursion, whatever the nesting), used only after the fast parser
    has failed, so that the message and the position are the same in every Python version.
    """
    stack: list[str] = []
    expect = "value"  # value | first value | key | first key | colon | comma | end
    index, end = 0, len(text)
    while True:
        while index < end and text[index] in " \t\n\r":
            index += 1
        if index == end:
            if expect == "end":
                return None, 0
            return (
                "unexpected end of input"
                if stack or expect != "value"
                else "the input holds no JSON value (it is empty or only whitespace)"
            ), index
        char = text[index]
        if expect == "end":
            return EXTRA_DATA, index
        if expect == "colon":
            if char != ":":
                return "expected ':' after an object key", index
            index, expect = index + 1, "value"
            continue
        if expect == "comma":
            closer = _CLOSER[stack[-1]]
            if char == ",":
                index, expect = index + 1, "key" if stack[-1] == "{" else "value"
            elif char == closer:
                stack.pop()
                index, expect = index + 1, "comma" if stack else "end"
            else:
                return f"expected ',' or '{closer}'", index
            continue
        if expect in ("key", "first key"):
            if char == "}" and expect == "first key":
                stack.pop()
                index, expect = index + 1, "comma" if stack else "end"
            elif char == "}":
                return "trailing comma before '}'", index
            elif char == '"':
                problem, index = _scan_string(text, index)
                if problem:
                    return problem, index
                expect = "colon"
            else:
                return "expected an object key in double quotes", index
            continue
        # a value
        if char == "]" and expect == "first value":
            stack.pop()
            index, expect = index + 1, "comma" if stack else "end"
            continue
        if char in "{[":
            stack.append(char)
            index, expect = index + 1, "first key" if char == "{" else "first value"
            continue
        if char == '"':
            problem, index = _scan_string(text, index)
            if problem:
                return problem, index
        elif text.startswith(_LITERALS, index):
            index += next(len(literal) for literal in _LITERALS if text.startswith(literal, index))
        elif char == "-" or char.isascii() and char.isdigit():
            match = _NUMBER.match(text, index)
            if match is None:
                return "invalid number", index
            index = match.end()
        elif char == "]" and expect == "value":
            return "trailing comma before ']'", index
        else:
            return f"expected a value, found {json.dumps(char)}", index
        expect = "comma" if stack else "end"


def _scan_string(text: str, start: int) -> tuple[str | None, int]:
    """Check the string that opens at ``start``; return a problem and where, or None and the index after it."""
    index, end = start + 1, len(text)
    while index < end:
        char = text[index]
        if char == '"':
            return None, index + 1
        if char == "\\":
            escape = text[index + 1 : index + 2]
            if escape not in _ESCAPES:
                return "invalid escape in a string", index
            if escape == "u" and not (len(text[index + 2 : index + 6]) == 4 and set(text[index + 2 : index + 6]) <= _HEX):
                return "invalid \\u escape in a string", index
            index += 6 if escape == "u" else 2
            continue
        if char < " ":
            return "control character in a string (escape it)", index
        index += 1
    return "unterminated string", start


_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def _too_deep_at(text: str, limit: int = MAX_DEPTH) -> int:
    """Where the bracket that opens level ``limit`` + 1 is (only after nesting_within said no)."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif bracket in "]}":
            depth -= 1
    return 0


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
                assert keys is not None  # a key is expected only inside an object (on the error path only)
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
        elif "0" <= char <= "9":
            start = index
            while index < end and "0" <= text[index] <= "9":
                index += 1
            if index - start > MAX_INTEGER_DIGITS and (index >= end or text[index] not in ".eE"):
                return JSONInputError(f"integer with more than {MAX_INTEGER_DIGITS} digits", *_position(text, start))
            continue
        index += 1
    return JSONInputError("JSON rejected")
