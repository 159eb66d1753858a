"""Independent verifications of a mode's result.

Nothing here calls into a selector's ordering or fitting code: each check takes the
validated input columns, re-adds, re-orders and replays on its own, so that a wrong
result from a selector makes the check fail. Each runs in linear time (after the
input's own sort keys) and words a detailed message only once something fails. A check is ``{name, pass}`` plus ``detail``
whenever it fails.
"""

from __future__ import annotations

import math
from itertools import accumulate, compress, count, islice
from operator import eq, ge, itemgetter, le, lt, mul, not_, sub
from typing import Callable, Iterable, NotRequired, TypedDict

from .._base.values import JS_WHITESPACE

# A check as the report gives it ("pass" is a keyword, hence the call form).
Check = TypedDict("Check", {"name": str, "pass": bool, "detail": NotRequired[str]})

_SPACES = {ord(char): " " for char in JS_WHITESPACE}


# Why no order or replay can be checked: an item missing from the trace, unknown, or listed twice.
INCOMPLETE_TRACE = "the trace does not list every input item exactly once"


def passed(name: str) -> Check:
    return {"name": name, "pass": True}


def failed(name: str, detail: str) -> Check:
    return {"name": name, "pass": False, "detail": detail}


def verdict(name: str, problems: Iterable[str]) -> Check:
    """Pass when there is no problem; otherwise the first problem is the detail.

    A result too malformed to examine (a missing key, a wrong type) fails the check too.
    """
    try:
        for problem in problems:
            return failed(name, problem)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as error:
        return failed(name, f"the result cannot be examined ({type(error).__name__}: {error})")
    return passed(name)


def verdict_of(name: str, check: Callable[..., str | None], *arguments: object) -> Check:
    """``verdict`` for a check written as a function: it returns its first problem, or None."""
    try:
        problem = check(*arguments)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as error:
        return failed(name, f"the result cannot be examined ({type(error).__name__}: {error})")
    return passed(name) if problem is None else failed(name, problem)


def raw_number(value: float | int) -> float | int:
    """A count or score re-read from the raw input, without the validators (the input is valid: a number)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def code_units(text: str) -> bytes:
    # Big-endian UTF-16: comparing these bytes compares UTF-16 code units.
    return text.encode("utf-16-be", "surrogatepass")


def column(rows: list, key: str) -> list:
    return list(map(itemgetter(key), rows))


class Trace:
    """The result's trace, tied back to the input: row i is input item ``positions[i]``."""

    def __init__(self, rows: list, where: dict) -> None:
        self.ids = column(rows, "id")
        self.kept = column(rows, "kept")
        self.before = column(rows, "remaining_before")
        self.positions: list = list(map(where.get, self.ids))  # ints when complete (None: an id not in the input)
        self.complete = len(self.ids) == len(where) and None not in self.positions and _each_once(self.positions)


def _each_once(positions: list) -> bool:
    """Whether ``positions`` (each below ``len(positions)``) holds every position exactly once."""
    seen = bytearray(len(positions))  # a byte per item, where a set would take ~40
    for position in positions:
        seen[position] = 1
    return seen.count(0) == 0


def positions_of(ids: list) -> dict:
    """Input id -> its index; the ids are unique (validated)."""
    return dict(zip(ids, range(len(ids))))


def greedy_positions(where: dict, chosen: list) -> list:
    """The input positions of the ``chosen`` ids (ids not in the input are skipped)."""
    positions = list(map(where.get, chosen))  # at C speed; the filter only when it has work
    return positions if None not in positions else [position for position in positions if position is not None]


def budget_problems(where: dict, costs: list, selected: list, budget: int, used: int, remaining: int) -> Iterable[str]:
    """Re-add the costs of the selected ids from the input and compare with the report."""
    positions: list = list(map(where.get, selected))  # ints past the None check below
    if None in positions:
        unknown = next(item_id for item_id, position in zip(selected, positions) if position is None)
        yield f"selected id {unknown!r} is not an input item"
        return
    if len(set(positions)) != len(positions):
        seen: set = set()
        # add's None is falsy: the test and the insert in one pass (mypy flags any use of a None result)
        twice = next(item_id for item_id in selected if item_id in seen or seen.add(item_id))  # type: ignore[func-returns-value]
        yield f"selected id {twice!r} is selected twice"
        return
    total = sum(map(costs.__getitem__, positions))
    if total > budget:
        yield f"selected costs add up to {total}, over the budget of {budget}"
    if used != total:
        yield f"reported used {used}, but the selected costs add up to {total}"
    if remaining != budget - total:
        yield f"reported remaining {remaining}, but {budget} - {total} = {budget - total}"


def order_problems(trace: Trace, ranks: list, descending: bool = False) -> Iterable[str]:
    """The trace holds every input item once, ordered by rank (highest first when
    ``descending``), equal ranks in ordinal id order.

    ``ranks[i]`` is input item i's rank re-read from the input, never from the trace.
    """
    if not trace.complete:
        yield INCOMPLETE_TRACE
        return
    yield from sequence_problems(trace.ids, list(map(ranks.__getitem__, trace.positions)), descending)


def sequence_problems(ids: list, ranks: list, descending: bool = False) -> Iterable[str]:
    """``ids[i]`` ranked ``ranks[i]``: each adjacent pair ordered by rank (highest first when
    ``descending``), equal ranks in ordinal id order (the only order no permutation changes)."""
    in_order = ge if descending else le
    if not all(map(in_order, ranks, islice(ranks, 1, None))):
        index = next(i for i in range(len(ranks) - 1) if not in_order(ranks[i], ranks[i + 1]))
        yield f"{ids[index + 1]!r} was considered after {ids[index]!r} but ranks before it"
        return
    tied = list(map(eq, ranks, islice(ranks, 1, None)))  # pair i, i + 1 has equal ranks
    if True not in tied:
        return
    # The tied pairs' ids read in order (compress), not gathered by index.
    first, second = list(compress(ids, tied)), list(compress(islice(ids, 1, None), tied))
    # Code point order is code unit order unless a character is astral; encode only then.
    astral = "".join(first + second)
    if not astral.isascii() and max(astral) > "\uffff":
        first, second = list(map(code_units, first)), list(map(code_units, second))
    if not all(map(lt, first, second)):
        index = next(index for index, (a, b) in zip(compress(count(), tied), zip(first, second)) if not a < b)
        yield f"{ids[index + 1]!r} was considered after {ids[index]!r} but ranks before it"


def decision_problems(trace: Trace, budget: int, costs: list, decided_elsewhere: list | None = None) -> Iterable[str]:
    """Replay the trace with the input's costs: the remaining budget before each row, and
    that each row is kept exactly when it fits.

    ``decided_elsewhere[i]`` marks input items whose keep/leave decision another check
    verifies (required items); for those the replay only checks that a kept one fits.
    """
    if not trace.complete:
        yield INCOMPLETE_TRACE
        return
    in_trace = list(map(costs.__getitem__, trace.positions))
    # Compared while the replay runs, without a list as long as the input.
    replay = accumulate(map(mul, map(bool, trace.kept), in_trace), sub, initial=budget)
    if all(map(eq, trace.before, replay)) and all(map(eq, trace.kept, map(le, in_trace, trace.before))):
        return
    before = list(accumulate(map(mul, map(bool, trace.kept), in_trace), sub, initial=budget))
    fits = list(map(le, in_trace, before))
    # Something is off: find the first row where the replay disagrees, and say how.
    for index, (said, replayed, kept, fit) in enumerate(zip(trace.before, before, trace.kept, fits)):
        if said != replayed:
            yield f"{trace.ids[index]!r}: trace says {said} remained before it, replay says {replayed}"
            return
        if kept != fit and not (decided_elsewhere is not None and decided_elsewhere[trace.positions[index]] and not kept):
            verb = "kept" if kept else "left out"
            yield f"{trace.ids[index]!r} was {verb} with cost {in_trace[index]} and {replayed} remaining"
            return


def listing_problems(trace: Trace, selected: list, omitted: list, input_ids: list | None = None) -> Iterable[str]:
    """``selected`` and ``omitted`` are the kept and left-out rows, in trace order, or in
    input order when ``input_ids`` is given."""
    if input_ids is None:
        kept = list(compress(trace.ids, trace.kept))
        dropped = list(compress(trace.ids, map(not_, trace.kept)))
    else:
        kept = list(map(input_ids.__getitem__, sorted(compress(trace.positions, trace.kept))))
        dropped = list(map(input_ids.__getitem__, sorted(compress(trace.positions, map(not_, trace.kept)))))
    if kept != selected:
        yield "the selected ids differ from the kept rows of the trace"
    if dropped != omitted:
        yield "the omitted ids differ from the left-out rows of the trace"


def estimate_parts(text: str) -> tuple[int, int, int]:
    """UTF-16 code units, words and newlines of ``text``, counted another way than ``tokenizers.estimate``."""
    if text.isascii():
        # bytes.split() splits at exactly JavaScript's ASCII whitespace (str.split() would
        # also split at U+001C..U+001F, which JavaScript does not count as whitespace).
        return len(text), len(text.encode("ascii").split()), text.count("\n")
    units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    parts = text.translate(_SPACES).split(" ")
    words = len(parts) - parts.count("")  # the non-empty parts, counted in C
    return units, words, text.count("\n")


def estimate_of_parts(units: int, words: int, newlines: int) -> int:
    return max(1, max(math.ceil(units / 4), math.ceil(words * 1.2)) + newlines)


def recount_estimate(text: str) -> int:
    """The token estimate of seed 001 (the C# pipeline mode ``blocks`` adapts) of ``text``, recomputed
    independently of the selector's estimator."""
    stripped = text.strip(JS_WHITESPACE)
    return estimate_of_parts(*estimate_parts(stripped)) if stripped else 0
