"""The rule: the newest units that fit, after every pinned one; the kept history starts with a user turn."""

from __future__ import annotations

from ..._values import plural
from .reading import REPLY_PRIMING

# A trace row's reason.
PINNED = "pinned"
FITS = "fits_remaining_budget"
TOO_LARGE = "exceeds_remaining_budget"
OLDER = "older_than_a_dropped_message"
USER_START = "history_must_start_with_user"
PINNED_OVERFLOW = "pinned_messages_exceed_limit"


def rule(parsed: dict) -> tuple[list[bool], list[str], list[int], list[bool], int]:
    """Each message's kept flag, reason, the remaining limit before its unit was decided
    and whether its unit is pinned, and the tokens the pinned messages and the priming need."""
    limit, costs, pinned, unit_of, roles = parsed["limit"], parsed["costs"], parsed["pinned"], parsed["unit_of"], parsed["roles"]
    count = len(costs)
    pinned_unit = [False] * count  # by unit start: a unit is pinned when any of its messages is
    unit_cost = [0] * count
    for index in range(count):
        unit_cost[unit_of[index]] += costs[index]
        if pinned[index]:
            pinned_unit[unit_of[index]] = True
    pinned_tokens = REPLY_PRIMING + sum(unit_cost[start] for start in range(count) if pinned_unit[start] and unit_of[start] == start)
    remaining = limit - pinned_tokens
    if remaining < 0:
        return [False] * count, [PINNED_OVERFLOW] * count, [remaining] * count, [pinned_unit[start] for start in unit_of], pinned_tokens
    kept, reasons, before = [False] * count, [""] * count, [0] * count
    stopped = False
    for start in reversed([index for index in range(count) if unit_of[index] == index]):
        cost = unit_cost[start]
        if pinned_unit[start]:
            keep, reason = True, PINNED
        elif stopped:
            keep, reason = False, OLDER
        elif cost <= remaining:
            keep, reason = True, FITS
        else:
            keep, reason, stopped = False, TOO_LARGE, True
        before[start] = remaining
        kept[start], reasons[start] = keep, reason
        if keep and reason == FITS:
            remaining -= cost
    # The kept unpinned history starts at a user turn: kept units before its first user
    # message go, and so does all of it when it holds no user message. (A pinned user
    # message does not count: the turns kept around it must make sense on their own.)
    first_user = next((index for index in range(count) if kept[index] and not pinned_unit[index] and roles[index] == "user"), count)
    for start in range(first_user):
        if unit_of[start] == start and kept[start] and not pinned_unit[start]:
            kept[start], reasons[start] = False, USER_START
    for index in range(count):
        start = unit_of[index]
        kept[index], reasons[index], before[index] = kept[start], reasons[start], before[start]
    return kept, reasons, before, [pinned_unit[start] for start in unit_of], pinned_tokens


def select(parsed: dict) -> dict:
    limit, costs, messages = parsed["limit"], parsed["costs"], parsed["messages"]
    kept, reasons, before, pinned, pinned_tokens = rule(parsed)
    shortfall = max(0, pinned_tokens - limit)
    kept_indices = [index for index, keep in enumerate(kept) if keep]
    unit_tokens = {}
    for index, start in enumerate(parsed["unit_of"]):
        unit_tokens[start] = unit_tokens.get(start, 0) + costs[index]
    tokens = REPLY_PRIMING + sum(costs[index] for index in kept_indices) if kept_indices else 0
    trace = [
        {
            "index": index,
            "role": parsed["roles"][index],
            "tokens": costs[index],
            "unit": parsed["unit_of"][index],
            "unit_tokens": unit_tokens[parsed["unit_of"][index]],
            "pinned": pinned[index],
            "remaining_before": before[index],
            "kept": kept[index],
            "reason": reasons[index],
        }
        for index in reversed(range(len(costs)))
    ]
    return {
        "tokenizer": parsed["tokenizer"],
        "limit": limit,
        "tokens": tokens,
        "remaining": limit - tokens,
        "pinned_tokens": pinned_tokens,
        "shortfall": shortfall,
        "kept": kept_indices,
        "dropped": [index for index, keep in enumerate(kept) if not keep],
        "messages": [as_sent(messages[index]) for index in kept_indices],
        "trace": trace,
    }


def as_sent(message: dict) -> dict:
    """The message as given, without ``pinned`` (this tool's own key, which the API would refuse):
    a copy down to its strings, so that changing the result never changes the caller's history."""
    return {key: _copied(value) for key, value in message.items() if key != "pinned"}


def _copied(value: object) -> object:
    """A validated message value (text, text parts, tool calls) copied through its lists and objects."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


def succeeded(result: dict) -> bool:
    return result["shortfall"] == 0


def _unit_name(tokenizer: str) -> str:
    return "estimated tokens" if tokenizer == "estimate" else f"tokens ({tokenizer})"


def summarize(result: dict) -> str:
    total = len(result["trace"])
    if result["shortfall"]:
        pinned = [row["index"] for row in reversed(result["trace"]) if row["pinned"]]
        over = f"{result['shortfall']} over the limit of {result['limit']}."
        if not pinned:
            return f"The reply priming alone needs {result['pinned_tokens']} {_unit_name(result['tokenizer'])}, {over}"
        shown = ", ".join(f"#{index}" for index in pinned[:10]) + (", …" if len(pinned) > 10 else "")
        what = "message" if len(pinned) == 1 else "messages"
        return f"The pinned {what} ({shown}) and the reply priming need {result['pinned_tokens']} {_unit_name(result['tokenizer'])}, {over}"
    pinned = sum(1 for row in result["trace"] if row["reason"] == PINNED)
    dropped = f", dropped {_ranges(result['dropped'])}" if result["dropped"] else ""
    return (
        f"Kept {len(result['kept'])} of {plural(total, 'message')} ({pinned} pinned){dropped}: the prompt counts "
        f"{result['tokens']} of {result['limit']} {_unit_name(result['tokenizer'])}."
    )


def _ranges(indices: list[int], shown: int = 4) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``; drops are mostly one run of the oldest turns."""
    runs: list[list[int]] = []
    for index in indices:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    text = ", ".join(f"{first}-{last}" if last > first else str(first) for first, last in runs[:shown])
    return text + (", …" if len(runs) > shown else "")
