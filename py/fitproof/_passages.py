"""Packing whole passages against the fully rendered prompt, for any counter, by the method of seed
004, the retrieval example mode ``passages`` adapts (docs/contract.md, "Where the modes come from").

``pack_passages`` is the library API for real tokenizers: it measures every complete
candidate prompt with the given counter, exactly as the retrieval example does. The ``passages`` mode
uses the same rendering with its built-in counters, which it can evaluate in linear time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, NamedTuple, cast

from ._base.errors import InvalidInputError, input_problems
from ._shared.shape import read_records
from .modes.passages import ANSWER_CUE, PASSAGE_FIELDS, passage_line, prompt_prefix
from ._base.values import DUPLICATE_ID, INVALID_VALUE, OVER_LIMIT, WRONG_TYPE, Key, Problem, json_text, preview


class PackError(InvalidInputError):
    """Invalid input for ``pack_passages`` (its problem in ``.problems``), or a counter that
    broke its contract (no problems: the input was fine)."""


def _refused(message: str, at: tuple[Key, ...] = (), code: str = INVALID_VALUE) -> PackError:
    return PackError(message, input_problems([Problem(at, code, message)]))


class Packed(NamedTuple):
    """What ``pack_passages`` kept: ``chosen`` (id, text) pairs in retrieval order, the
    ``skipped`` ids, the complete ``prompt`` with the chosen passages, and ``units``, the
    counter's count of that prompt."""

    chosen: list[tuple[str, str]]
    skipped: list[str]
    prompt: str
    units: int


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
        raise _refused(f"limit must be a non-negative integer, got {preview(limit)}", ("limit",))
    if not isinstance(question, str):
        raise _refused(f"question must be a string, got {preview(question)}", ("question",), WRONG_TYPE)
    if not callable(count):
        raise _refused(f"count must be a function from a text to its number of tokens, got {preview(count)}", ("count",), WRONG_TYPE)
    pairs = _read_passages(passages)

    def measure(prompt: str) -> int:
        units = count(prompt)
        if type(units) is not int or units < 0:
            raise PackError(f"the counter must return a non-negative integer, returned {preview(units)}")
        return units

    prefix = prompt_prefix(question)
    units = measure(prefix + ANSWER_CUE)
    if units > limit:
        raise _refused(f"the prompt without passages counts {units}, over the limit of {limit}", ("limit",), OVER_LIMIT)
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


def _read_passages(passages: object) -> list[tuple[str, str]]:
    """The (id, text) pairs, read by the passages mode's fields; the first problem raised as a
    ``PackError`` (a passage's own problem before any repeated id)."""
    if isinstance(passages, (str, bytes, dict)) or not hasattr(passages, "__iter__"):
        raise _refused(f"passages must be a list of (id, text) pairs, got {preview(passages)}", ("passages",), WRONG_TYPE)
    records: list[dict] = []
    not_a_pair = None
    for index, passage in enumerate(passages):
        if isinstance(passage, dict) and set(passage) == {"id", "text"}:  # the passages mode's own shape
            records.append(passage)
        elif isinstance(passage, (str, bytes, dict)) or not isinstance(passage, Sequence) or len(passage) != 2:
            not_a_pair = (index, passage)
            break
        else:
            records.append({"id": passage[0], "text": passage[1]})
    problems: list[Problem] = []
    read = read_records(records, ("passages",), PASSAGE_FIELDS, problems)
    own = [problem for problem in problems if problem.code != DUPLICATE_ID]
    if own:
        index, field = cast(int, own[0].at[1]), own[0].at[2]  # ("passages", index, field)
        value = records[index][field]
        if field == "id":
            message = f"passage {index} needs a non-empty string id, got {preview(value)}"
        else:
            message = f"passage {records[index]['id']!r} needs a string text, got {preview(value)}"
        raise PackError(message, _as_raised(own[0], message))
    if not_a_pair is not None:
        index, passage = not_a_pair
        raise _refused(f"passage {index} must be an (id, text) pair, got {preview(passage)}", ("passages", index), WRONG_TYPE)
    if problems:
        index = cast(int, problems[0].at[1])  # ("passages", index, "id")
        message = f"passage ids must be unique: passage {index} repeats the id {json_text(records[index]['id'])}"
        raise PackError(message, _as_raised(problems[0], message))
    return [(key, text) for key, text in cast("list[list]", read or ())]  # no problems: every element was read


def _as_raised(problem: Problem, message: str) -> tuple:
    return input_problems([problem._replace(message=message)])
