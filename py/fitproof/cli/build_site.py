"""``fitproof build-site``: the page written out as a static site."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path
from typing import IO

from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._streams import one_line


def run(directory: Path, force: bool, stdout: IO[str], stderr: IO[str]) -> int:
    from .._site import bundle, writer  # ~13 ms of imports (subprocess, tempfile, base64) only this command needs

    try:
        with _stops_as_interrupts():
            digests = writer.build_site(directory, force=force)
    except bundle.SiteError as error:  # the checkout lacks what the page needs
        stderr.write(f"fitproof: {one_line(error)}\n")
        return EXIT_FAIL
    except writer.TargetError as error:  # the directory cannot be used as it is: bad usage
        raise UsageError(str(error)) from None
    except OSError as error:  # a name too long, a directory that cannot be entered: bad usage too
        raise UsageError(f"build-site: cannot use {directory}: {error.strerror or error}") from None
    except RecursionError:
        raise UsageError(f"build-site: cannot use {directory}: its folders are nested too deep") from None
    size = sum((directory / name).stat().st_size for name in digests)
    shown = one_line(directory)  # its name may hold escape sequences, as in the errors
    stdout.write(f"Wrote {len(digests)} files ({size / 1e6:.1f} MB) and manifest.json to {shown}\n")
    stdout.write(f"Serve it with any static server, for example: python3 -m http.server -d {shown}\n")
    return EXIT_PASS


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _stops_as_interrupts():
    """SIGTERM and SIGHUP stop a build as Ctrl+C does: the temporary files and the snapshot's
    Node process are cleaned up, and a rerun finishes the job. In the CLI's own process only
    (the main thread), and the previous handlers come back after."""
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {name: signal.signal(getattr(signal, name), _interrupt) for name in names}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)
