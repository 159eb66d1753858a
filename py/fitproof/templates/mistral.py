"""Mistral's instruct format for its tekken tokenizer (mistral-common's V3): text conversations only."""

from __future__ import annotations

from typing import Any

from ._common import Piece, TemplateError, _content


def _mistral(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    if tools or any(m.get("tool_calls") or m.get("role") == "tool" for m in messages):
        raise TemplateError("the mistral template renders text conversations; tools and tool calls are not supported")
    systems = [(i, _content(m, i)) for i, m in enumerate(messages) if m.get("role") == "system"]
    systems = [(i, text) for i, text in systems if text]  # an empty system prompt is left out, as mistral-common does
    turns = [(i, m) for i, m in enumerate(messages) if m.get("role") != "system"]
    for i, message in enumerate(messages):
        if message.get("role") == "system" and i and messages[i - 1].get("role") == "assistant":
            raise TemplateError(
                f"messages[{i}]: the mistral template takes no system message right after an assistant turn", ("messages", i)
            )
    for position, (i, message) in enumerate(turns):
        wanted = "user" if position % 2 == 0 else "assistant"
        if message.get("role") != wanted:
            raise TemplateError(
                f"messages[{i}]: the mistral template needs user and assistant turns in turn, "
                f"starting with user; got {message.get('role')!r} where {wanted!r} belongs",
                ("messages", i, "role"),
            )
    if not turns or turns[-1][1].get("role") != "user":
        raise TemplateError("the mistral template needs the conversation to end with a user turn")
    last_user = turns[-1][0]
    out: list[Piece] = [Piece(None, "<s>", True)]
    for i, message in turns:
        content = _content(message, i)
        if message["role"] == "user":
            out.append(Piece(i, "[INST]", True))
            if i == last_user:
                out += [Piece(s, text + "\n\n", False) for s, text in systems]
            out += [Piece(i, content, False), Piece(i, "[/INST]", True)]
        else:
            if not content.rstrip(" "):
                raise TemplateError(f"messages[{i}]: an assistant turn needs content for the mistral template", ("messages", i, "content"))
            out += [Piece(i, content.rstrip(" "), False), Piece(i, "</s>", True)]
    return out
