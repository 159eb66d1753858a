"""Reading a chat history: every message checked against OpenAI's chat format, every problem
collected, tool calls paired with their results, and each message's cost counted."""

from __future__ import annotations

import json
from typing import Callable, Sequence, cast

from ..._shared.count_memory import COUNTS
from .memory import HISTORIES, Known, frozen
from ..._base.errors import InvalidInputError
from ..._base.ordinal import identity_key
from ..._shared.shape import Field, InvalidInput, missing_key, read_fields
from ...tokenizers import TOKENIZERS, count_tokens, counter, named_tokenizer, resolve, uncounted_reason
from ...tokenizers.model_names import counted_encoding
from .images import DETAILS, LOW_DETAIL, MOST, data_url_size, tile_cost
from .tools import read_tools, tool_costs, tool_name
from . import prompt_template as chat_template
from ..._base.values import (
    EMPTY,
    NO_USER_MESSAGE,
    KEY_NOT_ALLOWED,
    NOT_TEXT,
    TOOL_CALL_UNANSWERED,
    TOOL_RESULT_MISPLACED,
    TOOL_RESULT_UNMATCHED,
    DUPLICATE_ID,
    INVALID_VALUE,
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
# ChatCompletionMessage.model_dump()): accepted, not counted, and left out of the messages to send.
RESPONSE_FIELDS = ("annotations",)
ALWAYS_PINNED = ("system", "developer")
# OpenAI's accounting for its chat models (the cookbook's num_tokens_from_messages).
PER_MESSAGE, PER_NAME, REPLY_PRIMING = 3, 1, 3

INPUT_SUMMARY = "Input needs a limit, a known tokenizer and a non-empty messages array."
NO_USER_SUMMARY = "The history has no user message: there is no turn to answer."
MESSAGE_SUMMARY = "Each message needs a known role and text content, and every tool call its tool result."

_TOP_KEYS = ("mode", "limit", "tokenizer", "messages", "tools", "template", "template_options")
_KEYS_BY_ROLE: dict[str | None, tuple[str, ...]] = {  # looked up by a role that may be None (unknown)
    "system": ("role", "content", "name"),
    "developer": ("role", "content", "name"),
    "user": ("role", "content", "name", "pinned"),
    # the fields of the SDK's ChatCompletionAssistantMessageParam, and a reply's annotations
    "assistant": ("role", "content", "name", "tool_calls", "refusal", "audio", "function_call", "annotations", "pinned"),
    "tool": ("role", "content", "tool_call_id", "pinned"),
}
_ALL_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio", "function_call", "annotations", "pinned")
# The parts each role's content may have (the SDK's request types).
_PARTS_BY_ROLE: dict[str | None, tuple[str, ...]] = {"user": ("text", "image_url"), "assistant": ("text", "refusal")}
_NOT_COUNTED_PARTS = {"input_audio": "audio", "file": "a file", "input_file": "a file"}
_MESSAGES: tuple[Key, ...] = ("messages",)


def read_tokenizer(value: object) -> str:
    """A tokenizer name or a model name (read as its encoding), its rank file loaded (``Unavailable`` when it cannot be)."""
    name = resolve(value)
    if isinstance(name, str) and name in TOKENIZERS:
        return _loaded(name)
    if isinstance(value, str) and named_tokenizer(value) is not None:  # read from a model's files (register_tokenizer)
        return value
    if uncounted_reason(value):
        raise Invalid(f"{uncounted_reason(value)}; got {preview(value)}")
    guess = closest_name(value, TOKENIZERS) if isinstance(value, str) else None
    raise Invalid(f"expected one of {', '.join(TOKENIZERS)} or a model name such as gpt-4o, got {preview(value)}" + (f"; did you mean {json_text(guess)}?" if guess else ""))


def _loaded(tokenizer: str) -> str:
    try:
        count_tokens("", tokenizer)  # loads (and checks) the rank files once, here
    except ValueError as error:  # TokenizerUnavailable: the message says where and how
        raise Unavailable(f"the {tokenizer} tokenizer is not available here: {error}") from None
    return tokenizer


_TOP = (Field("limit", read_count), Field("tokenizer", read_tokenizer, optional=True))


def parse(data: object, token_counter: Callable[[str], int] | None = None, require_user: bool = True) -> dict:
    """``{limit, tokenizer, model, messages, roles, pinned, unit_of, costs, live_start, images,
    tools, tool_costs, tools_tokens}``; raises ``InvalidInput``. ``token_counter`` (the Python
    API's): counts every text instead of the named tokenizer."""
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
    model = top["tokenizer"] if counted_encoding(top.get("tokenizer")) else None
    tools: list[dict] = []
    if top.get("tools") is not None:
        tools = read_tools(top["tools"], ("tools",), problems) or []
    template = None
    if top.get("template") is not None:
        if token_counter is not None:
            problems.append(Problem(("template",), INVALID_VALUE, "a template counts with the model's tokenizer; leave token_counter out"))
        else:
            template = chat_template.read_template(top, tokenizer, problems)
        if isinstance(top.get("messages"), list):
            chat_template.check_messages(top["messages"], problems, top["template"])
    elif top.get("template_options") is not None:
        problems.append(Problem(("template_options",), INVALID_VALUE, "template_options are a template's options: give template too"))
    top_problems = len(problems)
    # The memories are by tokenizer name: a name read from a file may stand for another file in the next call.
    remembered_counts = token_counter is None and template is None and not (isinstance(tokenizer, str) and tokenizer not in TOKENIZERS)
    read: Sequence[dict | None] = []
    known = None
    pairing = Pairing()
    first = 0
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
            if remembered_counts and not problems:
                known = HISTORIES.find(tokenizer, messages)  # a history read before: only what was appended is read
            call_sites: dict = dict(known.call_sites) if known else {}
            if known:
                first = len(known.snapshot)
                pairing = known.pairing.copy()  # type: ignore[attr-defined]
            read = [_read_message(message, (*_MESSAGES, index), problems, call_sites) for index, message in enumerate(messages[first:], first)]
            pairing.feed(first, read, messages[first:], problems)
            pairing.finish(problems)
    new_users = [index for index, message in enumerate(read, first) if message is not None and message["role"] == "user"]
    live_start = new_users[-1] if new_users else (known.last_user if known else None)
    if "messages" in top and isinstance(top["messages"], list) and not new_users and live_start is None:
        live_start = max((index for index, message in enumerate(top["messages"]) if isinstance(message, dict) and message.get("role") == "user"), default=None)
    if (read or known) and live_start is None and not problems and require_user:
        problems.append(Problem(_MESSAGES, NO_USER_MESSAGE, f"no message has the role \"user\" ({_roles_seen(read)}): a conversation sent to a model needs a user turn to answer"))
    if problems:
        problems.sort(key=_message_position)  # stable: each message's problems together, in input order
        only_messages = top_problems == 0 and all(_message_position(problem) >= 0 for problem in problems)
        if top_problems == 0 and problems[0].code == NO_USER_MESSAGE:
            raise InvalidInput(problems, "message shape", NO_USER_SUMMARY)
        raise InvalidInput(problems, "message shape" if only_messages else "input shape", MESSAGE_SUMMARY if only_messages else INPUT_SUMMARY)
    read = cast("list[dict]", read)  # no problems: _read_message returns None only after recording one
    records = (known.records + read) if known else read
    roles = (known.roles if known else []) + [message["role"] for message in read]
    pinned = (known.pinned if known else []) + [message["pinned"] for message in read]
    flat = (known.flat if known else []) + [message["flat"] for message in read]
    if template is not None:
        return _with_template(top, limit, template, tokenizer, model, tools, live_start, records, roles, pinned, flat, pairing)
    count = cached_counter(tokenizer) if remembered_counts else _callers_counter(token_counter or counter(tokenizer))
    costs: list[int] = list(known.costs) if known else []
    images: list[dict] = list(known.images) if known else []
    for index, message in enumerate(read, first):
        cost, message_images = message_cost(message, count, index)
        costs.append(cost)
        images.extend(message_images)
    if remembered_counts:
        appended, chars = frozen(top["messages"][first:])
        remembered = Known(tokenizer, (known.snapshot if known else []) + appended, records, pairing, call_sites, costs, images, live_start, roles, pinned, flat)
        remembered.chars = (known.chars if known else 0) + chars
        HISTORIES.keep(remembered, known)
    tool_costs, tools_tokens = tool_costs_of(tools, count, tokenizer)
    return {
        "limit": limit, "tokenizer": tokenizer, "model": model, "messages": top["messages"],
        "roles": roles,
        "pinned": pinned,
        "flat": flat,
        "unit_of": list(pairing.unit_of),
        "costs": costs,
        "live_start": len(records) if live_start is None else live_start,
        "images": [{**image, "size": image["size"] and list(image["size"])} for image in images],
        "tools": [tool_name(tool) for tool in tools],
        "tool_costs": tool_costs,
        "tools_tokens": tools_tokens,
    }


def _with_template(top: dict, limit: int, template: str, tokenizer: str, model: object, tools: list[dict], live_start: int | None,
                   records: list, roles: list, pinned: list, flat: list, pairing: "Pairing") -> dict:
    """``parse``'s result with each message's share of the rendered prompt as its cost."""
    try:
        detail = chat_template.counted(top["messages"], template, tokenizer, top.get("tools"), chat_template.read_options(top))
    except chat_template.templates.TemplateError as error:
        at: tuple[Key, ...] = error.at or (("tokenizer",) if error.special_token is not None else ("template",))
        problem = Problem(at, INVALID_VALUE, f"the template {json_text(template)} cannot render this: {error}")
        raise InvalidInput([problem], "input shape", INPUT_SUMMARY) from None
    return {
        "limit": limit, "tokenizer": tokenizer, "model": model, "messages": top["messages"],
        "roles": roles, "pinned": pinned, "flat": flat, "unit_of": list(pairing.unit_of),
        "costs": list(detail.per_message),
        "live_start": len(records) if live_start is None else live_start,
        "images": [], "tools": [tool_name(tool) for tool in tools], "tool_costs": [0] * len(tools), "tools_tokens": 0,
        "template": template, "priming": detail.overhead, "template_tools": top.get("tools"),
        "template_options": chat_template.read_options(top),
    }


def _roles_seen(read: Sequence[dict | None]) -> str:
    roles = sorted({message["role"] for message in read if message is not None}, key=ROLES.index)
    return "its roles: " + ", ".join(roles) if roles else "no message could be read"


def _message_position(problem: Problem) -> int:
    """The index of the message the problem is in; -1 for a problem outside every message."""
    at = problem.at
    return at[1] if len(at) >= 2 and at[0] == "messages" and isinstance(at[1], int) else -1


# ---------------------------------------------------------------- one message

def _unknown_keys(message: dict, at: tuple[Key, ...], role: str | None, problems: list[Problem]) -> None:
    allowed = _KEYS_BY_ROLE.get(role, _ALL_KEYS)
    for key in message:
        if key in _ALL_KEYS and key not in allowed and message[key] is not None:
            problems.append(Problem((*at, key), KEY_NOT_ALLOWED, f"a {role} message cannot have {json_text(key)} (allowed: {', '.join(allowed)})", key))
    problems.extend(unknown_keys({key: None for key in message if key not in _ALL_KEYS}, at, allowed))


def _read_content(value: object, at: tuple[Key, ...], role: str | None, problems: list[Problem]) -> tuple[list[str], list[tuple]] | None:
    """The content's texts and images (``(part index, url, detail, size)``), or None after recording a problem."""
    if isinstance(value, str):
        return [value], []
    allowed = _PARTS_BY_ROLE.get(role, ("text",))
    what = "an array of text parts" if allowed == ("text",) else f"an array of parts ({', '.join(allowed)})"
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected a string or {what}, got {got(value)}"))
        return None
    texts: list[str] = []
    images: list[tuple] = []
    ok = True
    for index, part in enumerate(value):
        part_at = (*at, index)
        count = len(problems)
        if not isinstance(part, dict):
            problems.append(Problem(part_at, WRONG_TYPE, f"expected a content part {{\"type\": \"text\", \"text\": ...}}, got {got(part)}"))
            ok = False
            continue
        kind = part.get("type")
        type_at = (*part_at, "type")
        if kind in allowed and kind in ("text", "refusal"):
            problems.extend(unknown_keys(part, part_at, ("type", kind)))
            if kind not in part:
                problems.append(missing_key(part_at, kind))
            elif not isinstance(part[kind], str):
                problems.append(Problem((*part_at, kind), WRONG_TYPE, f"expected a string, got {preview(part[kind])}"))
            else:
                texts.append(part[kind])
        elif kind == "image_url" and kind in allowed:
            image = _read_image(part, part_at, problems)
            if image is not None:
                images.append((index, *image))
        elif "type" not in part:
            problems.append(missing_key(part_at, "type"))
        elif isinstance(kind, str) and kind in _NOT_COUNTED_PARTS:
            problems.append(Problem(type_at, NOT_TEXT, f"a content part of type {json_text(kind)} is {_NOT_COUNTED_PARTS[kind]}, which this mode does not count (text and images only); give it a budget of its own"))
        elif kind in ("image_url", "refusal", "text"):
            problems.append(Problem(type_at, NOT_TEXT, f"a {role} message cannot have a part of type {json_text(kind)} (allowed: {', '.join(allowed)})"))
        elif isinstance(kind, str) and kind.endswith("_text"):  # text by another API's name
            problems.append(Problem(type_at, INVALID_VALUE, f"expected \"text\", got {json_text(kind)}: the chat format names a text part \"text\""))
        else:
            problems.append(Problem(type_at, INVALID_VALUE if isinstance(kind, str) else WRONG_TYPE, f"expected one of {', '.join(allowed)}, got {preview(kind)}"))
        ok = ok and len(problems) == count
    return (texts, images) if ok else None


def _read_image(part: dict, at: tuple[Key, ...], problems: list[Problem]) -> tuple | None:
    """``(url, detail, size)`` of an image part (``size``: this tool's own ``[w, h]``, or None)."""
    count = len(problems)
    problems.extend(unknown_keys(part, at, ("type", "image_url", "size")))
    image = part.get("image_url")
    url = detail = None
    if "image_url" not in part:
        problems.append(missing_key(at, "image_url"))
    elif not isinstance(image, dict):
        problems.append(Problem((*at, "image_url"), WRONG_TYPE, f"expected an object {{url, detail?}}, got {got(image)}"))
    else:
        image_at = (*at, "image_url")
        problems.extend(unknown_keys(image, image_at, ("url", "detail")))
        if "url" not in image:
            problems.append(missing_key(image_at, "url"))
        elif not isinstance(image["url"], str) or not image["url"]:
            problems.append(Problem((*image_at, "url"), WRONG_TYPE, f"expected a URL (https: or data:), got {preview(image['url'])}"))
        else:
            url = image["url"]
        detail = image.get("detail") or "auto"
        if detail not in DETAILS:
            problems.append(Problem((*image_at, "detail"), INVALID_VALUE, f"expected one of {', '.join(DETAILS)}, got {preview(detail)}"))
    size = part.get("size")
    if size is not None:
        if not (isinstance(size, list) and len(size) == 2):
            problems.append(Problem((*at, "size"), WRONG_TYPE, f"expected [width, height] in pixels, got {preview(size)}"))
            size = None
        else:
            try:
                size = (read_count(size[0]), read_count(size[1]))
            except Invalid as error:
                problems.append(Problem((*at, "size"), error.code, f"expected [width, height] in pixels, whole numbers: {error}"))
                size = None
            else:
                if 0 in size:
                    problems.append(Problem((*at, "size"), INVALID_VALUE, f"expected [width, height] in pixels, above 0, got {preview(part['size'])}"))
    return (url, detail, size) if len(problems) == count else None


def _read_tool_calls(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[str] | None:
    """The call ids, or None after recording a problem."""
    try:
        calls = expect_array(value)
    except Invalid as error:
        problems.append(Problem(at, error.code, str(error)))
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
        kind = call.get("type")
        body = "custom" if kind == "custom" else "function"
        fields = ("name", "input") if body == "custom" else ("name", "arguments")
        _strict_keys(call, call_at, ("id", "type", body), problems)
        if "id" in call:
            try:
                ids.append(read_id(call["id"]))
            except Invalid as error:
                problems.append(problem_from(error, (*call_at, "id")))
        if "type" in call and kind not in ("function", "custom"):
            problems.append(Problem((*call_at, "type"), INVALID_VALUE, f"expected \"function\" or \"custom\", got {preview(kind)}"))
        if isinstance(call.get(body), dict):
            _string_fields(call[body], (*call_at, body), fields, problems)
        elif body in call:
            problems.append(Problem((*call_at, body), WRONG_TYPE, f"expected an object {{{', '.join(fields)}}}, got {got(call[body])}"))
        ok = ok and len(problems) == count
    return ids if ok else None


def _string_fields(obj: dict, at: tuple[Key, ...], keys: tuple[str, ...], problems: list[Problem]) -> None:
    """Exactly ``keys``, each a string."""
    _strict_keys(obj, at, keys, problems)
    for key in keys:
        if key in obj and not isinstance(obj[key], str):
            problems.append(Problem((*at, key), WRONG_TYPE, f"expected a string, got {preview(obj[key])}"))


def _strict_keys(obj: dict, at: tuple[Key, ...], keys: tuple[str, ...], problems: list[Problem]) -> None:
    """Exactly ``keys``: each missing one, then each unknown one."""
    problems.extend(missing_key(at, key) for key in keys if key not in obj)
    problems.extend(unknown_keys(obj, at, keys))


def _read_message(message: object, at: tuple[Key, ...], problems: list[Problem], call_sites: dict) -> dict | None:
    """``{role, texts, images, name, tool_calls, call_ids, tool_call_id, json_texts, pinned}``, or None
    when invalid. ``null`` for an optional field is the field left out."""
    try:
        message = expect_object(message)
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
    given = role in _KEYS_BY_ROLE and {key for key, value in message.items() if value is not None and key in _KEYS_BY_ROLE[role]}
    given = given or set()
    assistant = role == "assistant"
    calls_tools = assistant and "tool_calls" in given
    call_ids = None
    json_texts: list[str] = []
    if calls_tools:
        calls_at = (*at, "tool_calls")
        call_ids = _read_tool_calls(message["tool_calls"], calls_at, problems)
        for index, call_id in enumerate(call_ids or ()):
            call_at = (*calls_at, index, "id")
            call_path = path_text(call_at)
            first = call_sites.setdefault(identity_key(call_id), call_path)  # ids are equal by UTF-16 code units
            if first != call_path:
                problems.append(Problem(call_at, DUPLICATE_ID, f"duplicate tool call id {json_text(call_id)} (first used at {first})", first))
        json_texts.append(tool_calls_text(message["tool_calls"]))
    texts: list[str] | None
    texts = []
    images: list[tuple] = []
    if assistant:
        if "function_call" in given:
            if isinstance(message["function_call"], dict):
                _string_fields(message["function_call"], (*at, "function_call"), ("name", "arguments"), problems)
                json_texts.append(tool_calls_text(message["function_call"]))
            else:
                problems.append(Problem((*at, "function_call"), WRONG_TYPE, f"expected an object {{name, arguments}}, got {got(message['function_call'])}"))
        if "audio" in given:
            if isinstance(message["audio"], dict):
                _string_fields(message["audio"], (*at, "audio"), ("id",), problems)
                json_texts.append(tool_calls_text(message["audio"]))
            else:
                problems.append(Problem((*at, "audio"), WRONG_TYPE, f"expected an object {{id}}, got {got(message['audio'])}"))
        if "refusal" in given:
            try:
                texts.append(read_text(message["refusal"]))
            except Invalid as error:
                problems.append(problem_from(error, (*at, "refusal")))
        if "annotations" in given and not isinstance(message["annotations"], list):
            problems.append(Problem((*at, "annotations"), WRONG_TYPE, f"expected an array, got {got(message['annotations'])}"))
    if "content" in given:
        content = _read_content(message["content"], (*at, "content"), role, problems)
        if content is None:
            texts = None
        else:
            texts.extend(content[0])
            images = content[1]
    elif not (assistant and given & {"tool_calls", "function_call", "refusal", "audio"}):
        if message.get("content", 0) is None:
            allowed = "an assistant message with tool_calls, function_call, refusal or audio"
            problems.append(Problem((*at, "content"), WRONG_TYPE, f"null content is allowed only on {allowed}; expected a string or an array of parts"))
        elif role is not None:
            problems.append(missing_key(at, "content"))
    name = None
    if "name" in given and role != "tool":
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
    if "pinned" in given and role not in ALWAYS_PINNED:
        try:
            pinned = read_bool(message["pinned"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "pinned")))
    if len(problems) != count:
        return None
    return {
        "role": role, "texts": texts, "images": images, "name": name, "call_ids": call_ids,
        "tool_call_id": tool_call_id, "json_texts": json_texts, "pinned": pinned,
        "flat": all(type(value) is str for value in message.values()),  # sent as a plain copy of itself
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
    pairing = Pairing()
    pairing.feed(0, read, raw, problems)
    pairing.finish(problems)
    return pairing.unit_of


def _path_of(index: int) -> str:
    return path_text((*_MESSAGES, index))


class Pairing:
    """The pairing of tool calls with their results, message by message: a history's state can
    be kept and fed the messages appended to it (``memory.py``)."""

    def __init__(self) -> None:
        self.unit_of: list[int] = []
        self.made_at: dict[str, int] = {}  # call id -> index of the assistant message that made it
        self.answered_at: dict[str, int] = {}
        self.open_unit: int | None = None  # the assistant message being answered
        self.waiting: dict[str, tuple] = {}  # its unanswered calls: id -> where
        self.orphans: list[tuple] = []  # (index in problems, where, the call id): said once every call is known

    def copy(self) -> Pairing:
        other = Pairing()
        other.unit_of, other.made_at, other.answered_at = list(self.unit_of), dict(self.made_at), dict(self.answered_at)
        other.open_unit, other.waiting, other.orphans = self.open_unit, dict(self.waiting), list(self.orphans)
        return other

    def _close_unit(self, problems: list[Problem]) -> None:
        for call_id, call_at in self.waiting.items():
            problems.append(Problem(call_at, TOOL_CALL_UNANSWERED, f"no tool message answers the call {json_text(call_id)} (its result must directly follow this assistant message)"))
        self.waiting.clear()

    def feed(self, first: int, read: list[dict | None], raw: list, problems: list[Problem]) -> None:
        """The messages ``read`` (``raw`` as given), the first of them at index ``first``."""
        unit_of, waiting = self.unit_of, self.waiting
        for index, (record, given) in enumerate(zip(read, raw), first):
            message = _as_far_as_readable(given) if record is None else record
            if message is not None and message["role"] == "tool" and self.open_unit is not None:
                call_id = identity_key(message["tool_call_id"])  # "\ud83d\ude00" answers a call "😀": the same UTF-16
                if call_id in waiting:
                    del waiting[call_id]
                    self.answered_at[call_id] = index
                    unit_of.append(self.open_unit)
                    continue
            if message is None or message["role"] != "tool":
                self._close_unit(problems)
                self.open_unit = None
                unit_of.append(index)
                if message is not None and message["call_ids"]:
                    self.open_unit = index
                    for position, call_id in enumerate(message["call_ids"]):
                        if call_id is None:
                            continue
                        call_id = identity_key(call_id)
                        self.made_at.setdefault(call_id, index)
                        waiting[call_id] = (*_MESSAGES, index, "tool_calls", position, "id")
                continue
            call_id = identity_key(message["tool_call_id"])
            where = (*_MESSAGES, index, "tool_call_id")
            if call_id in self.answered_at:
                problems.append(Problem(where, TOOL_RESULT_UNMATCHED, f"the call {json_text(call_id)} is already answered at {_path_of(self.answered_at[call_id])}"))
            else:  # made earlier, later (the order swapped) or nowhere: known at the end
                self.orphans.append((len(problems), where, call_id))
                problems.append(None)  # type: ignore[arg-type]
            unit_of.append(index)

    def finish(self, problems: list[Problem]) -> None:
        """The calls still unanswered, and each orphaned result said where its call is, if anywhere."""
        self._close_unit(problems)
        for position, where, call_id in self.orphans:
            if call_id in self.made_at:
                problems[position] = Problem(where, TOOL_RESULT_MISPLACED, f"answers the call {json_text(call_id)} made at {_path_of(self.made_at[call_id])}, but a tool result must directly follow the assistant message that made the call")
            else:
                problems[position] = Problem(where, TOOL_RESULT_UNMATCHED, f"no assistant message made a tool call with id {json_text(call_id)}")
        self.orphans = []


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
    """``count_tokens`` through the counts remembered across calls (``_shared/count_memory``): each text
    is counted once per process while it stays in that bounded memory."""
    return COUNTS.counter(tokenizer, counter(tokenizer))


def _callers_counter(token_counter: Callable[[str], int]) -> Callable[[str], int]:
    """A caller's ``text -> int``, each distinct text counted once in this call (never remembered
    beyond it); a result that is no count is an error naming it."""
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        tokens = cache.get(text)
        if tokens is None:
            tokens = token_counter(text)
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise InvalidInputError(f"token_counter must return a count (an int from 0), got {tokens!r} for the text {preview(text)}")
            cache[text] = tokens
        return tokens

    return count


def tool_calls_text(tool_calls: object) -> str:
    """How a ``tool_calls`` list (or a ``function_call``, an ``audio`` reference) is counted: its
    compact JSON, keys as given (an approximation: OpenAI does not publish how it renders calls
    into the prompt)."""
    return json.dumps(tool_calls, separators=(",", ":"), ensure_ascii=False)


def image_cost(url: str, detail: str, size: tuple[int, int] | None) -> tuple[int, tuple[int, int] | None]:
    """An image's tokens by the tile rule, and the size it was counted at (None: unknown, the most)."""
    if detail == "low":
        return LOW_DETAIL, size
    size = size or data_url_size(url)
    return (MOST, None) if size is None else (tile_cost(size[0], size[1], detail), size)


def message_cost(message: dict, count: Callable[[str], int], index: int = 0) -> tuple[int, list[dict]]:
    """The message's tokens, and a row per image part (``{index, part, tokens, detail, size, at_most}``)."""
    cost = PER_MESSAGE + count(message["role"]) + sum(map(count, message["texts"]))
    if message["name"] is not None:
        cost += count(message["name"]) + PER_NAME
    if message["tool_call_id"] is not None:
        cost += count(message["tool_call_id"])
    for text in message["json_texts"]:
        cost += count(text)
    images = []
    for part, url, detail, size in message["images"]:
        tokens, counted_at = image_cost(url, detail, size)
        cost += tokens
        images.append({"index": index, "part": part, "tokens": tokens, "detail": detail,
                       "size": list(counted_at) if counted_at else None, "at_most": detail != "low" and counted_at is None})
    return cost, images


def tool_costs_of(tools: list[dict], count: Callable[[str], int], tokenizer: str) -> tuple[list[int], int]:
    return tool_costs(tools, count, tokenizer)
