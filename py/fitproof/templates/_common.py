"""What every template shares: the pieces a prompt is made of, the error, and the readers of a message."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .._base.errors import FitproofError


class TemplateError(FitproofError, ValueError):
    """A conversation the template cannot render (the message says which message and why; ``at`` is
    that place as a JSON path's keys, ``("messages", 2, "tool_calls")``, or ``()``).

    ``special_token``: the special token the template writes and the tokenizer does not have
    (the conversation may be fine; the tokenizer is another model's), or None."""

    def __init__(self, message: str, at: tuple = (), *, special_token: str | None = None) -> None:
        super().__init__(message)
        self.at = at
        self.special_token = special_token


class Piece(NamedTuple):
    owner: int | None  # the message index, or None for the template's own text
    text: str
    special: bool


class Rendered(NamedTuple):
    total: int
    per_message: list[int]
    overhead: int  # BOS, a tools block, the generation prompt: in total, in no message
    text: str


def _tojson(value: Any) -> str:
    """Hugging Face's ``tojson`` filter for chat templates (not Jinja's HTML-safe one)."""
    return json.dumps(value, ensure_ascii=False)


def _content(message: dict, index: int) -> str:
    content = message.get("content")
    if not isinstance(content, str):
        raise TemplateError(f"messages[{index}].content must be a string, got {type(content).__name__}", ("messages", index, "content"))
    return content


def _single_call(message: dict, index: int, template: str) -> dict:
    """The one tool call (its ``function``) of an assistant message, for the templates that render one."""
    calls = message["tool_calls"]
    if not isinstance(calls, list) or len(calls) != 1:
        raise TemplateError(
            f"messages[{index}].tool_calls: the {template} template renders exactly one tool call per "
            f"assistant message, got {len(calls) if isinstance(calls, list) else calls!r}",
            ("messages", index, "tool_calls"),
        )
    return _function(calls[0], index)


def _function(call: Any, index: int) -> dict:
    """A tool call's ``function`` object (the OpenAI shape) with a string name."""
    function = call.get("function") if isinstance(call, dict) else None
    if isinstance(function, dict):
        call = function
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise TemplateError(
            f"messages[{index}].tool_calls: a tool call needs a function with a string name", ("messages", index, "tool_calls")
        )
    return call
