"""``context-budget fixtures``: every case under a directory (or one case file), compared report by report."""

from __future__ import annotations

from pathlib import Path
from typing import IO

from .. import _fixtures
from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._streams import one_line


def run(directory: Path, stdout: IO[str]) -> int:
    try:
        files, directory = _fixtures.case_files(directory)
    except ValueError as error:
        checkout = not directory.exists() and str(directory) == "fixtures"
        where = " (run it in a context-budget checkout, or give the directory of your cases)" if checkout else ""
        raise UsageError(f"{error}{where}") from None
    except OSError as error:  # a name too long, a directory that cannot be entered
        raise UsageError(f"fixtures: cannot read {directory}: {error.strerror or error}") from None
    except RecursionError:  # folders nested deeper than Python's stack
        raise UsageError(f"fixtures: cannot read {directory}: its folders are nested too deep") from None
    passed = failed = 0
    for path in files:
        outcome = _fixtures.run_case(path, path.relative_to(directory).as_posix())
        if outcome.passed:
            passed += 1
            stdout.write(f"ok   {one_line(outcome.name)}\n")
        else:
            failed += 1
            stdout.write(f"FAIL {one_line(outcome.name)}: {one_line(outcome.detail)}\n")
    stdout.write(f"{passed} passed, {failed} failed\n")
    return EXIT_PASS if failed == 0 else EXIT_FAIL
