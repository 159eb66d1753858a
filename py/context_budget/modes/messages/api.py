"""The library API for chat histories: ``trim_messages``, ``count_messages`` and ``MessagesError``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._errors import InvalidInputError
from ..._shape import InvalidInput
from ..._values import LIMIT_TOO_LOW, MAX_SAFE_INTEGER, Problem, got, plural, preview
from .reading import DEFAULT_TOKENIZER, REPLY_PRIMING, parse
from .rule import select, summarize


class MessagesError(InvalidInputError):
    """Invalid input for ``trim_messages``/``count_messages``, or pinned messages over the limit.

    ``problems`` holds every problem found (``problem.path``, ``problem.message``, also
    readable as ``problem["path"]``); none when ``messages`` is not a list at all.
    """


def _error(text: str, problems: list[Problem]) -> MessagesError:
    from ..._selection import input_problems  # the typed API's dataclasses: loaded only to raise

    return MessagesError(text, input_problems(problems))


def _parse_call(messages: object, limit: object, tokenizer: object) -> dict:
    if not isinstance(messages, list):
        # One message, or text, would iterate as keys or characters: say what was meant instead.
        if isinstance(messages, (dict, str, bytes, bytearray)):
            hint = " (one message? put it in a list: [message])" if isinstance(messages, dict) else ""
            raise MessagesError(f"messages must be a list of message dicts, got {got(messages)}{hint}")
        try:
            messages = list(messages)  # a tuple or any other sequence of messages
        except TypeError:
            raise MessagesError(f"messages must be a list of message dicts, got {preview(messages)}") from None
    if not all(isinstance(message, dict) for message in messages):  # another mapping reads as the dict it holds
        messages = [dict(message) if isinstance(message, Mapping) else message for message in messages]
    try:
        return parse({"mode": "messages", "limit": limit, "tokenizer": tokenizer, "messages": messages})
    except InvalidInput as invalid:
        first = invalid.problems[0]
        more = len(invalid.problems) - 1
        text = f"{first.path}: {first.message}" + (f" (and {plural(more, 'more problem')}; see .problems)" if more else "")
        raise _error(text, invalid.problems) from None


def trim_messages(messages: Sequence[Mapping[str, object]], limit: int, tokenizer: str = DEFAULT_TOKENIZER) -> list[dict[str, Any]]:
    """The newest turns of an OpenAI-format chat history that fit ``limit`` prompt tokens,
    with the system, developer and pinned messages, ready to send.

    ``messages``: a list (or other sequence) of message dicts, ``{role, content, name?,
    tool_calls?, tool_call_id?, pinned?}``; ``tokenizer``: ``"o200k_base"`` (GPT-4o and
    later), ``"cl100k_base"`` (GPT-4, GPT-3.5) or ``"estimate"``. The same rule and counts as
    ``evaluate`` in mode ``messages`` (without the checks). The kept messages come back in
    input order, without this tool's ``pinned`` key, as copies: changing them leaves
    ``messages`` as it was.

    Raises :class:`MessagesError` (an ``InvalidInputError``, a ``ValueError``; every problem
    in ``.problems``) for invalid input, naming the JSON path (``$.messages[2].role``) and
    the value received, and when the pinned messages and the reply priming alone exceed the limit.
    """
    result = select(_parse_call(messages, limit, tokenizer))
    if result["shortfall"]:
        raise _error(summarize(result), [Problem(("limit",), LIMIT_TOO_LOW, summarize(result))])
    return result["messages"]


def count_messages(messages: Sequence[Mapping[str, object]], tokenizer: str = DEFAULT_TOKENIZER) -> int:
    """The prompt tokens of sending ``messages`` as they are: OpenAI's accounting (3 per
    message, plus each value's count, plus 3 that prime the reply), by ``tokenizer``:
    ``"o200k_base"``, ``"cl100k_base"`` or ``"estimate"``. Raises :class:`MessagesError`
    for invalid input."""
    parsed = _parse_call(messages, MAX_SAFE_INTEGER, tokenizer)
    return REPLY_PRIMING + sum(parsed["costs"])
