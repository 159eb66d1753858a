"""Reading a claim: its keys in the mode's own words (``WORDS.kept`` for the list, ``used``,
and ``prompt`` for blocks and passages), every problem at once with its JSON path.

It reads the claim's shape alone and judges nothing: ``read_claim`` gives ``{"ids", "used",
"prompt"}`` (ids as given, in claim order; indices for messages) or the problems, and the
judges of the sibling modules take the first from there.
"""

from __future__ import annotations

from itertools import repeat
from typing import Callable, NotRequired, TypedDict

from ...modes import MODES
from ..._base.values import JS_WHITESPACE, MAX_SAFE_INTEGER, MISSING_KEY, WRONG_TYPE, Invalid, Key, Problem
from ..._base.values import got, json_text, problem_from, read_count, read_id, read_text, unknown_keys

# Each mode's word for its kept list (the claim's key) and for what that list holds, as the mode declares them.
LIST_KEY = {name: mode.WORDS.kept for name, mode in MODES.items()}
WITH_PROMPT = ("blocks", "passages")
WHAT = {name: mode.WORDS.listed for name, mode in MODES.items()}


class Claim(TypedDict):
    """A claim as read: the listed ids (or message indices) in claim order, and what it says besides."""

    ids: list  # list[str], or list[int] in mode messages
    used: int | None
    prompt: str | None
    cleared: NotRequired[list[int] | None]  # mode messages with clear: the kept messages whose tool results are cleared


def claim_summary(mode: str) -> str:
    extra = '"prompt" and "used"' if mode in WITH_PROMPT else '"used"'
    return f"The claim needs {json_text(LIST_KEY[mode])}: an array of {WHAT[mode]} (and optionally {extra})."


def read_claim(value: object, mode: str) -> tuple[Claim | None, list[Problem]]:
    """``({"ids", "used", "prompt"}, [])``, or ``(None, problems)`` with each problem's JSON path."""
    problems: list[Problem] = []
    at: tuple[Key, ...] = ("claim",)
    list_key = LIST_KEY[mode]
    known = (list_key, "used") + (("prompt",) if mode in WITH_PROMPT else ()) + (("cleared",) if mode == "messages" else ())
    if not isinstance(value, dict):
        words = f'{{"{list_key}": [{"indices" if mode == "messages" else "ids"}]}}'
        return None, [Problem(at, WRONG_TYPE, f"expected an object {words}, got {got(value)}")]
    for problem in unknown_keys(value, at, known):
        key = problem.about
        owners = [name for name, word in LIST_KEY.items() if word == key]
        if owners and isinstance(key, str) and key != list_key:  # (a key some mode names is a string)
            problem = problem._replace(
                message=f"unknown key {json_text(key)}: in mode {mode} a claim lists its {WHAT[mode]} in "
                f"{json_text(list_key)} ({json_text(key)} is the word of mode {owners[0]})"
            )
        problems.append(problem)
    ids = None
    if list_key not in value:
        problems.append(Problem(at, MISSING_KEY, f"missing required key {json_text(list_key)}", list_key))
    else:
        ids = _read_list(value[list_key], (*at, list_key), mode == "messages", problems)
    used = prompt = None
    if "used" in value:
        try:
            used = read_count(value["used"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "used")))
    if "prompt" in value and mode in WITH_PROMPT:
        try:
            prompt = read_text(value["prompt"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "prompt")))
    cleared = None
    if mode == "messages" and value.get("cleared") is not None:
        cleared = _read_list(value["cleared"], (*at, "cleared"), True, problems)
    if problems or ids is None:  # (no problem means the list was read)
        return None, problems
    claim: Claim = {"ids": ids, "used": used, "prompt": prompt}
    if cleared is not None:
        claim["cleared"] = cleared
    return claim, []


def _read_list(value: object, at: tuple[Key, ...], indices: bool, problems: list[Problem]) -> list | None:
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected an array of {'message indices' if indices else 'ids'}, got {got(value)}"))
        return None
    types = set(map(type, value))
    reader: Callable[[object], object]
    if indices:  # the common case checked in C first; any doubt goes element by element
        if types <= {int} and (not value or (min(value) >= 0 and max(value) <= MAX_SAFE_INTEGER)):
            return value
        reader = _read_index
    else:
        if types <= {str} and all(map(str.strip, value, repeat(JS_WHITESPACE))):
            return value
        reader = read_id
    read, count_before = [], len(problems)
    for index, element in enumerate(value):
        try:
            read.append(reader(element))
        except Invalid as error:
            problems.append(problem_from(error, (*at, index)))
    return read if len(problems) == count_before else None


def _read_index(value: object) -> int:
    return read_count(value, what="a message index: an integer")
