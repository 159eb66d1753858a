"""Mode ``relevance`` (seed 000): greedy by descending relevance, ties by ordinal id."""

from __future__ import annotations

from itertools import compress, count, repeat
from operator import ne, not_
from typing import Iterable

from .. import _checks
from .._optimal import report_optimal
from .._ordinal import ranked_order
from .._shape import Field, InputShape, read_input
from .._values import read_count, read_id, read_score, read_text

NAME = "relevance"
COUNTED_COST = "tokens"  # with a top-level tokenizer, an item may give content instead
INPUT_SUMMARY = "Input needs a non-negative integer budget and items array."
ITEM_SUMMARY = "Each item needs id, numeric relevance, and non-negative integer tokens."
REASONS = ("exceeds_remaining_budget", "fits_remaining_budget")  # indexed by kept

_TOP = (Field("mode", read_text, optional=True), Field("budget", read_count), Field("items", lambda value: value))
_ITEM = (
    Field("id", read_id),
    Field("relevance", read_score),
    Field("tokens", read_count),
    Field("content", read_text, optional=True),
)
SHAPE = InputShape(_TOP, "items", _ITEM, INPUT_SUMMARY, "item shape", ITEM_SUMMARY)


def parse(data: object) -> dict:
    """``{budget, ids, scores (as doubles), tokens, relevance (as given)}``, one column per field."""
    (_, budget, _), (ids, relevance, tokens, _) = read_input(data, SHAPE)
    return {"budget": budget, "ids": ids, "scores": list(map(float, relevance)), "tokens": tokens, "relevance": relevance}


def rule(parsed: dict, positions: Iterable[int] | None = None) -> tuple[list[int], list[bool], list[int]]:
    """The seed's rule: positions in the order considered, whether each was kept, and the
    budget remaining before each. ``positions`` presents the items in another input order."""
    order = ranked_order(parsed["ids"], parsed["scores"], descending=True, positions=positions)
    costs = parsed["tokens"]
    remaining = parsed["budget"]
    kept: list[bool] = []
    before: list[int] = []
    # A plain loop: CPython specialises it to a few nanoseconds per item, faster than
    # accumulate() with a Python callback, which pays a call per item.
    for position in order:
        before.append(remaining)
        cost = costs[position]
        if cost <= remaining:
            remaining -= cost
            kept.append(True)
        else:
            kept.append(False)
    return order, kept, before


def select(parsed: dict) -> dict:
    budget = parsed["budget"]
    order, kept, before = rule(parsed)
    ids = list(map(parsed["ids"].__getitem__, order))
    tokens = list(map(parsed["tokens"].__getitem__, order))
    relevance = map(parsed["relevance"].__getitem__, order)
    reasons = map(REASONS.__getitem__, kept)
    trace = [
        {
            "position": position,
            "id": item_id,
            "relevance": score,
            "tokens": cost,
            "remaining_before": remaining,
            "kept": keep,
            "reason": reason,
        }
        for position, item_id, score, cost, remaining, keep, reason in zip(count(1), ids, relevance, tokens, before, kept, reasons)
    ]
    used = sum(compress(tokens, kept))
    return {
        "budget": budget,
        "used": used,
        "remaining": budget - used,
        "selected": list(compress(ids, kept)),
        "omitted": list(compress(ids, map(not_, kept))),
        "trace": trace,
    }


def beyond_the_rule(parsed: dict, result: dict) -> dict:
    """What the greedy choice cost: the best relevance sum any subset within the budget reaches."""
    kept = dict.fromkeys(result["selected"], True)
    greedy_kept = list(map(kept.get, parsed["ids"], repeat(False)))
    return {"optimal": report_optimal(parsed["ids"], parsed["tokens"], parsed["scores"], parsed["budget"], greedy_kept)}


def run(data: object) -> dict:
    return select(parse(data))


def succeeded(result: dict) -> bool:
    return True


def summarize(result: dict) -> str:
    return f"Selected {', '.join(result['selected']) or 'nothing'} within {result['budget']} tokens."


def verify(data: dict, result: dict, parsed: dict | None = None) -> list[dict]:
    budget = _checks.raw_number(data["budget"])
    items = data["items"]
    ids = _checks.column(items, "id")
    costs = _checks.column(items, "tokens")
    where = _checks.positions_of(ids)
    trace = _checks.Trace(result["trace"], where)

    def order_and_decisions():
        scores = list(map(float, _checks.column(items, "relevance")))
        yield from _checks.order_problems(trace, scores, descending=True)
        yield from _checks.decision_problems(trace, budget, costs)
        yield from _checks.listing_problems(trace, result["selected"], result["omitted"])
        yield from rerun_on_reversed(data, parsed, trace.ids, result["selected"])

    return [
        _checks.verdict(
            "token budget",
            _checks.budget_problems(where, costs, result["selected"], budget, result["used"], result["remaining"]),
        ),
        _checks.verdict("deterministic relevance order", order_and_decisions()),
    ]


def rerun_on_reversed(data: dict, parsed: dict | None, considered_ids: list, selected: list):
    """Re-run the rule on the items in reverse order; the order considered and the selection must not change."""
    if len(data["items"]) < 2:
        return
    if parsed is None:
        parsed = parse(data)
    # The items presented last to first; compared element by element, so that nothing as
    # large as the input is built again.
    order, kept, _ = rule(parsed, positions=range(len(parsed["ids"]) - 1, -1, -1))
    considered = map(parsed["ids"].__getitem__, order)
    if len(order) != len(considered_ids) or any(map(ne, considered, considered_ids)):
        yield "re-running the rule on the items in reverse order considers the items in another order"
    elif sum(kept) != len(selected) or any(map(ne, compress(considered_ids, kept), selected)):
        yield "re-running the rule on the items in reverse order selects other items"
