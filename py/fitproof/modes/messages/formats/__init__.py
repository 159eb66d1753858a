"""Mode ``messages`` in three request formats: ``chat`` (OpenAI's Chat Completions, ``reading.py``),
``anthropic`` (Anthropic's Messages API) and ``responses`` (OpenAI's Responses API input items).

``format`` names one; without it the input's own keys and items say which, when they can only
mean one (``detect``), and the report says it was detected. Each reader turns the caller's items
into the chat reader's units (the indices of the caller's own items), so ``rule.py`` decides as it
does for a chat history, and what is sent is the caller's own items, in order, with only what a
request in that format takes.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import contains
from typing import Callable

from ...._base.values import (
    EMPTY,
    INVALID_VALUE,
    NO_USER_MESSAGE,
    Invalid,
    Problem,
    closest_name,
    expect_array,
    json_text,
    preview,
    problem_from,
    read_count,
    unknown_keys,
)
from ...._shared.checks import Check
from ...._shared.shape import InvalidInput, missing_key
from ....tokenizers import TOKENIZERS, counter
from ....tokenizers.model_names import counted_encoding
from .. import reading, rule
from ..accounting import PER_MESSAGE, callers_counter, tool_calls_text
from ..reading import INPUT_SUMMARY, cached_counter, raise_problems, read_tokenizer
from . import anthropic, responses
from ..pairing import ToolPairing
from ..tools import tool_costs as chat_tool_costs
from .common import GIVEN, cost_of, parsed_of, without_nulls
from .known import HISTORIES, remembered
from ..history import Parsed, Result

FORMATS = ("chat", "anthropic", "responses")
OWN_KEYS = ("pinned", GIVEN)
READERS = {"anthropic": anthropic, "responses": responses}
# Item types only a Responses input has, and content blocks only Anthropic's messages have.
RESPONSES_TYPES = frozenset(("message", *responses.ITEM_KEYS, *responses.NOT_READ))
ANTHROPIC_BLOCKS = frozenset(("tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document", *anthropic.NOT_COUNTED))


def detect(top: dict) -> tuple[str | None, bool]:
    """``(format, detected)``: the format named, or the one the input can only be; ``(None, False)``
    when it could be read as two (both are named in the problem). A plain history of ``{role,
    content}`` messages is the chat format, as it always was (not said to be detected)."""
    named = top.get("format")
    if named is not None:
        return named, False
    signals = set()
    if "system" in top:
        signals.add("anthropic")
    if "instructions" in top or "input" in top:
        signals.add("responses")
    items = top.get("input", top.get("messages"))
    if isinstance(items, list):
        for item in items:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("type"), str) and item["type"] in RESPONSES_TYPES:
                signals.add("responses")
            if item.get("role") == "tool" or "tool_calls" in item or "tool_call_id" in item:
                signals.add("chat")
            content = item.get("content")
            if isinstance(content, list):
                for block in content:
                    if _block_type(block) in ANTHROPIC_BLOCKS:
                        signals.add("anthropic")
                        break
            if len(signals) > 1:
                break
    if "chat" in signals or not signals:
        return "chat", False
    if len(signals) > 1:
        return None, False
    return signals.pop(), True


def parse(data: object, token_counter: Callable[[str], int] | None = None, require_user: bool = True) -> Parsed:
    """The chat reader's ``parsed`` dict for any of the three formats; raises ``InvalidInput``."""
    if not isinstance(data, dict) or (
        "format" not in data and not {"system", "instructions", "input"} & data.keys() and not _has_typed_items(data.get("messages"))
    ):
        return reading.parse(data, token_counter, require_user)  # the chat format, exactly as before
    fmt, detected = detect(data)
    if fmt == "chat":
        parsed = reading.parse({key: value for key, value in data.items() if key != "format"}, token_counter, require_user)
        parsed["format"], parsed["format_detected"] = "chat", False
        return parsed
    if not isinstance(fmt, str) or fmt not in READERS:
        if fmt is None:
            problem = Problem(
                ("format",),
                INVALID_VALUE,
                'the input reads as both the anthropic and the responses format: name it ("format": "anthropic" or "responses")',
            )
        else:
            guess = closest_name(fmt, FORMATS) if isinstance(fmt, str) else None
            problem = Problem(
                ("format",),
                INVALID_VALUE,
                f"expected one of {', '.join(FORMATS)}, got {preview(fmt)}" + (f"; did you mean {json_text(guess)}?" if guess else ""),
            )
        raise InvalidInput([problem], "input shape", INPUT_SUMMARY)
    return _parse_format(READERS[fmt], data, token_counter, require_user, detected)


def _block_type(block: object) -> str | None:
    """A content block's type (a JSON object's; an SDK object is no JSON value: the Python calls dump it first)."""
    kind = block.get("type") if isinstance(block, dict) else None
    return kind if isinstance(kind, str) else None


def _has_typed_items(items: object) -> bool:
    """A Responses input (an item with a Responses ``type``: a chat message has no ``type``) or
    Anthropic's messages (a block only Anthropic has, in a history without chat tool messages).
    At C speed for a chat history, which every chat call passes through."""
    if not isinstance(items, list) or not items:
        return False
    try:
        typed = any(map(contains, items, repeat("type")))
        contents = list(map(dict.get, items, repeat("content")))
        lists = list(compress(contents, map(isinstance, contents, repeat(list))))
    except TypeError:  # an item that is no object: the reader says so
        return False
    if typed and any(isinstance(item.get("type"), str) and item["type"] in RESPONSES_TYPES for item in items):
        return True
    for content in lists:
        if any(_block_type(block) in ANTHROPIC_BLOCKS for block in content):  # type: ignore[union-attr]  # compress kept the lists alone
            return not any(other.get("role") == "tool" or "tool_calls" in other for other in items)
    return False


def _parse_format(reader, data: dict, token_counter: Callable[[str], int] | None, require_user: bool, detected: bool) -> Parsed:
    problems: list[Problem] = []
    top = data
    problems.extend(unknown_keys(top, (), reader.TOP_KEYS))
    limit = None
    if "limit" not in top:
        problems.append(missing_key((), "limit"))
    else:
        try:
            limit = read_count(top["limit"])
        except Invalid as error:
            problems.append(problem_from(error, ("limit",)))
    tokenizer = reader.DEFAULT_TOKENIZER
    try:
        tokenizer = read_tokenizer(top.get("tokenizer", reader.DEFAULT_TOKENIZER))
    except Invalid as error:
        problems.append(problem_from(error, ("tokenizer",)))
    items_key = "messages"
    if reader is responses and "input" in top:
        items_key = "input"
        if "messages" in top:
            problems.append(
                Problem(("messages",), INVALID_VALUE, "give the items once: as input (the Responses API's name) or as messages")
            )
    system_texts: list[str] = []
    if reader is anthropic:
        system_texts = anthropic.read_system(top.get("system"), ("system",), problems)
    else:
        system_texts = responses.read_instructions(top.get("instructions"), ("instructions",), problems)
    tools: list[dict] = []
    if top.get("tools") is not None:
        tools = reader.read_tools(top["tools"], ("tools",), problems)
    top_problems = len(problems)
    records: list[dict | None] = []
    items: list = []
    remember = token_counter is None and tokenizer in TOKENIZERS and not problems
    key = (reader.NAME, tokenizer, items_key)
    known = None
    first = 0
    if items_key not in top:
        problems.append(missing_key((), items_key))
    else:
        try:
            items = expect_array(top[items_key])
        except Invalid as error:
            problems.append(problem_from(error, (items_key,)))
            items = []
        else:
            if not items:
                problems.append(Problem((items_key,), EMPTY, "expected at least one message, got an empty array"))
        known = HISTORIES.find(items, key) if remember and items else None  # a history read before: only what was appended is read
        first = len(known.snapshot) if known else 0
        records = (list(known.records) if known else []) + [
            reader.read_item(item, (items_key, index), problems) for index, item in enumerate(items[first:], first)
        ]
    readable = [
        item if item is not None else reader.as_far_as_readable(raw, (items_key, index))
        for index, (item, raw) in enumerate(zip(records[first:], items[first:]), first)
    ]
    grouping = known.grouping.copy() if known else ToolPairing(items_key, responses.joins_previous if reader is responses else None)  # type: ignore[attr-defined]
    grouping.feed(readable, first, problems, records[first - 1] if first else None)
    grouping.finish(problems)
    unit_of = grouping.unit_of
    # Beside any other problem (every one at once), unless an item could not be read: that one may be the user's turn.
    if records and require_user and None not in records and not any(item["user_turn"] for item in records if item is not None):
        roles = sorted({item["role"] for item in records if item is not None})
        problems.append(
            Problem(
                (items_key,),
                NO_USER_MESSAGE,
                f'no message has the role "user" (its roles: {", ".join(roles)}): a conversation sent to a model needs a user turn to answer',
            )
        )
    if problems:
        raise_problems(problems, items_key, top_problems)
    callers = token_counter is not None or tokenizer not in TOKENIZERS
    count = callers_counter(token_counter or counter(tokenizer)) if callers else cached_counter(tokenizer)
    word = {"tool": "user"} if reader is anthropic else {}
    costs = (list(known.costs) if known else []) + [cost_of(item, count, word.get(item["role"], item["role"])) for item in records[first:]]  # type: ignore[index, arg-type]  # no record is None once no problem was found
    if remember:
        HISTORIES.keep(remembered(key, items, records, costs, grouping.copy(), known), known)
    system_tokens = (
        PER_MESSAGE + count("system" if reader is anthropic else "developer") + sum(map(count, system_texts)) if system_texts else 0
    )
    if reader is anthropic:
        tool_costs, tools_tokens = anthropic.tool_costs(tools, count)
        names = [str(tool.get("name", tool.get("type", "tool"))) for tool in tools]
    else:
        chat_tools = [responses.as_chat_tool(tool) for tool in tools]
        function_costs, function_total = chat_tool_costs([tool for tool in chat_tools if tool], count, tokenizer)
        other = [
            count(tool_calls_text({key: value for key, value in tool.items() if value is not None}))
            for tool, chat in zip(tools, chat_tools)
            if chat is None
        ]
        costs_iter, other_iter = iter(function_costs), iter(other)
        tool_costs = [next(costs_iter) if chat else next(other_iter) for chat in chat_tools]
        tools_tokens = function_total + sum(other)
        names = [responses.tool_name(tool) for tool in tools]
    keep = reader.KEEP
    rename = reader is responses

    def sent(item: dict) -> dict:
        # The package's own keys (pinned, a count given as "tokens") are not sent.
        copied: dict = without_nulls({key: value for key, value in item.items() if key not in OWN_KEYS}, keep)  # type: ignore[assignment]  # a dict in, a dict out
        if rename and "async_" in copied:  # the SDK model's field name for the request's "async"
            copied["async"] = copied.pop("async_")
        if isinstance(copied.get("content"), list):
            drop = "size" if reader is responses else GIVEN  # a Responses image's size; an Anthropic block's given count
            copied["content"] = [
                {key: value for key, value in part.items() if key != drop} if isinstance(part, dict) else part for part in copied["content"]
            ]
        return copied

    parsed = parsed_of(
        records,  # type: ignore[arg-type]  # no record is None once no problem was found
        unit_of,
        costs,
        items,
        limit=limit,  # type: ignore[arg-type]  # read above whenever the mode trims
        tokenizer=tokenizer,
        fmt=reader.NAME,
        detected=detected,  # type: ignore[arg-type]
        items_key=items_key,
        system_tokens=system_tokens,
        tools=names,
        tool_costs=tool_costs,
        tools_tokens=tools_tokens,
        sent=sent,
    )
    parsed["model"] = top["tokenizer"] if counted_encoding(top.get("tokenizer")) else None  # a model name given as the tokenizer
    return parsed


def select(parsed: Parsed, with_trace: bool = True) -> Result:
    """``rule.select``, then what the format sends and counts: the caller's own items as a request
    in that format takes them, and the system prompt or instructions in the count."""
    fmt = parsed.get("format")
    if fmt is None or fmt == "chat":
        result = rule.select(parsed, with_trace)
        if fmt is not None:
            result["format"] = fmt
        return result
    blank: dict = {}
    result = rule.select(
        {**parsed, "messages": [blank] * len(parsed["costs"])}, with_trace
    )  # (its copies are the chat format's: replaced below)
    result["format"] = fmt
    if parsed.get("format_detected"):
        result["format_detected"] = True
    if fmt == "chat":
        return result
    kept, costs, items, flat = result["kept"], parsed["costs"], parsed["messages"], parsed["format_flat"]
    tokens = parsed["priming"] + parsed["tools_tokens"] + sum(map(costs.__getitem__, kept)) if kept else 0
    result["tokens"], result["remaining"] = tokens, parsed["limit"] - tokens
    sent = parsed["sent"]
    result["messages"] = [dict(items[index]) if flat[index] and "pinned" not in items[index] else sent(items[index]) for index in kept]
    result["system_tokens"] = parsed["system_tokens"]
    given = parsed["given_counts"]
    result["given_counts"] = given
    if given and "trace" in result:  # each item's row carries the counts the caller gave of it
        given_of: dict[int, int] = {}
        for row in given:
            given_of[row["index"]] = given_of.get(row["index"], 0) + row["tokens"]
        for row in result["trace"]:
            if row["index"] in given_of:
                row["given_tokens"] = given_of[row["index"]]
    return result


def verify(data: object, result: Result, parsed: Parsed | None = None) -> list[Check]:
    from .. import chat_checks
    from . import format_checks as checks

    assert isinstance(data, dict)  # evaluate verifies only an input its parse read as an object
    fmt = detect(data)[0]  # re-read from the input, not the report
    if not isinstance(fmt, str) or fmt not in READERS:
        return chat_checks.verify(
            {key: value for key, value in data.items() if key != "format"} if "format" in data else data, result, parsed
        )
    return checks.verify(data, result, fmt)


__all__ = ["FORMATS", "detect", "parse", "select", "verify"]
