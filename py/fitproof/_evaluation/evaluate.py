"""``evaluate``: validate, select by the mode's rule, verify independently, report."""

from __future__ import annotations

from typing import Any

from .._shared.checks import Check
from .report import Report
from .._shared.counted import with_counts
from ..tokenizers import TOKENIZERS
from .._base.errors import TokenizerFileError
from .._shared.shape import InputShape, InvalidInput, missing_key
from .._base.values import (
    MAX_PROBLEMS,
    and_more,
    MISSING_KEY,
    TOKENIZER_UNAVAILABLE,
    UNKNOWN_MODE,
    WRONG_MODE,
    Problem,
    closest_name,
    json_text,
    preview,
)
from ..modes import DEFAULT_MODE, MODES
from ..modes.protocol import Mode


def evaluate(input: object) -> Report:
    """The report for one input (a JSON value as ``json.loads`` gives it): never raises,
    never mutates ``input``, and shares no list or object with it.

    ``input["mode"]`` picks the rule: ``relevance`` (the default: ``budget``, ``items`` of
    ``{id, relevance, tokens}``), ``required``, ``blocks``, ``passages`` or ``messages``.
    The report has ``pass``, ``summary``, ``checks`` (independent verifications), the
    mode's results and a ``trace`` row per decision; an invalid input gives ``errors``
    instead, each ``{path, message}``. docs/contract.md has every field, and :class:`Report`
    declares every key; :func:`fitproof.select` is the typed way in, raising on invalid input.
    """
    return evaluate_with_problems(input)[0]


def evaluate_with_problems(input: object) -> tuple[Report, list[Problem] | None]:
    """The report, and for an invalid input every problem found (the report lists at most 50)."""
    try:
        return _evaluate(input)
    except Exception as error:  # the promise is "never raises"; say what broke instead
        return {
            "pass": False,
            "summary": "The checker failed on this input; please report it.",
            "checks": [{"name": "internal error", "pass": False, "detail": f"{type(error).__name__}: {error}"[:300]}],
            "mode": None,
        }, None


def _evaluate(data: object) -> tuple[Report, list[Problem] | None]:
    mode_name = data.get("mode", DEFAULT_MODE) if isinstance(data, dict) else DEFAULT_MODE
    mode = MODES.get(mode_name) if isinstance(mode_name, str) else None
    if mode is None:
        return _unknown_mode(mode_name)
    if isinstance(data, dict) and "claim" in data:  # someone's selection to judge too (claims.py): the mode never sees the key
        from .claims import judging

        mode, data = judging(mode, data)
    given = data
    try:
        result, checks = _select_and_verify(mode, data)
    except InvalidInput as invalid:
        return _invalid_report(mode.NAME, invalid)
    except TokenizerFileError as error:  # a registered file found broken only while it counted this input
        return _invalid_report(mode.NAME, _unusable_file(given, error))
    all_passed = mode.succeeded(result) and all(check["pass"] for check in checks)
    summary = mode.summarize(result)
    if mode.succeeded(result) and not all_passed:
        names = ", ".join(check["name"] for check in checks if not check["pass"])
        summary = f"{summary} But a check failed: {names}."
    report: Report = {"pass": all_passed, "summary": summary, "checks": checks, "mode": mode.NAME, **result}
    if isinstance(given, dict):  # a tokenizer read from a file: which file, by its SHA-256 (tokenizers/registry.py)
        from ..tokenizers import file_record

        record = file_record(given.get("tokenizer", given.get("counter")))
        if record is not None:
            report["tokenizer_file"] = record
    return report, None


def _select_and_verify(mode: Mode[Any, Any], data: object) -> tuple[dict, list[Check]]:
    """The input counted (when it names a tokenizer and has content to count), parsed, selected,
    verified and taken beyond the rule; an unusable input raises InvalidInput with its hints."""
    counting = None
    cost_key = mode.COUNTED_COST  # modes whose items may give content for a tokenizer to count
    given = data
    if cost_key is not None and isinstance(data, dict) and "tokenizer" in data:
        try:
            data, tokenizer, counted = with_counts(data, cost_key, mode.INPUT_SUMMARY)
        except InvalidInput as invalid:
            # data is still given (with_counts raised), and known to be an object
            raise _unavailable_tokenizer(given, _and_the_rest(mode, data, cost_key, invalid)) from None
        counting = {"tokenizer": tokenizer, "counted": counted}
    try:
        parsed = mode.parse(data)
    except InvalidInput as invalid:
        if cost_key is not None and counting is None:
            invalid = _with_content_hint(data, cost_key, invalid)
        raise _with_mode_hint(given, mode.NAME, _unavailable_tokenizer(given, invalid, mode.DEFAULT_TOKENIZER)) from None
    result = mode.select(parsed)
    if counting is not None:
        result.update(counting)
    checks = mode.verify(data, result, parsed)
    result.update(mode.beyond_the_rule(parsed, result))
    return result, checks


def problems_detail(problems: list[Problem], listed_in: str = "errors") -> str:
    """The first problem, and how many more there are, whose first MAX_PROBLEMS are in
    ``listed_in`` (the report's ``errors``; ``select`` says ``.problems``)."""
    where = f"; the first {MAX_PROBLEMS} are listed in {listed_in}" if len(problems) > MAX_PROBLEMS else f", listed in {listed_in}"
    return f"{problems[0].path}: {problems[0].message}" + and_more(len(problems) - 1, "more problem", where)


def _invalid_report(mode_name: str | None, invalid: InvalidInput) -> tuple[Report, list[Problem]]:
    problems = invalid.problems
    listed = problems[:MAX_PROBLEMS]
    return {
        "pass": False,
        "summary": invalid.summary,
        "checks": [{"name": invalid.check, "pass": False, "detail": problems_detail(problems)}],
        "mode": mode_name,
        "errors": [problem.as_json() for problem in listed],
    }, problems


def _with_mode_hint(data: object, mode_name: str, invalid: InvalidInput) -> InvalidInput:
    """Put first, when the same input is valid in another mode, that the mode is what is wrong.

    Items shaped for ``relevance`` under ``"mode": "required"`` otherwise get one error per
    missing or unknown key and no word about the likely cause.
    """
    if not isinstance(data, dict) or all(problem.at[:1] == ("claim",) for problem in invalid.problems):
        return invalid  # (the input itself is valid in this mode: only its claim is not, so no mode is wrong)
    for other_name, other in MODES.items():
        if other_name == mode_name or not _could_fit(data, other.SHAPE):
            continue
        candidate = {**data, "mode": other_name}
        try:
            if "tokenizer" in data and other.COUNTED_COST is not None:  # counted as that mode would
                candidate = with_counts(candidate, other.COUNTED_COST, other.INPUT_SUMMARY)[0]
            other.parse(candidate)
        except InvalidInput:
            continue
        if "mode" in data:
            hint = Problem(
                ("mode",),
                WRONG_MODE,
                f'this input is valid in mode {json_text(other_name)}, not {json_text(mode_name)}: set "mode": {json_text(other_name)}',
                other_name,
            )
        else:
            hint = Problem(
                (),
                WRONG_MODE,
                f'this input is valid in mode {json_text(other_name)}; without a "mode" key it is read as {json_text(mode_name)}: add "mode": {json_text(other_name)}',
                other_name,
            )
        return InvalidInput([hint, *invalid.problems], invalid.check, invalid.summary)
    return invalid


def _counted_content(problem: Problem, items: object, cost_key: str) -> bool:
    """Whether the problem is an item's missing ``cost_key`` where the item gives ``content``
    (which a top-level tokenizer counts)."""
    at = problem.at
    return (
        problem.code == MISSING_KEY
        and problem.about == cost_key
        and len(at) == 2
        and at[0] == "items"
        and isinstance(at[1], int)
        and isinstance(items, list)
        and at[1] < len(items)
        and isinstance(items[at[1]], dict)
        and isinstance(items[at[1]].get("content"), str)
    )


def _and_the_rest(mode: Mode[Any, Any], data: dict, cost_key: str, invalid: InvalidInput) -> InvalidInput:
    """A tokenizer that cannot be used, and every other problem of the input after it (read as
    if it had no tokenizer, minus the counts that the tokenizer would have made)."""
    rest = {key: value for key, value in data.items() if key != "tokenizer"}
    try:
        mode.parse(rest)
        return invalid
    except InvalidInput as more:
        items = rest.get("items")
        kept = [problem for problem in more.problems if not _counted_content(problem, items, cost_key)]
        return InvalidInput([*invalid.problems, *kept], invalid.check, invalid.summary)


def _unavailable_tokenizer(data: object, invalid: InvalidInput, default: str | None = None) -> InvalidInput:
    """When every problem is an exact tokenizer this installation cannot load (its rank file
    missing or altered), the summary says so instead of restating what a valid input needs:
    the input is fine, the installation is not. ``default``: the mode's tokenizer when the
    input names none."""
    problems = invalid.problems
    if not problems or not all(problem.code == TOKENIZER_UNAVAILABLE for problem in problems) or not isinstance(data, dict):
        return invalid
    name = data.get(problems[0].at[0], default)  # $.tokenizer or $.counter: the name, read from the input
    return InvalidInput(
        problems, invalid.check, f"The {name} tokenizer is not available here." if isinstance(name, str) else invalid.summary
    )


def _unusable_file(data: object, error: TokenizerFileError) -> InvalidInput:
    """The input is fine; the tokenizer file it names cannot count it (a character map pointing
    outside itself, met only on this text): a problem at the key that names the tokenizer."""
    key = "counter" if isinstance(data, dict) and "counter" in data and "tokenizer" not in data else "tokenizer"
    name = data.get(key) if isinstance(data, dict) else None
    problem = Problem((key,), TOKENIZER_UNAVAILABLE, f"its file cannot count this input: {error}")
    summary = (
        f"The {name} tokenizer's file cannot count this input."
        if isinstance(name, str)
        else "The tokenizer's file cannot count this input."
    )
    return InvalidInput([problem], "input shape", summary)


def _with_content_hint(data: object, cost_key: str, invalid: InvalidInput) -> InvalidInput:
    """An item with ``content`` but no count: say that a top-level ``tokenizer`` would count it."""
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return invalid
    names = ", ".join(json_text(name) for name in TOKENIZERS)
    hint = f' (the item has "content": a top-level "tokenizer" ({names}) counts it instead)'
    problems = [
        missing_key(problem.at, cost_key, hint) if _counted_content(problem, items, cost_key) else problem for problem in invalid.problems
    ]
    return InvalidInput(problems, invalid.check, invalid.summary)


def _could_fit(data: dict, shape: InputShape | None) -> bool:
    """A cheap look before a full parse: the list is there and its first element has only declared keys."""
    if shape is None:  # a mode without a declarative shape: let its parser decide
        return True
    elements = data.get(shape.list_key)
    if not isinstance(elements, list):
        return False
    return not elements or not isinstance(elements[0], dict) or set(elements[0]) <= {field.name for field in shape.item}


def _unknown_mode(mode_name: object) -> tuple[Report, list[Problem]]:
    guess = closest_name(mode_name, tuple(MODES)) if isinstance(mode_name, str) else None
    hint = f"; did you mean {json_text(guess)}?" if guess else ""
    message = f"expected one of {', '.join(MODES)}, got {preview(mode_name)}{hint}"
    summary = f"Unknown mode: {message}" + ("" if guess else ".")  # a question ends itself
    return _invalid_report(None, InvalidInput([Problem(("mode",), UNKNOWN_MODE, message)], "input shape", summary))
