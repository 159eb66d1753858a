"""Reading a command's input: a file or standard input, whole but capped, or line by line."""

from __future__ import annotations

from typing import IO

from .._base import strict_json as _strict_json
from .._base.capped import TooLarge, read_capped
from ._exits import UsageError
from ._streams import is_terminal

# One JSON document (or JSONL line) is read whole; past this it is refused instead of
# filling memory (`check /dev/zero`, `cat /dev/urandom | check`). Bigger inputs are for --jsonl.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def default_input(stdin: IO, command: str, example: str) -> str:
    """No FILE: standard input when something is piped in; a terminal must ask for it with ``-``."""
    if is_terminal(stdin):
        raise UsageError(
            f"{command}: no FILE given and standard input is a terminal. Give a file "
            f"({example}), pipe {'text' if command == 'count' else 'JSON'} in, "
            "or use - to type it"
        )
    return "-"


def _standard_input(stdin: IO | None) -> IO:
    # A closed descriptor 0 (`<&-`) leaves sys.stdin None.
    if stdin is None:
        raise UsageError("cannot read standard input: it is closed")
    return getattr(stdin, "buffer", stdin)


def _named(name: str) -> str:
    return "standard input" if name == "-" else name


def read_input(name: str, stdin: IO, too_large_hint: str = "split it into one input per line for check --jsonl") -> bytes:
    """The bytes of file ``name`` (``-``: standard input), at most MAX_INPUT_BYTES."""
    try:
        return read_capped(_Encoded(_standard_input(stdin)) if name == "-" else name, MAX_INPUT_BYTES)
    except OSError as error:
        raise UsageError(f"cannot read {_named(name)}: {error.strerror or error}") from None
    except TooLarge as error:
        raise UsageError(f"cannot read {_named(name)}: {error} ({too_large_hint})") from None


class _Encoded:
    """Standard input as bytes: a binary stream as it is, a text one (a test's StringIO) as the
    UTF-8 of its text, lone surrogates kept."""

    def __init__(self, stream: IO):
        self.stream = stream

    def read(self, size: int) -> bytes:
        data = self.stream.read(size)
        return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data


def read_json_file(name: str, stdin: IO, what: str, too_large_hint: str | None = None) -> object:
    """The JSON value in a file (or standard input for ``-``). A file that cannot be read is
    UsageError; text that is not acceptable JSON or not UTF-8 is JSONInputError, its message
    saying which input (``what``) it came from."""
    try:
        data = read_input(name, stdin) if too_large_hint is None else read_input(name, stdin, too_large_hint)
        return _strict_json.loads(_strict_json.decode_utf8(data))
    except _strict_json.JSONInputError as error:
        raise error.within(f"{what} {_named(name)}") from None


def open_lines(name: str, stdin: IO):
    """Byte lines of a file or of standard input, read as they come (each at most MAX_INPUT_BYTES)."""
    if name == "-":
        source = _standard_input(stdin)
    else:
        try:
            source = open(name, "rb")
        except OSError as error:
            raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        for number, line in enumerate(_bounded_lines(source), 1):
            if len(line) > MAX_INPUT_BYTES:  # it may never end (/dev/zero): stop here, what came before is written
                raise UsageError(
                    f"cannot read line {number} of {_named(name)}: larger than {MAX_INPUT_BYTES >> 20} MiB (each input must be smaller)"
                )
            yield line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    except OSError as error:
        raise UsageError(f"cannot read {_named(name)}: {error.strerror or error}") from None
    finally:
        if name != "-":
            source.close()


def _bounded_lines(source):
    """The lines of ``source``, none read further than MAX_INPUT_BYTES + 1 (a line without end stops there)."""
    if not hasattr(source, "readline"):  # any iterable of lines
        yield from source
        return
    while line := source.readline(MAX_INPUT_BYTES + 1):
        yield line
