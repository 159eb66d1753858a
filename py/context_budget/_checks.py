"""Independent verifications of a mode's result.

Nothing here calls into a selector's ordering or fitting code: each check re-reads
the raw input, re-adds, re-orders and replays on its own, so that a wrong result
from a selector makes the check fail. A check is ``{name, pass}`` plus ``detail``
whenever it fails.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

from ._values import JS_WHITESPACE

_SPACES = {ord(char): " " for char in JS_WHITESPACE}


def passed(name: str) -> dict:
    return {"name": name, "pass": True}


def failed(name: str, detail: str) -> dict:
    return {"name": name, "pass": False, "detail": detail}


def verdict(name: str, problems: Iterable[str]) -> dict:
    """Pass when there is no problem; otherwise the first problem is the detail."""
    for problem in problems:
        return failed(name, problem)
    return passed(name)


def raw_number(value: object) -> float | int:
    """A count or score re-read from the raw input, without the validators."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def as_double(value: object) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def code_units(text: str) -> bytes:
    # Big-endian UTF-16: comparing these bytes compares UTF-16 code units.
    return text.encode("utf-16-be", "surrogatepass")


def ranked_before(rank_a: tuple, id_a: str, rank_b: tuple, id_b: str) -> bool:
    """Whether (rank_a, id_a) strictly precedes (rank_b, id_b); ids in ordinal order."""
    if rank_a != rank_b:
        return rank_a < rank_b
    return code_units(id_a) < code_units(id_b)


def budget_problems(costs: dict, selected: list, budget: int, used: int, remaining: int) -> Iterable[str]:
    """Re-add the costs of the selected ids from the input and compare with the report."""
    seen = set()
    total = 0
    for item_id in selected:
        if item_id not in costs:
            yield f"selected id {item_id!r} is not an input item"
            return
        if item_id in seen:
            yield f"selected id {item_id!r} is selected twice"
            return
        seen.add(item_id)
        total += costs[item_id]
    if total > budget:
        yield f"selected costs add up to {total}, over the budget of {budget}"
    if used != total:
        yield f"reported used {used}, but the selected costs add up to {total}"
    if remaining != budget - total:
        yield f"reported remaining {remaining}, but {budget} - {total} = {budget - total}"


def order_problems(rows: list, ids: Iterable[str], rank: Callable[[str], tuple]) -> Iterable[str]:
    """The trace holds every input id once, in strictly increasing (rank, ordinal id) order.

    ``rank`` maps an id to its rank re-read from the input, never from the trace.
    """
    traced = [row["id"] for row in rows]
    if sorted(traced) != sorted(ids):
        yield "the trace does not list every input item exactly once"
        return
    for earlier, later in zip(rows, rows[1:]):
        if not ranked_before(rank(earlier["id"]), earlier["id"], rank(later["id"]), later["id"]):
            yield f"{later['id']!r} was considered after {earlier['id']!r} but ranks before it"
            return


def decision_problems(rows: list, budget: int, costs: dict, decided_elsewhere: Callable[[str], bool] | None = None) -> Iterable[str]:
    """Replay the trace with the input's costs: the remaining budget before each row, and
    that each row is kept exactly when it fits.

    ``decided_elsewhere`` marks ids whose keep/leave decision another check verifies
    (required items); for those the replay only checks that a kept one fits.
    """
    remaining = budget
    for row in rows:
        item_id = row["id"]
        cost = costs[item_id]
        if row["remaining_before"] != remaining:
            yield f"{item_id!r}: trace says {row['remaining_before']} remained before it, replay says {remaining}"
            return
        fits = cost <= remaining
        if decided_elsewhere is not None and decided_elsewhere(item_id):
            if row["kept"] and not fits:
                yield f"{item_id!r} was kept but costs {cost} with {remaining} remaining"
                return
        elif row["kept"] != fits:
            verb = "kept" if row["kept"] else "left out"
            yield f"{item_id!r} was {verb} with cost {cost} and {remaining} remaining"
            return
        if row["kept"]:
            remaining -= cost


def listing_problems(rows: list, selected: list, omitted: list, input_order: list | None = None) -> Iterable[str]:
    """``selected`` and ``omitted`` are the kept and left-out rows, in trace or input order."""
    kept = [row["id"] for row in rows if row["kept"]]
    dropped = [row["id"] for row in rows if not row["kept"]]
    if input_order is not None:
        position = {item_id: index for index, item_id in enumerate(input_order)}
        kept.sort(key=position.__getitem__)
        dropped.sort(key=position.__getitem__)
    if kept != selected:
        yield f"selected {selected} differs from the kept rows of the trace {kept}"
    if dropped != omitted:
        yield f"omitted {omitted} differs from the left-out rows of the trace {dropped}"


def permutation_problems(data: dict, list_key: str, run: Callable[[dict], dict], result: dict, compared: tuple[str, ...]) -> Iterable[str]:
    """Re-run the rule on a copy with the list reversed; the compared results must not change.

    Reversal flips the relative order of every pair, so a selector that leans on input
    order anywhere (a stable sort without its tie-breaker, say) gives another answer.
    """
    items = data[list_key]
    if len(items) < 2:
        return
    permuted = dict(data)
    permuted[list_key] = items[::-1]
    again = run(permuted)
    for key in compared:
        if again.get(key) != result.get(key):
            yield f"re-running on the items in reverse order changes {key}"
            return


def estimate_parts(text: str) -> tuple[int, int, int]:
    """UTF-16 code units, words and newlines of ``text``, counted another way than ``_estimate``."""
    units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    words = sum(1 for part in text.translate(_SPACES).split(" ") if part)
    return units, words, text.count("\n")


def estimate_of_parts(units: int, words: int, newlines: int) -> int:
    return max(1, max(math.ceil(units / 4), math.ceil(words * 1.2)) + newlines)


def recount_estimate(text: str) -> int:
    """Seed 001's token estimate of ``text``, recomputed independently of the selector's estimator."""
    stripped = text.strip(JS_WHITESPACE)
    return estimate_of_parts(*estimate_parts(stripped)) if stripped else 0
