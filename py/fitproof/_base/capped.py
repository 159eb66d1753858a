"""Reading a file whole, but never more than a limit.

Every file this package reads whole (an input, a fixture case, a rank file, a tokenizer file) has
a cap, so that a wrong path (a disk image, a log, /dev/zero) costs the cap in memory and time, not
the file's size. One more byte than the cap is read: that is how a file just over it is told from
one exactly at it, without a ``stat`` that a pipe or a growing file would make wrong.
"""

import os
from typing import Protocol

from .errors import FitproofError


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


class TooLarge(FitproofError, ValueError):
    """More than ``limit`` bytes; ``str()`` says so in mebibytes, for the caller's sentence."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"larger than {limit >> 20} MiB")


def read_capped(source: str | os.PathLike | Readable, limit: int) -> bytes:
    """The bytes of ``source`` (a path, or a binary stream read from where it stands), at most
    ``limit`` of them; ``TooLarge`` past that, and ``OSError`` as opening or reading raises it."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            data = handle.read(limit + 1)
    else:
        data = source.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(limit)
    return data
