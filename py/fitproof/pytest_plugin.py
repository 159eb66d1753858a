"""pytest plugin: every JSON case in the directories you name is a test of its own.

pytest loads it in every project where fitproof is installed (the ``pytest11`` entry
point); it does nothing until cases are named, in the ini file::

    [tool.pytest.ini_options]
    fitproof_cases = ["my-cases"]     # pytest.ini: fitproof_cases = my-cases

(one directory, or one case file, per line, relative to the ini file) or on the command line,
``--fitproof-cases DIR`` (repeatable, relative to where pytest runs). Each ``*.json``
file under them is one test, its id the file's path; a failure is the JSON path and both
values of the first difference. Run without paths, pytest collects the cases as it collects
its ``testpaths``; given paths, it runs the cases under them. ``--fitproof-update``
rewrites ``expected`` of each snapshot case that fails, and lists what changed. Nothing of
the package is imported before a case runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # pytest's own annotation of repr_failure (no public name for it)
    from _pytest._code.code import TerminalRepr

from ._base.errors import FitproofError

INI = "fitproof_cases"
_CASES = pytest.StashKey["tuple[Path, ...]"]()
_UPDATED = pytest.StashKey["list[str]"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fitproof", "fitproof fixture cases")
    group.addoption(
        "--fitproof-cases",
        action="append",
        default=[],
        metavar="DIR",
        dest="fitproof_cases",
        help="run every *.json case under DIR (or the case file DIR) as a test; repeatable, added to the ini's fitproof_cases",
    )
    group.addoption(
        "--fitproof-update",
        action="store_true",
        default=False,
        dest="fitproof_update",
        help="rewrite expected of each snapshot case that fails (never an expect case) and list what changed",
    )
    parser.addini(INI, type="linelist", default=[], help="directories (or files) of fitproof cases, one per line, relative to the ini file")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Find the cases directories (a name with no case under it is a usage error, never a silent
    pass) and, when pytest was given no paths, collect them as it collects testpaths."""
    config = session.config
    base = config.inipath.parent if config.inipath else config.rootpath
    named = [(f"{INI} in {config.inipath.name if config.inipath else 'the ini file'}", base, line) for line in config.getini(INI)]
    named += [("--fitproof-cases", config.invocation_params.dir, line) for line in config.getoption("fitproof_cases")]
    if not named:
        if config.getoption("fitproof_update"):
            raise pytest.UsageError(
                f"--fitproof-update: there are no cases to update; name their directory ({INI} in the ini file, or --fitproof-cases DIR)"
            )
        return
    from ._fixtures import case as _fixtures

    cases = []
    for said, relative_to, line in named:
        if not line.strip():  # never the current directory by accident
            raise pytest.UsageError(f"{said}: an empty name; give the directory of the cases")
        where = relative_to / line
        try:
            _fixtures.case_files(where)
        except (OSError, ValueError) as error:
            raise pytest.UsageError(f"{said}: {error}") from None
        cases.append(Path(os.path.abspath(where)))
    config.stash[_CASES] = tuple(cases)
    config.stash[_UPDATED] = []
    source = getattr(config, "args_source", None)
    if source is not None and source.name != "ARGS" and config.invocation_params.dir == config.rootpath:
        given = [Path(os.path.abspath(arg)) for arg in config.args]
        config.args += [str(where) for where in cases if not any(_under(where, path) for path in given)]


def _under(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def pytest_report_header(config: pytest.Config) -> str | None:
    cases = config.stash.get(_CASES, ())
    if not cases:
        return None
    updating = " (updating snapshots that fail)" if config.getoption("fitproof_update") else ""
    return f"fitproof cases: {', '.join(_shown(config, where) for where in cases)}{updating}"


def _shown(config: pytest.Config, path: Path) -> str:
    try:
        return path.relative_to(config.rootpath).as_posix() or "."
    except ValueError:
        return str(path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Item | None:
    cases = parent.config.stash.get(_CASES, ())
    if not cases or file_path.suffix != ".json":
        return None
    for where in cases:
        if _under(file_path, where):
            root = where if where.is_dir() else where.parent
            return Case.from_parent(
                parent,
                name=file_path.relative_to(root).as_posix(),
                path=file_path,
                nodeid=_shown(parent.config, file_path),
                root=root,
            )
    return None


class CaseFailed(FitproofError):
    """A case whose report differs from what it states: the lines to show, without a traceback."""


class Case(pytest.Item):
    """One case file: its report is compared with its ``expected`` or ``expect``."""

    def __init__(self, *, root: Path, **kwargs) -> None:
        super().__init__(**kwargs)
        self.root = root

    def runtest(self) -> None:
        from ._fixtures import case as _fixtures, snapshots as _snapshots

        judgement = _fixtures.judge(self.path, self.name)
        if judgement.difference is None:  # passed
            return
        lines = [judgement.difference]
        lines += [f"the tokenizer's data is missing: {reason}" for reason in judgement.missing_data]
        if judgement.case is not None:
            lines.append(f"the case: {judgement.case['description']}")
        if self.config.getoption("fitproof_update") and judgement.case is not None:
            try:
                changed = _snapshots.update(self.path, self.root, judgement)
            except _snapshots.UpdateRefused as refused:
                lines.append(f"not updated: {refused}")
            except OSError as error:
                lines.append(f"not updated: cannot write it: {error.strerror or error}")
            else:
                self.config.stash[_UPDATED].append(_snapshots.changes_text(self.nodeid, changed))
                return
        raise CaseFailed("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"fitproof case {self.nodeid}"


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    updated = config.stash.get(_UPDATED, [])
    if updated:
        terminalreporter.section(f"fitproof: {len(updated)} snapshot{'s' if len(updated) != 1 else ''} updated")
        for text in updated:
            terminalreporter.write(text)
