"""Mode ``messages``: which turns of an OpenAI-format chat history still fit the prompt.

Every ``system`` and ``developer`` message and every message marked ``pinned`` is kept.
An assistant message that calls tools and the tool messages answering it form one
unit. From the newest unit to the oldest, a unit is kept while it fits what is left;
the first one that does not fit stops the walk, so the kept history has no holes.
Kept unpinned units before the first kept unpinned ``user`` message are then
dropped, so the kept history starts with a user turn. Costs follow OpenAI's published accounting
for its chat models: 3 tokens per message, the count of each value it has (plus 1 for
a ``name``), and 3 more that prime the reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Callable

from .. import _checks
from .._ordinal import identity_key
from .._shape import InputShape, InvalidInput
from .._tokenizer import TOKENIZERS, count_tokens
from .._values import (
    MAX_SAFE_INTEGER,
    Invalid,
    Problem,
    child_path,
    closest_name,
    expect_array,
    expect_object,
    got,
    json_text,
    plural,
    preview,
    read_bool,
    read_count,
    read_id,
    read_text,
    unknown_key_problems,
)


NAME = "messages"
DEFAULT_TOKENIZER = "o200k_base"
COUNTED_COST = None
SHAPE = None  # its own reader: a history is no list of records
ROLES = ("system", "developer", "user", "assistant", "tool")
# Other names for the same roles (LangChain's, Gemini's, OpenAI's legacy "function"): suggested, never accepted.
# What the OpenAI SDK's reply message has beyond a message one sends (openai 3.x,
# ChatCompletionMessage.model_dump()): appended to a history as they are, they are unknown keys.
RESPONSE_FIELDS = ("refusal", "audio", "annotations", "function_call")
ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "function": "tool"}
ALWAYS_PINNED = ("system", "developer")
# OpenAI's accounting for its chat models (the cookbook's num_tokens_from_messages).
PER_MESSAGE, PER_NAME, REPLY_PRIMING = 3, 1, 3

INPUT_SUMMARY = "Input needs a limit, a known tokenizer and a non-empty messages array."
MESSAGE_SUMMARY = "Each message needs a known role and text content, and every tool call its tool result."

_TOP_KEYS = ("mode", "limit", "tokenizer", "messages")
_KEYS_BY_ROLE = {
    "system": ("role", "content", "name"),
    "developer": ("role", "content", "name"),
    "user": ("role", "content", "name", "pinned"),
    "assistant": ("role", "content", "name", "tool_calls", "pinned"),
    "tool": ("role", "content", "tool_call_id", "pinned"),
}
_ALL_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id", "pinned")

PINNED = "pinned"
FITS = "fits_remaining_budget"
TOO_LARGE = "exceeds_remaining_budget"
OLDER = "older_than_a_dropped_message"
USER_START = "history_must_start_with_user"
PINNED_OVERFLOW = "pinned_messages_exceed_limit"


class MessagesError(ValueError):
    """Invalid input for ``trim_messages``/``count_messages``, or pinned messages over the limit.

    ``problems`` lists every problem found, each ``{path, message}``.
    """

    def __init__(self, message: str, problems: list[dict]) -> None:
        super().__init__(message)
        self.problems = problems

    def __reduce__(self):  # pickled whole (a process pool sends it back to the caller)
        return type(self), (str(self), self.problems)


# ---------------------------------------------------------------- reading the input

def read_tokenizer(value: object) -> str:
    if isinstance(value, str) and value in TOKENIZERS:
        return value
    guess = closest_name(value, TOKENIZERS) if isinstance(value, str) else None
    raise Invalid(f"expected one of {', '.join(TOKENIZERS)}, got {preview(value)}" + (f"; did you mean {json_text(guess)}?" if guess else ""))


def _unknown_keys(message: dict, path: str, role: str | None, problems: list[Problem]) -> None:
    allowed = _KEYS_BY_ROLE.get(role, _ALL_KEYS)
    for key in message:
        if key in _ALL_KEYS and key not in allowed:
            problems.append(Problem(child_path(path, key), f"a {role} message cannot have {json_text(key)} (allowed: {', '.join(allowed)})"))
        elif key in RESPONSE_FIELDS:
            problems.append(Problem(
                child_path(path, key),
                f"unknown key {json_text(key)}: a field of the OpenAI SDK's reply (message.model_dump()), not of a message"
                f" sent; keep only {', '.join(allowed)} (the README shows how)",
            ))
    problems.extend(unknown_key_problems({key: None for key in message if key not in _ALL_KEYS and key not in RESPONSE_FIELDS}, path, allowed))


def _read_content(value: object, path: str, problems: list[Problem]) -> list[str] | None:
    """The content's texts (one per part), or None after recording a problem."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        problems.append(Problem(path, f"expected a string or an array of text parts, got {got(value)}"))
        return None
    texts, ok = [], True
    for index, part in enumerate(value):
        part_path = child_path(path, index)
        if not isinstance(part, dict):
            problems.append(Problem(part_path, f"expected a text part {{\"type\": \"text\", \"text\": ...}}, got {got(part)}"))
            ok = False
            continue
        kind = part.get("type")
        if kind != "text":
            if "type" not in part:
                problems.append(Problem(part_path, "missing required key \"type\""))
            elif isinstance(kind, str) and (kind.endswith("_text") or kind == "refusal"):  # text by another API's name
                problems.append(Problem(child_path(part_path, "type"), f"expected \"text\", got {json_text(kind)}: the chat format names a text part \"text\""))
            elif isinstance(kind, str):
                problems.append(Problem(child_path(part_path, "type"), f"a content part of type {json_text(kind)} is not text; this mode counts text only (give images, audio and files their own budget)"))
            else:
                problems.append(Problem(child_path(part_path, "type"), f"expected \"text\", got {preview(kind)}"))
            ok = False
            continue
        unknown = unknown_key_problems(part, part_path, ("type", "text"))
        if unknown:
            problems.extend(unknown)
            ok = False
        if "text" not in part:
            problems.append(Problem(part_path, "missing required key \"text\""))
            ok = False
        elif not isinstance(part["text"], str):
            problems.append(Problem(child_path(part_path, "text"), f"expected a string, got {preview(part['text'])}"))
            ok = False
        else:
            texts.append(part["text"])
    return texts if ok else None


def _read_tool_calls(value: object, path: str, problems: list[Problem]) -> list[str] | None:
    """The call ids, or None after recording a problem."""
    try:
        calls = expect_array(value)
    except Invalid as error:
        hint = " (leave tool_calls out when there are none)" if value is None else ""
        problems.append(Problem(path, f"{error}{hint}"))
        return None
    if not calls:
        problems.append(Problem(path, "expected at least one tool call (leave tool_calls out when there are none)"))
        return None
    ids, ok = [], True
    for index, call in enumerate(calls):
        call_path = child_path(path, index)
        try:
            expect_object(call)
        except Invalid as error:
            problems.append(Problem(call_path, str(error)))
            ok = False
            continue
        count = len(problems)
        _strict_keys(call, call_path, ("id", "type", "function"), problems)
        if "id" in call:
            try:
                ids.append(read_id(call["id"]))
            except Invalid as error:
                problems.append(Problem(child_path(call_path, "id"), str(error)))
        if "type" in call and call["type"] != "function":
            problems.append(Problem(child_path(call_path, "type"), f"expected \"function\", got {preview(call['type'])}"))
        if isinstance(call.get("function"), dict):
            function = call["function"]
            function_path = child_path(call_path, "function")
            _strict_keys(function, function_path, ("name", "arguments"), problems)
            for key in ("name", "arguments"):
                if key in function and not isinstance(function[key], str):
                    problems.append(Problem(child_path(function_path, key), f"expected a string, got {preview(function[key])}"))
        elif "function" in call:
            problems.append(Problem(child_path(call_path, "function"), f"expected an object {{name, arguments}}, got {got(call['function'])}"))
        ok = ok and len(problems) == count
    return ids if ok else None


def _strict_keys(obj: dict, path: str, keys: tuple[str, ...], problems: list[Problem]) -> None:
    for key in keys:
        if key not in obj:
            problems.append(Problem(path, f"missing required key {json_text(key)}"))
    problems.extend(unknown_key_problems(obj, path, keys))


def _read_message(message: object, path: str, problems: list[Problem], call_sites: dict) -> dict | None:
    """``{role, texts, name, tool_calls, call_ids, tool_call_id, pinned}``, or None when invalid."""
    try:
        expect_object(message)
    except Invalid as error:
        problems.append(Problem(path, str(error)))
        return None
    count = len(problems)
    role = message.get("role")
    if "role" not in message:
        problems.append(Problem(path, "missing required key \"role\""))
        role = None
    elif role not in ROLES:
        guess = (closest_name(role, ROLES) or ROLE_ALIASES.get(role.casefold())) if isinstance(role, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        problems.append(Problem(child_path(path, "role"), f"expected one of {', '.join(ROLES)}, got {preview(role)}{hint}"))
        role = None
    _unknown_keys(message, path, role, problems)
    calls_tools = role == "assistant" and "tool_calls" in message
    call_ids = None
    if calls_tools:
        call_ids = _read_tool_calls(message["tool_calls"], child_path(path, "tool_calls"), problems)
        for index, call_id in enumerate(call_ids or ()):
            call_path = child_path(child_path(child_path(path, "tool_calls"), index), "id")
            first = call_sites.setdefault(identity_key(call_id), call_path)  # ids are equal by UTF-16 code units
            if first != call_path:
                problems.append(Problem(call_path, f"duplicate tool call id {json_text(call_id)} (first used at {first})"))
    texts: list[str] | None = []
    if "content" not in message:
        if not calls_tools:
            problems.append(Problem(path, "missing required key \"content\""))
    elif message["content"] is None:
        if not calls_tools:
            problems.append(Problem(child_path(path, "content"), "null content is allowed only on an assistant message with tool_calls; expected a string or an array of text parts"))
    else:
        texts = _read_content(message["content"], child_path(path, "content"), problems)
    name = None
    if "name" in message and role != "tool":
        try:
            name = read_text(message["name"])
        except Invalid as error:
            problems.append(Problem(child_path(path, "name"), str(error)))
    tool_call_id = None
    if role == "tool":
        if "tool_call_id" not in message:
            problems.append(Problem(path, "missing required key \"tool_call_id\" (the id of the call this message answers)"))
        else:
            try:
                tool_call_id = read_id(message["tool_call_id"])
            except Invalid as error:
                problems.append(Problem(child_path(path, "tool_call_id"), str(error)))
    pinned = role in ALWAYS_PINNED
    if "pinned" in message and role not in ALWAYS_PINNED:
        try:
            pinned = read_bool(message["pinned"])
        except Invalid as error:
            problems.append(Problem(child_path(path, "pinned"), str(error)))
    if len(problems) != count:
        return None
    return {
        "role": role, "texts": texts, "name": name, "tool_calls": message.get("tool_calls") if calls_tools else None,
        "call_ids": call_ids, "tool_call_id": tool_call_id, "pinned": pinned,
    }


def _pair_tool_calls(read: list[dict | None], raw: list, problems: list[Problem]) -> list[int]:
    """Each message's unit (the index of its first message); tool results must directly
    follow the assistant message that made the calls, as OpenAI's API requires.

    A message invalid for another reason (a tool result's content, an assistant message's
    unknown key, one bad call among several) still takes part here with what can be read of
    it, so that one mistake is not reported twice, once falsely ("no assistant message made
    a tool call ...").
    """
    read = [_as_far_as_readable(message) if record is None else record for record, message in zip(read, raw)]
    unit_of: list[int] = []
    made_at: dict[str, int] = {}  # call id -> index of the assistant message that made it
    answered_at: dict[str, int] = {}
    open_unit, waiting = None, {}  # the assistant message being answered, and its unanswered calls
    path_of = lambda index: child_path("$.messages", index)  # noqa: E731

    def close_unit() -> None:
        for call_id, call_path in waiting.items():
            problems.append(Problem(call_path, f"no tool message answers the call {json_text(call_id)} (its result must directly follow this assistant message)"))
        waiting.clear()

    orphans = []  # (index in problems, its path, the call id): said once every call is known
    for index, message in enumerate(read):
        if message is not None and message["role"] == "tool" and open_unit is not None:
            call_id = identity_key(message["tool_call_id"])  # "\ud83d\ude00" answers a call "😀": the same UTF-16
            if call_id in waiting:
                del waiting[call_id]
                answered_at[call_id] = index
                unit_of.append(open_unit)
                continue
        if message is None or message["role"] != "tool":
            close_unit()
            open_unit = None
            unit_of.append(index)
            if message is not None and message["call_ids"]:
                open_unit = index
                for position, call_id in enumerate(message["call_ids"]):
                    if call_id is None:
                        continue
                    call_id = identity_key(call_id)
                    made_at.setdefault(call_id, index)
                    waiting[call_id] = child_path(child_path(child_path(path_of(index), "tool_calls"), position), "id")
            continue
        call_id = identity_key(message["tool_call_id"])
        where = child_path(path_of(index), "tool_call_id")
        if call_id in answered_at:
            problems.append(Problem(where, f"the call {json_text(call_id)} is already answered at {path_of(answered_at[call_id])}"))
        else:  # made earlier, later (the order swapped) or nowhere: known at the end
            orphans.append((len(problems), where, call_id))
            problems.append(None)  # type: ignore[arg-type]
        unit_of.append(index)
    close_unit()
    for position, where, call_id in orphans:
        if call_id in made_at:
            problems[position] = Problem(where, f"answers the call {json_text(call_id)} made at {path_of(made_at[call_id])}, but a tool result must directly follow the assistant message that made the call")
        else:
            problems[position] = Problem(where, f"no assistant message made a tool call with id {json_text(call_id)}")
    return unit_of


def _as_far_as_readable(message: object) -> dict | None:
    """What the pairing needs of a message that failed validation, when that much can be read."""
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    if role == "tool" and isinstance(message.get("tool_call_id"), str):
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "call_ids": None}
    if role == "assistant" and isinstance(message.get("tool_calls"), list):
        # None for a call without a readable id: it keeps its place, so paths name the right call.
        call_ids = [call["id"] if isinstance(call, dict) and isinstance(call.get("id"), str) else None for call in message["tool_calls"]]
        return {"role": "assistant", "call_ids": call_ids if any(call_id is not None for call_id in call_ids) else None}
    return None


def parse(data: object) -> dict:
    problems: list[Problem] = []
    try:
        top = expect_object(data)
    except Invalid as error:
        raise InvalidInput([Problem("$", str(error))], "input shape", INPUT_SUMMARY) from None
    problems.extend(unknown_key_problems(top, "$", _TOP_KEYS))
    limit = tokenizer = None
    if "limit" not in top:
        problems.append(Problem("$", "missing required key \"limit\""))
    else:
        try:
            limit = read_count(top["limit"])
        except Invalid as error:
            problems.append(Problem("$.limit", str(error)))
    tokenizer = DEFAULT_TOKENIZER
    if "tokenizer" in top:
        try:
            tokenizer = read_tokenizer(top["tokenizer"])
        except Invalid as error:
            problems.append(Problem("$.tokenizer", str(error)))
            tokenizer = None
    if tokenizer is not None:
        try:
            count_tokens("", tokenizer)  # loads (and checks) the rank files once, here
        except ValueError as error:  # TokenizerUnavailable: the message says where and how
            problems.append(Problem("$.tokenizer", f"the {tokenizer} tokenizer is not available here: {error}", unavailable=True))
            tokenizer = None
    top_problems = len(problems)
    read: list[dict | None] = []
    if "messages" not in top:
        problems.append(Problem("$", "missing required key \"messages\""))
    else:
        try:
            messages = expect_array(top["messages"])
        except Invalid as error:
            problems.append(Problem("$.messages", str(error)))
        else:
            if not messages:
                problems.append(Problem("$.messages", "expected at least one message, got an empty array"))
            call_sites: dict = {}
            read = [_read_message(message, child_path("$.messages", index), problems, call_sites) for index, message in enumerate(messages)]
    unit_of = _pair_tool_calls(read, top["messages"], problems) if read else []
    if problems:
        problems.sort(key=_message_position)  # stable: each message's problems together, in input order
        only_messages = top_problems == 0 and all(problem.path.startswith("$.messages[") for problem in problems)
        raise InvalidInput(problems, "message shape" if only_messages else "input shape", MESSAGE_SUMMARY if only_messages else INPUT_SUMMARY)
    count = cached_counter(tokenizer)
    return {
        "limit": limit, "tokenizer": tokenizer, "messages": top["messages"],
        "roles": [message["role"] for message in read],
        "pinned": [message["pinned"] for message in read],
        "unit_of": unit_of,
        "costs": [message_cost(message, count) for message in read],
    }


def _message_position(problem: Problem) -> int:
    if not problem.path.startswith("$.messages["):
        return -1
    return int(problem.path[len("$.messages["):].split("]", 1)[0])


# ---------------------------------------------------------------- counting

def cached_counter(tokenizer: str) -> Callable[[str], int]:
    """``count_tokens`` for one call: each distinct text is counted once (roles repeat, and so
    do many short turns); the cache lives as long as the call, never across calls."""
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        tokens = cache.get(text)
        if tokens is None:
            tokens = cache[text] = count_tokens(text, tokenizer)
        return tokens

    return count


def tool_calls_text(tool_calls: list) -> str:
    """How a ``tool_calls`` list is counted: its compact JSON, keys as given (an approximation:
    OpenAI does not publish how it renders calls into the prompt)."""
    return json.dumps(tool_calls, separators=(",", ":"), ensure_ascii=False)


def message_cost(message: dict, count: Callable[[str], int]) -> int:
    cost = PER_MESSAGE + count(message["role"]) + sum(map(count, message["texts"]))
    if message["name"] is not None:
        cost += count(message["name"]) + PER_NAME
    if message["tool_call_id"] is not None:
        cost += count(message["tool_call_id"])
    if message["tool_calls"] is not None:
        cost += count(tool_calls_text(message["tool_calls"]))
    return cost


# ---------------------------------------------------------------- the rule

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


def beyond_the_rule(parsed: dict, result: dict) -> dict:
    """Nothing: the walk keeps the newest turns, and no other choice is weighed against it."""
    return {}


def run(data: object) -> dict:
    return select(parse(data))


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


# ---------------------------------------------------------------- the library API

def _parse_call(messages: object, limit: object, tokenizer: object) -> dict:
    if not isinstance(messages, list):
        # One message, or text, would iterate as keys or characters: say what was meant instead.
        if isinstance(messages, (dict, str, bytes, bytearray)):
            hint = " (one message? put it in a list: [message])" if isinstance(messages, dict) else ""
            raise MessagesError(f"messages must be a list of message dicts, got {got(messages)}{hint}", [])
        try:
            messages = list(messages)  # a tuple or any other sequence of messages
        except TypeError:
            raise MessagesError(f"messages must be a list of message dicts, got {preview(messages)}", []) from None
    if not all(isinstance(message, dict) for message in messages):  # another mapping reads as the dict it holds
        messages = [dict(message) if isinstance(message, Mapping) else message for message in messages]
    try:
        return parse({"mode": NAME, "limit": limit, "tokenizer": tokenizer, "messages": messages})
    except InvalidInput as invalid:
        first = invalid.problems[0]
        more = len(invalid.problems) - 1
        text = f"{first.path}: {first.message}" + (f" (and {plural(more, 'more problem')}; see .problems)" if more else "")
        raise MessagesError(text, [problem.as_json() for problem in invalid.problems]) from None


def trim_messages(messages: Sequence[Mapping[str, object]], limit: int, tokenizer: str = DEFAULT_TOKENIZER) -> list[dict[str, Any]]:
    """The newest turns of an OpenAI-format chat history that fit ``limit`` prompt tokens,
    with the system, developer and pinned messages, ready to send.

    ``messages``: a list (or other sequence) of message dicts, ``{role, content, name?,
    tool_calls?, tool_call_id?, pinned?}``; ``tokenizer``: ``"o200k_base"`` (GPT-4o and
    later), ``"cl100k_base"`` (GPT-4, GPT-3.5) or ``"estimate"``. The same rule and counts as
    ``evaluate`` in mode ``messages`` (without the checks). The kept messages come back in
    input order, without this tool's ``pinned`` key, as copies: changing them leaves
    ``messages`` as it was.

    Raises :class:`MessagesError` (a ``ValueError``; every problem in ``.problems``) for
    invalid input, naming the JSON path (``$.messages[2].role``) and the value received,
    and when the pinned messages and the reply priming alone exceed the limit.
    """
    result = select(_parse_call(messages, limit, tokenizer))
    if result["shortfall"]:
        raise MessagesError(summarize(result), [{"path": "$.limit", "message": summarize(result)}])
    return result["messages"]


def count_messages(messages: Sequence[Mapping[str, object]], tokenizer: str = DEFAULT_TOKENIZER) -> int:
    """The prompt tokens of sending ``messages`` as they are: OpenAI's accounting (3 per
    message, plus each value's count, plus 3 that prime the reply), by ``tokenizer``:
    ``"o200k_base"``, ``"cl100k_base"`` or ``"estimate"``. Raises :class:`MessagesError`
    for invalid input."""
    parsed = _parse_call(messages, MAX_SAFE_INTEGER, tokenizer)
    return REPLY_PRIMING + sum(parsed["costs"])


# ---------------------------------------------------------------- independent checks
# None of these calls the rule or its cost function: each re-reads the raw input.

def _recount(message: dict, count: Callable[[str], int]) -> int:
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


def verify(data: dict, result: dict, parsed: dict | None = None) -> list[dict]:
    messages = data["messages"]
    limit = _checks.raw_number(data["limit"])
    tokenizer = data.get("tokenizer", DEFAULT_TOKENIZER)
    counted: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in counted:
            counted[text] = count_tokens(text, tokenizer)
        return counted[text]

    total = len(messages)
    roles = [message["role"] for message in messages]
    # A tool message belongs to the unit of the assistant message its run of tool messages follows.
    unit = list(range(total))
    for index in range(1, total):
        if roles[index] == "tool":
            unit[index] = unit[index - 1]
    pinned_unit = set(unit[index] for index, message in enumerate(messages) if message["role"] in ALWAYS_PINNED or message.get("pinned") is True)
    pinned = [unit[index] in pinned_unit for index in range(total)]
    costs: dict[int, int] = {}

    def cost(index: int) -> int:
        if index not in costs:
            costs[index] = _recount(messages[index], count)
        return costs[index]

    kept = result["kept"]
    kept_set = set(kept)
    pinned_need = REPLY_PRIMING + sum(cost(index) for index in range(total) if pinned[index])

    def recounted():
        if kept != sorted(kept_set) or sorted(kept + result["dropped"]) != list(range(total)) or result["dropped"] != sorted(result["dropped"]):
            yield "kept and dropped do not split the message indices, each list in input order"
            return
        if result["messages"] != [as_sent_again(messages[index]) for index in kept]:
            yield "the messages to send differ from the kept input messages"
        tokens = REPLY_PRIMING + sum(map(cost, kept)) if kept else 0
        if tokens != result["tokens"]:
            yield f"the kept messages re-count to {tokens} tokens, the report says {result['tokens']}"
        if tokens > limit:
            yield f"the kept messages re-count to {tokens} tokens, over the limit of {limit}"
        if result["remaining"] != limit - tokens:
            yield f"reported remaining {result['remaining']}, but {limit} - {tokens} = {limit - tokens}"

    def no_holes():
        rows = result["trace"]
        if [row["index"] for row in rows] != list(reversed(range(total))):
            yield "the trace does not list every message once, newest first"
            return
        seen_dropped = None
        for row in rows:
            index = row["index"]
            if row["kept"] != (index in kept_set):
                yield f"trace row {index} says kept is {row['kept']}, the kept list disagrees"
                return
            if pinned[index]:
                continue
            if index not in kept_set:
                seen_dropped = index if seen_dropped is None else seen_dropped
            elif seen_dropped is not None:
                yield f"message {index} is kept but the newer message {seen_dropped} was dropped: a hole in the history"
                return
        # Replay every decision from the input's own counts, newest unit first. Rows past the
        # stop (and all rows when the pinned messages overflow) are decided without their
        # counts, so only they are not re-counted: the walk never needed them.
        members: dict[int, list[int]] = {}
        for index in range(total):
            members.setdefault(unit[index], []).append(index)
        unit_totals: dict[int, int] = {}  # each unit summed once (a unit can have thousands of tool results)
        overflow = pinned_need > limit
        remaining = limit - pinned_need
        stopped = False
        for row in rows:
            index = row["index"]
            decided_by_count = pinned[index] or not (overflow or stopped)
            if decided_by_count:
                unit_tokens = unit_totals.get(unit[index])
                if unit_tokens is None:
                    unit_tokens = unit_totals[unit[index]] = sum(map(cost, members[unit[index]]))
                if row["tokens"] != cost(index) or row["unit_tokens"] != unit_tokens:
                    yield f"message {index} re-counts to {cost(index)} tokens ({unit_tokens} with its unit), the trace says {row['tokens']} ({row['unit_tokens']})"
                    return
            if row["remaining_before"] != remaining:
                yield f"message {index}: the trace says {row['remaining_before']} remained before it, the replay says {remaining}"
                return
            if overflow:
                expected = (PINNED_OVERFLOW,)
            elif pinned[index]:
                expected = (PINNED,)
            elif stopped:
                expected = (OLDER,)
            elif unit_tokens <= remaining:
                expected = (FITS, USER_START)
            else:
                expected = (TOO_LARGE,)
            if row["reason"] not in expected:
                yield f"message {index} is marked {row['reason']}, the replay says {expected[0]}"
                return
            if unit[index] == index and not overflow and not pinned[index] and not stopped:  # the unit's last row: its decision takes effect
                if expected == (TOO_LARGE,):
                    stopped = True
                else:
                    remaining -= unit_tokens

    def tools_paired():
        # Ids are equal when their UTF-16 code units are (a surrogate pair written as two
        # escapes is the character it encodes), as everywhere in the project.
        waiting: dict[bytes, int] = {}  # the calls not answered yet, in order: how many times each was made
        for position, message in enumerate(result["messages"]):
            if message["role"] == "tool":
                answered = _checks.code_units(message["tool_call_id"])
                if not waiting.get(answered):
                    yield f"the kept tool message at {kept[position]} answers {message['tool_call_id']!r}, a call not kept right before it"
                    return
                waiting[answered] -= 1
                if not waiting[answered]:
                    del waiting[answered]
                continue
            if waiting:
                yield f"the kept call {next(iter(waiting)).decode('utf-16-be', 'surrogatepass')!r} has no kept tool result after it"
                return
            waiting = {}
            for call in message.get("tool_calls") or ():
                made = _checks.code_units(call["id"])
                waiting[made] = waiting.get(made, 0) + 1
        if waiting:
            yield f"the kept call {next(iter(waiting)).decode('utf-16-be', 'surrogatepass')!r} has no kept tool result after it"

    def user_start():
        users = [index for index in kept if roles[index] == "user" and not pinned[index]]
        first_user = users[0] if users else total
        early = [index for index in kept if index < first_user and not pinned[index]]
        if early:
            yield f"message {early[0]} ({roles[early[0]]}) is kept before the first kept unpinned user message"
            return
        # Re-derive which units the walk kept and which of them the user start removes.
        walked = {row["index"] for row in result["trace"] if row["reason"] in (FITS, USER_START)}
        first = next((index for index in range(total) if roles[index] == "user" and index in walked), total)
        expected = [index for index in range(total) if index in walked and index < first]
        marked = [row["index"] for row in reversed(result["trace"]) if row["reason"] == USER_START]
        if marked != expected:
            yield f"messages {expected} come before the first kept user message, the trace drops {marked} for it"

    def pinned_kept():
        if result["pinned_tokens"] != pinned_need:
            yield f"the pinned messages and the priming re-count to {pinned_need} tokens, the report says {result['pinned_tokens']}"
        if pinned_need > limit:
            if result["shortfall"] != pinned_need - limit:
                yield f"the pinned messages need {pinned_need} tokens of {limit}: shortfall {pinned_need - limit}, the report says {result['shortfall']}"
            if kept:
                yield "messages are kept although the pinned messages alone exceed the limit"
            return
        if result["shortfall"] != 0:
            yield f"the pinned messages need {pinned_need} tokens and fit the limit of {limit}, but the report says {result['shortfall']} short"
        missing = [index for index in range(total) if pinned[index] and index not in kept_set]
        if missing:
            yield f"pinned message {missing[0]} ({roles[missing[0]]}) is not kept"

    return [
        _checks.verdict("kept messages re-counted", recounted()),
        _checks.verdict("no holes", no_holes()),
        _checks.verdict("tool calls paired", tools_paired()),
        _checks.verdict("history starts with user", user_start()),
        _checks.verdict("pinned messages kept", pinned_kept()),
    ]


def as_sent_again(message: dict) -> dict:
    sent = dict(message)
    sent.pop("pinned", None)
    return sent
