"""Mode blocks' sensitivity: how the packing moves when every estimated cost is off by the margin.

An estimated cost (the C# pipeline's heuristic) may be wrong by up to ``margin`` either way. The
packing is run again with every estimated cost scaled up (rounded up) and down (rounded down), in
the packing order, and the report lists the blocks whose fate flips and whether every required
block would still fit. Exact costs are left as they are.
"""

import math
from collections.abc import Sequence
from typing import Protocol


class Costed(Protocol):  # a block as mode blocks reads it (its NamedTuple's fields, read only)
    @property
    def id(self) -> str: ...
    @property
    def cost(self) -> int: ...
    @property
    def estimated(self) -> bool: ...
    @property
    def required(self) -> bool: ...


def sensitivity(order: Sequence[Costed], base: list[bool], margin: float, available: int) -> dict[str, object]:
    """The packing of ``order`` (the blocks in packing order, ``base`` whether each was kept) again
    with every estimated cost scaled up and down by ``margin``."""
    given = [block.cost for block in order]
    estimated = [block.estimated for block in order]
    scenarios: dict[str, dict[str, object]] = {}
    flipped: set[str] = set()
    for name, rounding, factor in (("larger", math.ceil, 1 + margin), ("smaller", math.floor, 1 - margin)):
        # rounding(cost * factor) for each estimated cost, at C speed (the same doubles as one at a time)
        scaled = map(rounding, map(factor.__rmul__, given))
        costs: list = [new if flag else cost for new, cost, flag in zip(scaled, given, estimated)]  # ints (ceil or floor)
        kept: list[bool]
        remaining, kept = available, []
        keep = kept.append
        for cost in costs:  # a plain loop: CPython runs it faster than accumulate() with a callback
            if cost <= remaining:
                remaining -= cost
                keep(True)
            else:
                keep(False)
        required_cost = sum(cost for block, cost in zip(order, costs) if block.required)
        flips = [block.id for block, now, before in zip(order, kept, base) if now != before]
        flipped.update(flips)
        scenarios[name] = {
            "flips": flips,
            "can_proceed": all(now for block, now in zip(order, kept) if block.required),
            "required_slack": available - required_cost,
        }
    return {
        "margin": margin,
        "flips": [block.id for block in order if block.id in flipped],
        "required_slack": available - sum(block.cost for block in order if block.required),
        **scenarios,
    }
