"""``fitproof fixtures``: every case under a directory (or one case file), each report
compared with what the case states; ``--update`` rewrites failing snapshots; ``fixtures new``
writes a case from an input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import IO, Any, Mapping

from .._base import strict_json as _strict_json
from .._fixtures import case as _fixtures, snapshots as _snapshots
from .._evaluation.claims import LIST_KEY
from .._evaluation.report import Report
from .._evaluation.evaluate import evaluate
from .._base.values import json_text, preview
from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._input import read_json_file
from ._streams import is_terminal, one_line

NEW = "new"  # `fixtures new NAME ...`; a directory of that name is written ./new
NEW_OPTIONS = {"case_input": "--input", "expect_keys": "--expect", "description": "--description"}


def run(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    if arguments.directory == NEW:
        return new_case(arguments, stdin, stdout, stderr)
    for dest, option in NEW_OPTIONS.items():
        if getattr(arguments, dest) is not None:
            raise UsageError(f"fixtures: {option} belongs to `fixtures new NAME --input FILE`")
    if arguments.name is not None:
        raise UsageError(
            f"fixtures: unexpected argument {arguments.name!r} (one DIR or FILE; to write a case: fixtures new NAME --input FILE)"
        )
    if arguments.shipped:
        if arguments.directory is not None:
            raise UsageError("fixtures: give a DIR|FILE or --shipped, not both")
        if arguments.update:
            raise UsageError("fixtures: --update rewrites your own cases, not the package's (--shipped)")
        from .examples import shipped

        arguments.directory = str(shipped("fixtures"))
    if arguments.directory is None:
        if not Path("fixtures").is_dir():
            raise UsageError(
                "fixtures needs a directory of cases or one case file (there is no ./fixtures here): "
                "give one, or run the package's own cases with --shipped"
            )
        arguments.directory = "fixtures"
    if arguments.directory == "":  # Path("") is the current directory: never guess it
        raise UsageError("fixtures needs a directory name, got an empty one")
    return run_cases(Path(arguments.directory), stdout, update=arguments.update)


def run_cases(directory: Path, stdout: IO[str], update: bool = False) -> int:
    try:
        files, directory = _fixtures.case_files(directory)
    except ValueError as error:
        checkout = not directory.exists() and str(directory) == "fixtures"
        where = " (run it in a fitproof checkout, or give the directory of your cases)" if checkout else ""
        raise UsageError(f"{error}{where}") from None
    except OSError as error:  # a name too long, a directory that cannot be entered
        raise UsageError(f"fixtures: cannot read {directory}: {error.strerror or error}") from None
    except RecursionError:  # folders nested deeper than Python's stack
        raise UsageError(f"fixtures: cannot read {directory}: its folders are nested too deep") from None
    passed = failed = updated = 0
    for path in files:
        judgement = _fixtures.judge(path, path.relative_to(directory).as_posix())
        name = one_line(judgement.name)
        if judgement.passed:
            passed += 1
            stdout.write(f"ok   {name}\n")
            continue
        if update and judgement.case is not None:
            try:
                changed = _snapshots.update(path, directory, judgement)
            except _snapshots.UpdateRefused as refused:
                stdout.write(f"FAIL {name}: {one_line(judgement.outcome().detail)} (not updated: {one_line(refused)})\n")
            except OSError as error:
                stdout.write(
                    f"FAIL {name}: {one_line(judgement.outcome().detail)} (not updated: cannot write it: {one_line(error.strerror or error)})\n"
                )
            else:
                updated += 1
                stdout.write(_snapshots.changes_text(name, changed))
                continue
        else:
            stdout.write(f"FAIL {name}: {one_line(judgement.outcome().detail)}\n")
        failed += 1
    stdout.write(f"{passed} passed, {f'{updated} updated, ' if update else ''}{failed} failed\n")
    return EXIT_PASS if failed == 0 else EXIT_FAIL


# --- fixtures new -------------------------------------------------------------------------------


def new_case(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    """Write NAME.json: the input, and the report's chosen keys as ``expect``, for the user to read."""
    if arguments.shipped or arguments.update:
        raise UsageError(f"fixtures new: {'--shipped' if arguments.shipped else '--update'} runs cases; new writes one")
    if arguments.name is None or arguments.case_input is None:
        raise UsageError(
            "fixtures new needs NAME and --input FILE (fixtures new my-cases/two-fit --input input.json); "
            "to run the cases in a directory named new, write ./new"
        )
    if arguments.name in ("", ".json"):
        raise UsageError("fixtures new needs a NAME for the case, got an empty one")
    target = Path(arguments.name if arguments.name.endswith(".json") else arguments.name + ".json")
    try:
        if target.exists() or target.is_symlink():
            raise UsageError(f"fixtures new: {target} exists, and is not overwritten (choose another NAME)")
        if not target.parent.is_dir():
            raise UsageError(f"fixtures new: there is no directory {target.parent} to write {target.name} in (create it first)")
    except OSError as error:  # a name too long, a folder that cannot be entered
        raise UsageError(f"fixtures new: cannot write {target}: {error.strerror or error}") from None
    if arguments.case_input == "-" and is_terminal(stdin):
        stderr.write("fitproof: reading JSON from the terminal; end it with Ctrl+D on a line of its own (Ctrl+Z, Enter on Windows)\n")
        stderr.flush()
    try:
        data = read_json_file(arguments.case_input, stdin, "input")
    except _strict_json.JSONInputError as error:  # the input is not JSON: exit 1, as check says of it
        stderr.write(f"fitproof: {one_line(error)}\n")
        return EXIT_FAIL
    report = evaluate(data)
    missing = _fixtures.missing_tokenizer_data(data) if not report["pass"] else []
    if missing:
        stderr.write(f"fitproof: fixtures new: no case written, its report would record missing data: {one_line(missing[0])}\n")
        return EXIT_FAIL
    keys = _keys(arguments.expect_keys) if arguments.expect_keys is not None else default_keys(report)
    expect = chosen(report, keys)
    description = arguments.description if arguments.description is not None else report["summary"]
    text = json.dumps({"description": description, "input": data, "expect": expect}, indent=2, ensure_ascii=False) + "\n"
    try:
        with open(target, "x", encoding="utf-8") as handle:  # "x": never over a file made meanwhile
            handle.write(text)
    except FileExistsError:
        raise UsageError(f"fixtures new: {target} exists, and is not overwritten (choose another NAME)") from None
    except OSError as error:
        raise UsageError(f"fixtures new: cannot write {target}: {error.strerror or error}") from None
    stdout.write(f"wrote {one_line(str(target))}: expect {one_line(preview(expect, 200))}\n")
    return EXIT_PASS


def default_keys(report: Report) -> list[str]:
    """What a case is usually about: whether it passes and what was kept (the errors of an
    invalid input), and the verdict of a claim."""
    keys = ["pass"]
    if "errors" in report:
        keys.append("errors")
    else:
        kept = LIST_KEY.get(report.get("mode") or "")  # (mode is None for an unknown one)
        if kept is not None and kept in report:
            keys.append(kept)
    if "claim" in report:
        keys.append("claim.pass")
    return keys


def _keys(text: str) -> list[str]:
    keys = [key.strip() for key in text.split(",")]
    if not all(keys) or any(not part for key in keys for part in key.split(".")):
        raise UsageError(f"fixtures new: --expect takes report keys separated by commas (pass,selected or claim.pass), got {text!r}")
    return keys


def chosen(report: Mapping[str, Any], keys: list[str]) -> dict:
    """The report's values at the dotted ``keys``, nested as in the report (a key inside one
    chosen whole adds nothing)."""
    expect: dict = {}
    whole: set[tuple[str, ...]] = set()
    for key in keys:
        parts = tuple(key.split("."))
        value = report
        for depth, part in enumerate(parts):
            if not isinstance(value, dict):
                raise UsageError(f"fixtures new: --expect {key}: the report's {'.'.join(parts[:depth])} is {preview(value)}, not an object")
            if part not in value:
                under = f" under {'.'.join(parts[:depth])}" if depth else ""
                raise UsageError(
                    f"fixtures new: --expect {key}: the report has no key {json_text(part)}{under} (it has {', '.join(value)})"
                )
            value = value[part]
        if any(parts[:depth] in whole for depth in range(1, len(parts))):
            continue
        place = expect
        for part in parts[:-1]:
            place = place.setdefault(part, {})
        place[parts[-1]] = value
        whole.add(parts)
    return expect
