"""Slow work is never silent: a line of elapsed seconds on a terminal's standard error."""

from __future__ import annotations

import threading
import time
from typing import IO

from ._streams import is_terminal


class Ticker:
    """On a terminal's standard error, once a step has run for a second, "fitproof:
    WHAT: N s" rewritten in place each second, and wiped when the step ends (before anything
    else is written). Nothing when standard error is not a terminal."""

    def __init__(self, stderr: IO[str], what: str) -> None:
        self._stderr, self._what = stderr, what
        self._thread: threading.Thread | None = None
        self._shown = 0  # the length of the line shown, to wipe it

    def __enter__(self) -> "Ticker":
        if is_terminal(self._stderr):
            self._done = threading.Event()
            self._thread = threading.Thread(target=self._tick, name="fitproof ticker", daemon=True)
            self._thread.start()
        return self

    def _tick(self) -> None:
        started = time.monotonic()
        while not self._done.wait(1.0):
            # Only a carriage return and spaces (no escape sequences): a dumb terminal and an
            # old Windows console show those as they are meant. The line only grows.
            line = f"fitproof: {self._what}: {time.monotonic() - started:.0f} s"
            if len(line) > 79:  # one row of a terminal 80 wide: a wrapped line could not be wiped by \r
                line = f"{line[:60]}…{line[-18:]}"
            self._stderr.write(f"\r{line}")
            self._stderr.flush()
            self._shown = len(line)

    def __exit__(self, *exception: object) -> None:
        if self._thread is not None:
            self._done.set()
            self._thread.join()
            if self._shown:
                self._stderr.write(f"\r{' ' * self._shown}\r")
                self._stderr.flush()


def size(count: int) -> str:
    """A number of bytes as the ticker's line shows it."""
    return f"{count / 2**20:,.1f} MiB" if count >= 2**20 else f"{count:,} bytes"
