"""DeepSeek V3/R1's template: system prompts joined at the start, tool calls and outputs."""

from __future__ import annotations

from typing import Any

from ._common import Piece, _content


def _deepseek_v3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    out: list[Piece] = [Piece(None, "<｜begin▁of▁sentence｜>", True)]
    first_system = True
    for i, message in enumerate(messages):
        if message.get("role") == "system":
            out.append(Piece(i, ("" if first_system else "\n\n") + _content(message, i), False))
            first_system = False
    is_first = is_tool = False
    is_output_first = True
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            is_tool = False
            out += [Piece(i, "<｜User｜>", True), Piece(i, _content(message, i), False)]
        if role == "assistant" and message.get("content") is None:
            is_tool = False
            for call in message.get("tool_calls") or []:
                function = call["function"]
                body = f"{call['type']}"
                code = "\n```json\n" + function["arguments"] + "\n```"
                call_pieces = [
                    Piece(i, "<｜tool▁call▁begin｜>", True),
                    Piece(i, body, False),
                    Piece(i, "<｜tool▁sep｜>", True),
                    Piece(i, function["name"] + code, False),
                    Piece(i, "<｜tool▁call▁end｜>", True),
                ]
                if not is_first:
                    out += [Piece(i, "<｜Assistant｜>", True), Piece(i, "<｜tool▁calls▁begin｜>", True), *call_pieces]
                    is_first = True
                else:  # the official template closes the calls after every call but the first, as here
                    out += [
                        Piece(i, "\n", False),
                        *call_pieces,
                        Piece(i, "<｜tool▁calls▁end｜>", True),
                        Piece(i, "<｜end▁of▁sentence｜>", True),
                    ]
        if role == "assistant" and message.get("content") is not None:
            content = _content(message, i)
            if is_tool:
                out += [Piece(i, "<｜tool▁outputs▁end｜>", True), Piece(i, content, False), Piece(i, "<｜end▁of▁sentence｜>", True)]
                is_tool = False
            else:
                out += [Piece(i, "<｜Assistant｜>", True), Piece(i, content, False), Piece(i, "<｜end▁of▁sentence｜>", True)]
        if role == "tool":
            is_tool = True
            if is_output_first:
                out += [Piece(i, "<｜tool▁outputs▁begin｜>", True), Piece(i, "<｜tool▁output▁begin｜>", True)]
                is_output_first = False
            else:
                out += [Piece(i, "\n", False), Piece(i, "<｜tool▁output▁begin｜>", True)]
            out += [Piece(i, _content(message, i), False), Piece(i, "<｜tool▁output▁end｜>", True)]
    if is_tool:
        out.append(Piece(None, "<｜tool▁outputs▁end｜>", True))
    if add_generation_prompt and not is_tool:
        out.append(Piece(None, "<｜Assistant｜>", True))
    return out
