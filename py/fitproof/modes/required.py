"""Mode ``required``: required items first, then optional ones by priority, as seed 003, the reference
selector this mode adapts, chooses (docs/contract.md, "Where the modes come from")."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import not_
from typing import Iterator

from .._shared import checks as _checks
from .._shared.columns import INPUT_SUMMARY as INPUT_SUMMARY  # the mode's own member (modes/protocol.py), shared
from .._shared.columns import TOP, Considered, Identified, Selected
from .._shared.optimal import report_optimal
from .._base.ordinal import ranked_order
from .._shared.shape import Field, InputShape, read_input
from .._base.values import plural, read_bool, read_count, read_id, read_score, read_text
from .protocol import Words

NAME = "required"
WORDS = Words(kept="selected", left_out="omitted", used="used", limit="budget", listed="item ids")
DEFAULT_TOKENIZER = None
COUNTED_COST = "cost"  # with a top-level tokenizer, an item may give content instead
ITEM_SUMMARY = "Each item needs id, numeric priority, and non-negative integer cost."

_ITEM = (
    Field("id", read_id),
    Field("cost", read_count),
    Field("priority", read_score),
    Field("required", read_bool, optional=True, default=False),
    Field("content", read_text, optional=True),
)
SHAPE = InputShape(TOP, "items", _ITEM, INPUT_SUMMARY, "item shape", ITEM_SUMMARY)


@dataclass(frozen=True)
class Parsed(Identified):
    """The validated input, one column per item field, in input order."""

    costs: list[int]
    priorities: list[float]  # priority as doubles, what the rule compares
    required: list[bool]
    priority: list[int | float]  # as given, what the report echoes


class Decision(Considered):
    """A row of the trace."""

    priority: int | float
    cost: int
    required: bool


class Result(Selected):
    """The report's keys of this mode."""

    required_cost: int
    shortfall: int
    trace: list[Decision]


def parse(data: object) -> Parsed:
    """The columns, read by the mode's shape; raises ``InvalidInput`` with every problem."""
    (_, budget, _, _), (ids, costs, priority, required, _) = read_input(data, SHAPE)
    return Parsed(ids=ids, budget=budget, costs=costs, priorities=list(map(float, priority)), required=required, priority=priority)


def rule(parsed: Parsed) -> tuple[list[int], list[bool], list[int], int]:
    """Positions in the order considered, kept flags, the budget before each, and the
    required items' total cost. Required items are all kept or all refused, so their
    relative order changes no decision; ranking them like the rest keeps the trace
    independent of input order."""
    budget, costs, required = parsed.budget, parsed.costs, parsed.required
    required_cost = sum(compress(costs, required))
    # Ranked by (required, priority): the required items first, each group by priority. Two
    # sorts of numbers instead of one of (bool, number) tuples, which compare slower.
    ids, priorities = parsed.ids, parsed.priorities
    order = ranked_order(ids, priorities, descending=True, positions=compress(range(len(ids)), required))
    order += ranked_order(ids, priorities, descending=True, positions=compress(range(len(ids)), map(not_, required)))
    if required_cost > budget:
        return order, [False] * len(order), [budget] * len(order), required_cost
    remaining = budget
    kept: list[bool] = []
    before: list[int] = []
    for position in order:
        before.append(remaining)
        cost = costs[position]
        if required[position] or cost <= remaining:
            remaining -= cost
            kept.append(True)
        else:
            kept.append(False)
    return order, kept, before, required_cost


def select(parsed: Parsed) -> Result:
    budget, ids, costs, required = parsed.budget, parsed.ids, parsed.costs, parsed.required
    order, kept, before, required_cost = rule(parsed)
    overflow = required_cost > budget
    trace: list[Decision] = []
    for position, (index, keep, remaining) in enumerate(zip(order, kept, before), 1):
        if overflow:
            reason = "required_items_exceed_budget" if required[index] else "not_considered_required_overflow"
        elif required[index]:
            reason = "required"
        else:
            reason = "fits_remaining_budget" if keep else "exceeds_remaining_budget"
        trace.append(
            {
                "position": position,
                "id": ids[index],
                "priority": parsed.priority[index],
                "cost": costs[index],
                "required": required[index],
                "remaining_before": remaining,
                "kept": keep,
                "reason": reason,
            }
        )
    kept_at = [False] * len(ids)
    for index in compress(order, kept):
        kept_at[index] = True
    used = sum(compress(costs, kept_at))
    return {
        "budget": budget,
        "used": used,
        "remaining": budget - used,
        "required_cost": required_cost,
        "shortfall": max(0, required_cost - budget),
        "selected": list(compress(ids, kept_at)),
        "omitted": list(compress(ids, map(not_, kept_at))),
        "trace": trace,
    }


def beyond_the_rule(parsed: Parsed, result: Result) -> dict[str, object]:
    """The best priority sum of optional items with the required ones fixed (none when they overflow)."""
    if result["shortfall"]:
        return {"optimal": None}
    required = parsed.required
    where = parsed.positions
    kept = _checks.greedy_positions(where, result["selected"])
    greedy = list(compress(kept, map(not_, map(required.__getitem__, kept))))
    optional = list(compress(range(len(parsed.ids)), map(not_, required)))
    return {
        "optimal": report_optimal(
            parsed.ids, parsed.costs, parsed.priorities, parsed.budget - result["required_cost"], greedy, optional, where
        )
    }


def run(data: object) -> Result:
    return select(parse(data))


def succeeded(result: Result) -> bool:
    return result["shortfall"] == 0


def summarize(result: Result) -> str:
    if result["shortfall"]:
        names = [row["id"] for row in result["trace"] if row["required"]]
        which = f"Required items {', '.join(names)} need" if len(names) > 1 else f"Required item {names[0]} needs"
        return (
            f"{which} {plural(result['required_cost'], 'token')} but the budget is "
            f"{result['budget']}: {plural(result['shortfall'], 'token')} short."
        )
    return f"Selected {', '.join(result['selected']) or 'nothing'} using {result['used']} of {plural(result['budget'], 'token')}."


def verify(data: object, result: Result, parsed: Parsed | None = None) -> list[_checks.Check]:
    """The checks, on the validated columns; the order is proved in linear time (each item
    once, adjacent pairs strictly ordered), which no permutation of the input can change."""
    if parsed is None:
        parsed = parse(data)
    budget, ids, costs, required, priorities = parsed.budget, parsed.ids, parsed.costs, parsed.required, parsed.priorities
    where = parsed.positions
    trace = _checks.Trace(result["trace"], where)
    required_cost = sum(compress(costs, required))

    def required_problems() -> Iterator[str]:
        chosen = set(result["selected"])
        # In the summary's order (priority, then ordinal id), ranked here from the input's columns.
        unselected = [position for position in compress(range(len(ids)), required) if ids[position] not in chosen]
        missing = list(map(ids.__getitem__, ranked_order(ids, priorities, descending=True, positions=unselected)))
        if missing:
            shortfall = required_cost - budget
            why = f"; they need {plural(required_cost, 'token')}, {shortfall} more than the budget of {budget}" if shortfall > 0 else ""
            verb = "items {} are" if len(missing) > 1 else "item {} is"
            yield f"required {verb.format(', '.join(missing))} not selected{why}"

    def order_and_decisions() -> Iterator[str]:
        # By (required, priority), highest first: every required row before every other, then
        # each group by priority (compared as numbers, not as (bool, number) tuples).
        if not trace.complete:
            yield _checks.INCOMPLETE_TRACE
            return
        flags = list(map(required.__getitem__, trace.positions))
        split = flags.count(True)
        if not all(flags[:split]):  # a required row after some other row
            index = next(i for i in range(1, len(flags)) if flags[i] and not flags[i - 1])
            yield f"{trace.ids[index]!r} was considered after {trace.ids[index - 1]!r} but ranks before it"
            return
        ranked = list(map(priorities.__getitem__, trace.positions))
        yield from _checks.sequence_problems(trace.ids[:split], ranked[:split], descending=True)
        yield from _checks.sequence_problems(trace.ids[split:], ranked[split:], descending=True)
        if required_cost > budget:
            if any(trace.kept):
                yield "items were kept although the required items alone exceed the budget"
        else:
            yield from _checks.decision_problems(trace, budget, costs, required)
        yield from _checks.listing_problems(trace, result["selected"], result["omitted"], ids)

    return [
        _checks.verdict(
            "token budget",
            _checks.budget_problems(where, costs, result["selected"], budget, result["used"], result["remaining"]),
        ),
        _checks.verdict("required items selected", required_problems()),
        _checks.verdict("deterministic priority order", order_and_decisions()),
    ]
