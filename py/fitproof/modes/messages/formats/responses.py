"""OpenAI's Responses API input items read as the chat reader's units: messages (roles user,
assistant, system, developer; parts ``input_text``, ``input_image``, ``output_text``, ``refusal``),
``function_call`` / ``function_call_output`` and ``custom_tool_call`` / ``custom_tool_call_output``
matched by ``call_id``, ``reasoning`` items, and ``instructions`` beside the input.

Units: a reasoning item, the assistant message after it and the calls after those are one
assistant turn (a call joins the item before it when that is a call, a reasoning item or an
assistant message), and the outputs that directly follow answer its calls, as a chat format's
tool messages follow the assistant message with ``tool_calls``.

Counted exactly with the tokenizer (``o200k_base`` by default) with the chat accounting, item by
item: 3 an item, its role (``assistant`` for a call or reasoning, ``tool`` for an output), each
text (a call's compact JSON ``{call_id, name, arguments}`` or ``{call_id, name, input}``, an
output's ``call_id`` and text, a reasoning item's summary and content texts), images by the tile
rule. OpenAI does not publish how it renders items into the prompt: the per-item 3, the role and
the JSON of a call are the chat cookbook's approximation carried over (``docs/contract.md``).

An item of a type this mode does not read (``NOT_READ``: built-in tools' calls, references,
compactions) is accepted when the caller gives its count as ``"tokens"``: it costs that many
tokens plus the framing of any item (3 and its role, ``assistant``, as for a call), joins the unit
of the item before it (a function call after it joins it, as it joins a call), and the key is not
sent.
"""

from __future__ import annotations

import json

from ...._base.values import INVALID_VALUE, NOT_TEXT, WRONG_TYPE, Invalid, Key, Problem
from ...._base.values import closest_name, got, json_text, preview, problem_from, read_id, unknown_keys
from ...._shared.shape import missing_key
from ..images import DETAILS
from ..accounting import image_cost
from ..pairing import Record
from .common import GIVEN, an_object, keys_of_counted, read_given, read_pinned, read_tool_list, record, type_not_allowed, typed_elements

NAME = "responses"
DEFAULT_TOKENIZER = "o200k_base"
ROLES = ("user", "assistant", "system", "developer")
TOP_KEYS = ("mode", "format", "limit", "tokenizer", "messages", "input", "instructions", "tools")
ITEM_KEYS = {
    "message": ("type", "role", "content", "id", "status", "phase", "pinned"),
    "function_call": ("type", "call_id", "name", "arguments", "id", "status", "namespace", "caller", "async", "async_", "pinned"),
    "custom_tool_call": ("type", "call_id", "name", "input", "id", "namespace", "caller", "async", "async_", "pinned"),
    "function_call_output": ("type", "call_id", "output", "id", "status", "caller", "name", "namespace", "pinned"),
    "custom_tool_call_output": ("type", "call_id", "output", "id", "caller", "pinned"),
    "reasoning": ("type", "id", "summary", "content", "encrypted_content", "status", "pinned"),
}
# Items the API has that this mode does not read (built-in tools, references to stored items).
NOT_READ = (
    "item_reference",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "web_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "compaction",
    "tool_search_call",
    "tool_search_output",
    "program",
    "program_output",
)
PART_KEYS = {
    "input_text": ("type", "text", "prompt_cache_breakpoint"),
    "input_image": ("type", "image_url", "file_id", "detail", "prompt_cache_breakpoint", "size"),
    "output_text": ("type", "text", "annotations", "logprobs"),
    "refusal": ("type", "refusal"),
}
_NOT_COUNTED = (
    ("input_file", "input_audio"),
    "is a file, which this mode does not count (text and images only); give it a budget of its own",
)
_RENAMED = (
    ("text", "image_url"),
    'the Responses format names a text part "input_text" ("output_text" in a reply) and an image "input_image"',
)
PARTS_BY_ROLE = {
    "user": ("input_text", "input_image"),
    "system": ("input_text",),
    "developer": ("input_text",),
    "assistant": ("output_text", "refusal", "input_text"),
}
OUTPUT_PARTS = ("input_text", "input_image")
# A call's JSON and a part's text; a field the request type takes is sent as given.
KEEP = frozenset(("arguments",))


def _parts(value: object, at: tuple[Key, ...], allowed: tuple[str, ...], texts: list[str], images: list, problems: list[Problem]) -> None:
    for index, part_at, part in typed_elements(
        value, at, problems, f"parts ({', '.join(allowed)})", 'a content part {"type": "input_text", "text": ...}'
    ):
        kind = part["type"]
        type_at = (*part_at, "type")
        if kind not in allowed:
            problems.append(type_not_allowed(type_at, kind, allowed, tuple(PART_KEYS), "part", "this item", _NOT_COUNTED, _RENAMED))
            continue
        problems.extend(unknown_keys(part, part_at, PART_KEYS[kind]))
        if kind == "input_image":
            _image(part, part_at, index, images, problems)
            continue
        key = "refusal" if kind == "refusal" else "text"
        if key not in part:
            problems.append(missing_key(part_at, key))
        elif not isinstance(part[key], str):
            problems.append(Problem((*part_at, key), WRONG_TYPE, f"expected a string, got {preview(part[key])}"))
        else:
            texts.append(part[key])


def _image(part: dict, at: tuple[Key, ...], index: int, images: list, problems: list[Problem]) -> None:
    url = part.get("image_url")
    if url is None and part.get("file_id") is None:
        problems.append(missing_key(at, "image_url", " (or file_id)"))
        return
    if url is not None and (not isinstance(url, str) or not url):
        problems.append(Problem((*at, "image_url"), WRONG_TYPE, f"expected a URL (https: or data:), got {preview(url)}"))
        return
    detail = part.get("detail") or "auto"
    if detail not in DETAILS:
        problems.append(Problem((*at, "detail"), INVALID_VALUE, f"expected one of {', '.join(DETAILS)}, got {preview(detail)}"))
        return
    size = part.get("size")
    if size is not None:
        if not (isinstance(size, list) and len(size) == 2 and all(type(side) is int and side > 0 for side in size)):
            problems.append(
                Problem((*at, "size"), WRONG_TYPE, f"expected [width, height] in pixels, whole numbers above 0, got {preview(size)}")
            )
            return
        size = tuple(size)
    tokens, counted = image_cost(url or "", detail, size)
    images.append(
        {
            "part": index,
            "tokens": tokens,
            "detail": detail,
            "size": list(counted) if counted else None,
            "at_most": detail != "low" and counted is None,
        }
    )


def _text_field(item: dict, at: tuple[Key, ...], key: str, problems: list[Problem]) -> str | None:
    if key not in item:
        problems.append(missing_key(at, key))
        return None
    if not isinstance(item[key], str):
        problems.append(Problem((*at, key), WRONG_TYPE, f"expected a string, got {preview(item[key])}"))
        return None
    return item[key]


def _call_id(item: dict, at: tuple[Key, ...], problems: list[Problem], hint: str = "") -> str | None:
    if "call_id" not in item:
        problems.append(missing_key(at, "call_id", hint))
        return None
    try:
        return read_id(item["call_id"])
    except Invalid as error:
        problems.append(problem_from(error, (*at, "call_id")))
        return None


def kind_of(item: dict) -> object:
    """An item's type: ``message`` when left out (an easy input message ``{role, content}``)."""
    return item.get("type", "message") if "type" in item or "role" in item else item.get("type")


def read_item(given: object, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    item = an_object(given, at, problems)
    if item is None:
        return None
    count = len(problems)
    kind = kind_of(item)
    if kind is None:
        problems.append(missing_key(at, "type", " (or a message's role)"))
        return None
    if not isinstance(kind, str) or kind not in ITEM_KEYS:
        if isinstance(kind, str) and kind in NOT_READ:
            if GIVEN in item:
                return _given_item(item, at, kind, problems)
            problems.append(
                Problem(
                    (*at, "type"),
                    NOT_TEXT,
                    f"an item of type {json_text(kind)} is not counted by this mode (messages, function and custom tool calls, their outputs and reasoning only); give it a budget of its own, "
                    'or its count as "tokens" (an integer from 0: what the item costs in the prompt, its framing added) for it to be kept with its turn',
                )
            )
        else:
            guess = closest_name(kind, tuple(ITEM_KEYS)) if isinstance(kind, str) else None
            hint = f"; did you mean {json_text(guess)}?" if guess else ""
            problems.append(
                Problem(
                    (*at, "type"),
                    INVALID_VALUE if isinstance(kind, str) else WRONG_TYPE,
                    f"expected one of {', '.join(ITEM_KEYS)}, got {preview(kind)}{hint}",
                )
            )
        return None
    keys_of_counted(
        item,
        at,
        ITEM_KEYS[kind],
        f"an item of type {json_text(kind)}",
        'an item of a type it does not read, such as "web_search_call"',
        problems,
    )
    texts: list[str] = []
    images: list = []
    calls: list = []
    answers: list = []
    role: str | None = "assistant"  # None only on the error paths below, which return before it is used
    joins = False
    if kind == "message":
        role = item.get("role")
        if "role" not in item:
            problems.append(missing_key(at, "role"))
        elif role not in ROLES:
            hint = " (a tool's result is a function_call_output item)" if role == "tool" else ""
            problems.append(Problem((*at, "role"), INVALID_VALUE, f"expected one of {', '.join(ROLES)}, got {preview(role)}{hint}"))
        if "content" not in item:
            problems.append(missing_key(at, "content"))
        elif isinstance(item["content"], str):
            texts.append(item["content"])
        elif role in ROLES:
            _parts(item["content"], (*at, "content"), PARTS_BY_ROLE[role], texts, images, problems)
        joins = role == "assistant"
    elif kind in ("function_call", "custom_tool_call"):
        call_id = _call_id(item, at, problems)
        name = _text_field(item, at, "name", problems)
        body = "arguments" if kind == "function_call" else "input"
        value = _text_field(item, at, body, problems)
        if call_id is not None:
            calls.append((call_id, (*at, "call_id")))
            if name is not None and value is not None:
                texts.append(json.dumps({"call_id": item["call_id"], "name": name, body: value}, separators=(",", ":"), ensure_ascii=False))
        joins = True
    elif kind in ("function_call_output", "custom_tool_call_output"):
        role = "tool"
        call_id = _call_id(item, at, problems, " (the call_id of the call this output answers)")
        if call_id is not None:
            answers.append((call_id, (*at, "call_id")))
            texts.append(call_id)
        if "output" not in item:
            problems.append(missing_key(at, "output"))
        elif isinstance(item["output"], str):
            texts.append(item["output"])
        else:
            _parts(item["output"], (*at, "output"), OUTPUT_PARTS, texts, images, problems)
    else:  # reasoning
        for key in ("summary", "content"):
            value = item.get(key)
            if value is None:
                if key == "summary":
                    problems.append(missing_key(at, "summary", " (an empty array when there is none)"))
                continue
            if not isinstance(value, list):
                problems.append(Problem((*at, key), WRONG_TYPE, f"expected an array, got {got(value)}"))
                continue
            part_type = "summary_text" if key == "summary" else "reasoning_text"
            for index, part in enumerate(value):
                part_at = (*at, key, index)
                if not isinstance(part, dict) or part.get("type") != part_type or not isinstance(part.get("text"), str):
                    problems.append(Problem(part_at, WRONG_TYPE, f'expected {{"type": "{part_type}", "text": ...}}, got {preview(part)}'))
                    continue
                problems.extend(unknown_keys(part, part_at, ("type", "text")))
                texts.append(part["text"])
        if item.get("encrypted_content") is not None and not isinstance(item["encrypted_content"], str):
            problems.append(Problem((*at, "encrypted_content"), WRONG_TYPE, f"expected a string, got {preview(item['encrypted_content'])}"))
        joins = True
    pinned = read_pinned(item, at, role in ("system", "developer"), problems)
    if len(problems) != count:
        return None
    result = record(
        str(role), pinned, calls=calls, answers=answers, texts=texts, images=images, flat=all(type(value) is str for value in item.values())
    )
    result["kind"] = kind
    result["joins"] = joins
    return result


def _given_item(item: dict, at: tuple[Key, ...], kind: str, problems: list[Problem]) -> dict | None:
    """An item this mode does not read, with the caller's count: sent as given (but ``tokens``)."""
    count = len(problems)
    tokens = read_given(item, at, problems)
    pinned = read_pinned(item, at, False, problems)
    if len(problems) != count or tokens is None:
        return None
    result = record("assistant", pinned, given=[{"block": None, "type": kind, "tokens": tokens}])
    result["kind"] = kind
    result["joins"] = True
    return result


def joins_previous(current: Record, previous: Record | None) -> bool:
    """An item with the caller's count joins any item before it; a call joins a call (one with the
    caller's count too), a reasoning item or an assistant message before it; an assistant message
    or a reasoning item joins only a reasoning item."""
    if previous is not None and current["given"]:
        return True
    if previous is None or previous["answers"] or previous["role"] != "assistant":
        return False
    if current.get("kind") in ("function_call", "custom_tool_call"):
        return True
    return previous.get("kind") == "reasoning"


def as_far_as_readable(item: object, at: tuple[Key, ...]) -> dict | None:
    if not isinstance(item, dict) or not isinstance(item.get("call_id"), str):
        return None
    kind = item.get("type")
    if kind in ("function_call", "custom_tool_call"):
        result = record("assistant", calls=[(item["call_id"], (*at, "call_id"))])
        result["kind"] = kind
        result["joins"] = True
        return result
    if kind in ("function_call_output", "custom_tool_call_output"):
        return record("tool", answers=[(item["call_id"], (*at, "call_id"))])
    return None


def read_instructions(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    problems.append(Problem(at, WRONG_TYPE, f"expected a string (the instructions; a list of items goes into input), got {got(value)}"))
    return []


def read_tools(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[dict]:
    return read_tool_list(value, at, problems, "", _read_tool)


def _read_tool(tool: dict, tool_at: tuple[Key, ...], problems: list[Problem]) -> None:
    if tool.get("type") in ("function", "custom") and not isinstance(tool.get("name"), str):
        problems.append(
            missing_key(tool_at, "name")
            if "name" not in tool
            else Problem((*tool_at, "name"), WRONG_TYPE, f"expected a string, got {preview(tool['name'])}")
        )
    if "type" not in tool:
        problems.append(missing_key(tool_at, "type"))
    if tool.get("type") == "function" and tool.get("parameters") is not None and not isinstance(tool["parameters"], dict):
        problems.append(Problem((*tool_at, "parameters"), WRONG_TYPE, f"expected a JSON Schema object, got {got(tool['parameters'])}"))


def as_chat_tool(tool: dict) -> dict | None:
    """A function tool in the chat shape the cookbook method counts; None for another kind."""
    if tool.get("type") != "function":
        return None
    function = {"name": tool["name"]}
    if tool.get("description") is not None:
        function["description"] = tool["description"]
    if tool.get("parameters") is not None:
        function["parameters"] = tool["parameters"]
    return {"type": "function", "function": function}


def tool_name(tool: dict) -> str:
    name, kind = tool.get("name"), tool.get("type", "tool")
    return name if isinstance(name, str) else str(kind)
