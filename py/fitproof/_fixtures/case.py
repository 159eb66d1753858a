"""Fixture cases: one JSON file each, ``{description, input, expected | expect}``.

``expected`` is the whole report, compared exactly (a snapshot); ``expect`` holds only the keys
the case is about, each compared exactly, its objects by the keys they give, its lists whole.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Iterator, NamedTuple

from .._base import strict_json as _strict_json
from .._base.capped import TooLarge, read_capped
from .._base.errors import ArgumentError
from .._evaluation.evaluate import evaluate
from .._evaluation.report import Report
from .._base.values import and_more, child_path, closest_name, json_text, preview, preview_is_cut

CASE_KEYS = ("description", "input", "expected", "expect")
# A case is read whole, at most this much (check's own cap on an input): a larger file, even a
# sparse one of 300 GB, is refused without reading it.
MAX_CASE_BYTES = 256 * 1024 * 1024
MAX_COUNTED = 1000  # further differences counted after the first, at most (a snapshot of another mode differs everywhere)
_SHAPE = "expected an object with keys description, input, and expected (the whole report) or expect (the keys it states)"


class Outcome(NamedTuple):
    """One case's result: its ``name``, whether it ``passed``, and the ``detail`` of a
    failure (the JSON path and both values of the first difference, or why the file is
    not a case)."""

    name: str
    passed: bool
    detail: str = ""


class Judgement(NamedTuple):
    """All that running one case found: the case and its report (None when the file is not a
    case), the first ``difference`` (or why the file is not a case; None when it passed), and
    why each exact tokenizer the input names cannot count here, if any."""

    name: str
    case: dict | None
    report: Report | None
    difference: str | None
    missing_data: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.difference is None

    @property
    def partial(self) -> bool:
        return self.case is not None and "expect" in self.case

    def outcome(self) -> Outcome:
        detail = "" if self.difference is None else "; ".join((self.difference, *self.missing_data))
        return Outcome(self.name, self.passed, detail)


def fixture_files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*.json") if path.is_file())


def case_files(where: Path) -> tuple[list[Path], Path]:
    """The case files at ``where`` (every ``*.json`` under a directory, or the one file), and the
    directory their names are relative to; an ``ArgumentError`` (a ``ValueError``) saying why when
    there is none."""
    if where.is_file():
        return [where], where.parent
    if not where.exists():
        raise ArgumentError(f"no fixture directory at {where}", "where", where)
    if not where.is_dir():
        raise ArgumentError(
            f"{where} is neither a directory nor a file: fixtures runs every *.json case under a directory, or one case file",
            "where",
            where,
        )
    files = fixture_files(where)
    if not files:
        raise ArgumentError(f"no fixture files (*.json) under {where}", "where", where)
    return files, where


# Keys only an input has (every mode's own): a file with them and no "input" was given by mistake.
_INPUT_KEYS = ("mode", "budget", "items", "blocks", "passages", "messages", "limit")


def read_text(path: Path) -> str:
    """A case file's text (UTF-8, at most MAX_CASE_BYTES); ``OSError`` or ``ValueError``."""
    try:
        data = read_capped(path, MAX_CASE_BYTES)
    except TooLarge as error:
        raise ValueError(f"{error} (each case must be smaller)") from None
    return _strict_json.decode_utf8(data)


def load(path: Path) -> dict:
    """A fixture file's content, or ``ValueError`` saying what is wrong with it."""
    return parse(read_text(path))


def parse(text: str) -> dict:
    """A case from its JSON text, or ``ValueError`` naming the JSON path of each problem."""
    case = _strict_json.loads(text)
    if not isinstance(case, dict):
        raise ValueError(f"$: {_SHAPE}, got {preview(case)}")
    if "input" not in case and "expected" not in case and "expect" not in case and any(key in case for key in _INPUT_KEYS):
        raise ValueError(
            "this looks like an input for `fitproof check`, not a case: a case holds an input "
            '("input") and what its report must say ("expected" or "expect")'
        )
    problems = []
    for key in case:
        if key not in CASE_KEYS:
            guess = closest_name(key, CASE_KEYS)
            hint = f"did you mean {json_text(guess)}?" if guess else "a case has description, input, and expected or expect"
            problems.append(f"{child_path('$', key)}: unknown key ({hint})")
    missing = [json_text(key) for key in ("description", "input") if key not in case]
    if missing:
        problems.append(f"$: missing key{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if "expected" in case and "expect" in case:
        problems.append('$: both "expected" and "expect"; a case gives one of them, the whole report or the keys it states')
    elif "expected" not in case and "expect" not in case:
        problems.append('$: missing "expected" (the whole report) or "expect" (the keys it states)')
    if problems:
        raise ValueError("; ".join(problems))
    if not isinstance(case["description"], str):
        raise ValueError(f"$.description: expected a string, got {preview(case['description'])}")
    if "expect" in case:
        if not isinstance(case["expect"], dict):
            raise ValueError(f"$.expect: expected an object of the report's keys, got {preview(case['expect'])}")
        if not case["expect"]:
            raise ValueError("$.expect: an empty object states nothing, so any report would pass: give the keys the case is about")
    return case


def expectation(case: dict) -> tuple[object, bool]:
    """What a case's report must match, and whether that is partial (``expect``) or whole."""
    return (case["expect"], True) if "expect" in case else (case["expected"], False)


def judge(path: Path, name: str) -> Judgement:
    """Load the case at ``path`` and compare its report with ``expected`` or ``expect``, strictly."""
    try:
        case = load(path)
    except (OSError, ValueError) as error:
        return Judgement(name, None, None, f"cannot load: {error}")
    report = evaluate(case["input"])
    wanted, partial = expectation(case)
    found = differences(wanted, report, partial=partial)
    difference = next(found, None)
    if difference is not None:  # how many more there are, so that fixing one does not hide the next
        more = sum(1 for _ in islice(found, MAX_COUNTED))
        difference += and_more(more, "more difference") if more < MAX_COUNTED else f" (and {MAX_COUNTED} or more other differences)"
    missing = tuple(missing_tokenizer_data(case["input"])) if difference is not None else ()
    return Judgement(name, case, report, difference, missing)


def run_case(path: Path, name: str) -> Outcome:
    """Load the case at ``path`` and compare the report with what it states, strictly."""
    return judge(path, name).outcome()


def missing_tokenizer_data(value: object) -> list[str]:
    """Why each exact tokenizer the input names cannot count (its rank file is missing or wrong), if any:
    a failure caused by missing data says so, not only ``$.pass``."""
    import json

    from ..tokenizers import exact  # its ENCODINGS as they are now (a test may put others in place)

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return []
    reasons = []
    for name, encoding in exact.ENCODINGS.items():
        if f'"{name}"' in text:
            try:
                encoding.load()
            except exact.TokenizerUnavailable as error:
                reasons.append(str(error))
    return reasons


def _kind(value: object) -> str:
    # 1 and 1.0 print differently (Python writes 1.0), so a report must match its
    # fixture to the type as well as the value.
    if isinstance(value, bool) or value is None:
        return repr(value)
    return type(value).__name__


def _values(path: str, expected: object, actual: object) -> str:
    said = f"{path}: expected {preview(expected)}, got {preview(actual)}"
    if isinstance(expected, str) and isinstance(actual, str) and preview(expected) == preview(actual):
        # Long strings alike in their first 60 characters: show where they part.
        at = next((index for index, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
        said += f"; from character {at + 1}: expected {preview(expected[at:])}, got {preview(actual[at:])}"
    return said


def first_difference(expected: object, actual: object, path: str = "$", *, partial: bool = False) -> str | None:
    """The JSON path and values of the first place where two JSON values differ, or None.

    Strict about JSON types: ``true`` is not ``1`` and ``1`` is not ``1.0`` (Python would
    say they are equal). ``partial``: an object of ``expected`` states only the keys it has
    (``actual`` may have more), and a list is compared whole and named whole.
    """
    return next(differences(expected, actual, path, partial=partial), None)


def differences(expected: object, actual: object, path: str = "$", *, partial: bool = False) -> Iterator[str]:
    """Every place where two JSON values differ, in document order, as ``first_difference`` words
    the first: a list that differs in its length or its elements is one difference."""
    if _kind(expected) != _kind(actual):
        yield f"{path}: expected {preview(expected)}, got {preview(actual)}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict)  # the same _kind: both JSON objects
        for key in expected:
            if key not in actual:
                guess = closest_name(key, tuple(actual)) if isinstance(key, str) and all(isinstance(name, str) for name in actual) else None
                hint = f" (did you mean {json_text(guess)}?)" if guess else ""
                yield f"{child_path(path, key)}: expected {preview(expected[key])}, got nothing{hint}"
            else:
                yield from differences(expected[key], actual[key], child_path(path, key), partial=partial)
        if not partial:
            for key in actual:
                if key not in expected:
                    yield f"{child_path(path, key)}: not expected, got {preview(actual[key])}"
    elif isinstance(expected, list):
        assert isinstance(actual, list)  # the same _kind: both JSON arrays
        inner = first_difference(expected, actual, path) if partial else _list_difference(expected, actual, path)
        if inner is None:
            return
        if not partial:
            yield inner
            return
        said = f"{path}: expected {preview(expected)}, got {preview(actual)}"
        if not (preview_is_cut(expected) or preview_is_cut(actual)):
            yield said
        # A list too long to show whole: where inside it the two part, or how long each is.
        elif inner.startswith(f"{path}["):
            yield f"{said} (first difference at {inner})"
        else:
            yield f"{said} ({inner[len(path) + 2 :]})"
    elif expected != actual:
        yield _values(path, expected, actual)


def _list_difference(expected: list, actual: list, path: str) -> str | None:
    """The first difference of two lists: an element's, or else their lengths."""
    for index, (want, got) in enumerate(zip(expected, actual)):
        found = first_difference(want, got, child_path(path, index))
        if found:
            return found
    if len(expected) != len(actual):
        return f"{path}: expected {len(expected)} elements, got {len(actual)}"
    return None
