"""Mode ``relevance``: greedy by descending relevance, ties by ordinal id, the rule of seed 000, the
teaching note this mode adapts (docs/contract.md, "Where the modes come from")."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress, count
from operator import not_
from typing import Iterator

from .._shared import checks as _checks
from .._shared.columns import INPUT_SUMMARY as INPUT_SUMMARY  # the mode's own member (modes/protocol.py), shared
from .._shared.columns import TOP, Considered, Identified, Selected
from .._shared.optimal import report_optimal
from .._base.ordinal import ranked_order
from .._shared.shape import Field, InputShape, read_input
from .._base.values import plural, read_count, read_id, read_score, read_text
from .protocol import Words

NAME = "relevance"
WORDS = Words(kept="selected", left_out="omitted", used="used", limit="budget", listed="item ids")
DEFAULT_TOKENIZER = None
COUNTED_COST = "tokens"  # with a top-level tokenizer, an item may give content instead
ITEM_SUMMARY = "Each item needs id, numeric relevance, and non-negative integer tokens."
REASONS = ("exceeds_remaining_budget", "fits_remaining_budget")  # indexed by kept

_ITEM = (
    Field("id", read_id),
    Field("relevance", read_score),
    Field("tokens", read_count),
    Field("content", read_text, optional=True),
)
SHAPE = InputShape(TOP, "items", _ITEM, INPUT_SUMMARY, "item shape", ITEM_SUMMARY)


@dataclass(frozen=True)
class Parsed(Identified):
    """The validated input, one column per item field, in input order."""

    scores: list[float]  # relevance as doubles, what the rule compares
    tokens: list[int]
    relevance: list[int | float]  # as given, what the report echoes


class Decision(Considered):
    """A row of the trace."""

    relevance: int | float
    tokens: int


class Result(Selected):
    """The report's keys of this mode."""

    trace: list[Decision]


def parse(data: object) -> Parsed:
    """The columns, read by the mode's shape; raises ``InvalidInput`` with every problem."""
    (_, budget, _, _), (ids, relevance, tokens, _) = read_input(data, SHAPE)
    return Parsed(ids=ids, budget=budget, scores=list(map(float, relevance)), tokens=tokens, relevance=relevance)


def rule(parsed: Parsed) -> tuple[list[int], list[bool], list[int]]:
    """The teaching note's rule: positions in the order considered, whether each was kept, and the
    budget remaining before each."""
    order, kept, before, _ = _walk(parsed)
    return order, kept, before


def _walk(parsed: Parsed) -> tuple[list[int], list[bool], list[int], list[int]]:
    """``rule``, and the costs in the order considered (read once, in C, for the trace too)."""
    order = ranked_order(parsed.ids, parsed.scores, descending=True)
    costs = list(map(parsed.tokens.__getitem__, order))
    remaining = parsed.budget
    kept: list[bool] = []
    before: list[int] = []
    keep, was = kept.append, before.append
    # A plain loop: CPython specialises it to a few nanoseconds per item, faster than
    # accumulate() with a Python callback, which pays a call per item.
    for cost in costs:
        was(remaining)
        if cost <= remaining:
            remaining -= cost
            keep(True)
        else:
            keep(False)
    return order, kept, before, costs


def select(parsed: Parsed) -> Result:
    budget = parsed.budget
    order, kept, before, tokens = _walk(parsed)
    ids = list(map(parsed.ids.__getitem__, order))
    relevance = map(parsed.relevance.__getitem__, order)
    reasons = map(REASONS.__getitem__, kept)
    trace: list[Decision] = [
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


def beyond_the_rule(parsed: Parsed, result: Result) -> dict[str, object]:
    """What the greedy choice cost: the best relevance sum any subset within the budget reaches."""
    where = parsed.positions
    greedy = _checks.greedy_positions(where, result["selected"])
    return {"optimal": report_optimal(parsed.ids, parsed.tokens, parsed.scores, parsed.budget, greedy, where=where)}


def run(data: object) -> Result:
    return select(parse(data))


def succeeded(result: Result) -> bool:
    return True


def summarize(result: Result) -> str:
    return f"Selected {', '.join(result['selected']) or 'nothing'} within {plural(result['budget'], 'token')}."


def verify(data: object, result: Result, parsed: Parsed | None = None) -> list[_checks.Check]:
    """The checks, on the validated columns (never on the selector's output): the budget
    re-added, and the order proved in linear time. Every item once in the trace and each
    adjacent pair strictly ordered (relevance, then ordinal id) is the only order any
    permutation of the input gives, so no re-run on a permuted copy."""
    if parsed is None:
        parsed = parse(data)
    budget, costs, scores = parsed.budget, parsed.tokens, parsed.scores
    where = parsed.positions
    trace = _checks.Trace(result["trace"], where)

    def order_and_decisions() -> Iterator[str]:
        yield from _checks.order_problems(trace, scores, descending=True)
        yield from _checks.decision_problems(trace, budget, costs)
        yield from _checks.listing_problems(trace, result["selected"], result["omitted"])

    return [
        _checks.verdict(
            "token budget",
            _checks.budget_problems(where, costs, result["selected"], budget, result["used"], result["remaining"]),
        ),
        _checks.verdict("deterministic relevance order", order_and_decisions()),
    ]
