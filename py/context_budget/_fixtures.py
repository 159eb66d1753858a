"""Fixture cases: one JSON file each, ``{description, input, expected}``; a run compares the full report."""

from __future__ import annotations

from typing import NamedTuple
from pathlib import Path

from . import _strict_json
from ._evaluate import evaluate
from ._values import child_path, json_text, preview

FIXTURE_KEYS = {"description", "input", "expected"}
# A case is read whole, at most this much (check's own cap on an input): a larger file, even a
# sparse one of 300 GB, is refused without reading it.
MAX_CASE_BYTES = 256 * 1024 * 1024


class Outcome(NamedTuple):
    """One case's result: its ``name``, whether it ``passed``, and the ``detail`` of a
    failure (the JSON path and both values of the first difference, or why the file is
    not a case)."""

    name: str
    passed: bool
    detail: str = ""


def fixture_files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*.json") if path.is_file())


def case_files(where: Path) -> tuple[list[Path], Path]:
    """The case files at ``where`` (every ``*.json`` under a directory, or the one file), and the
    directory their names are relative to; ``ValueError`` saying why when there is none."""
    if where.is_file():
        return [where], where.parent
    if not where.exists():
        raise ValueError(f"no fixture directory at {where}")
    if not where.is_dir():
        raise ValueError(f"{where} is neither a directory nor a file: fixtures runs every *.json case under a directory, or one case file")
    files = fixture_files(where)
    if not files:
        raise ValueError(f"no fixture files (*.json) under {where}")
    return files, where


# Keys only an input has (every mode's own): a file with them and no "input" was given by mistake.
_INPUT_KEYS = ("mode", "budget", "items", "blocks", "passages", "messages", "limit")


def load(path: Path) -> dict:
    """A fixture file's content, or ``ValueError`` saying what is wrong with it."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_CASE_BYTES + 1)
    if len(data) > MAX_CASE_BYTES:
        raise ValueError(f"larger than {MAX_CASE_BYTES >> 20} MiB (each case must be smaller)")
    case = _strict_json.loads(_strict_json.decode_utf8(data))
    if not isinstance(case, dict):
        raise ValueError(f"a fixture is an object with keys description, input, expected; got {preview(case)}")
    unknown = [json_text(key) for key in case if key not in FIXTURE_KEYS]
    missing = [json_text(key) for key in ("description", "input", "expected") if key not in case]
    if unknown or missing:
        said = [f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"] if unknown else []
        said += [f"missing key{'s' if len(missing) > 1 else ''} {', '.join(missing)}"] if missing else []
        if "input" not in case and "expected" not in case and any(key in case for key in _INPUT_KEYS):
            said.append("this looks like an input for `context-budget check`, not a case (a case holds an input and its expected report)")
        raise ValueError(f"a fixture is an object with keys description, input, expected: {'; '.join(said)}")
    if not isinstance(case["description"], str):
        raise ValueError(f"$.description: expected a string, got {preview(case['description'])}")
    return case


def run_case(path: Path, name: str) -> Outcome:
    """Load the case at ``path`` and compare the report with its ``expected``, strictly."""
    try:
        case = load(path)
    except (OSError, ValueError) as error:
        return Outcome(name, False, f"cannot load: {error}")
    difference = first_difference(case["expected"], evaluate(case["input"]))
    if difference is not None:
        difference += "".join(f"; {reason}" for reason in _missing_tokenizer_data(case["input"]))
    return Outcome(name, difference is None, difference or "")


def _missing_tokenizer_data(value: object) -> list[str]:
    """Why each exact tokenizer the input names cannot count (its rank file is missing or wrong), if any:
    a failure caused by missing data says so, not only ``$.pass``."""
    import json

    from .tokenizers import ENCODINGS, TokenizerUnavailable

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return []
    reasons = []
    for name, encoding in ENCODINGS.items():
        if f'"{name}"' in text:
            try:
                encoding.load()
            except TokenizerUnavailable as error:
                reasons.append(str(error))
    return reasons


def _kind(value: object) -> str:
    # 1 and 1.0 print differently (Python writes 1.0), so a report must match its
    # fixture to the type as well as the value.
    if isinstance(value, bool) or value is None:
        return repr(value)
    return type(value).__name__


def first_difference(expected: object, actual: object, path: str = "$") -> str | None:
    """The JSON path and values of the first place where two JSON values differ, or None.

    Strict about JSON types: ``true`` is not ``1`` and ``1`` is not ``1.0`` (Python would
    say they are equal).
    """
    if _kind(expected) != _kind(actual):
        return f"{path}: expected {preview(expected)}, got {preview(actual)}"
    if isinstance(expected, dict):
        for key in expected:
            if key not in actual:
                return f"{child_path(path, key)}: expected {preview(expected[key])}, got nothing"
            found = first_difference(expected[key], actual[key], child_path(path, key))
            if found:
                return found
        for key in actual:
            if key not in expected:
                return f"{child_path(path, key)}: not expected, got {preview(actual[key])}"
        return None
    if isinstance(expected, list):
        for index, (want, got) in enumerate(zip(expected, actual)):
            found = first_difference(want, got, child_path(path, index))
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}"
        return None
    if expected != actual:
        return f"{path}: expected {preview(expected)}, got {preview(actual)}"
    return None
