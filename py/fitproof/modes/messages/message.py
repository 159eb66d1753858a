"""One chat message read: checked against OpenAI's chat format (its role's keys, its content
parts, its tool calls), every problem collected, and what the cost and the pairing read of it."""

from __future__ import annotations

from typing import Callable

from ..._base.ordinal import identity_key
from ..._shared.shape import missing_key
from .accounting import tool_calls_text
from .images import DETAILS
from .pairing import duplicate_call
from ..._base.values import (
    EMPTY,
    KEY_NOT_ALLOWED,
    NOT_TEXT,
    INVALID_VALUE,
    WRONG_TYPE,
    Invalid,
    Key,
    Problem,
    closest_name,
    expect_array,
    expect_object,
    got,
    json_text,
    preview,
    problem_from,
    read_bool,
    read_count,
    read_id,
    read_text,
    unknown_keys,
)

ROLES = ("system", "developer", "user", "assistant", "tool")
# Other names for the same roles (LangChain's, Gemini's, OpenAI's legacy "function"): suggested, never accepted.
ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "function": "tool"}
# What the OpenAI SDK's reply message has beyond a message one sends (openai 3.x,
# ChatCompletionMessage.model_dump()): accepted, not counted, and left out of the messages to send.
RESPONSE_FIELDS = ("annotations",)
ALWAYS_PINNED = ("system", "developer")

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


def _unknown_keys(message: dict, at: tuple[Key, ...], role: str | None, problems: list[Problem]) -> None:
    allowed = _KEYS_BY_ROLE.get(role, _ALL_KEYS)
    for key in message:
        if key in _ALL_KEYS and key not in allowed and message[key] is not None:
            problems.append(
                Problem((*at, key), KEY_NOT_ALLOWED, f"a {role} message cannot have {json_text(key)} (allowed: {', '.join(allowed)})", key)
            )
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
            problems.append(Problem(part_at, WRONG_TYPE, f'expected a content part {{"type": "text", "text": ...}}, got {got(part)}'))
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
            problems.append(
                Problem(
                    type_at,
                    NOT_TEXT,
                    f"a content part of type {json_text(kind)} is {_NOT_COUNTED_PARTS[kind]}, which this mode does not count (text and images only); give it a budget of its own",
                )
            )
        elif kind in ("image_url", "refusal", "text"):
            problems.append(
                Problem(type_at, NOT_TEXT, f"a {role} message cannot have a part of type {json_text(kind)} (allowed: {', '.join(allowed)})")
            )
        elif isinstance(kind, str) and kind.endswith("_text"):  # text by another API's name
            problems.append(
                Problem(type_at, INVALID_VALUE, f'expected "text", got {json_text(kind)}: the chat format names a text part "text"')
            )
        else:
            problems.append(
                Problem(
                    type_at,
                    INVALID_VALUE if isinstance(kind, str) else WRONG_TYPE,
                    f"expected one of {', '.join(allowed)}, got {preview(kind)}",
                )
            )
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
                    problems.append(
                        Problem((*at, "size"), INVALID_VALUE, f"expected [width, height] in pixels, above 0, got {preview(part['size'])}")
                    )
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
            problems.append(Problem((*call_at, "type"), INVALID_VALUE, f'expected "function" or "custom", got {preview(kind)}'))
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


def read_role(
    item: dict, at: tuple[Key, ...], roles: tuple[str, ...], hint: Callable[[object], str], problems: list[Problem]
) -> str | None:
    """The item's role, one of ``roles``; else None, and the problem said at its path (``hint``: what
    the format adds for a role it does not take). The chat reader's and Anthropic's."""
    role = item.get("role")
    if "role" not in item:
        problems.append(missing_key(at, "role"))
        return None
    if role not in roles:
        problems.append(Problem((*at, "role"), INVALID_VALUE, f"expected one of {', '.join(roles)}, got {preview(role)}{hint(role)}"))
        return None
    return role


def _role_hint(role: object) -> str:
    guess = (closest_name(role, ROLES) or ROLE_ALIASES.get(role.casefold())) if isinstance(role, str) else None
    return f"; did you mean {json_text(guess)}?" if guess else ""


def read_message(message: object, at: tuple[Key, ...], problems: list[Problem], call_sites: dict) -> dict | None:
    """``{role, texts, images, name, calls, answers, closes, tool_call_id, json_texts, pinned, flat}``
    (``calls``, ``answers``, ``closes``: what the pairing reads, ``pairing.py``), or None when invalid. ``null`` for an optional field is the field left out."""
    try:
        message = expect_object(message)
    except Invalid as error:
        problems.append(problem_from(error, at))
        return None
    count = len(problems)
    role = read_role(message, at, ROLES, _role_hint, problems)
    _unknown_keys(message, at, role, problems)
    given = role in _KEYS_BY_ROLE and {key for key, value in message.items() if value is not None and key in _KEYS_BY_ROLE[role]}
    given = given or set()
    assistant = role == "assistant"
    calls_tools = assistant and "tool_calls" in given
    call_ids = None
    calls: list[tuple[str, tuple[Key, ...]]] = []
    json_texts: list[str] = []
    if calls_tools:
        calls_at = (*at, "tool_calls")
        call_ids = _read_tool_calls(message["tool_calls"], calls_at, problems)
        for index, call_id in enumerate(call_ids or ()):
            call_at = (*calls_at, index, "id")
            duplicate = duplicate_call(call_sites, call_id, call_at)
            if duplicate is not None:
                problems.append(duplicate)
            calls.append((identity_key(call_id), call_at))
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
                problems.append(
                    Problem(
                        (*at, "function_call"), WRONG_TYPE, f"expected an object {{name, arguments}}, got {got(message['function_call'])}"
                    )
                )
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
            problems.append(
                Problem((*at, "content"), WRONG_TYPE, f"null content is allowed only on {allowed}; expected a string or an array of parts")
            )
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
        "role": role,
        "texts": texts,
        "images": images,
        "name": name,
        "calls": calls,
        "answers": [(identity_key(tool_call_id), (*at, "tool_call_id"))] if tool_call_id is not None else (),
        "closes": False,
        "tool_call_id": tool_call_id,
        "json_texts": json_texts,
        "pinned": pinned,
        "flat": all(type(value) is str for value in message.values()),  # sent as a plain copy of itself
    }


# ---------------------------------------------------------------- what the pairing reads of an invalid message


def as_far_as_readable(message: object, index: int) -> dict | None:
    """What the pairing needs of a message that failed validation, when that much can be read:
    a message invalid for another reason (a tool result's content, one bad call among several)
    still takes part with what can be read of it, so that one mistake is not reported twice,
    once falsely ("no assistant message made a tool call ...")."""
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    at = (*_MESSAGES, index)
    if role == "tool" and isinstance(message.get("tool_call_id"), str):
        return {"calls": (), "answers": [(identity_key(message["tool_call_id"]), (*at, "tool_call_id"))], "closes": False}
    if role == "assistant" and isinstance(message.get("tool_calls"), list):
        # A call without a readable id keeps its place, so paths name the right call.
        calls = [
            (identity_key(call["id"]), (*at, "tool_calls", position, "id"))
            for position, call in enumerate(message["tool_calls"])
            if isinstance(call, dict) and isinstance(call.get("id"), str)
        ]
        return {"calls": calls, "answers": (), "closes": False} if calls else None
    return None
