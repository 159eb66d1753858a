"""The independent checks of a messages result.

None of these calls the rule or its cost function: each re-reads the raw input (its own
recount of every message, its own units) and returns its first problem, or None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from typing import Callable

from math import ceil

from ..._shared import checks as _checks
from ...tokenizers import count_tokens, resolve
from .images import data_url_size
from .accounting import REPLY_PRIMING
from .message import ALWAYS_PINNED
from .reading import DEFAULT_TOKENIZER
from .prompt_template import counted as template_counted, rendered_tokens
from .rule import BEFORE_CUT, FITS, LIVE, OLDER, PINNED, PINNED_OVERFLOW, TOO_LARGE, USER_START
from . import clearing_checks, stable_checks
from .stable_checks import as_sent_again
from .history import Parsed


def compact(value: object) -> str:
    """A value as the checks count it: JSON without spaces, non-ASCII as written. The checks'
    own copy of ``tools.compact`` (the reading's), kept apart so that they re-derive the count."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def image_tokens(part: dict) -> int:
    """OpenAI's tile rule again, in integers: fit 2048 x 2048, shorter side to 768, 85 + 170 a tile."""
    image = part["image_url"]
    if image.get("detail") == "low":
        return 85
    size = part.get("size") or data_url_size(image["url"])
    if not size:
        return 1445
    width, height = size
    if width > 2048 or height > 2048:  # the scale 2048 / longer side, kept as a fraction
        num, den = 2048, max(width, height)
    else:
        num, den = 1, 1
    if min(width, height) * num > 768 * den:
        num, den = 768, min(width, height)
    return 85 + 170 * ceil(width * num / (512 * den)) * ceil(height * num / (512 * den))


def recount(message: dict, count: Callable[[str], int]) -> int:
    """OpenAI's cookbook loop over the message's keys, written apart from ``message_cost``."""
    tokens = 3
    for key, value in message.items():
        if key in ("pinned", "annotations") or value is None:
            continue
        if key == "content" and isinstance(value, list):
            for part in value:
                if part["type"] == "image_url":
                    tokens += image_tokens(part)
                else:
                    tokens += count(part[part["type"]])  # a text part's text, a refusal part's refusal
        elif key in ("tool_calls", "function_call", "audio"):
            tokens += count(compact(value))
        else:
            tokens += count(value)
        if key == "name":
            tokens += 1
    return tokens


def tools_recount(tools: list, tokenizer: str, count: Callable[[str], int]) -> int:
    """The cookbook's ``num_tokens_for_tools`` again, from the raw definitions."""
    if not tools:
        return 0
    init = 10 if tokenizer == "cl100k_base" else 7
    total = 12
    for tool in tools:
        function = tool["function"]
        description = function.get("description") or ""
        total += init + count(function["name"] + ":" + (description[:-1] if description.endswith(".") else description))
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += 3
        for key, schema in properties.items():
            total += 3
            simple = (
                isinstance(schema, dict)
                and not set(schema) - {"type", "description", "enum"}
                and isinstance(schema.get("type", ""), str)
                and isinstance(schema.get("description", ""), str)
                and isinstance(schema.get("enum", []), (list, tuple))
                and all(isinstance(item, str) for item in schema.get("enum", []))
            )
            if not simple:
                total += count(key + ":" + compact(schema))
                continue
            if "enum" in schema:
                total += -3 + sum(3 + count(item) for item in schema["enum"])
            text = schema.get("description", "")
            total += count(f"{key}:{schema.get('type', '')}:{text[:-1] if text.endswith('.') else text}")
    return total


class History:
    """The raw input as the checks read it: its units, which are pinned, the live turn, and each message's recount."""

    def __init__(self, data: dict, result: Mapping[str, Any]) -> None:  # a report to doubt: any mapping
        self.data = data
        self.messages = messages = data["messages"]
        self.limit = _checks.raw_number(data["limit"])
        self.tokenizer = str(resolve(data.get("tokenizer", DEFAULT_TOKENIZER)))
        self.result = result
        self.total = total = len(messages)
        self.roles = [message["role"] for message in messages]
        # A tool message belongs to the unit of the assistant message its run of tool messages follows.
        self.unit = unit = list(range(total))
        for index in range(1, total):
            if self.roles[index] == "tool":
                unit[index] = unit[index - 1]
        pinned_unit = set(
            unit[index] for index, message in enumerate(messages) if message["role"] in ALWAYS_PINNED or message.get("pinned") is True
        )
        self.pinned = [unit[index] in pinned_unit for index in range(total)]
        # The live turn: the newest user message and everything after it.
        self.live_start = max(index for index in range(total) if self.roles[index] == "user")
        self.live = [index >= self.live_start and not self.pinned[index] for index in range(total)]
        self._counted: dict[str, int] = {}
        self._costs: dict[int, int] = {}
        self.original = self.previous_messages = messages
        self.derived = None
        self.kept = result["kept"]
        self.kept_set = set(self.kept)
        self.template = data.get("template")
        self.data_tools = data.get("tools")
        self.template_options = data.get("template_options")
        priming = REPLY_PRIMING
        if self.template:  # each message's share of the whole history rendered; its tools are in the template's tokens
            detail = template_counted(messages, self.template, self.tokenizer, data.get("tools"), self.template_options)
            self._costs, priming = dict(enumerate(detail.per_message)), detail.overhead
            self.tools_tokens = 0
        else:
            self.tools_tokens = tools_recount(data.get("tools") or [], self.tokenizer, self.count)
        self.priming = priming
        if clearing_checks.given(data):  # the cleared results replayed: the history as sent, and as the previous call sent it
            self.derived = clearing_checks.Derived(self)
            self.messages = [self.derived.copies.get(index, message) for index, message in enumerate(messages)]
            self.previous_messages = [self.derived.previous_copies.get(index, message) for index, message in enumerate(messages)]
            self._costs = {}
            clearing_checks.summary_of(self)
            priming = self.priming
        self.pinned_need = priming + self.tools_tokens + sum(self.cost(index) for index in range(total) if self.pinned[index])
        self.live_need = sum(self.cost(index) for index in range(total) if self.live[index])
        # Strategy stable: the limit the walk cuts down to and the cut kept from the previous call, re-derived.
        self.walk_limit, self.floor, _ = stable_checks.walk_of(self)

    def count(self, text: str) -> int:
        if text not in self._counted:
            self._counted[text] = count_tokens(text, self.tokenizer)
        return self._counted[text]

    def cost(self, index: int) -> int:
        if index not in self._costs:
            self._costs[index] = recount(self.messages[index], self.count)
        return self._costs[index]

    def recount_of(self, message: dict) -> int:
        return recount(message, self.count)

    def previous_cost(self, index: int) -> int:
        """The message's cost in the previous call's prompt (another only when clearing cleared it since)."""
        if self.previous_messages[index] is self.messages[index]:
            return self.cost(index)
        return recount(self.previous_messages[index], self.count)


def split_problem(history) -> str | None:
    """Whether kept and dropped split the message indices, each list in input order (any format)."""
    kept, dropped = history.kept, history.result["dropped"]
    if kept != sorted(history.kept_set) or sorted(kept + dropped) != list(range(history.total)) or dropped != sorted(dropped):
        return "kept and dropped do not split the message indices, each list in input order"
    return None


def recounted(history: History) -> str | None:
    result, kept, limit = history.result, history.kept, history.limit
    split = split_problem(history)
    if split:
        return split
    if result["messages"] != [as_sent_again(history.messages[index]) for index in kept]:
        return "the messages to send differ from the kept input messages"
    if result["tools_tokens"] != history.tools_tokens:
        return f"the tool definitions re-count to {history.tools_tokens} tokens, the report says {result['tools_tokens']}"
    if history.template:  # the kept messages rendered again, the prompt counted whole
        tokens = (
            rendered_tokens(
                [history.messages[index] for index in kept],
                history.template,
                history.tokenizer,
                history.data_tools,
                history.template_options,
            )
            if kept
            else 0
        )
        if result.get("template") != history.template or result.get("template_tokens") != history.priming:
            return f"the template {history.template} writes {history.priming} tokens of its own, the report says {result.get('template_tokens')} ({result.get('template')})"
    else:
        tokens = REPLY_PRIMING + getattr(history, "summary_cost", 0) + history.tools_tokens + sum(map(history.cost, kept)) if kept else 0
    return totals_problem(result, tokens, limit)


def totals_problem(result: Mapping[str, Any], tokens: int, limit: float) -> str | None:
    """Whether the report's tokens and remaining are the recount's, within the limit (any format)."""
    if tokens != result["tokens"]:
        return f"the kept messages re-count to {tokens} tokens, the report says {result['tokens']}"
    if tokens > limit:
        return f"the kept messages re-count to {tokens} tokens, over the limit of {limit}"
    if result["remaining"] != limit - tokens:
        return f"reported remaining {result['remaining']}, but {limit} - {tokens} = {limit - tokens}"
    return None


def no_holes(history: History) -> str | None:
    rows, total, kept_set = history.result["trace"], history.total, history.kept_set
    pinned = [history.pinned[index] or history.live[index] for index in range(total)]
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
    unit, cost, limit, floor = history.unit, history.cost, history.walk_limit, history.floor
    pinned = [history.pinned[index] or history.live[index] for index in range(history.total)]
    members: dict[int, list[int]] = {}
    for index in range(history.total):
        members.setdefault(unit[index], []).append(index)
    unit_totals: dict[int, int] = {}  # each unit summed once (a unit can have thousands of tool results)
    overflow = history.pinned_need + history.live_need > history.limit
    remaining = limit - history.pinned_need - history.live_need
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
        elif history.pinned[index]:
            expected = (PINNED,)
        elif history.live[index]:
            expected = (LIVE,)
        elif unit[index] < floor:
            expected = (BEFORE_CUT,)
        elif stopped:
            expected = (OLDER,)
        elif unit_tokens <= remaining:  # type: ignore[operator]  # set: a row past the cases above was decided by count
            expected = (FITS, USER_START)
        else:
            expected = (TOO_LARGE,)
        if row["reason"] not in expected:
            return f"message {index} is marked {row['reason']}, the replay says {expected[0]}"
        if unit[index] == index and not overflow and not pinned[index] and not stopped:  # the unit's last row: its decision takes effect
            if expected == (TOO_LARGE,):
                stopped = True
            elif expected != (BEFORE_CUT,):
                remaining -= unit_tokens  # type: ignore[operator]  # set, as above (no check on this loop)
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
    """Re-derived from the kept messages: the first that is not system or developer is a user
    message (unless a pinned one comes first), and the oldest kept unpinned unit starts with a user
    message or follows only kept messages; and the trace drops for it exactly the units it must."""
    kept_set, roles, total, unit = history.kept_set, history.roles, history.total, history.unit
    fixed = [history.pinned[index] or history.live[index] for index in range(total)]
    conversation = [index for index in history.kept if roles[index] not in ALWAYS_PINNED]
    if conversation and roles[conversation[0]] != "user" and not fixed[conversation[0]]:
        return f"message {conversation[0]} ({roles[conversation[0]]}) is the first kept message of the conversation, not a user message"
    oldest = next((index for index in history.kept if not fixed[index]), None)
    if oldest is not None and roles[oldest] != "user" and any(index not in kept_set for index in range(oldest)):
        return f"message {oldest} ({roles[oldest]}) starts the kept history after a dropped message, not at a user turn"
    # Which units the walk kept (fits, or dropped only for the start), and which of them the start removes.
    walked = [
        row["index"]
        for row in reversed(history.result["trace"])
        if row["reason"] in (FITS, USER_START) and unit[row["index"]] == row["index"]
    ]
    expected, started, before_kept = [], False, True
    walked_set = set(walked)
    for index in range(total):
        if unit[index] != index:
            continue
        if index in walked_set:
            if roles[index] != "user" and (not started or not before_kept):
                expected.append(index)
                before_kept = False
                continue
            break
        if fixed[index] and (history.pinned_need + history.live_need <= history.limit):
            started = started or roles[index] not in ALWAYS_PINNED
        else:
            before_kept = False
    marked = [
        row["index"] for row in reversed(history.result["trace"]) if row["reason"] == USER_START and unit[row["index"]] == row["index"]
    ]
    if marked != expected:
        return f"units {expected} come before the user start, the trace drops {marked} for it"
    return None


def live_turn_kept(history: History) -> str | None:
    """The live turn (the newest user message and all after it, re-found in the input) is kept
    whole with its reason, or the report fails with the shortfall it causes."""
    result, live_start, total = history.result, history.live_start, history.total
    if result["live_turn"] != list(range(live_start, total)):
        return (
            f"the live turn is messages {live_start}-{total - 1} (from the newest user message on), the report says {result['live_turn']}"
        )
    if result["live_tokens"] != history.live_need:
        return f"the live turn re-counts to {history.live_need} tokens beside the pinned messages, the report says {result['live_tokens']}"
    if history.pinned_need + history.live_need > history.limit:
        if result["shortfall"] != history.pinned_need + history.live_need - history.limit or history.kept:
            return f"the live turn and the pinned messages need {history.pinned_need + history.live_need} of {history.limit}: nothing kept and a shortfall of {history.pinned_need + history.live_need - history.limit}"
        return None
    lost = [index for index in range(live_start, total) if index not in history.kept_set]
    if lost:
        return f"message {lost[0]} ({history.roles[lost[0]]}) belongs to the live turn (from message {live_start}, the newest user message) and is not kept"
    for row in result["trace"]:
        if history.live[row["index"]] and row["reason"] != LIVE:
            return f"message {row['index']} of the live turn is marked {row['reason']}, not {LIVE}"
    return None


def pinned_kept(history: History) -> str | None:
    result, need, limit = history.result, history.pinned_need, history.limit
    if result["pinned_tokens"] != need:
        return f"the pinned messages, the tools and the priming re-count to {need} tokens, the report says {result['pinned_tokens']}"
    need += history.live_need
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
    ("live turn kept", live_turn_kept),
    ("pinned messages kept", pinned_kept),
)


def verify(data: dict, result: Mapping[str, Any], parsed: Parsed | None = None) -> list[_checks.Check]:
    history = History(data, result)
    checks = CHECKS + (stable_checks.CHECKS if stable_checks.given(data) else ())
    checks += clearing_checks.CHECKS if clearing_checks.given(data) else ()
    return [_checks.verdict_of(name, check, history) for name, check in checks]
