"""Packing whole passages against the fully rendered prompt (seed 004), for any counter.

``pack_passages`` is the library API for real tokenizers: it measures every complete
candidate prompt with the given counter, exactly as the seed does. The ``passages`` mode
uses the same rendering with its built-in counters, which it can evaluate in linear time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, NamedTuple

from ._ordinal import identity_key
from ._values import JS_WHITESPACE, json_text, preview

ANSWER_CUE = "Answer:"


class PackError(ValueError):
    """Invalid input for ``pack_passages``, or a counter that broke its contract."""


class Packed(NamedTuple):
    """What ``pack_passages`` kept: ``chosen`` (id, text) pairs in retrieval order, the
    ``skipped`` ids, the complete ``prompt`` with the chosen passages, and ``units``, the
    counter's count of that prompt."""

    chosen: list[tuple[str, str]]
    skipped: list[str]
    prompt: str
    units: int


def prompt_prefix(question: str) -> str:
    return "Question: " + question + "\nSources:\n"


def passage_line(passage_id: str, text: str) -> str:
    return f"[{passage_id}] {text}\n"


def render(question: str, passages: Sequence[tuple[str, str]]) -> str:
    """The seed's prompt: the question, a ``[id] text`` line per passage, then the answer cue."""
    return prompt_prefix(question) + "".join(passage_line(key, text) for key, text in passages) + ANSWER_CUE


def pack_passages(
    question: str,
    passages: Sequence[tuple[str, str]],
    limit: int,
    count: Callable[[str], int],
) -> Packed:
    """Keep each passage, in retrieval order, exactly when the complete prompt with it fits ``limit``.

    ``passages`` are ``(id, text)`` pairs (or ``{"id", "text"}`` dicts); ``count`` is any
    counter of the exact model input, such as ``lambda text: len(tokenizer.encode(text))``
    or ``lambda text: count_tokens(text, "o200k_base")``; it must return a non-negative
    integer. Each candidate prompt is rendered whole and counted, so template and separator
    costs are never missed (``n + 1`` calls for ``n`` passages).

    Raises :class:`PackError` (a ``ValueError``) for invalid input, when the prompt without
    passages is already over ``limit``, or when ``count`` returns anything but a
    non-negative integer.
    """
    if type(limit) is not int or limit < 0:
        raise PackError(f"limit must be a non-negative integer, got {preview(limit)}")
    if not isinstance(question, str):
        raise PackError(f"question must be a string, got {preview(question)}")
    if not callable(count):
        raise PackError(f"count must be a function from a text to its number of tokens, got {preview(count)}")
    if isinstance(passages, (str, bytes, dict)) or not hasattr(passages, "__iter__"):
        raise PackError(f"passages must be a list of (id, text) pairs, got {preview(passages)}")
    pairs = []
    for index, passage in enumerate(passages):
        if isinstance(passage, dict) and set(passage) == {"id", "text"}:  # the passages mode's own shape
            passage = (passage["id"], passage["text"])
        elif isinstance(passage, (str, bytes, dict)) or not isinstance(passage, Sequence) or len(passage) != 2:
            raise PackError(f"passage {index} must be an (id, text) pair, got {preview(passage)}")
        key, text = passage
        if not isinstance(key, str) or not key.strip(JS_WHITESPACE):
            raise PackError(f"passage {index} needs a non-empty string id, got {preview(key)}")
        if not isinstance(text, str):
            raise PackError(f"passage {key!r} needs a string text, got {preview(text)}")
        pairs.append((key, text))
    ids = [identity_key(key) for key, _ in pairs]  # equal by UTF-16 code units, as the contract compares ids
    if len(set(ids)) != len(ids):
        seen: set = set()
        index = next(index for index, key in enumerate(ids) if key in seen or seen.add(key))
        raise PackError(f"passage ids must be unique: passage {index} repeats the id {json_text(pairs[index][0])}")

    def measure(prompt: str) -> int:
        units = count(prompt)
        if type(units) is not int or units < 0:
            raise PackError(f"the counter must return a non-negative integer, returned {preview(units)}")
        return units

    prefix = prompt_prefix(question)
    units = measure(prefix + ANSWER_CUE)
    if units > limit:
        raise PackError(f"the prompt without passages counts {units}, over the limit of {limit}")
    chosen: list[tuple[str, str]] = []
    lines: list[str] = []
    skipped: list[str] = []
    for key, text in pairs:
        line = passage_line(key, text)
        candidate = measure(prefix + "".join(lines) + line + ANSWER_CUE)
        if candidate <= limit:
            chosen.append((key, text))
            lines.append(line)
            units = candidate
        else:
            skipped.append(key)
    return Packed(chosen, skipped, prefix + "".join(lines) + ANSWER_CUE, units)
