"""What the greedy choice cost: the best total value any subset within the budget reaches.

An exact 0/1 knapsack, cheap on the requests users send (a few hundred items):

1. Only items with a positive value and a cost that fits take part: an item worth nothing
   never makes a subset better; a free one is in every best subset.
2. The fractional (Dantzig) bound in value-per-token order, and the greedy fill in that
   order as a first subset. Every item whose flip would cost more than the gap between
   the two (Dembo-Hammer), or whose fractional bound with the flip falls below the fill
   (Martello-Toth), is fixed: no best subset flips it. When the greedy fill reaches the
   bound, only the items tied with the break ratio are left. This step is in floats, and
   fixes an item only with a tolerance above their rounding errors to spare.
3. The items left (the core, usually a dozen) become exact integers (every double is an
   integer over a power of two), so sums, comparisons and ties are exact; ``math.fsum``
   of the chosen floats is the value reported, the largest any subset reaches because
   rounding is monotonic.
4. The core goes through a depth-first branch and bound in ratio order (Horowitz-Sahni,
   with Martello-Toth's bound at each break item). Ties between best
   subsets are broken inside the objective: item r of the core in ordinal id order adds
   2^(k-1-r) below the lowest unit of value, so no two subsets tie and the single best
   is the one a reconstruction in ordinal order would give (take each item whenever an
   optimum allows it).
5. After ``work_bound`` search nodes, a dynamic program over the core finishes the job
   when the whole problem has at most ``DP_CELLS`` cells and its table at most
   ``DP_BYTES`` bytes (so small inputs are always exact); beyond these, and for more than ``EXACT_ITEMS`` candidates, the report gives the
   fractional bound (``exact: false``), never a guess presented as exact.

Items are given as columns (``ids``, ``costs``, ``values``) and chosen by position.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate, compress
from operator import and_, gt, not_, truediv
from typing import Sequence, cast

from .._base.ordinal import ordinal_keys

# Search nodes before the branch and bound gives up. On the realistic workload
# (bench/optimal.py: 10-200 items, budgets 1,000-8,000, costs 20-600) nearly every
# request needs fewer than a hundred; the bound keeps a hard one near 50 ms in CPython.
WORK_BOUND = 20_000
# The dynamic program that takes over from a search that ran out of nodes, when the
# whole problem has at most this many cells (items x (capacity + 1)): the inputs the
# project always solved exactly stay exact. Run on the core only, so at most this.
DP_CELLS = 2_000_000
# And when its table holds at most this many bytes: each cell is a pointer and an integer
# as wide as the core's gains, which carry one tie-breaking bit per core item, so 2,000,000
# cells of a 10,000-item core would take over a gigabyte. Past it: the sound bound.
DP_BYTES = 96 << 20


# Up to this many items the search runs on all of them, without the reduction.
SMALL = 12
# Beyond this many candidates (and beyond the table below) the report gives the fractional
# bound alone, as it always did: the exact search would add a third to evaluate's time
# and memory on inputs of 100,000 items, far from the requests users send.
EXACT_ITEMS = 10_000


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


def _as_integers(values: list) -> list[int]:
    """Integers proportional to ``values``, exactly: each over the largest power-of-two denominator."""
    ratios = [value.as_integer_ratio() for value in values]
    denominator = max((pair[1] for pair in ratios), default=1)
    return [numerator * (denominator // below) for numerator, below in ratios]


def _by_ratio(gains: list[int], costs: list[int]) -> list[int]:
    """Indexes by gain per unit of cost, highest first, exactly (costs are positive).

    Two different ratios g1/c1 and g2/c2 differ by at least 1/(c1 c2), so scaled by the
    largest cost squared their floors differ too: an exact integer key, compared in C.
    """
    scale = max(costs) ** 2
    keys = [gain * scale // cost for gain, cost in zip(gains, costs)]
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=True)


def best_subset(ids: list, costs: list, values: list, capacity: int, candidates: list | None = None, work_bound: int = WORK_BOUND) -> dict:
    """The best subset of ``candidates`` (positions; all by default) within ``capacity``.

    Exact: ``{"exact": True, "value", "selected", "cost"}``, ``selected`` being the best
    subset that comes first in ordinal id order (each item, in that order, taken whenever
    a best subset allows it), listed in that order. Otherwise ``{"exact": False,
    "upper_bound", ...}``. ``work_bound`` limits the branch and bound's nodes.
    """
    useful: Sequence[int]
    if candidates is None:
        useful, gains, weights = range(len(ids)), values, costs
    else:
        useful = candidates
        gains, weights = list(map(values.__getitem__, candidates)), list(map(costs.__getitem__, candidates))
    if gains and (min(gains) <= 0 or max(weights) > capacity):  # only positive values that fit take part
        wanted = list(map(and_, map((0.0).__lt__, gains), map(capacity.__ge__, weights)))
        useful, gains, weights = list(compress(useful, wanted)), list(compress(gains, wanted)), list(compress(weights, wanted))
    if sum(weights) <= capacity:  # everything worth having fits
        return _exact(ids, costs, values, _in_ordinal_order(ids, list(useful)))
    free: list[int] = []
    if 0 in weights:  # free items are in every best subset; the others go through the reduction
        free = list(compress(useful, map(not_, weights)))
        useful, gains, weights = list(compress(useful, weights)), list(compress(gains, weights)), list(compress(weights, weights))
    free_value = _fsum(map(values.__getitem__, free))
    # Scores whose sum passes the float range (near 1e308): the float work (the reduction and
    # the bounds) runs on them scaled down by a power of two, which is exact but for values
    # below ~1e-290 (far inside the reduction's tolerance); the search works on the exact
    # integers as always, and the bounds are scaled back (past the range: no bound, null).
    shift = 0
    if not sum(gains) < 1e300:  # positive values: a plain sum inside the range means fsum's is too
        shift = max(0, math.frexp(max(gains))[1] + len(gains).bit_length() - 1000)
    scaled = [math.ldexp(gain, -shift) for gain in gains] if shift else gains
    if len(gains) > EXACT_ITEMS and len(gains) * (capacity + 1) > DP_CELLS:
        upper = _upper_bound(free_value, _fractional_bound(scaled, weights, capacity), shift)
        return {"exact": False, "upper_bound": upper, "items": len(gains), "exact_items": EXACT_ITEMS}
    if len(gains) > SMALL:
        fixed_in, core, bound = _reduce(scaled, weights, capacity)
    else:  # a few items: the search alone is quicker than the reduction
        # (scaled's sum is inside the float range: fsum does not overflow, so not None)
        fixed_in, core, bound = [], list(range(len(gains))), cast(float, _fsum(scaled))
    residual = capacity - sum(map(weights.__getitem__, fixed_in))
    if residual < 0:  # cannot happen when the tolerance holds; keep every item open rather than trust it
        fixed_in, core, residual = [], list(range(len(gains))), capacity
    core_positions = list(map(useful.__getitem__, core))
    picks = _core_search(
        _as_integers(list(map(gains.__getitem__, core))),
        list(map(weights.__getitem__, core)),
        residual,
        ordinal_keys(list(map(ids.__getitem__, core_positions))),
        work_bound,
        len(gains) * (capacity + 1) <= DP_CELLS,
    )
    if isinstance(picks, int):
        upper = _upper_bound(free_value, bound * (1 + 2**-40), shift)  # the bound was added in floats: stay above it
        return {"exact": False, "upper_bound": upper, "work": picks, "work_bound": work_bound}
    picked = free + list(map(useful.__getitem__, fixed_in)) + list(map(core_positions.__getitem__, picks))
    return _exact(ids, costs, values, _in_ordinal_order(ids, picked))


def _upper_bound(free_value: float | None, bound: float, shift: int) -> float | None:
    """The free items' value plus ``bound`` (computed on values scaled by 2^-shift), rounded up;
    None when it is past the float range."""
    if free_value is None:
        return None
    try:
        upper = math.nextafter(free_value + math.ldexp(bound, shift), math.inf)
    except OverflowError:  # ldexp past the range raises rather than giving inf
        return None
    return upper if math.isfinite(upper) else None


def _reduce(gains: list[float], weights: list[int], capacity: int) -> tuple[list[int], list[int], float]:
    """Split the items (weights summing above ``capacity``) into those in every best
    subset, the core the search decides, and the rest; with the fractional bound.

    Any multiplier lam >= 0 gives a bound on every subset: lam * capacity plus the sum of
    max(0, gain - lam * weight) (Lagrangian duality). With lam the break item's ratio that
    bound is the fractional one, and flipping item j away from it costs |gain_j - lam * weight_j|.
    Items whose flip, or (sharper) whose fractional bound with the flip, falls below the
    greedy fill's value are fixed. Floats with a tolerance above their rounding errors:
    an item is fixed only when that holds with the tolerance to spare.
    """
    size = len(gains)
    ratios = list(map(truediv, gains, weights))
    order = sorted(range(size), key=ratios.__getitem__, reverse=True)
    gain_in = list(map(gains.__getitem__, order))
    weight_in = list(map(weights.__getitem__, order))
    spent = list(accumulate(weight_in, initial=0))
    worth = list(accumulate(gain_in, initial=0.0))
    brk = bisect_right(spent, capacity) - 1  # items before it fit whole; it does not
    lam = ratios[order[brk]]
    bound = worth[brk] + (capacity - spent[brk]) * lam
    lower, left = worth[brk], capacity - spent[brk]
    lightest = min(weight_in)
    for index in range(brk + 1, size):  # the greedy fill: every later item that still fits
        if weight_in[index] <= left:
            left -= weight_in[index]
            lower += gain_in[index]
            if left < lightest:
                break
    # Every quantity below is at most `scale` in size and comes from at most `size` + 8
    # roundings of relative size 2^-53 each; the tolerance is eight times that.
    scale = 2 * worth[size] + lam * (capacity + spent[size])
    tolerance = (size + 8) * scale * 2.0**-50
    gap = bound - lower + tolerance
    close = [index for index, gain, weight in zip(range(size), gain_in, weight_in) if -gap <= gain - lam * weight <= gap]
    core = []
    floor = lower - tolerance
    for index in close:  # the fractional bound with the item flipped, from the prefix sums
        weight = weight_in[index]
        if index < brk:  # leave it out: the later items move up
            stop = bisect_right(spent, capacity + weight) - 1
            flipped = (
                worth[stop] - gain_in[index] + ((capacity + weight - spent[stop]) * gain_in[stop] / weight_in[stop] if stop < size else 0.0)
            )
        elif index > brk:  # take it: less room for the best-ratio items
            stop = bisect_right(spent, capacity - weight) - 1
            flipped = gain_in[index] + worth[stop] + (capacity - weight - spent[stop]) * gain_in[stop] / weight_in[stop]
        else:
            flipped = math.inf
        if flipped >= floor:
            core.append(order[index])
    # Before the break every margin is at least -gap, so an item there that is not close,
    # or whose flipped bound fell short, is in every best subset.
    open_items = bytearray(brk)
    in_core = set(core)
    for index in close:
        if index < brk and order[index] in in_core:
            open_items[index] = 1
    fixed_in = list(compress(order[:brk], map(not_, open_items)))
    return fixed_in, core, bound + tolerance


def _fractional_bound(gains: list, weights: list[int], capacity: int) -> float:
    """Take items by value per token, then a fraction of the first that does not fit: no subset beats it."""
    ratios = list(map(truediv, gains, weights))
    whole, part = _fractional_fill(ratios, weights, capacity)
    taken = list(compress(gains, whole))
    if part is not None:
        taken.append(gains[part] * (capacity - sum(compress(weights, whole))) / weights[part])
    bound = math.fsum(taken)  # correctly rounded whatever the order of the items
    # The last fraction is rounded: step up a few ulps so the bound stays above the real one.
    for _ in range(4):
        bound = math.nextafter(bound, math.inf)
    return bound


# Items in the sample that locates the break item of a large input (see _fractional_fill).
SAMPLE = 512
# Sample positions either side of the estimated break that bound the bracket.
MARGIN = 24


def _fractional_fill(ratios: list[float], weights: list[int], capacity: int) -> tuple[list[bool], int | None]:
    """Which items the fractional bound takes whole (a flag per item: the best ratios that
    fit together) and the break item it takes a fraction of (None when everything fits).

    Sorting 100,000 ratios was a fifth of evaluate's time at that size, so a large input
    is not sorted: every n/SAMPLE-th item, sorted, estimates where the break ratio lies;
    one pass at C speed flags the items above a bracket around it (all of them fit), and
    only the items inside it (the break is among them) are sorted. When the bracket misses
    (the check is exact), the whole list is sorted as before. Flags, not positions: the
    sums over them then read the columns in order instead of jumping about.
    """
    size = len(ratios)
    if size > 8 * SAMPLE:
        step = size // SAMPLE
        sample = sorted(range(0, size, step), key=ratios.__getitem__, reverse=True)
        reached = bisect_right(list(accumulate(map(weights.__getitem__, sample))), capacity // step)
        high = ratios[sample[min(max(reached - MARGIN, 0), len(sample) - 1)]]
        low = ratios[sample[min(reached + MARGIN, len(sample) - 1)]]
        whole = list(map(high.__lt__, ratios))
        room = capacity - sum(compress(weights, whole))
        if room >= 0:
            # low <= ratio and not flagged above high: True > False is the only True among bools.
            inside = list(compress(range(size), map(gt, map(low.__le__, ratios), whole)))
            inside.sort(key=ratios.__getitem__, reverse=True)
            fit = bisect_right(list(accumulate(map(weights.__getitem__, inside))), room)
            if fit < len(inside):  # the break is inside the bracket: done
                for index in inside[:fit]:
                    whole[index] = True
                return whole, inside[fit]
    order = sorted(range(size), key=ratios.__getitem__, reverse=True)
    fit = bisect_right(list(accumulate(map(weights.__getitem__, order))), capacity)
    whole = [False] * size
    for index in order[:fit]:
        whole[index] = True
    return whole, (order[fit] if fit < size else None)


def _core_search(gains: list[int], weights: list[int], capacity: int, ordinal: list, work_bound: int, table_allowed: bool):
    """The best subset of the core items (their indexes) within ``capacity``, first in
    ``ordinal`` key order on ties; or the work spent when the search gave up. A dynamic
    program finishes what the search could not when ``table_allowed``: where the whole
    problem fits in ``DP_CELLS`` (as it always did), never on larger inputs."""
    size = len(gains)
    if sum(weights) <= capacity:
        return list(range(size))
    ranks = [0] * size
    for rank, index in enumerate(sorted(range(size), key=ordinal.__getitem__)):
        ranks[index] = rank
    # Exact ties broken inside the objective: rank r adds 2^(size-1-r), less than one unit of value.
    gains = [(gain << size) + (1 << (size - 1 - rank)) for gain, rank in zip(gains, ranks)]
    order = _by_ratio(gains, weights)
    gains, weights = list(map(gains.__getitem__, order)), list(map(weights.__getitem__, order))
    found = _branch_and_bound(gains, weights, capacity, work_bound)
    if isinstance(found, list):
        return list(map(order.__getitem__, found))
    if table_allowed and _table_bytes(gains, capacity) <= DP_BYTES:
        return list(map(order.__getitem__, _dynamic_program(gains, weights, capacity)))
    return found


def _branch_and_bound(gains: list[int], weights: list[int], capacity: int, work_bound: int):
    """Horowitz-Sahni depth-first search over items sorted by gain per weight; no two
    subsets have the same gain. The chosen indexes, or the nodes spent when it gave up."""
    size = len(gains)
    spent = list(accumulate(weights, initial=0))
    worth = list(accumulate(gains, initial=0))
    # lightest[i]: the lightest item from i on; with less room than that, nothing more fits.
    lightest = list(accumulate(reversed(weights), min, initial=capacity + 1))[::-1]
    # A worthless item of weight 1 past the end, so that the bound needs no test for the last item.
    gains, weights = gains + [0], weights + [1]
    best, best_taken = -1, []
    taken: list[int] = []
    start, value, room, nodes = 0, 0, capacity, 0
    while True:
        nodes += 1
        if nodes > work_bound:
            return nodes
        # Items start..stop-1 fit whole in the room left; `stop` is the break item.
        base = spent[start]
        stop = bisect_right(spent, room + base, start) - 1
        if stop == size:  # a leaf: all that is left fits
            total = value + worth[size] - worth[start]
            if total > best:
                best, best_taken = total, taken + list(range(start, size))
        elif room < lightest[start]:  # a leaf: nothing more fits
            if value > best:
                best, best_taken = value, taken[:]
        else:
            whole = worth[stop] - worth[start]
            above = value + whole - best
            left = room - spent[stop] + base
            after = stop + 1
            # Martello-Toth's bound: the break item is either left out (the next item fills
            # the room fractionally) or taken (the item before it gives way fractionally).
            if above * weights[after] + left * gains[after] > 0 or (
                stop > start and (above + gains[stop]) * weights[stop - 1] > (weights[stop] - left) * gains[stop - 1]
            ):  # take the items that fit, leave the break item out, go on after it
                taken.extend(range(start, stop))
                value += whole
                room = left
                start = after
                continue
        if not taken:
            return best_taken
        last = taken.pop()  # backtrack: leave the last taken item out
        value -= gains[last]
        room += weights[last]
        start = last + 1


def _table_bytes(gains: list[int], capacity: int) -> int:
    """What the dynamic program's table may take at most: a pointer and an integer (a 28-byte
    header and 4 bytes per 30 bits) per cell."""
    widest = max(map(int.bit_length, gains), default=0) + 1
    return (len(gains) + 1) * (capacity + 1) * (8 + 28 + 4 * (widest // 30 + 1))


def _dynamic_program(gains: list[int], weights: list[int], capacity: int) -> list[int]:
    """The best subset by a dynamic program over the capacity (gains distinct per subset)."""
    rows = [[0] * (capacity + 1)]
    for gain, weight in zip(reversed(gains), reversed(weights)):
        row = rows[-1]
        rows.append(row[:weight] + list(map(max, row[weight:], map(gain.__add__, row))))
    rows.reverse()
    chosen, room = [], capacity
    for index, (gain, weight) in enumerate(zip(gains, weights)):
        if weight <= room and rows[index + 1][room - weight] + gain == rows[index][room]:
            chosen.append(index)
            room -= weight
    return chosen


def report_optimal(
    ids: list, costs: list, values: list, capacity: int, greedy: list, candidates: list | None = None, where: dict | None = None
) -> dict:
    """The ``optimal`` section: the best subset (or a bound) beside the greedy picks' value,
    with its own verification. ``greedy`` are the positions of the candidates the rule kept;
    ``candidates`` are the positions that may be chosen (the optional items; all by default);
    ``where`` maps each input id to its position (built here when not given)."""
    greedy_value = _fsum(map(values.__getitem__, greedy))
    result = best_subset(ids, costs, values, capacity, candidates)
    if result["exact"]:
        if where is None:
            where = dict(zip(ids, range(len(ids))))
        result["verified"], problems = _verify(where, costs, values, capacity, result, greedy_value)
        if problems:
            result["detail"] = "; ".join(problems)
        result["value"] = as_json_number(result["value"])
    elif result.get("upper_bound") is not None:
        result["upper_bound"] = as_json_number(result["upper_bound"])
    result["greedy_value"] = as_json_number(greedy_value)
    return result


def _verify(where: dict, costs: list, values: list, capacity: int, result: dict, greedy_value: float | None) -> tuple[bool, list]:
    """Re-add the best subset's cost and value from the input columns, by id (``where``: id -> position)."""
    positions: list = list(map(where.get, result["selected"]))  # ints past the None check
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
