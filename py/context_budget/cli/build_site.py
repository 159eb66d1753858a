"""``context-budget build-site``: the page written out as a static site."""

from __future__ import annotations

from pathlib import Path
from typing import IO

from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._streams import one_line


def run(directory: Path, force: bool, stdout: IO[str], stderr: IO[str]) -> int:
    from .._site import bundle, writer  # ~13 ms of imports (subprocess, tempfile, base64) only this command needs

    try:
        digests = writer.build_site(directory, force=force)
    except bundle.SiteError as error:  # the checkout lacks what the page needs
        stderr.write(f"context-budget: {one_line(error)}\n")
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
