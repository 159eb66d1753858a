"""Qwen 3's template: the tools block, ``<tool_call>``/``<tool_response>`` and its empty ``<think>`` blocks."""

from __future__ import annotations

from typing import Any

from ._common import Piece, _content, _tojson


_QWEN_TOOLS_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
_QWEN_TOOLS_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, '
    '"arguments": <args-json-object>}\n</tool_call>'
)


def _qwen3(messages: list[dict], add_generation_prompt: bool, tools: Any, enable_thinking: bool | None = None) -> list[Piece]:
    out: list[Piece] = []
    start, end = "<|im_start|>", "<|im_end|>"
    first_is_system = bool(messages) and messages[0].get("role") == "system"
    if tools:
        out += [Piece(None, start, True), Piece(None, "system\n", False)]
        if first_is_system:
            out.append(Piece(0, _content(messages[0], 0) + "\n\n", False))
        text = _QWEN_TOOLS_HEAD + "".join("\n" + _tojson(tool) for tool in tools) + _QWEN_TOOLS_TAIL
        out += [Piece(None, text, False), Piece(None, end, True), Piece(None, "\n", False)]
    elif first_is_system:
        out += [Piece(0, start, True), Piece(0, "system\n" + _content(messages[0], 0), False), Piece(0, end, True), Piece(0, "\n", False)]
    multi_step_tool = True
    last_query = len(messages) - 1
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if multi_step_tool and message.get("role") == "user":
            content = _content(message, index)
            if not (content.startswith("<tool_response>") and content.endswith("</tool_response>")):
                multi_step_tool = False
                last_query = index
    for i, message in enumerate(messages):
        role = message.get("role")
        last = i == len(messages) - 1
        if role == "user" or (role == "system" and i > 0):
            out += [Piece(i, start, True), Piece(i, f"{role}\n{_content(message, i)}", False), Piece(i, end, True), Piece(i, "\n", False)]
        elif role == "assistant":
            content = _content(message, i)
            reasoning = ""
            if message.get("reasoning_content") is not None:
                reasoning = message["reasoning_content"]
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            if i > last_query and (last or reasoning):
                text = "assistant\n<think>\n" + reasoning.strip("\n") + "\n</think>\n\n" + content.lstrip("\n")
            else:
                text = "assistant\n" + content
            out += [Piece(i, start, True), Piece(i, text, False)]
            for j, call in enumerate(message.get("tool_calls") or []):
                separator = "\n" if (j == 0 and content) or j > 0 else ""
                if call.get("function"):
                    call = call["function"]
                arguments = call["arguments"]
                arguments = arguments if isinstance(arguments, str) else _tojson(arguments)
                out.append(Piece(i, f'{separator}<tool_call>\n{{"name": "{call["name"]}", "arguments": {arguments}}}\n</tool_call>', False))
            out += [Piece(i, end, True), Piece(i, "\n", False)]
        elif role == "tool":
            if i == 0 or messages[i - 1].get("role") != "tool":
                out += [Piece(i, start, True), Piece(i, "user", False)]
            out.append(Piece(i, "\n<tool_response>\n" + _content(message, i) + "\n</tool_response>", False))
            if last or messages[i + 1].get("role") != "tool":
                out += [Piece(i, end, True), Piece(i, "\n", False)]
    if add_generation_prompt:
        out += [Piece(None, start, True), Piece(None, "assistant\n", False)]
        if enable_thinking is False:
            out.append(Piece(None, "<think>\n\n</think>\n\n", False))
    return out
