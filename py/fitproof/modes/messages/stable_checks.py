"""The independent checks of strategy ``stable`` and of the reuse (``stable.py``, ``reuse.py``).

Each re-reads the raw input with the history ``checks.History`` re-counted: the cut the strategy
must take, ``as_previous`` (its digests computed again), the previous call's prompt rebuilt from
``previous`` and the history, the prefix both prompts share (the messages as sent compared as
JSON text, with a template the two prompts rendered and their tokens compared), and what the
caching rule bills and the prices cost. None calls the strategy, the rule or ``reuse.py``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import floor

from ... import templates
from ...tokenizers import named_tokenizer
from .accounting import REPLY_PRIMING
from .prompt_template import plain

DEFAULT_WATERMARK = 0.7  # the contract's default, written again: the checks import nothing of the rule


def as_sent_again(message: dict) -> dict:
    """A message as the request sends it, written again from the input (the checks' own copy of
    what the rule's ``as_sent`` does): ``pinned`` and ``annotations`` dropped, images' ``size`` too."""
    sent = {}
    for key, value in message.items():
        if key in ("pinned", "annotations") or (value is None and not (key == "content" and message["role"] == "assistant")):
            continue
        if key == "content" and isinstance(value, list):
            value = [{k: v for k, v in part.items() if k != "size"} if part.get("type") == "image_url" else part for part in value]
        sent[key] = value
    return sent


OPTION_KEYS = ("strategy", "low_watermark", "previous", "caching", "clear")  # clear: the report then has as_previous too


def given(data: dict) -> bool:
    """Whether the input asks for a strategy, a previous call or a caching rule (the report then has their fields)."""
    return any(data.get(key) is not None for key in OPTION_KEYS)


def _fraction(value: object) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)  # type: ignore[arg-type,call-overload]


def walk_of(history) -> tuple[int, int, str]:
    """The limit the walk must use, the floor below which unpinned units go, and where the cut comes from."""
    data, limit = history.data, history.limit
    if not given(data) or data.get("strategy") != "stable":
        return limit, 0, "limit"
    previous = data.get("previous")
    cut = previous["cut"] if previous else 0
    need = history.pinned_need + history.live_need
    if need > limit:
        return limit, 0, "limit"
    rest = sum(
        history.cost(index)
        for index in range(history.total)
        if history.unit[index] >= cut and not history.pinned[index] and not history.live[index]
    )
    if need + rest <= limit:
        return limit, cut, "previous" if previous else "limit"
    watermark = data.get("low_watermark")
    return max(floor(_fraction(DEFAULT_WATERMARK if watermark is None else watermark) * limit), need), 0, "low_watermark"


def _no_nulls(value: object, inside_input: bool = False) -> object:
    """The checks' own copy of the digest's reading: a null field is one left out, but in a tool use's ``input``."""
    if inside_input:
        return value
    if isinstance(value, dict):
        return {key: _no_nulls(item, key == "input") for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_no_nulls(item) for item in value]
    return value


def _digest(messages: list) -> str:
    import hashlib  # not at the top: hashlib asks for _hashlib, which the page's compiled standard library lacks, and the page would then fetch the whole one (2.5 MB) on every first visit

    hashed = hashlib.sha256()
    for message in messages:
        hashed.update(
            json.dumps(_no_nulls(message), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8", "surrogatepass")
            + b"\n"
        )
    return "sha256:" + hashed.hexdigest()


def _head(data: dict, tokenizer: str) -> str:
    head = [tokenizer, data.get("tools"), data.get("template"), data.get("template_options")]
    head += [[key, data[key]] for key in ("system", "instructions") if data.get(key) is not None]  # what leads a format's prompt
    import hashlib  # (see _digest)

    text = json.dumps(head, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def stable_cut(history) -> str | None:
    """The walk's limit and the cut the strategy must take, and ``as_previous`` describing this call."""
    result, data = history.result, history.data
    walk_limit, _, cut_from = walk_of(history)
    if result.get("strategy") != (data.get("strategy") or "newest"):
        return f"the input asks for strategy {data.get('strategy') or 'newest'}, the report says {result.get('strategy')}"
    if result.get("walk_limit") != walk_limit:
        return f"the walk's limit re-derives to {walk_limit} ({cut_from}), the report says {result.get('walk_limit')}"
    kept, dropped = result["kept"], result["dropped"]
    if not kept:
        if result.get("as_previous") is not None or result.get("cut") is not None:
            return "nothing is kept, yet the report gives a cut to pass on"
        return None
    cut = max(dropped) + 1 if dropped else 0
    if result.get("cut") != cut or result.get("cut_from") != cut_from:
        return f"the cut is at message {cut} ({cut_from}), the report says {result.get('cut')} ({result.get('cut_from')})"
    expected = {"messages": history.total, "cut": cut, "history": _digest(history.original), "head": _head(data, history.tokenizer)}
    if history.derived is not None:  # clearing: the cleared items go on to the next call
        expected["cleared"] = history.derived.as_previous
    if result.get("as_previous") != expected:
        return f"as_previous re-derives to {expected}, the report says {result.get('as_previous')}"
    return None


def _previous_kept(history, previous: dict) -> list[int]:
    pinned_units = {history.unit[index] for index in range(history.total) if history.pinned[index]}
    return [index for index in range(previous["messages"]) if index >= previous["cut"] or history.unit[index] in pinned_units]


def _as_sent_text(history, index: int, previous: bool = False) -> str:
    message = (history.previous_messages if previous else history.messages)[index]
    sent = history.sent_again(message) if hasattr(history, "sent_again") else as_sent_again(message)  # a format's own copy
    return json.dumps(sent, ensure_ascii=False, sort_keys=True)


def _lead(history) -> int:
    """What leads every prompt beside the messages: the tools, and a format's system prompt or instructions."""
    return history.tools_tokens + getattr(history, "system_tokens", 0)


def _template_tokens(history, kept: list[int], generation_prompt: bool = True) -> list[bytes]:
    text = templates.render(
        plain([history.messages[index] for index in kept], history.template),
        history.template,
        add_generation_prompt=generation_prompt,
        tools=history.data_tools or None,
        **(history.template_options or {}),
    )
    loaded = named_tokenizer(history.tokenizer)
    assert loaded is not None  # the template was rendered with it to count the history
    return loaded.tokens(text)


def _breakpoint(history, kept: list[int], previous: bool = False) -> int:
    """The prompt's tokens up to the end of its last message (``previous``: as the previous call sent it)."""
    if not kept:
        return 0
    if history.template:
        return len(_template_tokens(history, kept, generation_prompt=False))
    return _lead(history) + sum(map(history.previous_cost if previous else history.cost, kept))


def prefix_reused(history) -> str | None:
    """The previous prompt rebuilt from ``previous``; the shared prefix found again and shown maximal;
    the caching rule's cached, written and plain tokens and the costs re-derived."""
    result, data = history.result, history.data
    reuse = result.get("reuse")
    if not isinstance(reuse, dict):
        return "the report has no reuse"
    previous, kept, tokens = data.get("previous"), result["kept"], result["tokens"]
    expected: dict[str, int | None] = {"previous_tokens": None, "prefix_messages": 0, "prefix_tokens": 0}
    previous_breakpoint = 0
    if previous is not None:
        before = _previous_kept(history, previous)
        if history.template:
            before_tokens = _template_tokens(history, before) if before else []
            expected["previous_tokens"] = len(before_tokens)
        else:
            expected["previous_tokens"] = REPLY_PRIMING + _lead(history) + sum(map(history.previous_cost, before)) if before else 0
        same_head = previous["head"] == _head(data, history.tokenizer)
        if same_head:
            previous_breakpoint = _breakpoint(history, before, previous=True)
        if same_head and kept and before:
            shared = 0
            while (
                shared < min(len(before), len(kept))
                and _as_sent_text(history, before[shared], previous=True) == _as_sent_text(history, kept[shared])
                and before[shared] == kept[shared]
            ):
                shared += 1
            expected["prefix_messages"] = shared
            if history.template:
                now_tokens = _template_tokens(history, kept)
                prefix = 0
                while prefix < min(len(before_tokens), len(now_tokens)) and before_tokens[prefix] == now_tokens[prefix]:
                    prefix += 1
                expected["prefix_tokens"] = prefix
            else:
                expected["prefix_tokens"] = _lead(history) + sum(history.cost(index) for index in kept[:shared]) if shared else 0
    for key, value in expected.items():
        if reuse.get(key) != value:
            return f"{key} re-derives to {value}, the report says {reuse.get(key)}"
    if reuse.get("new_tokens") != tokens - (expected["prefix_tokens"] or 0):
        return f"new_tokens should be {tokens} - {expected['prefix_tokens']}, the report says {reuse.get('new_tokens')}"
    caching = data.get("caching")
    if caching is None:
        return None
    prefix = expected["prefix_tokens"] or 0
    if caching["provider"] == "openai":
        cached, written, minimum = (prefix - prefix % 128 if prefix >= 1024 else 0), 0, 1024
    else:
        minimum = caching["min_tokens"]
        now = _breakpoint(history, kept)
        if reuse.get("breakpoint") != now:
            return f"the breakpoint (the end of the last message) re-counts to {now}, the report says {reuse.get('breakpoint')}"
        cached = previous_breakpoint if minimum <= previous_breakpoint <= prefix else 0
        written = now - cached if now >= minimum else 0
    plain_input = tokens - cached - written
    for key, value in (
        ("provider", caching["provider"]),
        ("min_tokens", minimum),
        ("cached_tokens", cached),
        ("written_tokens", written),
        ("input_tokens", plain_input),
    ):
        if reuse.get(key) != value:
            return f"{key} re-derives to {value} under {caching['provider']}'s rule, the report says {reuse.get(key)}"
    prices = caching.get("prices")
    if prices is not None:
        cost = (
            _fraction(prices["input"]) * plain_input
            + _fraction(prices["cached_input"]) * cached
            + _fraction(prices.get("cache_write", 0)) * written
        ) / 1_000_000
        without = _fraction(prices["input"]) * tokens / 1_000_000
        if reuse.get("cost") != float(cost) or reuse.get("cost_without_caching") != float(without):
            return (
                f"the costs re-derive to {float(cost)} ({float(without)} without caching), the report says "
                f"{reuse.get('cost')} ({reuse.get('cost_without_caching')})"
            )
    return None


CHECKS = (
    ("stable cut", stable_cut),
    ("prompt prefix reused", prefix_reused),
)
