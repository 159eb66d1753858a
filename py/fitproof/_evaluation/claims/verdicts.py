"""What every judge shares: the checks' names, a failure and its cap, the claimed ids resolved
to input positions, and the words a failure's detail is made of.

Nothing here knows a mode's rule. A failure is ``{"check", "detail", "id" | "index"?}``; at most
``MAX_LISTED`` of one kind are listed, then one says how many more (so a claim of a million
unknown ids makes a verdict of 21 failures, not a million).
"""

from __future__ import annotations

import math
from itertools import repeat
from typing import Iterable, NotRequired, TypedDict

from ..._base.ordinal import identity_key
from ..._base.values import json_text, plural

MAX_LISTED = 20  # failures of one kind listed one by one; past it, one failure says how many more

KNOWN, BUDGET, REQUIRED, RULE, HOLES, PAIRED, USER, PROMPT, USED = (
    "known ids",
    "token budget",
    "required kept",
    "follows the rule",
    "no holes",
    "tool calls paired",
    "starts with user",
    "prompt matches",
    "used adds up",
)
CLEARED = "cleared as the rule clears"  # mode messages with clear: the claimed cleared messages


class Failure(TypedDict):
    """One way the claim departs from the rule: the check, what happened, and the item it is about."""

    check: str
    detail: str
    id: NotRequired[str]  # the greedy modes and passages
    index: NotRequired[int]  # mode messages: a message's index


# The report's ``claim`` ("pass" is a keyword, hence the call form).
Verdict = TypedDict("Verdict", {"pass": bool, "failures": list[Failure]})


def _failure(check: str, detail: str, item: str | int | None = None, key: str = "id") -> Failure:
    failure: Failure = {"check": check, "detail": detail}
    if isinstance(item, int) and key == "index":
        failure["index"] = item
    elif isinstance(item, str):  # ids are strings (validated); no other item is named
        failure["id"] = item
    return failure


def _capped(failures: list[Failure], check: str, what: str) -> list[Failure]:
    """At most MAX_LISTED failures of one kind, then one that says how many more."""
    if len(failures) <= MAX_LISTED:
        return failures
    return failures[:MAX_LISTED] + [_failure(check, f"and {len(failures) - MAX_LISTED} more {what}")]


def _resolve(claimed: list[str], ids: list[str], where: dict[str, int] | None = None) -> tuple[list[int], list[Failure]]:
    """The input positions of the claimed ids, each once, in claim order, and the ``known ids``
    failures: ids the input does not have, ids given twice. Ids are compared by UTF-16 code
    units, as the contract compares them (a surrogate pair written as two escapes is the
    character it encodes). ``where``: the input's id -> position table, when already built."""
    if where is None:
        where = dict(zip(ids, range(len(ids))))
    found: list = list(map(where.get, claimed))  # ints past the None checks
    if None not in found and len(set(found)) == len(found):  # the common case, in C
        return found, []
    if None in found:
        by_identity = {identity_key(item_id): position for item_id, position in where.items()}
        found = [by_identity.get(identity_key(item_id)) if position is None else position for item_id, position in zip(claimed, found)]
    failures: list[Failure] = []
    seen, positions = bytearray(len(ids)), []
    unknown: set = set()
    for item_id, position in zip(claimed, found):
        if position is None:
            if item_id not in unknown:
                unknown.add(item_id)
                failures.append(_failure(KNOWN, f"{json_text(item_id)} is not an id of the input", item_id))
        elif seen[position]:
            if seen[position] == 1:
                failures.append(_failure(KNOWN, f"{ids[position]} is claimed twice", ids[position]))
            seen[position] = 2
        else:
            seen[position] = 1
            positions.append(position)
    return positions, _capped(failures, KNOWN, "ids that are unknown or claimed twice")


def _flags(positions: list[int], size: int) -> bytearray:
    flags = bytearray(size)
    for _ in map(flags.__setitem__, positions, repeat(1)):  # in C
        pass
    return flags


def _names(ids: list[str], positions: list[int]) -> str:
    """``A``, ``A and C``, ``A, C and D``, or ``the 41 items kept before it (the last: Z)``."""
    if len(positions) > 3:
        return f"the {len(positions)} kept before it (the last: {ids[positions[-1]]})"
    shown = [ids[position] for position in positions]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _shown(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _total(values: list, positions: Iterable[int]) -> float | int | None:
    """The exact sum of scores (integers as integers), or None past the float range."""
    chosen = list(map(values.__getitem__, positions))
    if all(type(value) is int for value in chosen):
        return sum(chosen)
    try:
        total = math.fsum(map(float, chosen))
    except OverflowError:
        return None
    return total if math.isfinite(total) else None


def _tokens_left(remaining: int, unit: str = "token") -> str:
    return f"{plural(remaining, unit)} {'remains' if remaining == 1 else 'remain'}"


def _prompt_failures(claimed: str, rendered: str) -> list[Failure]:
    """The first character where the claimed prompt differs from the one rendered from the claim's selection."""
    if claimed == rendered:
        return []
    at = next((index for index, (a, b) in enumerate(zip(claimed, rendered)) if a != b), min(len(claimed), len(rendered)))
    line = rendered.count("\n", 0, at) + 1
    column = at - rendered.rfind("\n", 0, at)
    where = f"at character {at + 1} (line {line}, column {column})"
    if at == len(claimed):
        what = f"the claimed prompt ends there, the rendered one goes on with {json_text(rendered[at : at + 24])}"
    elif at == len(rendered):
        what = f"the rendered prompt ends there, the claimed one goes on with {json_text(claimed[at : at + 24])}"
    else:
        what = f"the claim has {json_text(claimed[at : at + 24])}, the rendered prompt {json_text(rendered[at : at + 24])}"
    return [_failure(PROMPT, f"the claimed prompt differs from the one rendered from the claimed selection {where}: {what}")]
