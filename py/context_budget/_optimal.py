"""What the greedy choice cost: the best total value any subset within the budget reaches.

An exact 0/1 knapsack by dynamic programming over the capacity, bounded by
``WORK_BOUND`` cells (items x capacity); beyond it, the fractional relaxation gives a
sound upper bound instead, never a guess presented as exact. Only items with a positive
value and a cost that fits take part: an item worth nothing never makes a subset better.
"""

from __future__ import annotations

import math
from array import array
from typing import Sequence

# 200 items with a budget of 8,000 tokens is 1.6 million cells; the bound leaves room
# above that. Measured by bench/optimal.py (well under a second in CPython).
WORK_BOUND = 2_000_000


def _sum_in_order(values: Sequence[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def best_subset(entries: Sequence[tuple[str, int, float]], capacity: int, key, work_bound: int = WORK_BOUND) -> dict:
    """``entries`` are ``(id, cost, value)``; ``key`` gives ordinal id order.

    Exact result: ``{"exact": True, "value", "selected", "cost"}`` with ``selected`` the
    best subset that comes first in ordinal id order (its ids listed in that order).
    Otherwise ``{"exact": False, "upper_bound"}``.
    """
    useful = sorted((entry for entry in entries if entry[2] > 0 and entry[1] <= capacity), key=lambda entry: key(entry[0]))
    if not math.isfinite(_sum_in_order([entry[2] for entry in useful])):
        return {"exact": False, "upper_bound": None, "note": "the scores are too large to add as 64-bit floats"}
    total_cost = sum(entry[1] for entry in useful)
    if total_cost <= capacity:  # everything worth having fits
        return _exact(useful, total_cost)
    width = capacity + 1
    if len(useful) * width > work_bound:
        return {"exact": False, "upper_bound": _fractional_bound(useful, capacity), "work": len(useful) * width, "work_bound": work_bound}
    # rows[i][w]: the best value from useful[i:] within capacity w. Filling from the end
    # lets the reconstruction take each item, in ordinal order, whenever an optimum allows it.
    rows: list[array] = [array("d", bytes(8 * width))]
    for _, cost, value in reversed(useful):
        row = rows[-1]
        if cost == 0:
            rows.append(array("d", [best + value for best in row]))
        else:
            taken = [best + value for best in row[: width - cost]]
            rows.append(row[:cost] + array("d", map(max, row[cost:], taken)))
    rows.reverse()
    chosen, room = [], capacity
    for index, entry in enumerate(useful):
        _, cost, value = entry
        if cost <= room and rows[index + 1][room - cost] + value == rows[index][room]:
            chosen.append(entry)
            room -= cost
    return _exact(chosen, capacity - room)


def as_json_number(value: float) -> float | int | None:
    """18.0 as 18, as JavaScript would print it; a sum that overflowed as null (JSON has no Infinity)."""
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) <= 2**53 else value


def _exact(chosen: list, cost: int) -> dict:
    return {"exact": True, "value": _sum_in_order([entry[2] for entry in chosen]), "selected": [entry[0] for entry in chosen], "cost": cost}


def _fractional_bound(useful: list, capacity: int) -> float:
    """Take items by value per token, then a fraction of the first that does not fit: no subset beats it."""
    free = [entry for entry in useful if entry[1] == 0]
    paid = sorted((entry for entry in useful if entry[1] > 0), key=lambda entry: entry[2] / entry[1], reverse=True)
    bound, room = _sum_in_order([entry[2] for entry in free]), capacity
    for _, cost, value in paid:
        if cost <= room:
            bound += value
            room -= cost
        else:
            bound += value * room / cost
            break
    # Float rounding could land a hair below the real-number bound: step up a few ulps.
    for _ in range(4):
        bound = math.nextafter(bound, math.inf)
    return bound


def report_optimal(entries: Sequence[tuple[str, int, float]], capacity: int, key, greedy_ids: Sequence[str], raw_costs: dict, raw_values: dict) -> dict:
    """The ``optimal`` section: best (or bound) beside the greedy value, with its own verification.

    ``greedy_ids`` are the greedy rule's optional picks; ``raw_costs`` and ``raw_values``
    are re-read from the input, so the verification does not trust the search.
    """
    in_order = sorted(greedy_ids, key=key)
    greedy_value = _sum_in_order([raw_values[item_id] for item_id in in_order])
    result = best_subset(entries, capacity, key)
    if result["exact"]:
        worth_having = [(item_id, raw_costs[item_id], raw_values[item_id]) for item_id in in_order if raw_values[item_id] > 0]
        if result["value"] < _sum_in_order([entry[2] for entry in worth_having]):
            # Float sums in another order can differ in the last bit; the greedy picks are then a best subset.
            result = _exact(worth_having, sum(entry[1] for entry in worth_having))
    result["greedy_value"] = as_json_number(greedy_value)
    if result.get("upper_bound") is not None:
        result["upper_bound"] = as_json_number(result["upper_bound"])
    if result["exact"]:
        cost = sum(raw_costs[item_id] for item_id in result["selected"])
        value = _sum_in_order([raw_values[item_id] for item_id in result["selected"]])
        problems = []
        if cost != result["cost"] or cost > capacity:
            problems.append(f"the best subset costs {cost} (reported {result['cost']}, capacity {capacity})")
        if value != result["value"]:
            problems.append(f"the best subset is worth {value}, reported {result['value']}")
        if value < greedy_value:
            problems.append(f"the best subset is worth {value}, less than the greedy {greedy_value}")
        if len(set(result["selected"])) != len(result["selected"]):
            problems.append("the best subset lists an id twice")
        result["verified"] = not problems
        if problems:
            result["detail"] = "; ".join(problems)
        result["value"] = as_json_number(result["value"])
    return result
