"""The independent checks of a messages result.

None of these calls the rule or its cost function: each re-reads the raw input (its own
recount of every message, its own units) and returns its first problem, or None.
"""

from __future__ import annotations

import json
from typing import Callable

from ... import _checks
from ...tokenizers import count_tokens
from .reading import ALWAYS_PINNED, DEFAULT_TOKENIZER, REPLY_PRIMING
from .rule import FITS, OLDER, PINNED, PINNED_OVERFLOW, TOO_LARGE, USER_START


def recount(message: dict, count: Callable[[str], int]) -> int:
    """OpenAI's cookbook loop over the message's keys, written apart from ``message_cost``."""
    tokens = 3
    for key, value in message.items():
        if key == "pinned" or value is None:
            continue
        if key == "content" and isinstance(value, list):
            tokens += sum(count(part["text"]) for part in value)
        elif key == "tool_calls":
            tokens += count(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
        else:
            tokens += count(value)
        if key == "name":
            tokens += 1
    return tokens


def as_sent_again(message: dict) -> dict:
    sent = dict(message)
    sent.pop("pinned", None)
    return sent


class History:
    """The raw input as the checks read it: its units, which are pinned, and each message's recount."""

    def __init__(self, data: dict, result: dict) -> None:
        self.messages = messages = data["messages"]
        self.limit = _checks.raw_number(data["limit"])
        self.tokenizer = data.get("tokenizer", DEFAULT_TOKENIZER)
        self.result = result
        self.total = total = len(messages)
        self.roles = [message["role"] for message in messages]
        # A tool message belongs to the unit of the assistant message its run of tool messages follows.
        self.unit = unit = list(range(total))
        for index in range(1, total):
            if self.roles[index] == "tool":
                unit[index] = unit[index - 1]
        pinned_unit = set(unit[index] for index, message in enumerate(messages) if message["role"] in ALWAYS_PINNED or message.get("pinned") is True)
        self.pinned = [unit[index] in pinned_unit for index in range(total)]
        self._counted: dict[str, int] = {}
        self._costs: dict[int, int] = {}
        self.kept = result["kept"]
        self.kept_set = set(self.kept)
        self.pinned_need = REPLY_PRIMING + sum(self.cost(index) for index in range(total) if self.pinned[index])

    def count(self, text: str) -> int:
        if text not in self._counted:
            self._counted[text] = count_tokens(text, self.tokenizer)
        return self._counted[text]

    def cost(self, index: int) -> int:
        if index not in self._costs:
            self._costs[index] = recount(self.messages[index], self.count)
        return self._costs[index]


def recounted(history: History) -> str | None:
    result, kept, total, limit = history.result, history.kept, history.total, history.limit
    if kept != sorted(history.kept_set) or sorted(kept + result["dropped"]) != list(range(total)) or result["dropped"] != sorted(result["dropped"]):
        return "kept and dropped do not split the message indices, each list in input order"
    if result["messages"] != [as_sent_again(history.messages[index]) for index in kept]:
        return "the messages to send differ from the kept input messages"
    tokens = REPLY_PRIMING + sum(map(history.cost, kept)) if kept else 0
    if tokens != result["tokens"]:
        return f"the kept messages re-count to {tokens} tokens, the report says {result['tokens']}"
    if tokens > limit:
        return f"the kept messages re-count to {tokens} tokens, over the limit of {limit}"
    if result["remaining"] != limit - tokens:
        return f"reported remaining {result['remaining']}, but {limit} - {tokens} = {limit - tokens}"
    return None


def no_holes(history: History) -> str | None:
    rows, total, kept_set, pinned = history.result["trace"], history.total, history.kept_set, history.pinned
    if [row["index"] for row in rows] != list(reversed(range(total))):
        return "the trace does not list every message once, newest first"
    seen_dropped = None
    for row in rows:
        index = row["index"]
        if row["kept"] != (index in kept_set):
            return f"trace row {index} says kept is {row['kept']}, the kept list disagrees"
        if pinned[index]:
            continue
        if index not in kept_set:
            seen_dropped = index if seen_dropped is None else seen_dropped
        elif seen_dropped is not None:
            return f"message {index} is kept but the newer message {seen_dropped} was dropped: a hole in the history"
    return _replayed(history)


def _replayed(history: History) -> str | None:
    """Every decision replayed from the input's own counts, newest unit first. Rows past the
    stop (and all rows when the pinned messages overflow) are decided without their counts,
    so only they are not re-counted: the walk never needed them."""
    unit, pinned, cost, limit = history.unit, history.pinned, history.cost, history.limit
    members: dict[int, list[int]] = {}
    for index in range(history.total):
        members.setdefault(unit[index], []).append(index)
    unit_totals: dict[int, int] = {}  # each unit summed once (a unit can have thousands of tool results)
    overflow = history.pinned_need > limit
    remaining = limit - history.pinned_need
    stopped = False
    for row in history.result["trace"]:
        index = row["index"]
        decided_by_count = pinned[index] or not (overflow or stopped)
        if decided_by_count:
            unit_tokens = unit_totals.get(unit[index])
            if unit_tokens is None:
                unit_tokens = unit_totals[unit[index]] = sum(map(cost, members[unit[index]]))
            if row["tokens"] != cost(index) or row["unit_tokens"] != unit_tokens:
                return f"message {index} re-counts to {cost(index)} tokens ({unit_tokens} with its unit), the trace says {row['tokens']} ({row['unit_tokens']})"
        if row["remaining_before"] != remaining:
            return f"message {index}: the trace says {row['remaining_before']} remained before it, the replay says {remaining}"
        if overflow:
            expected: tuple[str, ...] = (PINNED_OVERFLOW,)
        elif pinned[index]:
            expected = (PINNED,)
        elif stopped:
            expected = (OLDER,)
        elif unit_tokens <= remaining:
            expected = (FITS, USER_START)
        else:
            expected = (TOO_LARGE,)
        if row["reason"] not in expected:
            return f"message {index} is marked {row['reason']}, the replay says {expected[0]}"
        if unit[index] == index and not overflow and not pinned[index] and not stopped:  # the unit's last row: its decision takes effect
            if expected == (TOO_LARGE,):
                stopped = True
            else:
                remaining -= unit_tokens
    return None


def tools_paired(history: History) -> str | None:
    # Ids are equal when their UTF-16 code units are (a surrogate pair written as two
    # escapes is the character it encodes), as everywhere in the project.
    kept = history.kept
    waiting: dict[bytes, int] = {}  # the calls not answered yet, in order: how many times each was made
    for position, message in enumerate(history.result["messages"]):
        if message["role"] == "tool":
            answered = _checks.code_units(message["tool_call_id"])
            if not waiting.get(answered):
                return f"the kept tool message at {kept[position]} answers {message['tool_call_id']!r}, a call not kept right before it"
            waiting[answered] -= 1
            if not waiting[answered]:
                del waiting[answered]
            continue
        if waiting:
            return f"the kept call {next(iter(waiting)).decode('utf-16-be', 'surrogatepass')!r} has no kept tool result after it"
        waiting = {}
        for call in message.get("tool_calls") or ():
            made = _checks.code_units(call["id"])
            waiting[made] = waiting.get(made, 0) + 1
    if waiting:
        return f"the kept call {next(iter(waiting)).decode('utf-16-be', 'surrogatepass')!r} has no kept tool result after it"
    return None


def user_start(history: History) -> str | None:
    kept, roles, pinned, total, trace = history.kept, history.roles, history.pinned, history.total, history.result["trace"]
    users = [index for index in kept if roles[index] == "user" and not pinned[index]]
    first_user = users[0] if users else total
    early = [index for index in kept if index < first_user and not pinned[index]]
    if early:
        return f"message {early[0]} ({roles[early[0]]}) is kept before the first kept unpinned user message"
    # Re-derive which units the walk kept and which of them the user start removes.
    walked = {row["index"] for row in trace if row["reason"] in (FITS, USER_START)}
    first = next((index for index in range(total) if roles[index] == "user" and index in walked), total)
    expected = [index for index in range(total) if index in walked and index < first]
    marked = [row["index"] for row in reversed(trace) if row["reason"] == USER_START]
    if marked != expected:
        return f"messages {expected} come before the first kept user message, the trace drops {marked} for it"
    return None


def pinned_kept(history: History) -> str | None:
    result, need, limit = history.result, history.pinned_need, history.limit
    if result["pinned_tokens"] != need:
        return f"the pinned messages and the priming re-count to {need} tokens, the report says {result['pinned_tokens']}"
    if need > limit:
        if result["shortfall"] != need - limit:
            return f"the pinned messages need {need} tokens of {limit}: shortfall {need - limit}, the report says {result['shortfall']}"
        if history.kept:
            return "messages are kept although the pinned messages alone exceed the limit"
        return None
    if result["shortfall"] != 0:
        return f"the pinned messages need {need} tokens and fit the limit of {limit}, but the report says {result['shortfall']} short"
    missing = [index for index in range(history.total) if history.pinned[index] and index not in history.kept_set]
    if missing:
        return f"pinned message {missing[0]} ({history.roles[missing[0]]}) is not kept"
    return None


CHECKS = (
    ("kept messages re-counted", recounted),
    ("no holes", no_holes),
    ("tool calls paired", tools_paired),
    ("history starts with user", user_start),
    ("pinned messages kept", pinned_kept),
)


def verify(data: dict, result: dict, parsed: dict | None = None) -> list[dict]:
    history = History(data, result)
    return [_checks.verdict_of(name, check, history) for name, check in CHECKS]
