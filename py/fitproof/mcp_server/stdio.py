"""The MCP server on standard input and output: one JSON-RPC message a line, in UTF-8.

A thread reads standard input and cuts it into lines, so that a ``notifications/cancelled``
is seen while a call runs: the cancelled request's answer is then never written (nor is a
request's that was cancelled before its turn). A line over ``MAX_MESSAGE_BYTES`` is not
held: its first 64 KiB are kept to find its id, the rest is skipped to its newline, and it
is answered with an error. The calls run one at a time, in order, on the main thread; at
most ``MAX_WAITING`` lines wait their turn, so memory stays bounded however fast a client sends.

Standard output carries protocol messages and nothing else: while the server runs, file
descriptor 1 points at standard error (what anything else might print goes there), and the
messages go to a copy of the original; when standard error is the same pipe or file, what
strays and the log lines go nowhere. The end: standard input at its end (the client closed
it or is gone), exit 0, after the answers to the requests read before it; the client gone
while an answer is written, exit 0; another failure to write (a full disk), one line on standard
error, exit 2; Ctrl+C, exit 130, quietly; standard input or output closed from the start, one
line on standard error, exit 2.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import IO, TYPE_CHECKING, Callable

from .protocol import INTERNAL_ERROR, MAX_MESSAGE_BYTES, ID_SEARCH_BYTES, PARSE_ERROR, Session, encode, error, parse

if TYPE_CHECKING:
    from ..tokenizers import TokenizerRegistry

CHUNK = 1 << 16
MAX_WAITING = 16  # lines read ahead of the call that runs; then reading waits (memory stays bounded)
MAX_CANCELLED = 1024  # cancellations remembered for requests not yet answered (or never seen)
_END = object()

TERMINAL_HINT = (
    "fitproof mcp: this is a Model Context Protocol server for a client to start (Claude Desktop, "
    "VS Code, Cursor: docs/cli.md shows how); it reads JSON-RPC messages, one per line, on standard input. "
    "Ctrl+D or Ctrl+C ends it.\n"
)


class _Cancellations:
    """Request ids a client cancelled, shared by the reader thread and the calls."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, object], None] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(request_id: object) -> tuple[str, object]:
        return (type(request_id).__name__, request_id)

    def add(self, request_id: object) -> None:
        with self._lock:
            self._ids[self._key(request_id)] = None
            if len(self._ids) > MAX_CANCELLED:
                del self._ids[next(iter(self._ids))]

    def take(self, request_id: object) -> bool:
        """Whether ``request_id`` was cancelled (and forget it: an id may be used again later)."""
        with self._lock:
            return self._ids.pop(self._key(request_id), 0) is None


def _cancelled_id(line: bytes) -> tuple[bool, object]:
    """(True, its requestId) when ``line`` is a well-formed ``notifications/cancelled``."""
    if b"notifications/cancelled" not in line:
        return False, None
    try:
        message = parse(line)
    except ValueError:
        return False, None
    if not (
        isinstance(message, dict)
        and message.get("method") == "notifications/cancelled"
        and "id" not in message
        and message.get("jsonrpc") == "2.0"
        and isinstance(message.get("params"), dict)
    ):
        return False, None
    request_id = message["params"].get("requestId")
    valid = isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
    return valid, request_id


def _read_lines(read_chunk: Callable[[], bytes], inbox: queue.Queue, cancellations: _Cancellations) -> None:
    """Put each line (without its newline) in ``inbox``, or ``("oversized", head, size)``; then ``_END``."""
    pending = bytearray()
    skipping: list | None = None  # [head, size] of a line over the limit, until its newline

    def emit(line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return
        is_cancel, request_id = _cancelled_id(line)
        if is_cancel:
            cancellations.add(request_id)
        else:
            inbox.put(("line", line))

    try:
        while True:
            try:
                chunk = read_chunk()
            except (OSError, ValueError):  # closed under us: the same as its end
                chunk = b""
            if not chunk:
                if skipping is not None:
                    inbox.put(("oversized", skipping[0], skipping[1]))
                elif pending:
                    emit(bytes(pending))
                return
            start = 0
            while start <= len(chunk):
                newline = chunk.find(b"\n", start)
                piece = chunk[start:] if newline < 0 else chunk[start:newline]
                if skipping is None and len(pending) + len(piece) > MAX_MESSAGE_BYTES:
                    skipping = [bytes((pending + piece)[:ID_SEARCH_BYTES]), len(pending)]
                    pending.clear()
                if skipping is not None:
                    skipping[1] += len(piece)
                    if newline >= 0:
                        inbox.put(("oversized", skipping[0], skipping[1]))
                        skipping = None
                else:
                    pending += piece
                    if newline >= 0:
                        emit(bytes(pending))
                        pending.clear()
                if newline < 0:
                    break
                start = newline + 1
    finally:
        inbox.put(_END)


def serve(read_chunk: Callable[[], bytes], write: Callable[[bytes], None], session: Session | None = None) -> int:
    """Serve one session: read with ``read_chunk`` (b"" at the end), answer with ``write``.

    Returns 0 at the end of the input, and when ``write`` raises ``BrokenPipeError`` (the client
    is gone); 2 when it raises another ``OSError`` (a full disk), said in one line on the log.
    """
    session = session if session is not None else Session()
    inbox: queue.Queue = queue.Queue(MAX_WAITING)
    cancellations = _Cancellations()
    reader = threading.Thread(target=_read_lines, args=(read_chunk, inbox, cancellations), name="mcp-stdin", daemon=True)
    reader.start()
    try:
        while True:
            item = inbox.get()
            if item is _END:
                return 0
            try:
                line = _answer(item, session, cancellations)
            except Exception as failure:  # a bug of this loop: said once, answered, and the next line is served
                session.log(f"a line could not be answered: {type(failure).__name__}: {str(failure)[:300]}")
                line = encode(error(None, INTERNAL_ERROR, "Internal error: this line could not be answered; please report it"))
            if line is not None:
                write(line)
    except BrokenPipeError:
        return 0
    except OSError as failure:
        session.log(f"cannot write standard output: {failure.strerror or failure}")
        return 2


def _answer(item: tuple, session: Session, cancellations: _Cancellations) -> bytes | None:
    """The line that answers one item of the inbox, or None (a notification, a cancelled request)."""
    if item[0] == "oversized":
        return encode(session.oversized(item[1], item[2]))
    try:
        message = parse(item[1])
    except ValueError as why:
        return encode(error(None, PARSE_ERROR, f"Parse error: {why}"))
    request_id = message.get("id") if isinstance(message, dict) and "method" in message else None
    if not (isinstance(request_id, str) or type(request_id) is int):
        request_id = None  # no id a cancellation could name (the session answers a bad one)
    if request_id is not None and cancellations.take(request_id):
        return None  # cancelled before its turn
    answer = session.handle(message)
    if answer is None or (request_id is not None and cancellations.take(request_id)):
        return None  # a notification, or cancelled while it ran: no answer is awaited
    return session.encode(answer)


def _fd_writer(fd: int) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    return write


def serve_process(stderr: IO[str] | None = None) -> int:
    """Serve on the process's own standard input and output (file descriptors 0 and 1)."""
    stderr = stderr if stderr is not None else sys.stderr
    for fd, what in ((0, "cannot read standard input"), (1, "cannot write standard output")):
        try:
            os.fstat(fd)
        except OSError:
            _say(stderr, f"fitproof: {what}: it is closed\n")
            return 2
    if _is_terminal(0):
        _say(stderr, TERMINAL_HINT)
    # Standard error shared with standard output (`2>&1`): a log line would break the stream, so
    # then nothing else is written at all, neither what strays to standard output nor a log line.
    shared = _same_file(1, 2)
    out = os.dup(1)
    saved = sys.stdout, sys.stderr
    quiet = open(os.devnull, "w")
    try:
        try:
            if shared:
                raise OSError("standard error is standard output")
            os.dup2(2, 1)  # whatever else writes to standard output goes to standard error
        except OSError:
            os.dup2(quiet.fileno(), 1)
        if shared or sys.stderr is None:
            sys.stderr = quiet
        sys.stdout = sys.stderr
        session = Session(log=(lambda text: None) if shared else None)
        return serve(lambda: os.read(0, CHUNK), _fd_writer(out), session)
    finally:
        sys.stdout, sys.stderr = saved
        try:
            os.dup2(out, 1)
        except OSError:
            pass
        os.close(out)
        quiet.close()


def _same_file(one: int, other: int) -> bool:
    try:
        return os.path.samestat(os.fstat(one), os.fstat(other))
    except OSError:
        return False


def run(stdin: IO, stdout: IO[str], stderr: IO[str], registry: TokenizerRegistry | None = None) -> int:
    """``fitproof mcp`` from the command line's ``run``: the process's streams, or the ones given (tests).

    ``registry``: the tokenizers of ``--tokenizer-file NAME=PATH``, loaded by the command line
    (a bad one is its usage error, exit 2); every tool then takes NAME wherever a tokenizer is named.
    """
    if registry is None:
        return _run(stdin, stdout, stderr)
    from .. import tokenizers

    with tokenizers.using_tokenizers(registry):
        return _run(stdin, stdout, stderr)


def _run(stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    if stdin is sys.stdin or stdin is sys.__stdin__:
        return serve_process(stderr)
    source = getattr(stdin, "buffer", stdin)
    read = getattr(source, "read1", None) or source.read

    def write(data: bytes) -> None:
        stdout.write(data.decode("utf-8"))
        stdout.flush()

    return serve(lambda: read(CHUNK), write)


def main() -> None:
    """The ``fitproof mcp`` process, started without the rest of the command line (it answers sooner)."""
    try:
        code = serve_process()
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # deaf to a second one while Python exits
        code = 130
    sys.exit(code)


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _say(stderr: IO[str] | None, text: str) -> None:
    try:
        if stderr is not None:
            stderr.write(text)
            stderr.flush()
    except (OSError, ValueError):
        pass
