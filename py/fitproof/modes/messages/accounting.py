"""What a chat message costs: OpenAI's accounting for its chat models (the cookbook's
``num_tokens_from_messages``: 3 a message, each value's count, 1 more for a name, 3 that prime the
reply), the tool calls' JSON, the images' tile rule, and a caller's own counter."""

from __future__ import annotations

import json
import threading
import types
import weakref
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


# A caller's token_counter's answers, remembered across calls: a counter must be pure (the same
# text, the same count), so a history that grew by two turns asks it about the new texts only.
# Bounded: the last MAX_COUNTERS counters (held weakly: a counter let go of takes its answers with
# it), each with at most MAX_REMEMBERED_CHARACTERS characters of text (the oldest answers go first).
MAX_COUNTERS = 8
MAX_REMEMBERED_CHARACTERS = 1 << 25
_MEMORY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class _Answers(dict):
    """One counter's answers, text -> count, oldest first, with the characters they hold."""

    __slots__ = ("characters",)

    def __init__(self) -> None:
        super().__init__()
        self.characters = 0


def _answers_of(token_counter: Callable[[str], int]) -> _Answers | None:
    """The remembered answers of ``token_counter`` (a bound method's by its object and function);
    None for a counter that cannot be held weakly (``__slots__`` without ``__weakref__``), asked
    within the call only."""
    owner, function = (
        (token_counter.__self__, token_counter.__func__) if isinstance(token_counter, types.MethodType) else (token_counter, None)
    )
    try:
        with _LOCK:
            by_function = _MEMORY.get(owner)
            if by_function is None:
                while len(_MEMORY) >= MAX_COUNTERS:
                    del _MEMORY[next(iter(_MEMORY.keys()))]
                by_function = _MEMORY[owner] = {}
            answers = by_function.get(function)
            if answers is None:
                answers = by_function[function] = _Answers()
            return answers
    except TypeError:  # not weakly referable, or not hashable
        return None


class RememberedCounter:
    """A caller's ``text -> int`` asked once per text across calls (see MAX_COUNTERS), its answers
    checked to be counts; ``calls`` is how many times this call asked it."""

    __slots__ = ("_count", "_answers", "calls")

    def __init__(self, token_counter: Callable[[str], int]) -> None:
        self._count = token_counter
        self._answers = _answers_of(token_counter)
        self.calls = 0

    def __call__(self, text: str) -> int:
        answers = self._answers
        if answers is not None:
            tokens = answers.get(text)
            if tokens is not None:
                return tokens
        tokens = self._count(text)
        self.calls += 1
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise InvalidInputError(f"token_counter must return a count (an int from 0), got {tokens!r} for the text {preview(text)}")
        if answers is not None and len(text) <= MAX_REMEMBERED_CHARACTERS:
            with _LOCK:
                if text not in answers:
                    answers[text] = tokens
                    answers.characters += len(text)
                    while answers.characters > MAX_REMEMBERED_CHARACTERS:
                        oldest = next(iter(answers))
                        answers.characters -= len(oldest)
                        del answers[oldest]
        return tokens


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
