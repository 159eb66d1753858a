"""LangChain messages read as chat messages, and given back as the caller's own objects.

langchain-core's ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and ``ToolMessage`` (and their
chunks, and ``ChatMessage`` with its ``role``) are recognised by their fields, never by importing
LangChain: a message object whose ``type`` is one of LangChain's and that has ``content`` and
``additional_kwargs``. Each is read as the OpenAI chat message ``convert_to_openai_messages`` makes of
it (with its default ``text_format="string"``): the role, ``name``, the tool calls as OpenAI's
``tool_calls`` (``function.arguments`` the JSON of ``args``), ``tool_call_id``, ``refusal``, and the
content as a string when every block is text (joined with newlines), else as the blocks. The one
difference: a ``ToolMessage``'s ``name`` (the tool's, which the agent sets) is left out, as a chat
request's tool message takes none (the tool is named by the call it answers).

``trim_messages`` then returns the caller's own objects for the kept messages (the same objects, in
order), and a copy (``model_copy(update=...)``) of one whose content clearing replaced; a dict in a
mixed list comes back as the dict copy it always did.
"""

from __future__ import annotations

import json
from typing import Any

from ..._base.values import INVALID_VALUE, Problem

# LangChain's message types (and their chunks') as the chat role each is sent as.
ROLES = {
    "system": "system",
    "human": "user",
    "ai": "assistant",
    "tool": "tool",
    "SystemMessageChunk": "system",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
    "ToolMessageChunk": "tool",
}
CHAT_TYPES = frozenset(("chat", "ChatMessageChunk"))  # a ChatMessage names its own role


def is_langchain(value: object) -> bool:
    """Whether ``value`` looks like a LangChain message (a ``BaseMessage``): not a dict, with a
    string ``type``, ``content`` and an ``additional_kwargs`` dict."""
    return (
        not isinstance(value, dict)
        and isinstance(getattr(value, "type", None), str)
        and hasattr(value, "content")
        and isinstance(getattr(value, "additional_kwargs", None), dict)
    )


def as_chat(message: Any, index: int) -> dict | Problem:
    """The chat message dict ``convert_to_openai_messages`` makes of a LangChain message, or the
    problem at ``$.messages[index]`` when its type is none this reads."""
    kind = message.type
    role = ROLES.get(kind)
    if role is None and kind in CHAT_TYPES and isinstance(getattr(message, "role", None), str):
        role = message.role
    if role == "system":
        role = message.additional_kwargs.get("__openai_role__", "system")
    if not isinstance(role, str):
        text = (
            f"a LangChain {type(message).__name__} (type {kind!r}) is not a message this reads: "
            f"give SystemMessage, HumanMessage, AIMessage, ToolMessage or ChatMessage objects, or message dicts"
        )
        return Problem(("messages", index), INVALID_VALUE, text)
    chat: dict[str, Any] = {"role": role}
    if getattr(message, "name", None) and role != "tool":  # (a chat request's tool message takes no name)
        chat["name"] = message.name
    tool_calls = getattr(message, "tool_calls", None) if role == "assistant" else None
    if tool_calls:
        chat["tool_calls"] = [
            {
                "type": "function",
                "id": call["id"],
                "function": {"name": call["name"], "arguments": json.dumps(call["args"], ensure_ascii=False)},
            }
            for call in tool_calls
        ]
    if message.additional_kwargs.get("refusal"):
        chat["refusal"] = message.additional_kwargs["refusal"]
    if role == "tool" and hasattr(message, "tool_call_id"):
        chat["tool_call_id"] = message.tool_call_id
    chat["content"] = _content(message.content, {call["id"] for call in tool_calls or ()})
    return chat


def _content(content: object, call_ids: set) -> object:
    """The content as ``convert_to_openai_messages`` sends it (text_format "string"): text as it
    is, text blocks joined with newlines, else the blocks (text blocks as ``{type, text}``, a bare
    string as a text block, an Anthropic ``tool_use`` block already among the tool calls left out,
    an empty refusal block left out, any other block as it is)."""
    if not content:
        return ""
    if not isinstance(content, list):
        return content
    if all(isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text") for block in content):
        return "\n".join(block if isinstance(block, str) else block.get("text") for block in content)  # type: ignore[misc]
    blocks: list = []
    for block in content:
        if isinstance(block, str):
            blocks.append({"type": "text", "text": block})
        elif not isinstance(block, dict):
            blocks.append(block)  # (the reader names it at its path)
        elif block.get("type") == "text" and "text" in block:
            blocks.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "tool_use" and block.get("id") in call_ids:
            continue
        elif block.get("type") == "refusal":
            if block.get("refusal"):
                blocks.append({"type": "refusal", "refusal": block["refusal"]})
        else:
            blocks.append(block)
    if all(isinstance(block, dict) and block.get("type") == "text" for block in blocks):
        return "\n".join(block["text"] for block in blocks)
    return blocks


def read(messages: list) -> tuple[list, list | None, list[Problem]]:
    """The messages with each LangChain message read as its chat dict; the caller's objects by
    input index (None where a message was no LangChain one, and no list at all when none was);
    the problems of the ones this does not read."""
    if not any(map(is_langchain, messages)):
        return messages, None, []
    read_messages: list = []
    originals: list = []
    problems: list[Problem] = []
    for index, message in enumerate(messages):
        if is_langchain(message):
            chat = as_chat(message, index)
            if isinstance(chat, Problem):
                problems.append(chat)
            read_messages.append(chat)
            originals.append(message)
        else:
            read_messages.append(message)
            originals.append(None)
    return read_messages, originals, problems


def given_back(
    sent: list[dict], kept: list[int], originals: list, read_messages: list, cleared: list[dict], summary_at: int | None
) -> list:
    """What is returned: the caller's own LangChain object for each kept one (a copy with the new
    content where clearing changed it: a result's message, and the call's with ``input``), the sent
    dict for the others; a summary (at ``summary_at``) as a message of the class of the caller's
    newest user message, if that is a LangChain one."""
    changed = {row["index"] for row in cleared}
    inputs = {row["id"] for row in cleared if row.get("input")}
    if inputs:
        for index, chat in enumerate(read_messages):
            if chat.get("role") == "assistant" and any(call.get("id") in inputs for call in chat.get("tool_calls") or ()):
                changed.add(index)
    out: list = []
    indices = iter(kept)
    for position, message in enumerate(sent):
        if position == summary_at:
            out.append(_summary(message, originals, read_messages))
            continue
        index = next(indices)
        original = originals[index]
        if original is None:
            out.append(message)
        elif index in changed:
            out.append(_changed(original, message))
        else:
            out.append(original)
    return out


def _changed(original: Any, sent: dict) -> Any:
    """A copy of the caller's message with what clearing changed: the content, and a call's arguments."""
    update: dict[str, Any] = {"content": sent.get("content")}
    calls = getattr(original, "tool_calls", None)
    if calls and sent.get("tool_calls"):
        update["tool_calls"] = [
            {**call, "args": json.loads(new["function"]["arguments"])} for call, new in zip(calls, sent["tool_calls"], strict=True)
        ]
    copy = getattr(original, "model_copy", None)
    if callable(copy):
        return copy(update=update)
    return type(original)(**{**vars(original), **update})


def _summary(message: dict, originals: list, read_messages: list) -> Any:
    users = [
        original
        for original, chat in zip(originals, read_messages, strict=True)
        if original is not None and isinstance(chat, dict) and chat.get("role") == "user"
    ]
    return type(users[-1])(content=message.get("content")) if users else message
