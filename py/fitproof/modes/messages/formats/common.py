"""What the Anthropic and Responses readers share: each item read into a record (which
``pairing.py`` groups into the units the chat reader makes: a tool use with its results), and the ``parsed``
dict ``rule.py`` takes, so that the rule and its walk are the chat format's own.

A record is ``{role, pinned, calls, answers, joins, closes, user_turn, texts, json_texts, images, given, flat}``:

- ``role``: the role the rule reads (``system``, ``developer``, ``user``, ``assistant``, or ``tool``
  for an item that carries tool results);
- ``calls``: ``[(id, path)]`` of the tool uses the item makes; ``answers``: ``[(id, path)]`` of the
  results it carries;
- ``joins``: the item belongs to the unit of the item before it (a Responses function call after
  its reasoning or its assistant message);
- ``closes``: the unit's results are all in this one item (Anthropic: one user message answers
  every ``tool_use`` of the assistant message before it);
- ``user_turn``: the item starts a turn of the user's own (the live turn starts at the newest);
- ``given``: ``[{block, type, tokens}]``, the caller's own counts (``"tokens"``) of what this mode does
  not count itself: an Anthropic block (``block``: its index in the content), a Responses item
  (``block``: None).
"""

from __future__ import annotations

import json
from typing import Callable, Iterator

from ...._shared.shape import missing_key
from ...._base.values import INVALID_VALUE, NOT_TEXT, WRONG_TYPE, Invalid, Key, Problem
from ...._base.values import closest_name, got, json_text, json_value_problem, preview, problem_from, read_bool, read_count, unknown_keys
from ..accounting import PER_MESSAGE, REPLY_PRIMING
from ..history import Parsed


def record(role: str, pinned: bool = False, **fields: object) -> dict:
    base = {
        "role": role,
        "pinned": pinned or role in ("system", "developer"),
        "calls": [],
        "answers": [],
        "joins": False,
        "closes": False,
        "user_turn": role == "user",
        "texts": [],
        "json_texts": [],
        "images": [],
        "given": [],
        "flat": False,
    }
    base.update(fields)
    return base


def read_tool_list(
    value: object,
    at: tuple[Key, ...],
    problems: list[Problem],
    shape: str,
    read_fields: Callable[[dict, tuple[Key, ...], list[Problem]], None],
) -> list[dict]:
    """A format's tool definitions: an array of objects made of JSON values (from Python: no date,
    set or cycle, at any depth), each then read by the format's ``read_fields``; ``shape`` says what
    one looks like. The definitions without a problem, in order."""
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected an array of tool definitions{shape and ' ' + shape}, got {got(value)}"))
        return []
    tools = []
    for index, tool in enumerate(value):
        tool_at = (*at, index)
        if not isinstance(tool, dict):
            problems.append(Problem(tool_at, WRONG_TYPE, f"expected a tool definition {shape or '{type, name, ...}'}, got {got(tool)}"))
            continue
        if not_json := json_value_problem(tool):
            problems.append(Problem((*tool_at, *not_json[0]), WRONG_TYPE, not_json[1]))
            continue
        count = len(problems)
        read_fields(tool, tool_at, problems)
        if len(problems) == count:
            tools.append(tool)
    return tools


def typed_elements(
    value: object, at: tuple[Key, ...], problems: list[Problem], listed: str, example: str
) -> Iterator[tuple[int, tuple[Key, ...], dict]]:
    """The objects with a ``type`` of a content array (Anthropic's blocks, a Responses item's parts),
    each with its index and path; the problems of the rest said at theirs. ``listed``: what the array holds,
    in words; ``example``: what one element looks like."""
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected a string or an array of {listed}, got {got(value)}"))
        return
    for index, element in enumerate(value):
        element_at = (*at, index)
        if not isinstance(element, dict):
            problems.append(Problem(element_at, WRONG_TYPE, f"expected {example}, got {got(element)}"))
        elif "type" not in element:
            problems.append(missing_key(element_at, "type"))
        else:
            yield index, element_at, element


def unknown_type(type_at: tuple[Key, ...], kind: object, allowed: tuple[str, ...], known: tuple[str, ...]) -> Problem:
    """The problem of a block or part whose type is none the format knows: the closest it knows named."""
    guess = closest_name(kind, known) if isinstance(kind, str) else None
    hint = f"; did you mean {json_text(guess)}?" if guess else ""
    return Problem(
        type_at, INVALID_VALUE if isinstance(kind, str) else WRONG_TYPE, f"expected one of {', '.join(allowed)}, got {preview(kind)}{hint}"
    )


def type_not_allowed(
    type_at: tuple[Key, ...],
    kind: object,
    allowed: tuple[str, ...],
    known: tuple[str, ...],
    noun: str,
    where: str,
    not_counted: tuple[tuple[str, ...], str],
    renamed: tuple[tuple[str, ...], str] = ((), ""),
) -> Problem:
    """The problem of a ``noun`` (block, part) whose type is not allowed in ``where``, most telling
    first: a type this mode does not count (``not_counted``: the types and why), one the format
    knows but not here, another format's name for a type (``renamed``: the types and the hint), or
    one the format does not know at all."""
    if isinstance(kind, str) and kind in not_counted[0]:
        return Problem(type_at, NOT_TEXT, f"a content {noun} of type {json_text(kind)} {not_counted[1]}")
    if isinstance(kind, str) and kind in known:
        return Problem(type_at, NOT_TEXT, f"{where} cannot have a {noun} of type {json_text(kind)} (allowed: {', '.join(allowed)})")
    if isinstance(kind, str) and kind in renamed[0]:
        return Problem(type_at, INVALID_VALUE, f"expected one of {', '.join(allowed)}, got {json_text(kind)}: {renamed[1]}")
    return unknown_type(type_at, kind, allowed, known)


GIVEN = "tokens"  # the key of a count given by the caller, never sent


def read_given(obj: dict, at: tuple[Key, ...], problems: list[Problem]) -> int | None:
    """The caller's count (``"tokens"``) of a block or an item this mode does not count itself: an
    integer from 0; the object's other fields JSON values (it is sent as given). None, with the
    problem said at its path, when it is not."""
    count = len(problems)
    tokens = None
    try:
        tokens = read_count(obj[GIVEN], what="a token count (an integer)")
    except Invalid as error:
        problems.append(problem_from(error, (*at, GIVEN)))
    if not_json := json_value_problem(obj):  # from Python: a date, a set, bytes, a cycle, any depth
        problems.append(Problem((*at, *not_json[0]), WRONG_TYPE, not_json[1]))
    return tokens if len(problems) == count else None


def keys_of_counted(obj: dict, at: tuple[Key, ...], known: tuple[str, ...], what: str, such_as: str, problems: list[Problem]) -> None:
    """The unknown keys of an object this mode counts itself (``what``: it in words); a ``"tokens"``
    on it refused in words of its own, since it would be ignored otherwise."""
    if GIVEN not in obj:
        problems.extend(unknown_keys(obj, at, known))
        return
    problems.append(
        Problem(
            (*at, GIVEN),
            INVALID_VALUE,
            f'this mode counts {what} itself, so a count given as "tokens" would be ignored: "tokens" is only for '
            f"what it does not count ({such_as}), got {preview(obj[GIVEN])}",
        )
    )
    problems.extend(unknown_keys({key: value for key, value in obj.items() if key != GIVEN}, at, known))


def an_object(item: object, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    """The item when it is an object; else None, and the problem said at its path."""
    if isinstance(item, dict):
        return item
    problems.append(Problem(at, WRONG_TYPE, f"expected an object, got {got(item)}"))
    return None


def read_pinned(item: dict, at: tuple[Key, ...], always: bool, problems: list[Problem]) -> bool:
    """Whether the item is pinned: ``always`` (a system or developer message), or its own
    ``pinned`` (null is the same as left out), the problem said at its path."""
    if always or item.get("pinned") is None:
        return always
    try:
        return read_bool(item["pinned"])
    except Invalid as error:
        problems.append(problem_from(error, (*at, "pinned")))
        return False


def cost_of(item: dict, count: Callable[[str], int], role_word: str) -> int:
    """The chat accounting: 3 an item, its role's count, each text and JSON text counted, its images,
    the counts the caller gave."""
    return (
        PER_MESSAGE
        + count(role_word)
        + sum(map(count, item["texts"]))
        + sum(map(count, item["json_texts"]))
        + sum(image["tokens"] for image in item["images"])
        + sum(given["tokens"] for given in item["given"])
    )


def parsed_of(
    records: list[dict],
    unit_of: list[int],
    costs: list[int],
    items: list,
    *,
    limit: int,
    tokenizer: str,
    fmt: str,
    detected: bool,
    items_key: str,
    system_tokens: int,
    tools: list[str],
    tool_costs: list[int],
    tools_tokens: int,
    sent: Callable[[dict], dict],
) -> Parsed:
    """The dict ``rule.py`` reads (the chat reader's keys), with what the format adds."""
    users = [index for index, item in enumerate(records) if item["user_turn"]]
    live_start = unit_of[users[-1]] if users else len(records)
    images = []
    for index, item in enumerate(records):
        for image in item["images"]:
            images.append({"index": index, **{key: value for key, value in image.items() if key != "index"}})
    given_counts = [{"index": index, **given} for index, item in enumerate(records) for given in item["given"]]
    return {
        "limit": limit,
        "tokenizer": tokenizer,
        "model": None,
        "messages": items,
        "roles": [item["role"] for item in records],
        "pinned": [item["pinned"] for item in records],
        "flat": [True] * len(records),  # rule.select copies each item plainly; the format's own copy replaces it
        "format_flat": [item["flat"] for item in records],
        "unit_of": unit_of,
        "costs": costs,
        "live_start": live_start,
        "images": images,
        "given_counts": given_counts,
        "tools": tools,
        "tool_costs": tool_costs,
        "tools_tokens": tools_tokens,
        "priming": REPLY_PRIMING + system_tokens,
        "system_tokens": system_tokens,
        "format": fmt,
        "format_detected": detected,
        "items_key": items_key,
        "sent": sent,
    }


def without_nulls(value: object, keep: frozenset = frozenset()) -> object:
    """A copy down to the strings, without the null fields an SDK's dump writes for what was left out
    (the request types do not take them); the values under ``keep`` (a tool's input, a schema)
    copied with their nulls, as given."""
    if type(value) is dict:
        return {
            key: item if type(item) is str else (copied(item) if key in keep else without_nulls(item, keep))
            for key, item in value.items()
            if item is not None
        }  # type: ignore[union-attr]
    if type(value) is list:
        return [item if type(item) is str else without_nulls(item, keep) for item in value]  # type: ignore[union-attr]
    return value


def copied(value: object) -> object:
    """A copy of a JSON value (the readers took only JSON values here: a tool's input, a schema), by
    recursion, or through JSON text when it nests deeper than the recursion allows (512 levels may)."""
    try:
        return _copied(value)
    except RecursionError:
        return json.loads(json.dumps(value, ensure_ascii=False))


def _copied(value: object) -> object:
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}  # type: ignore[union-attr]
    if type(value) is list:
        return [_copied(item) for item in value]  # type: ignore[union-attr]
    return value


def path(items_key: str, *rest: Key) -> tuple[Key, ...]:
    return (items_key, *rest)
