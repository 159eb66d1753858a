"""The judge of mode messages: the claimed indices checked (known, once), then what the rule
promises replayed from the parsed history: the pinned messages and the live turn kept, tool
calls with their results, no holes, the start at a user turn, the walk from the newest unit
within the limit (strategy stable's cut and low watermark included), and ``used``.
"""

from __future__ import annotations

from itertools import compress

from ..._base.values import plural
from ..._base.words import ranges
from .reading import Claim
from .verdicts import (
    BUDGET,
    CLEARED,
    HOLES,
    KNOWN,
    PAIRED,
    REQUIRED,
    RULE,
    USED,
    USER,
    Failure,
    _capped,
    _failure,
    _flags,
    _tokens_left,
)
from ...modes.messages.history import Parsed


def _judge_messages(parsed: Parsed, claim: Claim, proven: list | None = None) -> list[Failure]:
    limit, costs, roles, unit_of = parsed["limit"], parsed["costs"], parsed["roles"], parsed["unit_of"]
    unit = _message_unit(parsed)
    size = len(costs)
    failures, seen, positions = [], bytearray(size), []
    unknown: set = set()
    for index in claim["ids"]:
        if index >= size:
            if index not in unknown:
                unknown.add(index)
                failures.append(
                    _failure(
                        KNOWN, f"{index} is not a message index: the history has {plural(size, 'message')} (0-{size - 1})", index, "index"
                    )
                )
        elif seen[index]:
            if seen[index] == 1:
                failures.append(_failure(KNOWN, f"message {index} is claimed twice", index, "index"))
            seen[index] = 2
        else:
            seen[index] = 1
            positions.append(index)
    failures = _capped(failures, KNOWN, "indices that are unknown or claimed twice")
    claimed = _flags(positions, size)
    members: dict[int, list[int]] = {}
    for index, start in enumerate(unit_of):
        members.setdefault(start, []).append(index)
    pinned_unit = {start for index, start in enumerate(unit_of) if parsed["pinned"][index]}
    live_start = parsed["live_start"]  # the live turn (the newest user message on) is kept as if pinned
    pinned = [start in pinned_unit or index >= live_start for index, start in enumerate(unit_of)]
    summary = (parsed.get("clearing") or {}).get("summary_tokens") or 0  # a caller's summary sent in place of the dropped span
    fixed = (
        3 + parsed.get("system_tokens", 0) + parsed["tools_tokens"] + summary
    )  # (Anthropic's system prompt, Responses' instructions)  # (Anthropic's system prompt, Responses' instructions)
    pinned_tokens = fixed + sum(compress(costs, pinned))
    tokens = fixed + sum(map(costs.__getitem__, positions)) if positions else 0
    if tokens > limit:
        failures.append(
            _failure(
                BUDGET,
                f"the claimed messages and the reply priming count {plural(tokens, unit)}, over the limit of {limit} by {tokens - limit}",
            )
        )
    overflow = pinned_tokens > limit
    if not overflow:
        missing = [index for index in range(size) if pinned[index] and not claimed[index]]
        failures += _capped(
            [
                _failure(
                    REQUIRED, f"message {index} ({roles[index]}) is {_why_kept(parsed, index, unit_of)} but not claimed", index, "index"
                )
                for index in missing
            ],
            REQUIRED,
            "pinned messages not claimed",
        )
    # A tool call and its results: all claimed or none.
    for start, group in members.items():
        if len(group) > 1:
            flags = [claimed[index] for index in group]
            if any(flags) and not all(flags):
                if flags[0]:
                    absent = [index for index, flag in zip(group, flags) if not flag]
                    failures.append(
                        _failure(
                            PAIRED,
                            f"message {start} calls tools, but its result{'s' if len(absent) > 1 else ''} "
                            f"{', '.join(map(str, absent))} {'are' if len(absent) > 1 else 'is'} not claimed",
                            start,
                            "index",
                        )
                    )
                else:
                    answer = next(index for index, flag in zip(group, flags) if flag)
                    failures.append(
                        _failure(
                            PAIRED,
                            f"message {answer} is a tool result, but message {start}, whose call it answers, is not claimed",
                            answer,
                            "index",
                        )
                    )
    # No holes: once an unpinned message is left out, nothing older (and unpinned) is kept.
    hole = None
    for index in reversed(range(size)):
        if pinned[index]:
            continue
        if not claimed[index]:
            hole = index if hole is None else hole
        elif hole is not None:
            failures.append(
                _failure(HOLES, f"message {hole} is not claimed, but the older message {index} is: a hole in the history", hole, "index")
            )
            break
    conversation = [index for index in sorted(positions) if roles[index] not in ("system", "developer")]
    unpinned = [index for index in positions if not pinned[index]]
    if conversation and roles[conversation[0]] != "user" and not pinned[conversation[0]]:
        first = conversation[0]
        failures.append(
            _failure(USER, f"the claimed conversation starts at message {first} ({roles[first]}), not at a user turn", first, "index")
        )
    elif unpinned and roles[min(unpinned)] != "user" and not all(claimed[index] for index in range(min(unpinned))):
        first = min(unpinned)
        failures.append(
            _failure(
                USER,
                f"the claimed history resumes at message {first} ({roles[first]}) after a message left out, not at a user turn",
                first,
                "index",
            )
        )
    walk_limit, floor, lowered = limit, 0, None
    if parsed.get("options") is not None and not overflow:  # strategy stable: the walk's limit and the cut it keeps
        from ...modes.messages.stable import decide

        lowered, floor, _ = decide(parsed)
        walk_limit = limit if lowered is None else lowered
    failures += _messages_rule(parsed, claimed, pinned, members, walk_limit - pinned_tokens, pinned_tokens, positions, floor, lowered)
    failures += _cleared(parsed, claim, claimed)
    if claim["used"] is not None and claim["used"] != tokens:
        failures.append(
            _failure(USED, f"the claim says used {claim['used']}, but the claimed messages and the reply priming count {tokens}")
        )
    return failures


def _messages_rule(
    parsed: Parsed,
    claimed: bytearray,
    pinned: list,
    members: dict,
    remaining: int,
    pinned_tokens: int,
    positions: list,
    floor: int = 0,
    lowered: int | None = None,
) -> list[Failure]:
    """The walk from the newest unit to the oldest, then the start at a user turn; the first
    unit (newest first) that the claim keeps and the rule drops, or the other way round. ``floor``:
    strategy stable's cut kept from the previous call (the units before it are dropped);
    ``lowered``: strategy stable's new cut, the walk's limit at the low watermark."""
    roles, costs, limit = parsed["roles"], parsed["costs"], parsed["limit"]
    unit = _message_unit(parsed)
    pinned_units = {parsed["unit_of"][index] for index, flag in enumerate(parsed["pinned"]) if flag}

    def named(start: int) -> str:
        group = members[start]
        return f"message {start}" if len(group) == 1 else f"messages {start}-{group[-1]} (a tool call and its results)"

    if remaining < 0:
        if not positions:
            return []
        newest = max(positions)
        return [
            _failure(
                RULE,
                f"message {newest} is claimed, but the pinned messages, the live turn and the reply priming need {plural(pinned_tokens, unit)}, "
                f"over the limit of {limit}: the rule keeps nothing",
                newest,
                "index",
            )
        ]
    starts = [start for start in reversed(list(members)) if not pinned[start]]
    walk: list[tuple[int, int, str, int]] = []  # (unit start, remaining before, decision, unit cost)
    stopped_at: tuple[int, int, int] | None = None
    for start in starts:
        cost = sum(map(costs.__getitem__, members[start]))
        if start < floor:
            walk.append((start, remaining, "before the cut", cost))
        elif stopped_at is not None:
            walk.append((start, remaining, "older", cost))
        elif cost <= remaining:
            walk.append((start, remaining, "fits", cost))
            remaining -= cost
        else:
            walk.append((start, remaining, "too large", cost))
            stopped_at = (start, remaining, cost)
    # The user start, replayed oldest first: a kept unit that is not a user turn goes while
    # nothing of the conversation comes before it, or a message before it is left out.
    fits = {start for start, _, decision, _ in walk if decision == "fits"}
    dropped_for_start: set[int] = set()
    started, all_before = False, True
    for start in members:
        if start in fits:
            if roles[start] != "user" and (not started or not all_before):
                dropped_for_start.add(start)
                all_before = False
                continue
            break
        if pinned[start]:
            started = started or roles[start] not in ("system", "developer")
        else:
            all_before = False
    first_user = min((start for start in fits - dropped_for_start), default=None)
    kept_newer: list[int] = [
        index
        for index in range(parsed["live_start"], len(costs))
        if not parsed["pinned"][index] and parsed["unit_of"][index] not in pinned_units
    ]
    taken_newer = list(kept_newer)  # what the walk took before a unit, the turns later dropped for the user start too
    for position, (start, left, decision, cost) in enumerate(walk):
        rule_keeps = decision == "fits" and start not in dropped_for_start
        is_claimed = any(claimed[index] for index in members[start])
        if rule_keeps == is_claimed:
            if rule_keeps:
                kept_newer += members[start]
            if decision == "fits":
                taken_newer += members[start]
            continue
        if is_claimed and start in dropped_for_start:
            # Dropped for the user start, because an older turn is: when the claim keeps that
            # older turn too, its own start is not the point; the first unit it keeps that the
            # walk refuses (one that does not fit, older than the stop, before the cut) is.
            refused = _first_refused(walk[position + 1 :], members, claimed)
            if refused is not None:
                refused += position + 1
                taken_newer += members[start]
                for later, _, later_decision, _ in walk[position + 1 : refused]:
                    if later_decision == "fits":
                        taken_newer += members[later]
                start, left, decision, cost = walk[refused]
        subject = named(start)
        if not is_claimed:
            detail = f"{subject} fit{'s' if len(members[start]) == 1 else ''} the {plural(left, unit)} that {'remains' if left == 1 else 'remain'} ({'it needs' if len(members[start]) == 1 else 'they need'} {cost}) but {'is' if len(members[start]) == 1 else 'are'} not claimed"
        elif decision == "too large":
            after = f"after the newer {_ranges(taken_newer)}, " if taken_newer else "after the pinned messages and the reply priming, "
            detail = f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but {after}{_tokens_left(left, unit)} and {'it needs' if len(members[start]) == 1 else 'they need'} {cost}"
            if lowered is not None:
                detail += (
                    f" (strategy stable cuts the history down to its low watermark, {plural(lowered, unit)} of the limit's {limit}, "
                    "and keeps that cut on the next calls)"
                )
        elif decision == "before the cut":
            detail = (
                f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but strategy stable keeps the previous call's cut "
                f"(message {floor}): nothing older than it is sent"
            )
        elif decision == "older":
            assert stopped_at is not None  # an "older" row comes only after the walk stopped
            stop, stop_left, stop_cost = stopped_at
            detail = (
                f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but the walk stopped at the newer {named(stop)}, "
                f"which {'needs' if len(members[stop]) == 1 else 'need'} {plural(stop_cost, unit)} with only {stop_left} left: nothing older is kept"
            )
        else:
            because = (
                f"message {first_user}, where the kept history resumes at a user turn"
                if first_user is not None
                else f"the live turn (message {parsed['live_start']}, the newest user message)"
            )
            detail = (
                f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but it comes before {because}: the conversation sent "
                "starts at a user turn and never with a reply to a message left out"
            )
        return [_failure(RULE, detail, start, "index")]
    return []


def _first_refused(walk: list, members: dict, claimed: bytearray) -> int | None:
    """The position in ``walk`` (relative to its start) of the first unit claimed that the walk
    refuses by its limit or its cut, or None."""
    for position, (start, _, decision, _) in enumerate(walk):
        if decision != "fits" and any(claimed[index] for index in members[start]):
            return position
    return None


def _why_kept(parsed: Parsed, index: int, unit_of: list) -> str:
    if parsed["pinned"][index]:
        return "pinned"
    if index >= parsed["live_start"]:
        return "in the live turn (the newest user message and what follows it)"
    return "pinned with its tool unit"


def _message_unit(parsed: Parsed) -> str:
    return "estimated token" if parsed["tokenizer"] == "estimate" else "token"


def _ranges(indices: list[int]) -> str:
    """Newest first ``[7, 6, 5, 3]`` -> ``messages 3, 5-7``."""
    return f"message{'s' if len(indices) > 1 else ''} {ranges(sorted(indices))}"


def _cleared(parsed: Parsed, claim: Claim, claimed: bytearray | list) -> list[Failure]:
    """The claimed cleared messages against the clearing's (read from the input by parse): among the
    claimed messages, each whose tool result the rule clears, and no other."""
    given = claim.get("cleared")
    if given is None:
        return []
    clearing = parsed.get("clearing")
    rule = {row["index"] for row in clearing["rows"] if row["kind"] == "result"} if clearing else set()
    size = len(claimed)
    failures = []
    for index in sorted(set(given)):
        if index >= size or not claimed[index]:
            failures.append(_failure(CLEARED, f"message {index} is claimed cleared, but it is not claimed kept", index, "index"))
        elif index not in rule:
            failures.append(_failure(CLEARED, f"message {index} is claimed cleared, but the rule sends it as it is", index, "index"))
    for index in sorted(rule - set(given)):
        if index < size and claimed[index]:
            failures.append(
                _failure(
                    CLEARED, f"message {index} is kept with its tool result cleared by the rule, but not claimed cleared", index, "index"
                )
            )
    return _capped(failures, CLEARED, "messages cleared otherwise than the rule clears")
