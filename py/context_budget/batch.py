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
import time
from collections import deque
from itertools import islice
from typing import IO, Iterable, Iterator

from . import _strict_json
from ._envelope import check_document, to_json, unreadable

# Lines per task sent to a worker process, and tasks in flight per worker: enough to
# keep every worker busy, few enough that memory does not grow with the input.
CHUNK_LINES = 256
TASKS_PER_WORKER = 2


def check_line(raw: bytes | str, number: int) -> tuple[bool, str]:
    """Line ``number`` (1-based) of the input: whether its report passes, and its envelope as JSON text."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    try:
        # Without its line break, so that an unclosed bracket is reported on this line, not the next.
        envelope = check_document(_strict_json.decode_utf8(raw.rstrip(b"\r\n")))
    except _strict_json.JSONInputError as error:
        envelope = unreadable(error)
    envelope["input_line"] = number
    return envelope["ok"], to_json(envelope)


def checked_lines(lines: Iterable[bytes | str], start: int = 1) -> Iterator[tuple[bool, str]]:
    """``(passed, envelope text)`` for each non-blank line, numbered from ``start``."""
    for number, raw in enumerate(lines, start):
        if raw.strip():
            yield check_line(raw, number)


def check_lines(lines: Iterable[bytes | str], start: int = 1) -> Iterator[str]:
    """One envelope (JSON text, no line break) for each non-blank input line, in order.

    ``lines`` may be bytes (as a file opened in binary gives them) or text (as
    ``dask.bag.read_text`` gives them), with or without their line breaks.
    """
    for _, text in checked_lines(lines, start):
        yield text


def _check_chunk(task: tuple[int, list]) -> tuple[bool, str]:
    """A worker's task: consecutive lines from ``start``; their envelopes, one per line."""
    start, lines = task
    results = list(checked_lines(lines, start))
    return all(passed for passed, _ in results), "".join(text + "\n" for _, text in results)


def _chunks(lines: Iterable[bytes | str]) -> Iterator[tuple[int, list]]:
    iterator = iter(lines)
    start = 1
    while True:
        chunk = list(islice(iterator, CHUNK_LINES))
        if not chunk:
            return
        yield start, chunk
        start += len(chunk)


def worker_count(jobs: int) -> int:
    """``--jobs``: 0 means one process per core this process may use."""
    if jobs:
        return jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def write_checked(lines: Iterable[bytes | str], out: IO[str], jobs: int = 1, progress: IO[str] | None = None) -> bool:
    """Write the envelope of every line to ``out`` in input order, using ``jobs`` processes
    (1: this one); whether every report passed. ``progress``, when given, gets a running
    count of lines (a terminal's stderr, for long inputs)."""
    meter = _Progress(progress)
    if jobs == 1:
        all_passed = True
        for passed, text in checked_lines(lines):
            out.write(text + "\n")
            all_passed = all_passed and passed
            meter.advance(1)
        meter.finish()
        return all_passed
    from concurrent.futures import ProcessPoolExecutor  # only when asked for: it costs start-up time

    all_passed = True
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque = deque()
        for start, chunk in _chunks(lines):
            pending.append((len(chunk), pool.submit(_check_chunk, (start, chunk))))
            if len(pending) >= jobs * TASKS_PER_WORKER:  # wait for the oldest: order kept, memory bounded
                all_passed = _drain(pending.popleft(), out, meter) and all_passed
        while pending:
            all_passed = _drain(pending.popleft(), out, meter) and all_passed
    meter.finish()
    return all_passed


def _drain(entry: tuple, out: IO[str], meter: "_Progress") -> bool:
    count, future = entry
    passed, text = future.result()
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
            self.stream.write(f"\rcontext-budget: {self.count:,} lines checked ({rate:,.0f}/s)")
            self.stream.flush()

    def finish(self) -> None:
        if self.stream is not None and self.shown:
            self.stream.write(f"\rcontext-budget: {self.count:,} lines checked\n")
            self.stream.flush()
