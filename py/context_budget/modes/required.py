"""Mode ``required`` (seed 003): required items first, then optional ones by priority."""

from __future__ import annotations

from .. import _checks
from .._optimal import report_optimal
from .._ordinal import ordinal_key_for
from .._shape import Field, InvalidInput, read_object, read_records
from .._values import Problem, plural, read_bool, read_count, read_id, read_score, read_text

NAME = "required"
INPUT_SUMMARY = "Input needs a non-negative integer budget and items array."
ITEM_SUMMARY = "Each item needs id, numeric priority, and non-negative integer cost."

_TOP = (Field("mode", read_text, optional=True), Field("budget", read_count), Field("items", lambda value: value))
_ITEM = (
    Field("id", read_id),
    Field("cost", read_count),
    Field("priority", read_score),
    Field("required", read_bool, optional=True, default=False),
    Field("content", read_text, optional=True),
)


def parse(data: object) -> tuple[int, list[tuple]]:
    """``(budget, items)`` with items as ``(id, cost, priority as double, required, priority as given)``."""
    problems: list[Problem] = []
    top = read_object(data, "$", _TOP, problems)
    if top is None:
        raise InvalidInput(problems, "input shape", INPUT_SUMMARY)
    _, budget, raw_items = top
    records = read_records(raw_items, "$.items", _ITEM, problems) if "items" in data else None
    if problems:
        if all(problem.path.startswith("$.items[") for problem in problems):
            raise InvalidInput(problems, "item shape", ITEM_SUMMARY)
        raise InvalidInput(problems, "input shape", INPUT_SUMMARY)
    items = [
        (item_id, cost, priority, required, raw["priority"])
        for (item_id, cost, priority, required, _), raw in zip(records, data["items"])
    ]
    return budget, items


def select(parsed: tuple[int, list[tuple]]) -> dict:
    budget, items = parsed
    required_cost = sum(item[1] for item in items if item[3])
    overflow = required_cost > budget
    key = ordinal_key_for(item[0] for item in items)
    # Required items are all kept or all refused, so their relative order changes no
    # decision; ranking them like the rest keeps the trace independent of input order.
    order = sorted(items, key=lambda item: (not item[3], -item[2], key(item[0])))
    remaining = budget
    kept_ids: set[str] = set()
    trace: list[dict] = []
    for position, (item_id, cost, _, required, priority) in enumerate(order, 1):
        if overflow:
            kept = False
            reason = "required_items_exceed_budget" if required else "not_considered_required_overflow"
        elif required:
            kept, reason = True, "required"
        else:
            kept = cost <= remaining
            reason = "fits_remaining_budget" if kept else "exceeds_remaining_budget"
        trace.append(
            {
                "position": position,
                "id": item_id,
                "priority": priority,
                "cost": cost,
                "required": required,
                "remaining_before": remaining,
                "kept": kept,
                "reason": reason,
            }
        )
        if kept:
            kept_ids.add(item_id)
            remaining -= cost
    return {
        "budget": budget,
        "used": budget - remaining,
        "remaining": remaining,
        "required_cost": required_cost,
        "shortfall": max(0, required_cost - budget),
        "selected": [item[0] for item in items if item[0] in kept_ids],
        "omitted": [item[0] for item in items if item[0] not in kept_ids],
        "trace": trace,
    }


def beyond_the_rule(parsed: tuple[int, list[tuple]], result: dict) -> dict:
    """The best priority sum of optional items with the required ones fixed (none when they overflow)."""
    budget, items = parsed
    if result["shortfall"]:
        return {"optimal": None}
    key = ordinal_key_for(item[0] for item in items)
    optional = [(item_id, cost, priority) for item_id, cost, priority, required, _ in items if not required]
    chosen = set(result["selected"])
    return {
        "optimal": report_optimal(
            optional, budget - result["required_cost"], key,
            [item_id for item_id, _, _ in optional if item_id in chosen],
            {item_id: cost for item_id, cost, _ in optional}, {item_id: priority for item_id, _, priority in optional},
        )
    }


def run(data: object) -> dict:
    return select(parse(data))


def succeeded(result: dict) -> bool:
    return result["shortfall"] == 0


def summarize(result: dict) -> str:
    if result["shortfall"]:
        names = ", ".join(row["id"] for row in result["trace"] if row["required"])
        return (
            f"Required items {names} need {plural(result['required_cost'], 'token')} but the budget is "
            f"{result['budget']}: {plural(result['shortfall'], 'token')} short."
        )
    return f"Selected {', '.join(result['selected']) or 'nothing'} using {result['used']} of {result['budget']} tokens."


def verify(data: dict, result: dict) -> list[dict]:
    budget = _checks.raw_number(data["budget"])
    items = data["items"]
    costs = {item["id"]: _checks.raw_number(item["cost"]) for item in items}
    required = {item["id"] for item in items if item.get("required") is True}
    priorities = {item["id"]: _checks.as_double(item["priority"]) for item in items}
    required_cost = sum(costs[item_id] for item_id in required)
    rows = result["trace"]

    def rank(item_id: str) -> tuple:
        return (item_id not in required, -priorities[item_id])

    def required_problems():
        chosen = set(result["selected"])
        missing = sorted((item_id for item_id in required if item_id not in chosen), key=_checks.code_units)
        if missing:
            shortfall = required_cost - budget
            why = f"; they need {plural(required_cost, 'token')}, {shortfall} more than the budget of {budget}" if shortfall > 0 else ""
            yield f"required items {', '.join(missing)} are not selected{why}"

    def order_and_decisions():
        yield from _checks.order_problems(rows, costs, rank)
        if required_cost > budget:
            if any(row["kept"] for row in rows):
                yield "items were kept although the required items alone exceed the budget"
        else:
            yield from _checks.decision_problems(rows, budget, costs, required.__contains__)
        yield from _checks.listing_problems(rows, result["selected"], result["omitted"], [item["id"] for item in items])
        yield from _checks.permutation_problems(data, "items", run, result, ("trace", "used"))

    return [
        _checks.verdict(
            "token budget",
            _checks.budget_problems(costs, result["selected"], budget, result["used"], result["remaining"]),
        ),
        _checks.verdict("required items selected", required_problems()),
        _checks.verdict("deterministic priority order", order_and_decisions()),
    ]
