"""``evaluate``: validate, select by the mode's rule, verify independently, report."""

from __future__ import annotations

import gc

from ._counted import with_counts
from ._tokenizer import TOKENIZERS
from ._shape import InvalidInput
from ._values import MAX_PROBLEMS, Problem, closest_name, json_text, preview
from .modes import DEFAULT_MODE, MODES


def evaluate(input: object) -> dict:
    """The report for one input (a JSON value as ``json.loads`` gives it): never raises,
    never mutates ``input``, and shares no list or object with it.

    ``input["mode"]`` picks the rule: ``relevance`` (the default: ``budget``, ``items`` of
    ``{id, relevance, tokens}``), ``required``, ``blocks``, ``passages`` or ``messages``.
    The report has ``pass``, ``summary``, ``checks`` (independent verifications), the
    mode's results and a ``trace`` row per decision; an invalid input gives ``errors``
    instead, each ``{path, message}``. docs/contract.md has every field;
    :func:`context_budget.select` is the typed way in, raising on invalid input.
    """
    # The cyclic garbage collector is paused while evaluate runs: a report is a tree (no
    # cycle for it to find), and on a large input its full passes over the input's objects
    # were ~5 % of the time at 100,000 items. Reference counting frees everything as always;
    # a collection a caller (or another thread) would have had meanwhile runs at the next
    # allocations after.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _evaluate(input)
    except Exception as error:  # the promise is "never raises"; say what broke instead
        return {
            "pass": False,
            "summary": "The checker failed on this input; please report it.",
            "checks": [{"name": "internal error", "pass": False, "detail": f"{type(error).__name__}: {error}"[:300]}],
            "mode": None,
        }
    finally:
        if paused:
            gc.enable()


def _evaluate(data: object) -> dict:
    mode_name = data.get("mode", DEFAULT_MODE) if isinstance(data, dict) else DEFAULT_MODE
    mode = MODES.get(mode_name) if isinstance(mode_name, str) else None
    if mode is None:
        return _unknown_mode(mode_name)
    if isinstance(data, dict) and "claim" in data:  # someone's selection to judge too (_claims.py): the mode never sees the key
        from ._claims import judging
        mode, data = judging(mode, data)
    counting = None
    cost_key = getattr(mode, "COUNTED_COST", None)  # modes whose items may give content for a tokenizer to count
    given = data
    if cost_key is not None and isinstance(data, dict) and "tokenizer" in data:
        try:
            data, tokenizer, counted = with_counts(data, cost_key, mode.INPUT_SUMMARY)
        except InvalidInput as invalid:
            return _invalid_report(mode.NAME, _unavailable_tokenizer(given, _and_the_rest(mode, given, cost_key, invalid)))
        counting = {"tokenizer": tokenizer, "counted": counted}
    try:
        parsed = mode.parse(data)
    except InvalidInput as invalid:
        if cost_key is not None and counting is None:
            invalid = _with_content_hint(data, cost_key, invalid)
        return _invalid_report(mode.NAME, _with_mode_hint(given, mode.NAME, _unavailable_tokenizer(given, invalid, getattr(mode, "DEFAULT_TOKENIZER", None))))
    result = mode.select(parsed)
    if counting is not None:
        result.update(counting)
    checks = mode.verify(data, result, parsed)
    beyond = getattr(mode, "beyond_the_rule", None)
    if beyond is not None:
        result.update(beyond(parsed, result))
    all_passed = mode.succeeded(result) and all(check["pass"] for check in checks)
    summary = mode.summarize(result)
    if mode.succeeded(result) and not all_passed:
        names = ", ".join(check["name"] for check in checks if not check["pass"])
        summary = f"{summary} But a check failed: {names}."
    return {"pass": all_passed, "summary": summary, "checks": checks, "mode": mode.NAME, **result}


def _invalid_report(mode_name: str, invalid: InvalidInput) -> dict:
    problems = invalid.problems
    listed = problems[:MAX_PROBLEMS]
    detail = f"{problems[0].path}: {problems[0].message}"
    if len(problems) > 1:
        detail += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''}"
        detail += f"; the first {MAX_PROBLEMS} are listed in errors)" if len(problems) > MAX_PROBLEMS else ", listed in errors)"
    return {
        "pass": False,
        "summary": invalid.summary,
        "checks": [{"name": invalid.check, "pass": False, "detail": detail}],
        "mode": mode_name,
        "errors": [problem.as_json() for problem in listed],
    }


def _with_mode_hint(data: object, mode_name: str, invalid: InvalidInput) -> InvalidInput:
    """Put first, when the same input is valid in another mode, that the mode is what is wrong.

    Items shaped for ``relevance`` under ``"mode": "required"`` otherwise get one error per
    missing or unknown key and no word about the likely cause.
    """
    if not isinstance(data, dict):
        return invalid
    for other_name, other in MODES.items():
        if other_name == mode_name or not _could_fit(data, getattr(other, "SHAPE", None)):
            continue
        candidate = {**data, "mode": other_name}
        try:
            if "tokenizer" in data and getattr(other, "COUNTED_COST", None) is not None:  # counted as that mode would
                candidate = with_counts(candidate, other.COUNTED_COST, other.INPUT_SUMMARY)[0]
            other.parse(candidate)
        except InvalidInput:
            continue
        if "mode" in data:
            hint = Problem("$.mode", f"this input is valid in mode {json_text(other_name)}, not {json_text(mode_name)}: set \"mode\": {json_text(other_name)}")
        else:
            hint = Problem("$", f"this input is valid in mode {json_text(other_name)}; without a \"mode\" key it is read as {json_text(mode_name)}: add \"mode\": {json_text(other_name)}")
        return InvalidInput([hint, *invalid.problems], invalid.check, invalid.summary)
    return invalid


def _and_the_rest(mode: object, data: dict, cost_key: str, invalid: InvalidInput) -> InvalidInput:
    """A tokenizer that cannot be used, and every other problem of the input after it (read as
    if it had no tokenizer, minus the counts that the tokenizer would have made)."""
    rest = {key: value for key, value in data.items() if key != "tokenizer"}
    try:
        mode.parse(rest)  # type: ignore[attr-defined]
        return invalid
    except InvalidInput as more:
        items = rest.get("items")
        missing = f"missing required key {json_text(cost_key)}"

        def counted(problem: Problem) -> bool:
            index = _item_index(problem.path)
            return (problem.message == missing and isinstance(items, list) and index is not None and index < len(items)
                    and isinstance(items[index], dict) and isinstance(items[index].get("content"), str))

        return InvalidInput([*invalid.problems, *(problem for problem in more.problems if not counted(problem))], invalid.check, invalid.summary)


def _unavailable_tokenizer(data: object, invalid: InvalidInput, default: str | None = None) -> InvalidInput:
    """When every problem is an exact tokenizer this installation cannot load (its rank file
    missing or altered), the summary says so instead of restating what a valid input needs:
    the input is fine, the installation is not. ``default``: the mode's tokenizer when the
    input names none."""
    problems = invalid.problems
    if not problems or not all(problem.unavailable for problem in problems) or not isinstance(data, dict):
        return invalid
    name = data.get(problems[0].path[2:], default)  # $.tokenizer or $.counter: the name, read from the input
    return InvalidInput(problems, invalid.check, f"The {name} tokenizer is not available here." if isinstance(name, str) else invalid.summary)


def _with_content_hint(data: object, cost_key: str, invalid: InvalidInput) -> InvalidInput:
    """An item with ``content`` but no count: say that a top-level ``tokenizer`` would count it."""
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return invalid
    missing = f"missing required key {json_text(cost_key)}"
    names = ", ".join(json_text(name) for name in TOKENIZERS)
    problems = []
    for problem in invalid.problems:
        index = _item_index(problem.path)
        if problem.message == missing and index is not None and index < len(items) and isinstance(items[index], dict) \
                and isinstance(items[index].get("content"), str):
            problem = Problem(problem.path, f"{missing} (the item has \"content\": a top-level \"tokenizer\" ({names}) counts it instead)")
        problems.append(problem)
    return InvalidInput(problems, invalid.check, invalid.summary)


def _item_index(path: str) -> int | None:
    """``$.items[3]`` -> 3; None for any other path."""
    if path.startswith("$.items[") and path.endswith("]") and path[8:-1].isdigit():
        return int(path[8:-1])
    return None


def _could_fit(data: dict, shape: object) -> bool:
    """A cheap look before a full parse: the list is there and its first element has only declared keys."""
    if shape is None:  # a mode without a declarative shape: let its parser decide
        return True
    elements = data.get(shape.list_key)
    if not isinstance(elements, list):
        return False
    return not elements or not isinstance(elements[0], dict) or set(elements[0]) <= {field.name for field in shape.item}


def _unknown_mode(mode_name: object) -> dict:
    guess = closest_name(mode_name, tuple(MODES)) if isinstance(mode_name, str) else None
    hint = f"; did you mean {json_text(guess)}?" if guess else ""
    message = f"expected one of {', '.join(MODES)}, got {preview(mode_name)}{hint}"
    summary = f"Unknown mode: {message}" + ("" if message.endswith("?") else ".")
    return _invalid_report(None, InvalidInput([Problem("$.mode", message)], "input shape", summary))
