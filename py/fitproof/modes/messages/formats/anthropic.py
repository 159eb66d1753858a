"""Anthropic's Messages API read as the chat reader's units: ``system`` apart from ``messages``
(and ``system`` messages, which ``anthropic`` 2.x also takes in ``messages``), content blocks
``text``, ``image``, ``document``, ``tool_use``, ``tool_result``, ``thinking`` and
``redacted_thinking``, ``cache_control`` on blocks, ``tools`` with ``input_schema``.

A ``tool_use`` block's results are ``tool_result`` blocks in the next user message: that user
message is the tool use's result (role ``tool`` for the rule), in the unit of the assistant
message that made the calls, as a chat format's tool messages are. A user message that also has
text or images of its own besides its results is a turn of the user too: the live turn then
starts at the unit it is in.

Claude publishes no tokenizer: the counts are the ``estimate`` (by default) or the caller's
``token_counter``, with the chat accounting (3 a message, its role, each text, each tool use's
compact JSON ``{id, name, input}``, 3 that prime the reply), which is an approximation of
Anthropic's own framing; images by Anthropic's published rule (``image_tokens``).

A block this mode does not count (``NOT_COUNTED``: server tools' uses and results, search
results, uploads) in a user or an assistant message is accepted when the caller gives its count
as ``"tokens"``: that many tokens are added to its message's cost (the message's framing is
counted once, as for any message), and the key is not sent.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import ceil
from typing import Callable

from ...._base.values import EMPTY, INVALID_VALUE, NOT_TEXT, WRONG_TYPE, Invalid, Key, Problem
from ...._base.values import got, json_text, json_value_problem, preview, problem_from, read_id
from ...._shared.shape import missing_key
from ..images import data_url_size
from ..message import read_role
from .common import GIVEN, an_object, keys_of_counted, read_given, read_pinned, read_tool_list, record, type_not_allowed, typed_elements

NAME = "anthropic"
DEFAULT_TOKENIZER = "estimate"
ROLES = ("user", "assistant", "system")
TOP_KEYS = ("mode", "format", "limit", "tokenizer", "messages", "system", "tools")
MESSAGE_KEYS = ("role", "content", "pinned")
# Anthropic's image rule: the long edge at most 1568 pixels and about 1.15 megapixels (1,600
# tokens) at most, scaled down keeping the aspect ratio; then tokens = width x height / 750.
LONG_EDGE, MOST_TOKENS, PIXELS_PER_TOKEN = 1568, 1600, 750
# Anthropic's tool-use system prompt, added once when tools are given (tool_choice auto or none,
# Claude 4 models; any or tool: 313).
TOOLS_SYSTEM_PROMPT = 346
BLOCK_KEYS = {
    "text": ("type", "text", "cache_control", "citations"),
    "image": ("type", "source", "cache_control", "transformations"),
    "document": ("type", "source", "cache_control", "citations", "context", "title"),
    "tool_use": ("type", "id", "name", "input", "cache_control", "caller", "toolset_name"),
    "tool_result": ("type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
BLOCKS_BY_ROLE = {
    "user": ("text", "image", "document", "tool_result"),
    "assistant": ("text", "thinking", "redacted_thinking", "tool_use"),
    "system": ("text",),
}
# Blocks the API has that this mode does not count (server tools, search results, uploads).
NOT_COUNTED = (
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "search_result",
    "container_upload",
)
_NOT_COUNTED = (
    NOT_COUNTED,
    "is not counted by this mode (text, images, text documents, tool use and results, thinking only); give it a budget of its own",
)
_NOT_COUNTED_GIVEN = (
    NOT_COUNTED,
    _NOT_COUNTED[1] + ', or its count as "tokens" (an integer from 0: what the block costs in the prompt) for it to be kept in its message',
)
_GIVEN_ONLY = 'a content block of a type it does not count, such as "server_tool_use"'

RESULT_BLOCKS = ("text", "image", "document")


def image_tokens(width: int, height: int) -> tuple[int, tuple[int, int]]:
    """Anthropic's rule: scaled down (aspect kept) to a long edge of 1568 and to 1,600 tokens at most,
    then width x height / 750, rounded up. Exact (rational numbers). The tokens and the size counted."""
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > LONG_EDGE:
        scale = LONG_EDGE / max(w, h)
        w, h = w * scale, h * scale
    if w * h > MOST_TOKENS * PIXELS_PER_TOKEN:  # scaled to the area of 1,600 tokens: that many, at most
        shrink = (MOST_TOKENS * PIXELS_PER_TOKEN / (w * h)) ** 0.5  # a float: only the size shown is rounded by it
        return MOST_TOKENS, (int(w * shrink), int(h * shrink))
    return ceil(w * h / PIXELS_PER_TOKEN), (int(w), int(h))


def _source(block: dict, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    """An image's or a document's ``source`` object, or None with its problem added."""
    source = block.get("source")
    if isinstance(source, dict):
        return source
    problems.append(
        Problem((*at, "source"), WRONG_TYPE, f"expected an object {{type, ...}}, got {got(source)}")
        if "source" in block
        else missing_key(at, "source")
    )
    return None


def _image(block: dict, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    source = _source(block, at, problems)
    if source is None:
        return None
    kind = source.get("type")
    size = None
    if kind == "base64":
        if not isinstance(source.get("data"), str) or not isinstance(source.get("media_type"), str):
            problems.append(Problem((*at, "source"), WRONG_TYPE, "expected a base64 source {type, media_type, data}, each a string"))
            return None
        size = data_url_size(f"data:{source['media_type']};base64,{source['data'][: 1 << 20]}")
    elif kind not in ("url", "file"):
        problems.append(Problem((*at, "source", "type"), INVALID_VALUE, f"expected one of base64, url, file, got {preview(kind)}"))
        return None
    if size is None:
        return {"tokens": MOST_TOKENS, "size": None, "at_most": True, "detail": None}
    tokens, counted = image_tokens(*size)
    return {"tokens": tokens, "size": list(size), "at_most": False, "detail": None}


def _document(block: dict, at: tuple[Key, ...], texts: list[str], images: list, problems: list[Problem]) -> None:
    for key in ("title", "context"):
        if isinstance(block.get(key), str):
            texts.append(block[key])
    source = _source(block, at, problems)
    if source is None:
        return
    kind = source.get("type")
    if kind == "text":
        if not isinstance(source.get("data"), str):
            problems.append(Problem((*at, "source", "data"), WRONG_TYPE, f"expected a string, got {preview(source.get('data'))}"))
        else:
            texts.append(source["data"])
    elif kind == "content":
        content = source.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            _blocks(content, (*at, "source", "content"), ("text", "image"), texts, images, [], [], problems, "a document's content")
    elif kind in ("base64", "url", "file"):
        problems.append(
            Problem(
                (*at, "source", "type"),
                NOT_TEXT,
                f"a document of source type {json_text(kind)} is a PDF or a file, which this mode does not count (text and images only); give it a budget of its own",
            )
        )
    else:
        problems.append(
            Problem((*at, "source", "type"), INVALID_VALUE, f"expected one of text, content, base64, url, file, got {preview(kind)}")
        )


def _blocks(
    value: object,
    at: tuple[Key, ...],
    allowed: tuple[str, ...],
    texts: list[str],
    images: list,
    calls: list,
    answers: list,
    problems: list[Problem],
    what: str,
    given: list | None = None,
) -> list[str]:
    """The blocks read (their texts, images, calls, answers appended; with ``given``, a message's
    own content, the blocks of a type in ``NOT_COUNTED`` that carry the caller's count appended
    there); the block types seen."""
    kinds = []
    for index, block_at, block in typed_elements(
        value, at, problems, f"content blocks ({', '.join(allowed)})", 'a content block {"type": "text", "text": ...}'
    ):
        kind = block["type"]
        type_at = (*block_at, "type")
        if given is not None and GIVEN in block and isinstance(kind, str) and kind in NOT_COUNTED:
            tokens = read_given(block, block_at, problems)
            if tokens is not None:
                given.append({"block": index, "type": kind, "tokens": tokens})
                kinds.append(kind)
            continue
        if kind not in allowed:
            not_counted = _NOT_COUNTED_GIVEN if given is not None else _NOT_COUNTED
            problems.append(type_not_allowed(type_at, kind, allowed, tuple(BLOCK_KEYS), "block", what, not_counted))
            continue
        kinds.append(kind)
        keys_of_counted(block, block_at, BLOCK_KEYS[kind], f"a {kind} block", _GIVEN_ONLY, problems)
        if block.get("cache_control") is not None and not isinstance(block["cache_control"], dict):
            problems.append(
                Problem(
                    (*block_at, "cache_control"),
                    WRONG_TYPE,
                    f'expected an object {{type: "ephemeral", ttl?}}, got {got(block["cache_control"])}',
                )
            )
        if kind in ("text", "thinking", "redacted_thinking"):
            key = {"text": "text", "thinking": "thinking", "redacted_thinking": "data"}[kind]
            if key not in block:
                problems.append(missing_key(block_at, key))
            elif not isinstance(block[key], str):
                problems.append(Problem((*block_at, key), WRONG_TYPE, f"expected a string, got {preview(block[key])}"))
            else:
                texts.append(block[key])
            if kind == "thinking" and not isinstance(block.get("signature"), str):
                problems.append(
                    missing_key(block_at, "signature")
                    if "signature" not in block
                    else Problem((*block_at, "signature"), WRONG_TYPE, f"expected a string, got {preview(block['signature'])}")
                )
        elif kind == "image":
            image = _image(block, block_at, problems)
            if image is not None:
                images.append({"part": index, **image})
        elif kind == "document":
            _document(block, block_at, texts, images, problems)
        elif kind == "tool_use":
            fine = True
            for key in ("id", "name"):
                if key not in block:
                    problems.append(missing_key(block_at, key))
                    fine = False
            if "input" not in block:
                problems.append(missing_key(block_at, "input"))
                fine = False
            elif not isinstance(block["input"], dict):
                problems.append(Problem((*block_at, "input"), WRONG_TYPE, f"expected an object, got {got(block['input'])}"))
                fine = False
            elif not_json := json_value_problem(block["input"]):  # from Python: a date, a set, a cycle, any depth
                problems.append(Problem((*block_at, "input", *not_json[0]), WRONG_TYPE, not_json[1]))
                fine = False
            if "name" in block and not isinstance(block["name"], str):
                problems.append(Problem((*block_at, "name"), WRONG_TYPE, f"expected a string, got {preview(block['name'])}"))
                fine = False
            if "id" in block:
                try:
                    call_id = read_id(block["id"])
                except Invalid as error:
                    problems.append(problem_from(error, (*block_at, "id")))
                    fine = False
                else:
                    calls.append((call_id, (*block_at, "id")))
            if fine:
                texts.append(
                    json.dumps(
                        {"id": block["id"], "name": block["name"], "input": block["input"]}, separators=(",", ":"), ensure_ascii=False
                    )
                )
        elif kind == "tool_result":
            if "tool_use_id" not in block:
                problems.append(missing_key(block_at, "tool_use_id", " (the id of the tool_use this block answers)"))
            else:
                try:
                    answers.append((read_id(block["tool_use_id"]), (*block_at, "tool_use_id")))
                    texts.append(block["tool_use_id"])
                except Invalid as error:
                    problems.append(problem_from(error, (*block_at, "tool_use_id")))
            if block.get("is_error") is not None and not isinstance(block["is_error"], bool):
                problems.append(Problem((*block_at, "is_error"), WRONG_TYPE, f"expected true or false, got {preview(block['is_error'])}"))
            content = block.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif content is not None:
                _blocks(content, (*block_at, "content"), RESULT_BLOCKS, texts, images, [], [], problems, "a tool_result's content")
    return kinds


def _role_hint(role: object) -> str:
    if role in ("tool", "developer"):
        return " (Anthropic's Messages API has user, assistant and system messages: a tool result is a tool_result block in a user message)"
    return ""


def read_item(given: object, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    item = an_object(given, at, problems)
    if item is None:
        return None
    count = len(problems)
    role = read_role(item, at, ROLES, _role_hint, problems)
    keys_of_counted(item, at, MESSAGE_KEYS, "a message", _GIVEN_ONLY, problems)
    texts: list[str] = []
    images: list = []
    given_counts: list = []
    calls: list = []
    answers: list = []
    kinds: list[str] = []
    if "content" not in item:
        if role is not None:
            problems.append(missing_key(at, "content"))
    elif isinstance(item["content"], str):
        texts.append(item["content"])
    elif role is not None:
        kinds = _blocks(
            item["content"],
            (*at, "content"),
            BLOCKS_BY_ROLE[role],
            texts,
            images,
            calls,
            answers,
            problems,
            f"a {role} message",
            given_counts if role != "system" else None,
        )
        if isinstance(item["content"], list) and not item["content"] and role != "assistant":
            problems.append(Problem((*at, "content"), EMPTY, "expected at least one content block"))
    pinned = read_pinned(item, at, role == "system", problems)
    if len(problems) != count:
        return None
    own = [kind for kind in kinds if kind != "tool_result"]
    return record(
        "tool" if answers else str(role),
        pinned,
        calls=calls,
        answers=answers,
        closes=True,
        user_turn=role == "user" and (not answers or bool(own)),
        texts=texts,
        images=images,
        given=given_counts,
        flat=isinstance(item["content"], str) and "pinned" not in item,
    )


def as_far_as_readable(item: object, at: tuple[Key, ...]) -> dict | None:
    """What the pairing needs of an invalid message: its calls and results, where readable."""
    if not isinstance(item, dict) or not isinstance(item.get("content"), list):
        return None
    calls, answers = [], []
    for index, block in enumerate(item["content"]):
        if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
            calls.append((block["id"], (*at, "content", index, "id")))
        if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            answers.append((block["tool_use_id"], (*at, "content", index, "tool_use_id")))
    if not calls and not answers:
        return None
    return record("tool" if answers else "assistant", calls=calls if item.get("role") == "assistant" else [], answers=answers, closes=True)


def read_system(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[str]:
    """The system prompt's texts: a string or an array of text blocks."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    texts: list[str] = []
    _blocks(value, at, ("text",), texts, [], [], [], problems, "the system prompt")
    return texts


def read_tools(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[dict]:
    return read_tool_list(value, at, problems, "{name, description?, input_schema}", _read_tool)


def _read_tool(tool: dict, tool_at: tuple[Key, ...], problems: list[Problem]) -> None:
    if not isinstance(tool.get("name"), str):
        problems.append(
            missing_key(tool_at, "name")
            if "name" not in tool
            else Problem((*tool_at, "name"), WRONG_TYPE, f"expected a string, got {preview(tool['name'])}")
        )
    kind = tool.get("type")
    if kind in (None, "custom"):
        if "input_schema" not in tool:
            problems.append(missing_key(tool_at, "input_schema"))
        elif not isinstance(tool["input_schema"], dict):
            problems.append(
                Problem((*tool_at, "input_schema"), WRONG_TYPE, f"expected a JSON Schema object, got {got(tool['input_schema'])}")
            )
        if tool.get("description") is not None and not isinstance(tool["description"], str):
            problems.append(Problem((*tool_at, "description"), WRONG_TYPE, f"expected a string, got {preview(tool['description'])}"))
    elif not isinstance(kind, str):
        problems.append(Problem((*tool_at, "type"), WRONG_TYPE, f"expected a string, got {preview(kind)}"))


def tool_text(tool: dict) -> str:
    """A tool definition as it is counted: the compact JSON of its name, description and input schema
    (a server tool, ``{type, name}``, as given without ``cache_control``)."""
    shown = (
        {key: tool[key] for key in ("name", "description", "input_schema") if tool.get(key) is not None}
        if tool.get("type") in (None, "custom")
        else {key: value for key, value in tool.items() if key != "cache_control" and value is not None}
    )
    return json.dumps(shown, separators=(",", ":"), ensure_ascii=False)


def tool_costs(tools: list[dict], count: Callable[[str], int]) -> tuple[list[int], int]:
    costs = [count(tool_text(tool)) for tool in tools]
    return costs, (sum(costs) + TOOLS_SYSTEM_PROMPT if tools else 0)


# A tool use's input, a tool's schema: sent exactly as given (a null inside is the caller's value).
KEEP = frozenset(("input", "input_schema"))
