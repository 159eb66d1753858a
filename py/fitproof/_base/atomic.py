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
import tempfile
from pathlib import Path


def replace_file(target: Path, data: bytes, mode: int) -> None:
    """Replace ``target`` with ``data``, its permissions ``mode``; the temporary file is
    ``.<name>.<random>.tmp`` in the target's directory and never outlives the call."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
