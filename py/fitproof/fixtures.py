"""Your own fixture cases from Python, for those who parametrize by hand.

A case is a JSON file ``{description, input, expect}``: the input, and the report's keys the case
is about (or ``expected``, the whole report). The pytest plugin makes each case a test with one
line of configuration (``fitproof_cases = my-cases``); to choose the cases in code::

    from pathlib import Path

    import pytest
    from .fixtures import case_files, check_case

    CASES = Path(__file__).parent / "my-cases"

    @pytest.mark.parametrize("path", case_files(CASES), ids=lambda path: path.name)
    def test_case(path):
        outcome = check_case(path)
        assert outcome.passed, outcome.detail

``fitproof fixtures DIR`` runs the same cases from the command line.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._base.errors import ArgumentError, ArgumentTypeError
from ._fixtures import case as _fixtures
from ._fixtures.case import Outcome

__all__ = ["case_files", "check_case", "Outcome"]


def case_files(where: str | os.PathLike) -> list[Path]:
    """Every ``*.json`` case under the directory ``where``, sorted (or ``where`` itself when it
    is one file). ``ArgumentError`` (a ``ValueError``, ``argument == "where"``) when there is
    none, so that a mistyped folder is not a test run that checked nothing."""
    return _fixtures.case_files(_path(where, "where", "case_files needs a directory or a file name"))[0]


def check_case(path: str | os.PathLike) -> Outcome:
    """Run one case: ``Outcome(name, passed, detail)``. ``detail`` gives the JSON path and
    both values of the first difference from ``expect`` or ``expected`` (strict about types:
    ``1`` is not ``1.0``), or why the file is not a case."""
    path = _path(path, "path", "check_case needs a file name")
    return _fixtures.run_case(path, str(path))


def _path(where: str | os.PathLike, argument: str, needs: str) -> Path:
    """``where`` (the parameter ``argument``) as a path; an empty one is refused, never read as the
    current directory."""
    if not isinstance(where, (str, os.PathLike)):
        raise ArgumentTypeError(f"{needs}, got {where!r}", argument, where)
    if not os.fspath(where):
        raise ArgumentError(f"{needs}, got an empty one", argument, where)
    return Path(where)
