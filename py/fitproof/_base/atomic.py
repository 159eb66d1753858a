"""Replacing a file in one rename: a reader sees the old content or the new, never a part.

One job: write ``data`` to a fresh temporary file beside the target (same directory, so the
rename cannot cross file systems), flush it to disk, give it the permissions asked for, and
rename it over the target. On any failure, an interruption included (KeyboardInterrupt, or a
signal handler that raises), the temporary file is removed and the target is left as it was.
A symbolic link at the target is replaced, never written through.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


# A temporary file of replace_file: ".<name>.<12 hex digits>.tmp" (tempfile.mkstemp's 8 characters
# in releases before 0.5), which only a process killed outright (SIGKILL, a power cut) leaves.
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?:[0-9a-f]{12}|[a-z0-9_]{8})\.tmp")


def temporary_of(entry: str) -> str | None:
    """The target's name when ``entry`` is named as one of replace_file's temporary files, else None."""
    match = _TEMPORARY.fullmatch(entry)
    return match["name"] if match else None


def replace_file(target: Path, data: bytes, mode: int) -> None:
    """Replace ``target`` with ``data``, its permissions ``mode``; the temporary file is
    ``.<name>.<random>.tmp`` in the target's directory and never outlives the call.

    The name is chosen before the file is made, and the removal is in force before it exists: an
    interruption that lands anywhere, even between the file's creation and the next line (where
    ``tempfile.mkstemp`` would leave it behind), removes it by that name."""
    while True:
        temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        if not os.path.lexists(temporary):
            break
    try:
        handle = os.open(temporary, _FLAGS, 0o600)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except FileExistsError:  # from os.open alone: a file of that name appeared since the look, and is not ours
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
