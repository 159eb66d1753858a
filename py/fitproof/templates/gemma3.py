"""Gemma 3's template: ``<bos>``, ``<start_of_turn>role\\n`` ... ``<end_of_turn>\\n``, an assistant as ``model``,
the system prompt in front of the first turn's content; text and image parts, no tools."""

from __future__ import annotations

from typing import Any

from ._common import Piece, TemplateError


def _gemma3_text(message: dict, index: int, what: str) -> list[Piece]:
    """A Gemma 3 turn's content: a string trimmed, or its parts (text trimmed, an image as ``<start_of_image>``)."""
    content = message.get("content")
    if isinstance(content, str):
        return [Piece(index, content.strip(), False)]
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        out = []
        for number, part in enumerate(content):
            if part.get("type") == "image":
                out.append(Piece(index, "<start_of_image>", True))
            elif part.get("type") == "text":
                if not isinstance(part.get("text"), str):
                    raise TemplateError(
                        f"messages[{index}].content[{number}].text must be a string", ("messages", index, "content", number, "text")
                    )
                out.append(Piece(index, part["text"].strip(), False))
        return out
    raise TemplateError(f"messages[{index}].content must be a string or a list of parts for {what}", ("messages", index, "content"))


def _gemma3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    """Gemma 3's template: a system prompt (untrimmed, then a blank line) in front of the first turn's
    content, turns as ``<start_of_turn>role\n`` + content trimmed + ``<end_of_turn>\n`` (an assistant
    is ``model``), user first and every other turn. The template writes no tools: they are refused."""
    if tools or any(m.get("tool_calls") for m in messages):
        raise TemplateError("the gemma3 template writes no tools or tool calls (they would be left out of the prompt)")
    if not messages:
        raise TemplateError("the gemma3 template needs at least one message", ("messages",))
    out: list[Piece] = [Piece(None, "<bos>", True)]
    prefix: list[Piece] = []
    turns = list(enumerate(messages))
    if messages and messages[0].get("role") == "system":
        content = messages[0].get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict) and isinstance(content[0].get("text"), str):
            content = content[0]["text"]
        if not isinstance(content, str):
            raise TemplateError(
                "messages[0].content must be a string, or parts whose first has a text, for gemma3", ("messages", 0, "content")
            )
        prefix = [Piece(0, content + "\n\n", False)]
        turns = turns[1:]
    for position, (i, message) in enumerate(turns):
        if (message["role"] == "user") != (position % 2 == 0):
            raise TemplateError(
                f"messages[{i}]: the gemma3 template needs user and other turns in turn, starting with user; got {message['role']!r}",
                ("messages", i, "role"),
            )
        role = "model" if message["role"] == "assistant" else message["role"]
        out += [Piece(i, "<start_of_turn>", True), Piece(i, role + "\n", False)]
        if position == 0:
            out += prefix
        out += _gemma3_text(message, i, "gemma3")
        out += [Piece(i, "<end_of_turn>", True), Piece(i, "\n", False)]
    if add_generation_prompt:
        out += [Piece(None, "<start_of_turn>", True), Piece(None, "model\n", False)]
    return out
