"""Mode ``relevance`` (seed 000): greedy by descending relevance, ties by ordinal id."""

from __future__ import annotations

from .. import _checks
from .._optimal import report_optimal
from .._ordinal import ordinal_key_for
from .._shape import Field, InvalidInput, read_object, read_records
from .._values import Problem, read_count, read_id, read_score, read_text

NAME = "relevance"
INPUT_SUMMARY = "Input needs a non-negative integer budget and items array."
ITEM_SUMMARY = "Each item needs id, numeric relevance, and non-negative integer tokens."

_TOP = (Field("mode", read_text, optional=True), Field("budget", read_count), Field("items", lambda value: value))
_ITEM = (
    Field("id", read_id),
    Field("relevance", read_score),
    Field("tokens", read_count),
    Field("content", read_text, optional=True),
)


def parse(data: object) -> tuple[int, list[tuple]]:
    """``(budget, items)`` with items as ``(id, relevance as double, tokens, relevance as given)``."""
    problems: list[Problem] = []
    top = read_object(data, "$", _TOP, problems)
    if top is None:
        raise InvalidInput(problems, "input shape", INPUT_SUMMARY)
    _, budget, raw_items = top
    records = read_records(raw_items, "$.items", _ITEM, problems) if "items" in data else None
    if problems:
        item_level = all(problem.path.startswith("$.items[") for problem in problems)
        if item_level:
            raise InvalidInput(problems, "item shape", ITEM_SUMMARY)
        raise InvalidInput(problems, "input shape", INPUT_SUMMARY)
    items = [
        (item_id, score, tokens, raw["relevance"])
        for (item_id, score, tokens, _), raw in zip(records, data["items"])
    ]
    return budget, items


def select(parsed: tuple[int, list[tuple]]) -> dict:
    budget, items = parsed
    key = ordinal_key_for(item[0] for item in items)
    order = sorted(items, key=lambda item: (-item[1], key(item[0])))
    remaining = budget
    selected: list[str] = []
    omitted: list[str] = []
    trace: list[dict] = []
    for position, (item_id, _, tokens, relevance) in enumerate(order, 1):
        kept = tokens <= remaining
        trace.append(
            {
                "position": position,
                "id": item_id,
                "relevance": relevance,
                "tokens": tokens,
                "remaining_before": remaining,
                "kept": kept,
                "reason": "fits_remaining_budget" if kept else "exceeds_remaining_budget",
            }
        )
        if kept:
            selected.append(item_id)
            remaining -= tokens
        else:
            omitted.append(item_id)
    return {
        "budget": budget,
        "used": budget - remaining,
        "remaining": remaining,
        "selected": selected,
        "omitted": omitted,
        "trace": trace,
    }


def beyond_the_rule(parsed: tuple[int, list[tuple]], result: dict) -> dict:
    """What the greedy choice cost: the best relevance sum any subset within the budget reaches."""
    budget, items = parsed
    key = ordinal_key_for(item[0] for item in items)
    entries = [(item_id, tokens, score) for item_id, score, tokens, _ in items]
    costs = {item_id: tokens for item_id, _, tokens, _ in items}
    values = {item_id: score for item_id, score, _, _ in items}
    return {"optimal": report_optimal(entries, budget, key, result["selected"], costs, values)}


def run(data: object) -> dict:
    return select(parse(data))


def succeeded(result: dict) -> bool:
    return True


def summarize(result: dict) -> str:
    return f"Selected {', '.join(result['selected']) or 'nothing'} within {result['budget']} tokens."


def verify(data: dict, result: dict) -> list[dict]:
    budget = _checks.raw_number(data["budget"])
    items = data["items"]
    costs = {item["id"]: _checks.raw_number(item["tokens"]) for item in items}
    scores = {item["id"]: _checks.as_double(item["relevance"]) for item in items}
    rows = result["trace"]

    def rank(item_id: str) -> tuple:
        return (-scores[item_id],)

    def order_and_decisions():
        yield from _checks.order_problems(rows, costs, rank)
        yield from _checks.decision_problems(rows, budget, costs)
        yield from _checks.listing_problems(rows, result["selected"], result["omitted"])
        yield from _checks.permutation_problems(data, "items", run, result, ("selected", "omitted", "trace"))

    return [
        _checks.verdict(
            "token budget",
            _checks.budget_problems(costs, result["selected"], budget, result["used"], result["remaining"]),
        ),
        _checks.verdict("deterministic relevance order", order_and_decisions()),
    ]
