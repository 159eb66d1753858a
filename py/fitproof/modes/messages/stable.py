"""Strategy ``stable``: trimming that keeps the provider's prompt cache warm.

The default strategy (``newest``) keeps the newest units that fit on every call, so once the
history is over the limit each call drops the oldest turn and changes the prompt right after the
system message: nothing after it is ever a cache hit. Strategy ``stable`` cuts, when the history no
longer fits, down to a low watermark (``low_watermark`` × ``limit``, 0.7 by default), and keeps that
cut on the following calls while everything from it on still fits the limit, so each prompt is the
previous one with the new turns appended. When the limit is reached again it cuts again to the
watermark. Everything else is the rule's (``rule.py``): the pinned messages and the live turn are
kept, tool units whole, no holes, the conversation starts at a user turn.

The previous call is input (``previous``: the previous report's ``as_previous``), so the result
depends on the input alone. ``reuse.py`` counts what the prompt reuses and what it costs.

This module reads the new input keys around ``reading.parse`` (which never sees them) and puts its
decision (``walk_limit``, ``floor``) in what ``rule.select`` reads.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict, deque
from fractions import Fraction
from itertools import compress
from math import floor as round_down
from typing import Callable

from ..._base.errors import FitproofError
from ..._shared.shape import InvalidInput
from ..._base.values import INVALID_VALUE, WRONG_TYPE, Key, Problem, closest_name, json_text, preview
from . import formats, reading
from . import reuse as reuse_module
from .accounting import REPLY_PRIMING
from .memory import Bounded
from .rule import LIVE, PINNED
from .history import Parsed, Result

STRATEGIES = ("newest", "stable")
DEFAULT_STRATEGY = "newest"
DEFAULT_WATERMARK = 0.7
KEYS = ("strategy", "low_watermark", "previous", "caching")
# Where the cut came from: the limit (newest), the previous call's cut kept (stable), the watermark (stable, cut again).
FROM_LIMIT, FROM_PREVIOUS, FROM_WATERMARK = "limit", "previous", "low_watermark"


def watermark_limit(low_watermark: object, limit: int) -> int:
    """``low_watermark`` × ``limit`` rounded down, the watermark read as the decimal it is written as (0.7 is 7/10)."""
    fraction = Fraction(repr(low_watermark)) if isinstance(low_watermark, float) else Fraction(low_watermark)  # type: ignore[arg-type,call-overload]
    return round_down(fraction * limit)


def read_options(top: dict, problems: list[Problem]) -> dict | None:
    """The strategy's and the reuse's keys, or None when none is given (the report stays as it was)."""
    if not any(key in top and top[key] is not None for key in KEYS):
        return None
    strategy = top.get("strategy")
    if strategy is None:
        strategy = DEFAULT_STRATEGY
    elif strategy not in STRATEGIES:
        guess = closest_name(strategy, STRATEGIES) if isinstance(strategy, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        problems.append(Problem(("strategy",), INVALID_VALUE, f"expected one of {', '.join(STRATEGIES)}, got {preview(strategy)}{hint}"))
        strategy = None
    watermark = top.get("low_watermark")
    if watermark is not None:
        at: tuple[Key, ...] = ("low_watermark",)
        if isinstance(watermark, bool) or not isinstance(watermark, (int, float)):
            problems.append(
                Problem(
                    at, WRONG_TYPE, f"expected a number in (0, 1], the share of the limit a new cut goes down to, got {preview(watermark)}"
                )
            )
            watermark = None
        elif not 0 < watermark <= 1:
            problems.append(
                Problem(
                    at,
                    INVALID_VALUE,
                    f"expected a number in (0, 1] (above 0, at most 1), the share of the limit a new cut goes down to, got {preview(watermark)}",
                )
            )
            watermark = None
        elif strategy == "newest":
            problems.append(
                Problem(at, INVALID_VALUE, f'low_watermark belongs to strategy "stable" (strategy is "newest"), got {preview(watermark)}')
            )
    elif strategy == "stable":
        watermark = DEFAULT_WATERMARK
    previous = reuse_module.read_previous(top["previous"], problems) if top.get("previous") is not None else None
    caching = reuse_module.read_caching(top["caching"], problems) if top.get("caching") is not None else None
    return {
        "strategy": strategy,
        "low_watermark": watermark if strategy == "stable" else None,
        "previous": previous,
        "caching": caching,
        "head": None,
    }


def parse(data: object, token_counter: Callable[[str], int] | None = None, require_user: bool = True) -> Parsed:
    """``formats.parse`` with the strategy's keys read apart; raises ``InvalidInput`` with every problem.
    The strategy and the reuse are the same in the three formats: the units are the rule's, the
    history is the caller's own items, and the head holds what leads every prompt (``reuse.head_digest``)."""
    if not isinstance(data, dict) or not any(key in data for key in KEYS):
        return formats.parse(data, token_counter, require_user)
    problems: list[Problem] = []
    options = read_options(data, problems)
    rest = {key: value for key, value in data.items() if key not in KEYS}
    parsed = reading.parse_layered(formats.parse, rest, token_counter, require_user, problems)
    if options is not None:
        options["head"] = reuse_module.head_digest({**data, "tokenizer": parsed["tokenizer"]})
    if options is not None and options["previous"] is not None:
        reuse_module.check_previous(options["previous"], parsed["messages"], problems)
    if problems:
        raise InvalidInput(problems, "input shape", reading.INPUT_SUMMARY)
    if options is not None:
        parsed["options"] = options
    return parsed


def decide(parsed: Parsed) -> tuple[int | None, int, str]:
    """The walk's limit (None: ``limit``), the floor (the cut kept) and where the cut comes from.

    The previous cut is kept when every unit from it on fits beside what must be kept: then the
    rule's walk, with the units before the cut dropped, never meets a unit too large."""
    options = parsed.get("options")
    if options is None or options["strategy"] != "stable":
        return None, 0, FROM_LIMIT
    previous = options["previous"]
    costs, unit_of, live_start, limit = parsed["costs"], parsed["unit_of"], parsed["live_start"], parsed["limit"]
    count = len(costs)
    pinned_units = {unit_of[index] for index in compress(range(count), parsed["pinned"])}
    fixed = [unit_of[index] in pinned_units for index in range(count)] if pinned_units else [False] * count
    need = (
        parsed.get("priming", REPLY_PRIMING)
        + parsed["tools_tokens"]
        + sum(compress(costs, fixed))
        + sum(costs[index] for index in range(live_start, count) if not fixed[index])
    )
    if need > limit:
        return None, 0, FROM_LIMIT  # what must be kept does not fit: the rule's shortfall
    cut = previous["cut"] if previous is not None else 0
    start = cut
    while start < live_start and unit_of[start] != start:  # a unit begun before the cut goes whole
        start += 1
    rest = sum(compress(costs[start:live_start], [not flag for flag in fixed[start:live_start]]))
    if need + rest <= limit:  # everything from the cut on fits: the prompt is the previous one and the new turns
        return None, cut, FROM_PREVIOUS if previous is not None else FROM_LIMIT
    return max(watermark_limit(options["low_watermark"], limit), need), 0, FROM_WATERMARK


def select(parsed: Parsed, with_trace: bool = True) -> Result:
    """``rule.select``, under the strategy, with the cut, ``as_previous`` and ``reuse`` when any key of
    this module is given; exactly ``rule.select`` otherwise."""
    options = parsed.get("options")
    if options is None:
        return formats.select(parsed, with_trace)
    walk_limit, floor, cut_from = decide(parsed)
    result = formats.select({**parsed, "walk_limit": walk_limit, "floor": floor}, with_trace)  # the rule's walk, in the format's items
    dropped, kept = result["dropped"], result["kept"]
    cut = dropped[-1] + 1 if dropped and kept else 0
    result["strategy"] = options["strategy"]
    if options["strategy"] == "stable":
        result["low_watermark"] = options["low_watermark"]
    result["walk_limit"] = parsed["limit"] if walk_limit is None else walk_limit
    result["cut"] = cut if kept else None
    result["cut_from"] = cut_from if kept else None
    result["as_previous"] = (
        {
            "messages": len(parsed["messages"]),
            "cut": cut,
            "history": reuse_module.history_digest(parsed["messages"]),
            "head": options["head"],
        }
        if kept
        else None
    )
    result["reuse"] = reuse_module.reuse(parsed, kept, result["tokens"])
    return result


# ``trim_messages``'s memory of its last calls with strategy stable (their ``as_previous``): a call on
# a history that extends one of them, without ``previous``, is given it, so its result is exactly
# ``evaluate``'s with that ``previous``. Bounded; the newest kept; never read by the checks. A call
# replaces the entry it extended, so the memory holds one entry a conversation: the last calls of
# the 16 newest conversations. A caller's conversation id (``conversation=``) keys its own memory
# of 4,096 conversations instead; past the 16th conversation without one, a call whose history
# extends a call let go of warns (``RememberedCallLost``) instead of missing silently.
MAX_REMEMBERED = 16
MAX_CONVERSATIONS = 4096
MAX_LET_GO = 1024


class RememberedCallLost(FitproofError, UserWarning):
    """A call's history extends a remembered call that was let go of (more conversations than the memory holds)."""


class _Call:
    """One remembered call: its ``as_previous``, found by the digest of the history it was made on."""

    __slots__ = ("as_previous",)
    snapshot, chars = (), 0  # (bounded by their number alone)

    def __init__(self, as_previous: dict) -> None:
        self.as_previous = as_previous

    @property
    def key(self) -> tuple:
        return self.as_previous["history"], self.as_previous["messages"]


_REMEMBERED: Bounded[_Call] = Bounded(MAX_REMEMBERED)
_BY_CONVERSATION: OrderedDict[object, dict] = OrderedDict()
_LET_GO: deque[tuple[str, int]] = deque(maxlen=MAX_LET_GO)  # the (history, messages) of the calls let go of
_LOCK = threading.Lock()


def remember(as_previous: dict, extends: dict | None = None, conversation: object = None) -> None:
    """Keep a call's ``as_previous`` (instead of ``extends``, the remembered call it was given)."""
    if conversation is not None:
        with _LOCK:
            _BY_CONVERSATION[conversation] = dict(as_previous)
            _BY_CONVERSATION.move_to_end(conversation)
            while len(_BY_CONVERSATION) > MAX_CONVERSATIONS:
                _BY_CONVERSATION.popitem(last=False)
        return
    entry = _Call(dict(as_previous))
    old = {other.key for other in _REMEMBERED}
    replaced = next(
        (
            other
            for other in _REMEMBERED
            if other.key == entry.key or (extends is not None and other.key == (extends.get("history"), extends.get("messages")))
        ),
        None,
    )
    _REMEMBERED.keep(entry, replaced)
    kept = {other.key for other in _REMEMBERED}
    with _LOCK:
        _LET_GO.extend(key for key in old - kept if replaced is None or key != replaced.key)


def forget() -> None:
    _REMEMBERED.clear()
    with _LOCK:
        _BY_CONVERSATION.clear()
        _LET_GO.clear()


def remembered_previous(messages: list, conversation: object = None) -> dict | None:
    """The remembered call with the longest history that ``messages`` starts with, or None (with
    ``conversation``: that conversation's last call, when ``messages`` extends its history)."""
    if conversation is not None:
        with _LOCK:
            last = _BY_CONVERSATION.get(conversation)
        if last is None or last["messages"] > len(messages):
            return None
        return dict(last) if reuse_module.running_digests(messages, {last["messages"]}).get(last["messages"]) == last["history"] else None
    candidates = sorted(
        (other.as_previous for other in _REMEMBERED if other.as_previous["messages"] <= len(messages)), key=lambda other: other["messages"]
    )
    found = None
    if candidates:
        sizes = {other["messages"] for other in candidates}
        digests = reuse_module.running_digests(messages, sizes)
        for other in candidates:
            if digests.get(other["messages"]) == other["history"]:
                found = other
    if found is None:
        _warn_if_let_go(messages)
    return dict(found) if found else None


def _warn_if_let_go(messages: list) -> None:
    with _LOCK:
        let_go = [key for key in _LET_GO if key[1] <= len(messages)]
    if not let_go:
        return
    digests = reuse_module.running_digests(messages, {size for _, size in let_go})
    if any(digests.get(size) == history for history, size in let_go):
        warnings.warn(
            f"this history extends a call trim_messages remembered and let go of (it remembers the last calls of "
            f"{MAX_REMEMBERED} conversations): the call starts afresh; pass previous= (the last .as_previous) "
            f"or conversation= (an id of yours) to keep its cache",
            RememberedCallLost,
            stacklevel=4,
        )


__all__ = [
    "STRATEGIES",
    "DEFAULT_STRATEGY",
    "DEFAULT_WATERMARK",
    "KEYS",
    "parse",
    "select",
    "decide",
    "watermark_limit",
    "LIVE",
    "PINNED",
    "RememberedCallLost",
]
