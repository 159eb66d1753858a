"""What the command writes, and how: text safe for a terminal, JSON the output can carry,
and the wrappers ``main`` puts around the process's standard output and error."""

from __future__ import annotations

import codecs
import contextlib
import json
import re
from typing import IO

from .._envelope import to_json
from ._exits import OutputFailed

# Control characters (C0, DEL, C1) other than newline and tab: a terminal would act on them.
# Bidirectional controls too (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069): they
# reorder what the terminal shows after them, so that a line reads other than it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` safe for a terminal: no escape sequences or other control characters but newline and tab."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n"))
    return _SURROGATE.sub("\ufffd", text)


def one_line(message: object) -> str:
    """A message as one line a terminal only prints: a file name or a server's words may hold
    line breaks or escape sequences."""
    return " ".join(printable(str(message)).split("\n"))


def is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def writes_utf8(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None)
    if encoding is None:  # an in-memory stream: text, no encoding
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def json_line(value: object, stream: IO[str], indent: int | None = None) -> str:
    # JSON escapes (\u00e9) where the output cannot carry UTF-8 (PYTHONIOENCODING=ascii, a Latin-1 locale).
    return to_json(value, indent, ascii_only=not writes_utf8(stream)) + "\n"


def write_json(value: object, stream: IO[str], indent: int | None = None) -> None:
    stream.write(json_line(value, stream, indent))


class AsciiJSON:
    """A stream of JSON text for an output that cannot carry UTF-8: every non-ASCII character
    (which JSON allows only inside strings) written as its \\u escape, so each line stays valid JSON."""

    _NON_ASCII = re.compile(r"[^\x00-\x7f]")

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(self._NON_ASCII.sub(lambda match: json.dumps(match.group())[1:-1], text))

    def flush(self) -> None:
        self.stream.flush()


class InPieces:
    """Standard output written in pieces of at most 64 KiB.

    A single large write to a pipe whose reader has gone (``| head -1``) can get a partial
    count back, and CPython's buffered writer then drops the rest without an error, so the
    command would exit 0 with its output cut. Written in pieces, the next piece raises
    BrokenPipeError, as it should.
    """

    PIECE = 1 << 16

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            for start in range(0, len(text), self.PIECE):
                self._stream.write(text[start : start + self.PIECE])
        except BrokenPipeError:
            raise
        except OSError as error:  # a full disk (ENOSPC), an I/O error: not a file the command reads
            raise OutputFailed(error) from None
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputFailed(error) from None

    def __getattr__(self, name: str):  # encoding, isatty, fileno: the stream's own
        return getattr(self._stream, name)


class Unfailing:
    """Standard error as the last place to say anything: a write that fails there (`2>/dev/full`)
    is dropped, so that the command's own exit code stands (the failure made it 1)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError):
            self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
