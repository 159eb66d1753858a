"""``evaluate``: validate, select by the mode's rule, verify independently, report."""

from __future__ import annotations

from ._counted import with_counts
from ._shape import InvalidInput
from ._values import MAX_PROBLEMS, Problem, preview
from .modes import DEFAULT_MODE, MODES


def evaluate(input: object) -> dict:
    """The report for one input: never raises, never mutates ``input``."""
    try:
        return _evaluate(input)
    except Exception as error:  # the promise is "never raises"; say what broke instead
        return {
            "pass": False,
            "summary": "The checker failed on this input; please report it.",
            "checks": [{"name": "internal error", "pass": False, "detail": f"{type(error).__name__}: {error}"[:300]}],
            "mode": None,
        }


def _evaluate(data: object) -> dict:
    mode_name = data.get("mode", DEFAULT_MODE) if isinstance(data, dict) else DEFAULT_MODE
    mode = MODES.get(mode_name) if isinstance(mode_name, str) else None
    if mode is None:
        return _unknown_mode(mode_name)
    counting = None
    cost_key = getattr(mode, "COUNTED_COST", None)  # modes whose items may give content for a tokenizer to count
    if cost_key is not None and isinstance(data, dict) and "tokenizer" in data:
        try:
            data, tokenizer, counted = with_counts(data, cost_key, mode.INPUT_SUMMARY)
        except InvalidInput as invalid:
            return _invalid_report(mode.NAME, invalid)
        counting = {"tokenizer": tokenizer, "counted": counted}
    try:
        parsed = mode.parse(data)
    except InvalidInput as invalid:
        return _invalid_report(mode.NAME, invalid)
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
        detail += f"; the first {MAX_PROBLEMS} are listed in errors)" if len(problems) > MAX_PROBLEMS else ")"
    return {
        "pass": False,
        "summary": invalid.summary,
        "checks": [{"name": invalid.check, "pass": False, "detail": detail}],
        "mode": mode_name,
        "errors": [problem.as_json() for problem in listed],
    }


def _unknown_mode(mode_name: object) -> dict:
    message = f"expected one of {', '.join(MODES)}, got {preview(mode_name)}"
    return _invalid_report(None, InvalidInput([Problem("$.mode", message)], "input shape", f"Unknown mode: {message}."))
