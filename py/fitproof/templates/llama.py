"""Llama 3's template and Llama 3.1's official one (its dated system block, tools, ``ipython`` results)."""

from __future__ import annotations

import json
from typing import Any

from ._common import Piece, TemplateError, _content, _single_call, _tojson


def _llama3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    out: list[Piece] = []
    for i, message in enumerate(messages):
        if i == 0:
            out.append(Piece(i, "<|begin_of_text|>", True))
        out += [
            Piece(i, "<|start_header_id|>", True),
            Piece(i, str(message["role"]), False),
            Piece(i, "<|end_header_id|>", True),
            Piece(i, "\n\n" + _content(message, i).strip(), False),
            Piece(i, "<|eot_id|>", True),
        ]
    if add_generation_prompt:
        out += [
            Piece(None, "<|start_header_id|>", True),
            Piece(None, "assistant", False),
            Piece(None, "<|end_header_id|>", True),
            Piece(None, "\n\n", False),
        ]
    return out


LLAMA3_1_DATE = "26 Jul 2024"  # the official template's own default date_string
_LLAMA_TOOLS_RULES = (
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n'
)


def _llama_tools_text(tools: list) -> str:
    return "".join(json.dumps(tool, ensure_ascii=False, indent=4) + "\n\n" for tool in tools)


def _llama3_1(
    messages: list[dict],
    add_generation_prompt: bool,
    tools: Any,
    date_string: str = LLAMA3_1_DATE,
    tools_in_user_message: bool = True,
    builtin_tools: list | None = None,
) -> list[Piece]:
    """Llama 3.1's official template: the dated system block, tools in the first user message (or the
    system block), one tool call per assistant message, tool results as ``ipython``."""
    if not messages:
        raise TemplateError("the llama3_1 template needs at least one message", ("messages",))
    header_start, header_end, eot = Piece(None, "<|start_header_id|>", True), Piece(None, "<|end_header_id|>", True), "<|eot_id|>"
    out: list[Piece] = [Piece(None, "<|begin_of_text|>", True)]
    first = 0
    system_message = ""
    if messages[0]["role"] == "system":
        system_message, first = _content(messages[0], 0).strip(), 1
    text = ""
    if builtin_tools is not None or tools is not None:
        text += "Environment: ipython\n"
    if builtin_tools is not None:
        text += "Tools: " + ", ".join(t for t in builtin_tools if t != "code_interpreter") + "\n\n"
    text += "Cutting Knowledge Date: December 2023\nToday Date: " + date_string + "\n\n"
    if tools is not None and not tools_in_user_message:
        text += (
            "You have access to the following functions. To call a function, please respond with JSON for a function "
            "call." + _LLAMA_TOOLS_RULES + _llama_tools_text(tools)
        )
    out += [header_start, Piece(None, "system", False), header_end, Piece(None, "\n\n" + text, False)]
    owner = 0 if first else None
    out += [Piece(owner, system_message, False), Piece(None, eot, True)]
    if tools_in_user_message and tools is not None:
        if first == len(messages):
            raise TemplateError("the llama3_1 template puts tools in the first user message, and there is none", ("messages",))
        out += [
            Piece(first, "<|start_header_id|>", True),
            Piece(first, "user", False),
            Piece(first, "<|end_header_id|>", True),
            Piece(first, "\n\n", False),
            Piece(
                None,
                "Given the following functions, please respond with a JSON for a function call with its proper "
                "arguments that best answers the given prompt.\n\n" + _LLAMA_TOOLS_RULES + _llama_tools_text(tools),
                False,
            ),
            Piece(first, _content(messages[first], first).strip(), False),
            Piece(first, eot, True),
        ]
        first += 1
    end = "<|eom_id|>" if builtin_tools is not None else eot
    for i in range(first, len(messages)):
        message = messages[i]
        role = message["role"]
        head = [
            Piece(i, "<|start_header_id|>", True),
            Piece(i, "ipython" if role in ("tool", "ipython") else "assistant" if "tool_calls" in message else role, False),
            Piece(i, "<|end_header_id|>", True),
        ]
        if not (role in ("tool", "ipython") or "tool_calls" in message):
            out += [*head, Piece(i, "\n\n" + _content(message, i).strip(), False), Piece(i, eot, True)]
        elif "tool_calls" in message:
            call = _single_call(message, i, "llama3_1")
            name, arguments = call["name"], call.get("arguments")
            if builtin_tools is not None and name in builtin_tools:
                if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
                    raise TemplateError(
                        f"messages[{i}].tool_calls[0]: a built-in tool call needs its arguments as an object of strings",
                        ("messages", i, "tool_calls", 0),
                    )
                body = "<|python_tag|>" + name + ".call(" + ", ".join(f'{k}="{v}"' for k, v in arguments.items()) + ")"
                out += [*head, Piece(i, "\n\n", False), Piece(i, "<|python_tag|>", True), Piece(i, body[len("<|python_tag|>") :], False)]
            else:
                out += [*head, Piece(i, '\n\n{"name": "' + name + '", "parameters": ' + _tojson(arguments) + "}", False)]
            out.append(Piece(i, end, True))
        else:
            out += [*head, Piece(i, "\n\n" + _tojson(_content(message, i)), False), Piece(i, eot, True)]
    if add_generation_prompt:
        out += [header_start, Piece(None, "assistant", False), header_end, Piece(None, "\n\n", False)]
    return out
