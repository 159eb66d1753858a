"""Reading a chat history: the input's keys, then each message (``message.py``; only those appended
to a history read before, ``memory.py``), the tool calls paired (``pairing.py``), every problem
collected, and each message's cost counted (``accounting.py``)."""

from __future__ import annotations

import math
from typing import Callable, Sequence, cast

from ..._shared.count_memory import COUNTS
from ..._shared.shape import Field, InvalidInput, missing_key, read_fields
from ...tokenizers import TOKENIZERS, count_tokens, counter, named_tokenizer, resolve, uncounted_reason
from ...tokenizers.model_names import counted_encoding
from . import prompt_template as chat_template
from .accounting import callers_counter, message_cost
from .memory import HISTORIES, Known, frozen
from .message import ROLES, as_far_as_readable
from .message import read_message as _read_message  # (looked up here on each call: tests count the messages read)
from .pairing import ToolPairing
from .tools import read_tools, tool_costs, tool_name
from ..._base.values import (
    EMPTY,
    INVALID_VALUE,
    NO_USER_MESSAGE,
    Invalid,
    Key,
    Problem,
    Unavailable,
    closest_name,
    expect_array,
    expect_object,
    json_text,
    preview,
    problem_from,
    read_count,
    WRONG_TYPE,
    unknown_keys,
)
from .history import Parsed, Read

DEFAULT_TOKENIZER = "o200k_base"

INPUT_SUMMARY = "Input needs a limit, a known tokenizer and a non-empty messages array."


def parse_layered(parse: Callable[..., Parsed], rest: dict, token_counter, require_user: bool, problems: list[Problem]) -> Parsed:
    """``parse(rest, ...)`` under a layer (strategy, context editing) that has read its own keys
    already: the layer's ``problems`` join the inner ones when the inner parse refuses the input."""
    try:
        return parse(rest, token_counter, require_user)
    except InvalidInput as invalid:
        if problems:
            raise InvalidInput([*invalid.problems, *problems], "input shape", INPUT_SUMMARY) from None
        raise


NO_USER_SUMMARY = "The history has no user message: there is no turn to answer."
MESSAGE_SUMMARY = "Each message needs a known role and text content, and every tool call its tool result."

_TOP_KEYS = ("mode", "limit", "tokenizer", "messages", "tools", "template", "template_options")
_MESSAGES: tuple[Key, ...] = ("messages",)


def read_tokenizer(value: object) -> str:
    """A tokenizer name or a model name (read as its encoding), its rank file loaded (``Unavailable`` when it cannot be)."""
    name = resolve(value)
    if isinstance(name, str) and name in TOKENIZERS:
        return _loaded(name)
    if isinstance(value, str) and named_tokenizer(value) is not None:  # read from a model's files (register_tokenizer)
        return value
    if uncounted_reason(value):
        raise Invalid(f"{uncounted_reason(value)}; got {preview(value)}")
    guess = closest_name(value, TOKENIZERS) if isinstance(value, str) else None
    raise Invalid(
        f"expected one of {', '.join(TOKENIZERS)} or a model name such as gpt-4o, got {preview(value)}"
        + (f"; did you mean {json_text(guess)}?" if guess else "")
    )


def _loaded(tokenizer: str) -> str:
    try:
        count_tokens("", tokenizer)  # loads (and checks) the rank files once, here
    except ValueError as error:  # TokenizerUnavailable: the message says where and how
        raise Unavailable(f"the {tokenizer} tokenizer is not available here: {error}") from None
    return tokenizer


_TOP = (Field("limit", read_count), Field("tokenizer", read_tokenizer, optional=True))


def parse(data: object, token_counter: Callable[[str], int] | None = None, require_user: bool = True) -> Parsed:
    """``{limit, tokenizer, model, messages, roles, pinned, flat, unit_of, costs, live_start, images,
    tools, tool_costs, tools_tokens}`` (with ``template``: its keys too); raises ``InvalidInput``.
    ``token_counter`` (the Python API's): counts every text instead of the named tokenizer."""
    problems: list[Problem] = []
    try:
        top = expect_object(data)
    except Invalid as error:
        raise InvalidInput([problem_from(error, ())], "input shape", INPUT_SUMMARY) from None
    limit, tokenizer, tools, template = _read_top(top, token_counter, problems)
    top_problems = len(problems)
    # The memories are by tokenizer name: a name read from a file may stand for another file in the next call.
    remembered_counts = token_counter is None and template is None and not (isinstance(tokenizer, str) and tokenizer not in TOKENIZERS)
    history = _read_history(top, tokenizer, remembered_counts, problems)
    known, read, first = history.known, history.read, history.first
    live_start = _live_start(top, read, first, known)
    # Beside any other problem (every one at once), unless a message's role could not be read: that one may be the user's.
    if (read or known) and live_start is None and require_user and not any(_is_role_problem(problem) for problem in problems):
        problems.append(
            Problem(
                _MESSAGES,
                NO_USER_MESSAGE,
                f'no message has the role "user" ({_roles_seen(read)}): a conversation sent to a model needs a user turn to answer',
            )
        )
    if problems:
        raise_problems(problems, "messages", top_problems)
    valid = cast("list[dict]", read)  # no problems: _read_message returns None only after recording one
    records = (known.records + valid) if known else valid
    roles = (known.roles if known else []) + [message["role"] for message in valid]
    pinned = (known.pinned if known else []) + [message["pinned"] for message in valid]
    flat = (known.flat if known else []) + [message["flat"] for message in valid]
    model = top["tokenizer"] if counted_encoding(top.get("tokenizer")) else None
    base: Read = {
        "limit": limit,
        "tokenizer": tokenizer,
        "model": model,
        "messages": top["messages"],
        "roles": roles,
        "pinned": pinned,
        "flat": flat,
        "unit_of": list(history.pairing.unit_of),
    }
    if template is not None:
        return _with_template(base, top, template, tools, len(records) if live_start is None else live_start)
    count = cached_counter(tokenizer) if remembered_counts else callers_counter(token_counter or counter(tokenizer))
    costs: list[int] = list(known.costs) if known else []
    images: list[dict] = list(known.images) if known else []
    for index, message in enumerate(valid, first):
        cost, message_images = message_cost(message, count, index)
        costs.append(cost)
        images.extend(message_images)
    if remembered_counts:
        appended, chars = frozen(top["messages"][first:])
        remembered = Known(
            tokenizer,
            (known.snapshot if known else []) + appended,
            records,
            history.pairing,
            history.call_sites,
            costs,
            images,
            live_start,
            roles,
            pinned,
            flat,
        )
        remembered.chars = (known.chars if known else 0) + chars
        HISTORIES.keep(remembered, known)
    parsed_tool_costs, tools_tokens = tool_costs(tools, count, tokenizer)
    return {
        **base,
        "costs": costs,
        "live_start": len(records) if live_start is None else live_start,
        "images": [{**image, "size": image["size"] and list(image["size"])} for image in images],
        "tools": [tool_name(tool) for tool in tools],
        "tool_costs": parsed_tool_costs,
        "tools_tokens": tools_tokens,
    }


def _read_top(top: dict, token_counter: Callable[[str], int] | None, problems: list[Problem]) -> tuple[int, str, list[dict], str | None]:
    """The keys beside the messages: the limit, the tokenizer (loaded), the tools, the template."""
    problems.extend(unknown_keys(top, (), _TOP_KEYS))
    limit, tokenizer = read_fields(top, (), _TOP, problems)
    if "tokenizer" not in top:
        try:
            tokenizer = _loaded(DEFAULT_TOKENIZER)
        except Unavailable as error:
            problems.append(problem_from(error, ("tokenizer",)))
    tools: list[dict] = []
    if top.get("tools") is not None:
        tools = read_tools(top["tools"], ("tools",), problems) or []
    template = None
    if top.get("template") is not None:
        if token_counter is not None:
            problems.append(Problem(("template",), INVALID_VALUE, "a template counts with the model's tokenizer; leave token_counter out"))
        else:
            template = chat_template.read_template(top, tokenizer, problems)
        if isinstance(top.get("messages"), list):
            chat_template.check_messages(top["messages"], problems, top["template"])
    elif top.get("template_options") is not None:
        problems.append(Problem(("template_options",), INVALID_VALUE, "template_options are a template's options: give template too"))
    return limit, tokenizer, tools, template


class _History:
    """What ``_read_history`` read: the remembered history it extends, the appended messages read
    (None for an invalid one), the index of the first of them, the pairing and the call ids' sites."""

    __slots__ = ("known", "read", "first", "pairing", "call_sites")

    def __init__(self, known: Known | None, read: Sequence[dict | None], first: int, pairing: ToolPairing, call_sites: dict) -> None:
        self.known, self.read, self.first, self.pairing, self.call_sites = known, read, first, pairing, call_sites


def _read_history(top: dict, tokenizer: str, remembered: bool, problems: list[Problem]) -> _History:
    """The messages read (only those appended to a remembered history) and their tool calls paired."""
    pairing = ToolPairing("messages", stray_ends_unit=False, duplicates=False)  # (each message's ids checked as it is read)
    if "messages" not in top:
        problems.append(missing_key((), "messages"))
        return _History(None, [], 0, pairing, {})
    try:
        messages = expect_array(top["messages"])
    except Invalid as error:
        problems.append(problem_from(error, _MESSAGES))
        return _History(None, [], 0, pairing, {})
    if not messages:
        problems.append(Problem(_MESSAGES, EMPTY, "expected at least one message, got an empty array"))
    known = (
        HISTORIES.find(messages, tokenizer) if remembered and not problems else None
    )  # a history read before: only what was appended is read
    call_sites: dict = dict(known.call_sites) if known else {}
    first = len(known.snapshot) if known else 0
    if known:
        pairing = known.pairing.copy()  # type: ignore[attr-defined]
    read = [_read_message(message, (*_MESSAGES, index), problems, call_sites) for index, message in enumerate(messages[first:], first)]
    readable = (
        read
        if None not in read
        else [
            as_far_as_readable(given, index) if record is None else record
            for index, (record, given) in enumerate(zip(read, messages[first:]), first)
        ]
    )
    pairing.feed(readable, first, problems)
    pairing.finish(problems)
    return _History(known, read, first, pairing, call_sites)


def _live_start(top: dict, read: Sequence[dict | None], first: int, known: Known | None) -> int | None:
    """The newest user message (None: there is none)."""
    new_users = [index for index, message in enumerate(read, first) if message is not None and message["role"] == "user"]
    live_start = new_users[-1] if new_users else (known.last_user if known else None)
    if "messages" in top and isinstance(top["messages"], list) and not new_users and live_start is None:
        live_start = max(
            (index for index, message in enumerate(top["messages"]) if isinstance(message, dict) and message.get("role") == "user"),
            default=None,
        )
    return live_start


def _is_role_problem(problem: Problem) -> bool:
    """Whether the problem leaves a message's role unknown: the role itself, a message without one,
    or a message that is no object."""
    at = problem.at
    if len(at) == 3 and at[0] == "messages" and at[2] == "role":
        return True
    return len(at) == 2 and at[0] == "messages" and (problem.about == "role" or problem.code == WRONG_TYPE)


def raise_problems(problems: list[Problem], items_key: str, top_problems: int) -> None:
    """``InvalidInput`` with every problem, each item's together in input order; its kind and summary
    by where they are (``top_problems``: how many are outside the items, found first)."""

    def position(problem: Problem) -> float:  # the index of the item the problem is in; -1 outside every item
        at = problem.at
        if problem.code == NO_USER_MESSAGE:  # about the items as a whole: after each item's own
            return math.inf
        return at[1] if len(at) >= 2 and at[0] == items_key and isinstance(at[1], int) else -1

    problems.sort(key=position)  # stable: each item's problems together, in input order
    only_items = top_problems == 0 and all(position(problem) >= 0 for problem in problems)
    if top_problems == 0 and problems[0].code == NO_USER_MESSAGE:
        raise InvalidInput(problems, "message shape", NO_USER_SUMMARY)
    raise InvalidInput(problems, "message shape" if only_items else "input shape", MESSAGE_SUMMARY if only_items else INPUT_SUMMARY)


def _with_template(base: Read, top: dict, template: str, tools: list[dict], live_start: int) -> Parsed:
    """``parse``'s result with each message's share of the rendered prompt as its cost."""
    tokenizer = base["tokenizer"]
    try:
        detail = chat_template.counted(top["messages"], template, tokenizer, top.get("tools"), chat_template.read_options(top))
    except chat_template.templates.TemplateError as error:
        at: tuple[Key, ...] = error.at or (("tokenizer",) if error.special_token is not None else ("template",))
        problem = Problem(at, INVALID_VALUE, f"the template {json_text(template)} cannot render this: {error}")
        raise InvalidInput([problem], "input shape", INPUT_SUMMARY) from None
    return {
        **base,
        "costs": list(detail.per_message),
        "live_start": live_start,
        "images": [],
        "tools": [tool_name(tool) for tool in tools],
        "tool_costs": [0] * len(tools),
        "tools_tokens": 0,
        "template": template,
        "priming": detail.overhead,
        "template_tools": top.get("tools"),
        "template_options": chat_template.read_options(top),
    }


def _roles_seen(read: Sequence[dict | None]) -> str:
    roles = sorted({message["role"] for message in read if message is not None}, key=ROLES.index)
    return "its roles: " + ", ".join(roles) if roles else "no message could be read"


# ---------------------------------------------------------------- counting


def cached_counter(tokenizer: str) -> Callable[[str], int]:
    """``count_tokens`` through the counts remembered across calls (``_shared/count_memory``): each text
    is counted once per process while it stays in that bounded memory."""
    return COUNTS.counter(tokenizer, counter(tokenizer))
