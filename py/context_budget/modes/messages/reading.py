"""Reading a chat history: every message checked against OpenAI's chat format, every problem
collected, tool calls paired with their results, and each message's cost counted."""

from __future__ import annotations

import json
from typing import Callable

from ..._ordinal import identity_key
from ..._shape import Field, InvalidInput, missing_key, read_fields
from ...tokenizers import TOKENIZERS, count_tokens
from ..._values import (
    EMPTY,
    KEY_NOT_ALLOWED,
    NOT_TEXT,
    TOOL_CALL_UNANSWERED,
    TOOL_RESULT_MISPLACED,
    TOOL_RESULT_UNMATCHED,
    DUPLICATE_ID,
    INVALID_VALUE,
    UNKNOWN_KEY,
    WRONG_TYPE,
    Invalid,
    Key,
    Problem,
    Unavailable,
    closest_name,
    expect_array,
    expect_object,
    got,
    json_text,
    path_text,
    preview,
    problem_from,
    read_bool,
    read_count,
    read_id,
    read_text,
    unknown_keys,
)

DEFAULT_TOKENIZER = "o200k_base"
ROLES = ("system", "developer", "user", "assistant", "tool")
# Other names for the same roles (LangChain's, Gemini's, OpenAI's legacy "function"): suggested, never accepted.
ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "function": "tool"}
# What the OpenAI SDK's reply message has beyond a message one sends (openai 3.x,
# ChatCompletionMessage.model_dump()): appended to a history as they are, they are unknown keys.
RESPONSE_FIELDS = ("refusal", "audio", "annotations", "function_call")
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
_MESSAGES: tuple[Key, ...] = ("messages",)


def read_tokenizer(value: object) -> str:
    """A tokenizer name, its rank file loaded (``Unavailable`` when it cannot be)."""
    if isinstance(value, str) and value in TOKENIZERS:
        return _loaded(value)
    guess = closest_name(value, TOKENIZERS) if isinstance(value, str) else None
    raise Invalid(f"expected one of {', '.join(TOKENIZERS)}, got {preview(value)}" + (f"; did you mean {json_text(guess)}?" if guess else ""))


def _loaded(tokenizer: str) -> str:
    try:
        count_tokens("", tokenizer)  # loads (and checks) the rank files once, here
    except ValueError as error:  # TokenizerUnavailable: the message says where and how
        raise Unavailable(f"the {tokenizer} tokenizer is not available here: {error}") from None
    return tokenizer


_TOP = (Field("limit", read_count), Field("tokenizer", read_tokenizer, optional=True))


def parse(data: object) -> dict:
    """``{limit, tokenizer, messages, roles, pinned, unit_of, costs}``; raises ``InvalidInput``."""
    problems: list[Problem] = []
    try:
        top = expect_object(data)
    except Invalid as error:
        raise InvalidInput([problem_from(error, ())], "input shape", INPUT_SUMMARY) from None
    problems.extend(unknown_keys(top, (), _TOP_KEYS))
    limit, tokenizer = read_fields(top, (), _TOP, problems)
    if "tokenizer" not in top:
        try:
            tokenizer = _loaded(DEFAULT_TOKENIZER)
        except Unavailable as error:
            problems.append(problem_from(error, ("tokenizer",)))
    top_problems = len(problems)
    read: list[dict | None] = []
    if "messages" not in top:
        problems.append(missing_key((), "messages"))
    else:
        try:
            messages = expect_array(top["messages"])
        except Invalid as error:
            problems.append(problem_from(error, _MESSAGES))
        else:
            if not messages:
                problems.append(Problem(_MESSAGES, EMPTY, "expected at least one message, got an empty array"))
            call_sites: dict = {}
            read = [_read_message(message, (*_MESSAGES, index), problems, call_sites) for index, message in enumerate(messages)]
    unit_of = _pair_tool_calls(read, top["messages"], problems) if read else []
    if problems:
        problems.sort(key=_message_position)  # stable: each message's problems together, in input order
        only_messages = top_problems == 0 and all(_message_position(problem) >= 0 for problem in problems)
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
    """The index of the message the problem is in; -1 for a problem outside every message."""
    at = problem.at
    return at[1] if len(at) >= 2 and at[0] == "messages" and isinstance(at[1], int) else -1


# ---------------------------------------------------------------- one message

def _unknown_keys(message: dict, at: tuple[Key, ...], role: str | None, problems: list[Problem]) -> None:
    allowed = _KEYS_BY_ROLE.get(role, _ALL_KEYS)
    for key in message:
        if key in _ALL_KEYS and key not in allowed:
            problems.append(Problem((*at, key), KEY_NOT_ALLOWED, f"a {role} message cannot have {json_text(key)} (allowed: {', '.join(allowed)})", key))
        elif key in RESPONSE_FIELDS:
            problems.append(Problem(
                (*at, key), UNKNOWN_KEY,
                f"unknown key {json_text(key)}: a field of the OpenAI SDK's reply (message.model_dump()), not of a message"
                f" sent; keep only {', '.join(allowed)} (the README shows how)", key,
            ))
    problems.extend(unknown_keys({key: None for key in message if key not in _ALL_KEYS and key not in RESPONSE_FIELDS}, at, allowed))


def _read_content(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[str] | None:
    """The content's texts (one per part), or None after recording a problem."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected a string or an array of text parts, got {got(value)}"))
        return None
    texts, ok = [], True
    for index, part in enumerate(value):
        part_at = (*at, index)
        if not isinstance(part, dict):
            problems.append(Problem(part_at, WRONG_TYPE, f"expected a text part {{\"type\": \"text\", \"text\": ...}}, got {got(part)}"))
            ok = False
            continue
        kind = part.get("type")
        if kind != "text":
            type_at = (*part_at, "type")
            if "type" not in part:
                problems.append(missing_key(part_at, "type"))
            elif isinstance(kind, str) and (kind.endswith("_text") or kind == "refusal"):  # text by another API's name
                problems.append(Problem(type_at, INVALID_VALUE, f"expected \"text\", got {json_text(kind)}: the chat format names a text part \"text\""))
            elif isinstance(kind, str):
                problems.append(Problem(type_at, NOT_TEXT, f"a content part of type {json_text(kind)} is not text; this mode counts text only (give images, audio and files their own budget)"))
            else:
                problems.append(Problem(type_at, WRONG_TYPE, f"expected \"text\", got {preview(kind)}"))
            ok = False
            continue
        unknown = unknown_keys(part, part_at, ("type", "text"))
        if unknown:
            problems.extend(unknown)
            ok = False
        if "text" not in part:
            problems.append(missing_key(part_at, "text"))
            ok = False
        elif not isinstance(part["text"], str):
            problems.append(Problem((*part_at, "text"), WRONG_TYPE, f"expected a string, got {preview(part['text'])}"))
            ok = False
        else:
            texts.append(part["text"])
    return texts if ok else None


def _read_tool_calls(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[str] | None:
    """The call ids, or None after recording a problem."""
    try:
        calls = expect_array(value)
    except Invalid as error:
        hint = " (leave tool_calls out when there are none)" if value is None else ""
        problems.append(Problem(at, error.code, f"{error}{hint}"))
        return None
    if not calls:
        problems.append(Problem(at, EMPTY, "expected at least one tool call (leave tool_calls out when there are none)"))
        return None
    ids, ok = [], True
    for index, call in enumerate(calls):
        call_at = (*at, index)
        try:
            expect_object(call)
        except Invalid as error:
            problems.append(problem_from(error, call_at))
            ok = False
            continue
        count = len(problems)
        _strict_keys(call, call_at, ("id", "type", "function"), problems)
        if "id" in call:
            try:
                ids.append(read_id(call["id"]))
            except Invalid as error:
                problems.append(problem_from(error, (*call_at, "id")))
        if "type" in call and call["type"] != "function":
            problems.append(Problem((*call_at, "type"), INVALID_VALUE, f"expected \"function\", got {preview(call['type'])}"))
        if isinstance(call.get("function"), dict):
            function = call["function"]
            function_at = (*call_at, "function")
            _strict_keys(function, function_at, ("name", "arguments"), problems)
            for key in ("name", "arguments"):
                if key in function and not isinstance(function[key], str):
                    problems.append(Problem((*function_at, key), WRONG_TYPE, f"expected a string, got {preview(function[key])}"))
        elif "function" in call:
            problems.append(Problem((*call_at, "function"), WRONG_TYPE, f"expected an object {{name, arguments}}, got {got(call['function'])}"))
        ok = ok and len(problems) == count
    return ids if ok else None


def _strict_keys(obj: dict, at: tuple[Key, ...], keys: tuple[str, ...], problems: list[Problem]) -> None:
    """Exactly ``keys``: each missing one, then each unknown one."""
    problems.extend(missing_key(at, key) for key in keys if key not in obj)
    problems.extend(unknown_keys(obj, at, keys))


def _read_message(message: object, at: tuple[Key, ...], problems: list[Problem], call_sites: dict) -> dict | None:
    """``{role, texts, name, tool_calls, call_ids, tool_call_id, pinned}``, or None when invalid."""
    try:
        expect_object(message)
    except Invalid as error:
        problems.append(problem_from(error, at))
        return None
    count = len(problems)
    role = message.get("role")
    if "role" not in message:
        problems.append(missing_key(at, "role"))
        role = None
    elif role not in ROLES:
        guess = (closest_name(role, ROLES) or ROLE_ALIASES.get(role.casefold())) if isinstance(role, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        problems.append(Problem((*at, "role"), INVALID_VALUE, f"expected one of {', '.join(ROLES)}, got {preview(role)}{hint}"))
        role = None
    _unknown_keys(message, at, role, problems)
    calls_tools = role == "assistant" and "tool_calls" in message
    call_ids = None
    if calls_tools:
        calls_at = (*at, "tool_calls")
        call_ids = _read_tool_calls(message["tool_calls"], calls_at, problems)
        for index, call_id in enumerate(call_ids or ()):
            call_at = (*calls_at, index, "id")
            call_path = path_text(call_at)
            first = call_sites.setdefault(identity_key(call_id), call_path)  # ids are equal by UTF-16 code units
            if first != call_path:
                problems.append(Problem(call_at, DUPLICATE_ID, f"duplicate tool call id {json_text(call_id)} (first used at {first})", first))
    texts: list[str] | None = []
    if "content" not in message:
        if not calls_tools:
            problems.append(missing_key(at, "content"))
    elif message["content"] is None:
        if not calls_tools:
            problems.append(Problem((*at, "content"), WRONG_TYPE, "null content is allowed only on an assistant message with tool_calls; expected a string or an array of text parts"))
    else:
        texts = _read_content(message["content"], (*at, "content"), problems)
    name = None
    if "name" in message and role != "tool":
        try:
            name = read_text(message["name"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "name")))
    tool_call_id = None
    if role == "tool":
        if "tool_call_id" not in message:
            problems.append(missing_key(at, "tool_call_id", " (the id of the call this message answers)"))
        else:
            try:
                tool_call_id = read_id(message["tool_call_id"])
            except Invalid as error:
                problems.append(problem_from(error, (*at, "tool_call_id")))
    pinned = role in ALWAYS_PINNED
    if "pinned" in message and role not in ALWAYS_PINNED:
        try:
            pinned = read_bool(message["pinned"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "pinned")))
    if len(problems) != count:
        return None
    return {
        "role": role, "texts": texts, "name": name, "tool_calls": message.get("tool_calls") if calls_tools else None,
        "call_ids": call_ids, "tool_call_id": tool_call_id, "pinned": pinned,
    }


# ---------------------------------------------------------------- tool calls and their results

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
    open_unit, waiting = None, {}  # the assistant message being answered, and its unanswered calls (id -> where)

    def path_of(index: int) -> str:
        return path_text((*_MESSAGES, index))

    def close_unit() -> None:
        for call_id, call_at in waiting.items():
            problems.append(Problem(call_at, TOOL_CALL_UNANSWERED, f"no tool message answers the call {json_text(call_id)} (its result must directly follow this assistant message)"))
        waiting.clear()

    orphans = []  # (index in problems, where, the call id): said once every call is known
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
                    waiting[call_id] = (*_MESSAGES, index, "tool_calls", position, "id")
            continue
        call_id = identity_key(message["tool_call_id"])
        where = (*_MESSAGES, index, "tool_call_id")
        if call_id in answered_at:
            problems.append(Problem(where, TOOL_RESULT_UNMATCHED, f"the call {json_text(call_id)} is already answered at {path_of(answered_at[call_id])}"))
        else:  # made earlier, later (the order swapped) or nowhere: known at the end
            orphans.append((len(problems), where, call_id))
            problems.append(None)  # type: ignore[arg-type]
        unit_of.append(index)
    close_unit()
    for position, where, call_id in orphans:
        if call_id in made_at:
            problems[position] = Problem(where, TOOL_RESULT_MISPLACED, f"answers the call {json_text(call_id)} made at {path_of(made_at[call_id])}, but a tool result must directly follow the assistant message that made the call")
        else:
            problems[position] = Problem(where, TOOL_RESULT_UNMATCHED, f"no assistant message made a tool call with id {json_text(call_id)}")
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
