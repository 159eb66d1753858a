"""What clearing (``clearing.py``) needs of each format: the tool results a history holds (with the
call each answers and its tool's name), the thinking blocks of Anthropic's assistant messages, a
message's copy with some of them cleared, and that copy's cost counted again by the format's own
reader and accounting (so a cleared message costs exactly what the rule would count for it).

An edit of one message is ``{"results": {block: placeholder}, "inputs": {block}, "thinking": {block}}``:
``block`` is the content block's index (Anthropic), or None for a whole message (a chat tool
message, a Responses output or call). Clearing replaces a result's content with the placeholder
and a call's arguments with ``{}`` (a custom tool's input with ``""``), and removes a thinking block;
it changes nothing else, and never the caller's own message.
"""

from __future__ import annotations

from typing import Callable

from ..._base.values import Problem
from .accounting import message_cost
from .formats import anthropic, responses
from .formats.common import cost_of
from .message import read_message

EMPTY_ARGUMENTS, EMPTY_INPUT = "{}", ""
CALL_TYPES = ("function_call", "custom_tool_call")


def placeholder(tool: str, tokens: int) -> str:
    """What a cleared result reads: the tool's name and the result's own tokens before clearing."""
    return f"[cleared: {tool} result, {tokens:,} tokens]"


def new_edit() -> dict:
    return {"results": {}, "inputs": set(), "thinking": set()}


def items(fmt: str, messages: list, roles: list[str], unit_of: list[int]) -> list[dict]:
    """Every tool result of the history, oldest first: ``{index, block, tool, id, call_index, call_block}``."""
    found = []
    for index, role in enumerate(roles):
        if role != "tool":
            continue
        message = messages[index]
        caller_index = unit_of[index]
        if fmt == "chat":
            call_id = message["tool_call_id"]
            calls = messages[caller_index].get("tool_calls") or []
            position = next((position for position, call in enumerate(calls) if call.get("id") == call_id), None)
            if position is None:
                continue
            call = calls[position]
            tool = (call.get("function") or call.get("custom") or {}).get("name", "tool")
            found.append({"index": index, "block": None, "tool": tool, "id": call_id, "call_index": caller_index, "call_block": position})
        elif fmt == "anthropic":
            if not isinstance(message.get("content"), list):
                continue
            uses = messages[caller_index].get("content")
            uses = uses if isinstance(uses, list) else []
            for block_index, block in enumerate(message["content"]):
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                call_id = block["tool_use_id"]
                position = next(
                    (
                        position
                        for position, use in enumerate(uses)
                        if isinstance(use, dict) and use.get("type") == "tool_use" and use.get("id") == call_id
                    ),
                    None,
                )
                tool = uses[position]["name"] if position is not None else "tool"
                found.append(
                    {"index": index, "block": block_index, "tool": tool, "id": call_id, "call_index": caller_index, "call_block": position}
                )
        else:
            call_id = message.get("call_id")
            call_index = next(
                (
                    other
                    for other in range(caller_index, index)
                    if messages[other].get("type") in CALL_TYPES and messages[other].get("call_id") == call_id
                ),
                None,
            )
            tool = messages[call_index].get("name", "tool") if call_index is not None else "tool"
            found.append({"index": index, "block": None, "tool": tool, "id": call_id, "call_index": call_index, "call_block": None})
    return found


def thinking_blocks(messages: list, roles: list[str]) -> list[tuple[int, int]]:
    """``(message, block)`` of every thinking and redacted thinking block (Anthropic's assistant messages)."""
    found: list[tuple[int, int]] = []
    for index, role in enumerate(roles):
        content = messages[index].get("content") if role == "assistant" else None
        if isinstance(content, list):
            found.extend(
                (index, block_index)
                for block_index, block in enumerate(content)
                if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")
            )
    return found


def cleared_copy(fmt: str, message: dict, edit: dict) -> dict:
    """The message with the edit's results, inputs and thinking blocks cleared (a new dict; the
    caller's message and its lists are left as they were)."""
    copy = dict(message)
    results, inputs, thinking = edit["results"], edit["inputs"], edit["thinking"]
    if fmt == "chat":
        if None in results:
            copy["content"] = results[None]
        if inputs:
            copy["tool_calls"] = [
                _no_arguments(call) if position in inputs else call for position, call in enumerate(message["tool_calls"])
            ]
        return copy
    if fmt == "responses":
        if None in results:
            copy["output"] = results[None]
        if None in inputs:
            copy["arguments" if message.get("type") == "function_call" else "input"] = (
                EMPTY_ARGUMENTS if message.get("type") == "function_call" else EMPTY_INPUT
            )
        return copy
    blocks = []
    for block_index, block in enumerate(message["content"]):
        if block_index in thinking:
            continue
        if block_index in results:
            block = {**block, "content": results[block_index]}
        elif block_index in inputs:
            block = {**block, "input": {}}
        blocks.append(block)
    copy["content"] = blocks
    return copy


def _no_arguments(call: dict) -> dict:
    if call.get("type") == "custom":
        return {**call, "custom": {**call["custom"], "input": EMPTY_INPUT}}
    return {**call, "function": {**call["function"], "arguments": EMPTY_ARGUMENTS}}


def cost(fmt: str, message: dict, index: int, count: Callable[[str], int]) -> int:
    """A message's tokens as the format's reader and the chat accounting count it."""
    problems: list[Problem] = []
    if fmt == "chat":
        record = read_message(message, ("messages", index), problems, {})
        assert record is not None and not problems, problems  # a valid message with its content replaced by text
        return message_cost(record, count, index)[0]
    reader = anthropic if fmt == "anthropic" else responses
    record = reader.read_item(message, ("messages", index), problems)
    assert record is not None and not problems, problems
    return cost_of(record, count, "user" if fmt == "anthropic" and record["role"] == "tool" else record["role"])


def size(fmt: str, message: dict, block: int | None, index: int, count: Callable[[str], int]) -> int:
    """The tokens of a result's own content (what clearing it takes out before the placeholder goes in)."""
    if fmt == "chat":
        content = message["content"]
        if isinstance(content, str):
            return count(content)
        emptied = {**message, "content": ""}
    elif fmt == "responses":
        if isinstance(message["output"], str):
            return count(message["output"])
        emptied = {**message, "output": ""}
    else:
        block_value = message["content"][block]
        content = block_value.get("content")
        if content is None:
            return 0
        if isinstance(content, str):
            return count(content)
        emptied = {
            **message,
            "content": [{**item, "content": ""} if position == block else item for position, item in enumerate(message["content"])],
        }
    return cost(fmt, message, index, count) - cost(fmt, emptied, index, count)


def thinking_tokens(message: dict, block: int, count: Callable[[str], int]) -> int:
    value = message["content"][block]
    return count(value.get("thinking", value.get("data", "")))
