"""What a chat message costs: OpenAI's accounting for its chat models (the cookbook's
``num_tokens_from_messages``: 3 a message, each value's count, 1 more for a name, 3 that prime the
reply), the tool calls' JSON, the images' tile rule, and a caller's own counter."""

from __future__ import annotations

import json
from typing import Callable

from ..._base.errors import InvalidInputError
from ..._base.values import preview
from .images import LOW_DETAIL, MOST, data_url_size, tile_cost

# OpenAI's accounting for its chat models (the cookbook's num_tokens_from_messages).
PER_MESSAGE, PER_NAME, REPLY_PRIMING = 3, 1, 3


def callers_counter(token_counter: Callable[[str], int]) -> Callable[[str], int]:
    """A caller's ``text -> int``, each distinct text counted once in this call (never remembered
    beyond it); a result that is no count is an error naming it."""
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        tokens = cache.get(text)
        if tokens is None:
            tokens = token_counter(text)
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise InvalidInputError(f"token_counter must return a count (an int from 0), got {tokens!r} for the text {preview(text)}")
            cache[text] = tokens
        return tokens

    return count


def tool_calls_text(tool_calls: object) -> str:
    """How a ``tool_calls`` list (or a ``function_call``, an ``audio`` reference) is counted: its
    compact JSON, keys as given (an approximation: OpenAI does not publish how it renders calls
    into the prompt)."""
    return json.dumps(tool_calls, separators=(",", ":"), ensure_ascii=False)


def image_cost(url: str, detail: str, size: tuple[int, int] | None) -> tuple[int, tuple[int, int] | None]:
    """An image's tokens by the tile rule, and the size it was counted at (None: unknown, the most)."""
    if detail == "low":
        return LOW_DETAIL, size
    size = size or data_url_size(url)
    return (MOST, None) if size is None else (tile_cost(size[0], size[1], detail), size)


def message_cost(message: dict, count: Callable[[str], int], index: int = 0) -> tuple[int, list[dict]]:
    """The message's tokens, and a row per image part (``{index, part, tokens, detail, size, at_most}``)."""
    cost = PER_MESSAGE + count(message["role"]) + sum(map(count, message["texts"]))
    if message["name"] is not None:
        cost += count(message["name"]) + PER_NAME
    if message["tool_call_id"] is not None:
        cost += count(message["tool_call_id"])
    for text in message["json_texts"]:
        cost += count(text)
    images = []
    for part, url, detail, size in message["images"]:
        tokens, counted_at = image_cost(url, detail, size)
        cost += tokens
        images.append(
            {
                "index": index,
                "part": part,
                "tokens": tokens,
                "detail": detail,
                "size": list(counted_at) if counted_at else None,
                "at_most": detail != "low" and counted_at is None,
            }
        )
    return cost, images
