"""What the greedy choice cost: the best total value any subset within the budget reaches.

An exact 0/1 knapsack by dynamic programming over the capacity, bounded by
``WORK_BOUND`` cells (items x capacity); beyond it, the fractional relaxation gives a
sound upper bound instead, never a guess presented as exact. Only items with a positive
value and a cost that fits take part: an item worth nothing never makes a subset better.
Values are added with ``math.fsum``, so a subset's value does not depend on the order.

Items are given as columns (``ids``, ``costs``, ``values``) and chosen by position.
"""

from __future__ import annotations

import math
from array import array
from itertools import accumulate, compress, repeat, takewhile
from operator import and_, gt, le, truediv

from ._ordinal import ordinal_keys

# 200 items with a budget of 8,000 tokens is 1.6 million cells; the bound leaves room
# above that. Measured by bench/optimal.py (about a quarter of a second in CPython).
WORK_BOUND = 2_000_000


def as_json_number(value: float | None) -> float | int | None:
    """18.0 as 18, as JavaScript would print it; a sum that overflowed as null (JSON has no Infinity)."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) <= 2**53 else value


def _fsum(values) -> float | None:
    try:
        return math.fsum(values)
    except OverflowError:
        return None


def _in_ordinal_order(ids: list, positions: list) -> list:
    keys = ordinal_keys(list(map(ids.__getitem__, positions)))
    return list(map(positions.__getitem__, sorted(range(len(positions)), key=keys.__getitem__)))


def _exact(ids: list, costs: list, values: list, positions: list) -> dict:
    return {
        "exact": True,
        "value": _fsum(map(values.__getitem__, positions)),
        "selected": list(map(ids.__getitem__, positions)),
        "cost": sum(map(costs.__getitem__, positions)),
    }


def best_subset(ids: list, costs: list, values: list, capacity: int, candidates: list | None = None, work_bound: int = WORK_BOUND) -> dict:
    """The best subset of ``candidates`` (positions; all by default) within ``capacity``.

    Exact: ``{"exact": True, "value", "selected", "cost"}``, ``selected`` being the best
    subset that comes first in ordinal id order, listed in that order. Otherwise
    ``{"exact": False, "upper_bound", ...}``.
    """
    candidates = range(len(ids)) if candidates is None else candidates
    worth = map(gt, map(values.__getitem__, candidates), repeat(0.0))
    fits = map(le, map(costs.__getitem__, candidates), repeat(capacity))
    wanted = list(map(and_, worth, fits))
    useful = candidates if False not in wanted else list(compress(candidates, wanted))
    if _fsum(map(values.__getitem__, useful)) is None:
        return {"exact": False, "upper_bound": None, "note": "the scores are too large to add as 64-bit floats"}
    if sum(map(costs.__getitem__, useful)) <= capacity:  # everything worth having fits
        return _exact(ids, costs, values, _in_ordinal_order(ids, useful))
    width = capacity + 1
    if len(useful) * width > work_bound:
        return {"exact": False, "upper_bound": _fractional_bound(costs, values, useful, capacity), "work": len(useful) * width, "work_bound": work_bound}
    useful = _in_ordinal_order(ids, useful)
    # rows[i][w]: the best value from useful[i:] within capacity w. Filling from the end
    # lets the reconstruction take each item, in ordinal order, whenever an optimum allows it.
    rows: list[array] = [array("d", bytes(8 * width))]
    for position in reversed(useful):
        cost, value, row = costs[position], values[position], rows[-1]
        if cost == 0:
            rows.append(array("d", [best + value for best in row]))
        else:
            taken = [best + value for best in row[: width - cost]]
            rows.append(row[:cost] + array("d", map(max, row[cost:], taken)))
    rows.reverse()
    chosen, room = [], capacity
    for index, position in enumerate(useful):
        cost = costs[position]
        if cost <= room and rows[index + 1][room - cost] + values[position] == rows[index][room]:
            chosen.append(position)
            room -= cost
    return _exact(ids, costs, values, chosen)


def _fractional_bound(costs: list, values: list, useful: list, capacity: int) -> float:
    """Take items by value per token, then a fraction of the first that does not fit: no subset beats it."""
    useful_costs = list(map(costs.__getitem__, useful))
    useful_values = list(map(values.__getitem__, useful))
    taken = []
    if 0 in useful_costs:  # free items are always taken
        taken = [value for cost, value in zip(useful_costs, useful_values) if not cost]
        useful_values = list(compress(useful_values, useful_costs))
        useful_costs = list(compress(useful_costs, useful_costs))
    ratios = list(map(truediv, useful_values, useful_costs))
    by_ratio = sorted(range(len(ratios)), key=ratios.__getitem__, reverse=True)
    # The best-ratio items that fit entirely, and what they cost together.
    spent = list(takewhile(capacity.__ge__, accumulate(map(useful_costs.__getitem__, by_ratio))))
    whole = len(spent)
    taken.extend(map(useful_values.__getitem__, by_ratio[:whole]))
    if whole < len(by_ratio):
        index = by_ratio[whole]
        room = capacity - (spent[whole - 1] if whole else 0)
        taken.append(useful_values[index] * room / useful_costs[index])
    bound = math.fsum(taken)
    # The last fraction is rounded: step up a few ulps so the bound stays above the real one.
    for _ in range(4):
        bound = math.nextafter(bound, math.inf)
    return bound


def report_optimal(ids: list, costs: list, values: list, capacity: int, greedy_kept: list, candidates: list | None = None) -> dict:
    """The ``optimal`` section: the best subset (or a bound) beside the greedy picks' value,
    with its own verification. ``greedy_kept[i]`` says whether the rule kept item i;
    ``candidates`` are the positions that may be chosen (the optional items)."""
    candidates = range(len(ids)) if candidates is None else candidates
    greedy = list(compress(candidates, map(greedy_kept.__getitem__, candidates)))
    greedy_value = _fsum(map(values.__getitem__, greedy))
    result = best_subset(ids, costs, values, capacity, candidates)
    if result["exact"]:
        worth_having = [position for position in greedy if values[position] > 0]
        if result["value"] < _fsum(map(values.__getitem__, worth_having)):
            # The search adds floats in its own order and may miss by the last bit; then the
            # greedy picks are a best subset.
            result = _exact(ids, costs, values, _in_ordinal_order(ids, worth_having))
        result["verified"], problems = _verify(ids, costs, values, capacity, result, greedy_value)
        if problems:
            result["detail"] = "; ".join(problems)
        result["value"] = as_json_number(result["value"])
    elif result.get("upper_bound") is not None:
        result["upper_bound"] = as_json_number(result["upper_bound"])
    result["greedy_value"] = as_json_number(greedy_value)
    return result


def _verify(ids: list, costs: list, values: list, capacity: int, result: dict, greedy_value: float | None) -> tuple[bool, list]:
    """Re-add the best subset's cost and value from the input columns, by id."""
    where = dict(zip(ids, range(len(ids))))
    positions = [where.get(item_id) for item_id in result["selected"]]
    problems = []
    if None in positions or len(set(positions)) != len(positions):
        return False, ["the best subset names an unknown id or one id twice"]
    cost = sum(map(costs.__getitem__, positions))
    value = _fsum(map(values.__getitem__, positions))
    if cost != result["cost"] or cost > capacity:
        problems.append(f"the best subset costs {cost} (reported {result['cost']}, capacity {capacity})")
    if value != result["value"]:
        problems.append(f"the best subset is worth {value}, reported {result['value']}")
    if greedy_value is not None and value is not None and value < greedy_value:
        problems.append(f"the best subset is worth {value}, less than the greedy picks' {greedy_value}")
    return not problems, problems
