"""Many requests: one envelope line per input line, the work behind ``check --jsonl``.

``check_lines(lines)`` is the per-line work as one standard-library entry point, so the
same code runs in the CLI, in a pool of processes (``check --jsonl --jobs N``) and on an
engine that spreads lines over machines (Dask: ``bag.map_partitions(check_lines)``, see
the README). Each input line gives one envelope line, ``{"ok", "error"?, "result"?,
"input_line"}``, in input order; blank lines are skipped but keep their numbers; a bad
line is reported in its place and the rest go on.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections import deque
from typing import IO, Iterable, Iterator, Protocol

from ._base.errors import ArgumentError, ArgumentTypeError, FitproofError
from ._base import strict_json as _strict_json
from ._envelope import check_document, to_json, unreadable

__all__ = ["check_lines", "checked_lines", "check_line", "write_checked", "worker_count", "WorkerLost"]


class WorkerLost(FitproofError):
    """A worker process ended in the middle of a run (killed, out of memory): the envelopes of
    the lines before ``line`` are written, none from it on."""

    def __init__(self, line: int) -> None:
        super().__init__(f"a worker process ended unexpectedly (killed?); output is missing from input line {line} on")
        self.line = line


# Lines per task sent to a worker process (at most CHUNK_LINES, and at most CHUNK_BYTES of
# them unless one line alone is larger), and tasks in flight per worker: enough to keep every
# worker busy, few enough that memory does not grow with the input, even of 1 MB lines.
CHUNK_LINES = 256
CHUNK_BYTES = 4 << 20
TASKS_PER_WORKER = 2
# What bytes.strip() strips (JSON whitespace, and \v and \f): a line of only these is skipped, text or bytes alike.
_BLANK = " \t\n\r\x0b\x0c"


def check_line(raw: bytes | str, number: int) -> tuple[bool, str]:
    """Line ``number`` (1-based) of the input: whether its report passes, and its envelope as JSON text."""
    if isinstance(raw, str):
        try:  # text read with errors="surrogateescape" (dask.bag.read_text can) gets its own bytes back
            raw = raw.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # other lone surrogates: refused below as not UTF-8, as in a file
            raw = raw.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]  # the encode above raised: raw is still the str
    try:
        # Without its line break, so that an unclosed bracket is reported on this line, not the next.
        envelope = check_document(_strict_json.decode_utf8(raw.rstrip(b"\r\n")))
    except _strict_json.JSONInputError as error:
        envelope = unreadable(error)
    envelope["input_line"] = number
    return envelope["ok"], to_json(envelope)


def checked_lines(lines: Iterable[bytes | str], start: int = 1) -> Iterator[tuple[bool, str]]:
    """``(passed, envelope text)`` for each non-blank line, numbered from ``start``. A wrong
    argument is refused at the call, before any line is read: an ``ArgumentError`` (a
    ``ValueError``; ``ArgumentTypeError``, also a ``TypeError``, for a wrong type), as is a line
    that is neither bytes nor str when it is reached."""
    if isinstance(lines, (str, bytes, bytearray, memoryview)):
        raise ArgumentTypeError(
            f"lines must be an iterable of lines (a file, a list of bytes or str), got one {type(lines).__name__}: "
            "it would be checked a character at a time; give [text] for one input",
            "lines",
            lines,
        )
    if type(start) is not int or start < 1:
        kind = ArgumentError if type(start) is int else ArgumentTypeError
        raise kind(f"start must be a line number from 1, got {start!r}", "start", start)
    return _checked(iter(lines), start)


def _checked(lines: Iterator[bytes | str], start: int) -> Iterator[tuple[bool, str]]:
    for number, raw in enumerate(lines, start):
        if isinstance(raw, (bytearray, memoryview)):
            raw = bytes(raw)
        elif not isinstance(raw, (str, bytes)):
            raise ArgumentTypeError(f"line {number} must be bytes or str, got {type(raw).__name__}", "lines", raw)
        if raw.strip(_BLANK) if isinstance(raw, str) else raw.strip():  # the same lines blank as text and as bytes
            yield check_line(raw, number)


def check_lines(lines: Iterable[bytes | str], start: int = 1) -> Iterator[str]:
    """One envelope (JSON text, no line break) for each non-blank input line, in order.

    ``lines`` may be bytes (as a file opened in binary gives them) or text (as
    ``dask.bag.read_text`` gives them), with or without their line breaks. Text gives the
    envelopes the bytes would when it was split at "\n" only and decoded with
    ``errors="surrogateescape"`` (a bare "\r" is JSON whitespace inside a line, and a line
    that is not UTF-8 gets its own error envelope).
    """
    return (text for _, text in checked_lines(lines, start))


def _check_chunk(task: tuple[int, list]) -> tuple[bool, str, int]:
    """A worker's task: consecutive lines from ``start``; whether all passed, their envelopes
    (one per line) and how many there are."""
    start, lines = task
    results = list(checked_lines(lines, start))
    return all(passed for passed, _ in results), "".join(text + "\n" for _, text in results), len(results)


def _chunks(lines: Iterable[bytes | str]) -> Iterator[tuple[int, list]]:
    """Consecutive lines, at most CHUNK_LINES and (but for a single larger line) CHUNK_BYTES."""
    chunk: list[bytes | str]
    start, chunk, size = 1, [], 0
    try:
        for line in lines:
            length = len(line)
            if chunk and (len(chunk) == CHUNK_LINES or size + length > CHUNK_BYTES):
                yield start, chunk
                start, chunk, size = start + len(chunk), [], 0
            chunk.append(line)
            size += length
    except Exception:  # the input stopped (a line too large): the lines read before it are checked first
        if chunk:
            yield start, chunk
        raise
    if chunk:
        yield start, chunk


def _ignore_interrupts(lifeline=None, inherited_end: int | None = None) -> None:
    """A worker's start: Ctrl+C is for the parent, which stops the run (and the workers) itself.
    ``lifeline`` is the read end of a pipe whose write end only the parent holds: a thread
    waits on it and ends the worker when it closes, that is when the parent ends, however it
    ends (SIGKILL too). Without it a worker blocked writing its result outlives its parent for
    good, holding the output open. With fork the worker got a copy of the write end,
    ``inherited_end``, which it closes first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if lifeline is not None:
        if inherited_end is not None:
            os.close(inherited_end)
        threading.Thread(target=_end_with_parent, args=(lifeline,), daemon=True).start()


def _end_with_parent(lifeline) -> None:
    try:
        lifeline.recv_bytes()  # the parent never writes: this returns (EOF) when it has ended
    except BaseException:
        pass
    os._exit(1)


# Windows waits on at most 63 handles at once: its process pools take at most 61 workers.
WINDOWS_MOST_WORKERS = 61


def worker_count(jobs: int) -> int:
    """``--jobs``: 0 means one process per core this process may use (on Windows at most 61,
    where a larger pool cannot start)."""
    if not jobs:
        try:
            jobs = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            jobs = os.cpu_count() or 1
    return min(jobs, WINDOWS_MOST_WORKERS) if sys.platform == "win32" else jobs


class _Writer(Protocol):
    """What the envelopes are written to: a text stream, or a wrapper of one with write alone."""

    def write(self, text: str, /) -> object: ...


def write_checked(lines: Iterable[bytes | str], out: _Writer, jobs: int = 1, progress: IO[str] | None = None) -> bool:
    """Write the envelope of every line to ``out`` in input order, using ``jobs`` processes
    (1: this one); whether every report passed. ``progress``, when given, gets a running
    count of lines (a terminal's stderr, for long inputs)."""
    meter = _Progress(progress)
    if jobs == 1:
        all_passed = True
        try:
            for passed, text in checked_lines(lines):
                out.write(text + "\n")
                all_passed = all_passed and passed
                meter.advance(1)
        finally:
            meter.finish()  # the meter's line ends before anything else is said on the terminal
        return all_passed
    from concurrent.futures import ProcessPoolExecutor  # ~6 ms of start-up that only --jobs needs

    from concurrent.futures.process import BrokenProcessPool

    pool, lifeline = _started_pool(ProcessPoolExecutor, jobs)
    all_passed = True
    pending: deque = deque()
    try:
        for start, chunk in _chunks(lines):
            try:
                future = _held(pool.submit, _check_chunk, (start, chunk))
            except BrokenProcessPool:  # a worker died before this chunk could be sent
                future = _broken(start)
            future.start_line = start
            pending.append(future)
            if len(pending) >= jobs * TASKS_PER_WORKER:  # wait for the oldest: order kept, memory bounded
                all_passed = _drain(pending.popleft(), out, meter) and all_passed
        while pending:
            all_passed = _drain(pending.popleft(), out, meter) and all_passed
        pool.shutdown(wait=True)  # before the lifeline closes: the workers end as they were told
    except KeyboardInterrupt:  # Ctrl+C: drop what has not started, let the running chunks end
        _shut_down(pool)
        raise
    except _Lost as lost:  # a worker died: what came before is written, the rest cannot be
        _shut_down(pool)
        raise WorkerLost(lost.line) from None
    except BaseException:  # the input stopped (a line too large) or the reader went away: what was checked is written
        try:
            while pending:
                all_passed = _drain(pending.popleft(), out, meter) and all_passed
        except _Lost as lost:
            raise WorkerLost(lost.line) from None
        finally:
            _shut_down(pool)
        raise
    finally:
        meter.finish()  # the meter's line ends before anything else is said on the terminal
        for end in lifeline:
            end.close()
    return all_passed


def _held(call, *arguments):
    """``call(*arguments)`` with Ctrl+C held back, so that a worker the pool starts meanwhile
    (with spawn, as on macOS, workers start on demand) begins with it blocked; the worker's
    initializer then ignores it. Windows has no signal mask: there it is only called."""
    if not hasattr(signal, "pthread_sigmask"):
        return call(*arguments)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return call(*arguments)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _shut_down(pool) -> None:
    """Cancel what has not started and wait for the running chunks, deaf to another Ctrl+C: a
    second one during the wait breaks the pool's shutdown (Python 3.11 and 3.12), and the
    process and its workers would then wait for each other for good."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _started_pool(executor, jobs: int):
    """A pool whose workers start with Ctrl+C held back, so that none can get it before it
    ignores it (a worker that does prints a traceback, and the parent then waits for it for
    good). With fork every worker starts at the first task; with spawn each starts when a task
    needs it, and every submit holds Ctrl+C back too (``_held``)."""
    import multiprocessing

    context = multiprocessing.get_context()
    reader, writer = context.Pipe(duplex=False)
    inherited = writer.fileno() if context.get_start_method() == "fork" else None
    pool = _held(lambda: executor(max_workers=jobs, mp_context=context, initializer=_ignore_interrupts, initargs=(reader, inherited)))
    _held(pool.submit, int).result()
    return pool, (reader, writer)


class _Lost(FitproofError):
    def __init__(self, line: int) -> None:
        self.line = line


def _broken(start: int):
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    future: Future = Future()
    future.set_exception(BrokenProcessPool("a worker ended"))
    return future


def _drain(future, out: _Writer, meter: "_Progress") -> bool:
    from concurrent.futures.process import BrokenProcessPool

    try:
        passed, text, count = future.result()
    except BrokenProcessPool:
        raise _Lost(future.start_line) from None
    out.write(text)
    meter.advance(count)
    return passed


class _Progress:
    """A line count on a terminal, rewritten in place at most a few times a second, and only
    once the run has taken a while (short runs print nothing)."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.stream = stream
        self.count = 0
        self.started = time.monotonic()
        self.shown = 0.0

    def advance(self, count: int) -> None:
        self.count += count
        if self.stream is None:
            return
        now = time.monotonic()
        if now - self.started >= 1.0 and now - self.shown >= 0.25:
            self.shown = now
            rate = self.count / (now - self.started)
            self.stream.write(f"\rfitproof: {self.count:,} lines checked ({rate:,.0f}/s)\x1b[K")
            self.stream.flush()

    def finish(self) -> None:
        if self.stream is not None and self.shown:  # \x1b[K: clear what the longer line before left
            self.stream.write(f"\rfitproof: {self.count:,} lines checked\x1b[K\n")
            self.stream.flush()
