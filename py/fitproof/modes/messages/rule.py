"""The rule: the pinned messages and the live turn, then the newest units that fit; the conversation
sent starts at a user turn and never with a reply to a dropped message."""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate, compress

from ..._base.values import plural
from ..._base.words import ranges
from .accounting import REPLY_PRIMING
from .message import ALWAYS_PINNED
from ...templates import TemplateError
from .prompt_template import rendered_tokens
from .history import Parsed, Result

# A trace row's reason.
PINNED = "pinned"
LIVE = "live_turn"  # the newest user message and every message after it: kept as if pinned
FITS = "fits_remaining_budget"
TOO_LARGE = "exceeds_remaining_budget"
OLDER = "older_than_a_dropped_message"
USER_START = "history_must_start_with_user"
PINNED_OVERFLOW = "pinned_messages_exceed_limit"  # the pinned messages, the live turn, the tools and the priming
BEFORE_CUT = "older_than_the_stable_cut"  # strategy stable: before the cut kept from the previous call (stable.py)


def rule(parsed: Parsed) -> tuple[list[bool], list[str], list[int], list[bool], int, int]:
    """Each message's kept flag, reason, the remaining limit before its unit was decided and
    whether its unit is pinned; the tokens the pinned messages, the tools and the priming need,
    and the tokens the live turn adds to them. Strategy ``stable`` (``stable.py``) may set
    ``walk_limit`` (the low watermark the walk cuts down to) and ``floor`` (the cut kept from the
    previous call: the unpinned units before it are dropped)."""
    costs, pinned, unit_of, roles = parsed["costs"], parsed["pinned"], parsed["unit_of"], parsed["roles"]
    live_start = parsed["live_start"]
    walk_limit = parsed.get("walk_limit")
    limit = parsed["limit"] if walk_limit is None else walk_limit
    floor = parsed.get("floor", 0)
    count = len(costs)
    pinned_unit = [False] * count  # by unit start: a unit is pinned when any of its messages is
    unit_cost = [0] * count
    for index in range(count):
        unit_cost[unit_of[index]] += costs[index]
        if pinned[index]:
            pinned_unit[unit_of[index]] = True
    starts = [index for index in range(count) if unit_of[index] == index]
    pinned_tokens = (
        parsed.get("priming", REPLY_PRIMING) + parsed["tools_tokens"] + sum(unit_cost[start] for start in starts if pinned_unit[start])
    )
    live_tokens = sum(unit_cost[start] for start in starts if start >= live_start and not pinned_unit[start])
    remaining = limit - pinned_tokens - live_tokens
    unit_pinned = [pinned_unit[start] for start in unit_of]
    if remaining < 0:
        return [False] * count, [PINNED_OVERFLOW] * count, [remaining] * count, unit_pinned, pinned_tokens, live_tokens
    kept, reasons, before = [False] * count, [""] * count, [0] * count
    stopped = False
    for start in reversed(starts):
        cost = unit_cost[start]
        if pinned_unit[start]:
            keep, reason = True, PINNED
        elif start >= live_start:
            keep, reason = True, LIVE
        elif start < floor:
            keep, reason = False, BEFORE_CUT
        elif stopped:
            keep, reason = False, OLDER
        elif cost <= remaining:
            keep, reason = True, FITS
        else:
            keep, reason, stopped = False, TOO_LARGE, True
        before[start] = remaining
        kept[start], reasons[start] = keep, reason
        if keep and reason == FITS:
            remaining -= cost
    # The user start: the first kept message that is not system or developer must be a user
    # message, and the oldest kept unpinned unit must start with one unless every message
    # before it is kept. Units that break it go, oldest first (pinned ones and the live turn stay).
    conversation_started = False  # a kept message that is not system or developer came before
    all_before_kept = True
    for start in starts:
        if not kept[start]:
            all_before_kept = False
            continue
        if reasons[start] == FITS and roles[start] != "user" and (not conversation_started or not all_before_kept):
            kept[start], reasons[start] = False, USER_START
            all_before_kept = False
            continue
        if reasons[start] == FITS:
            break  # the oldest kept unpinned unit keeps its place: nothing newer is dropped for the start
        if roles[start] not in ALWAYS_PINNED:
            conversation_started = True
    for index in range(count):
        start = unit_of[index]
        kept[index], reasons[index], before[index] = kept[start], reasons[start], before[start]
    return kept, reasons, before, unit_pinned, pinned_tokens, live_tokens


def kept_fast(parsed: Parsed) -> list[int] | None:
    """The kept indices ``rule`` gives, found with prefix sums and a binary search instead of a
    walk over every message (``trim_messages`` before every model call: the cost of a long history
    is then a few passes at C speed); None when what must be kept does not fit (``rule`` says why)."""
    costs, unit_of, roles, live_start = parsed["costs"], parsed["unit_of"], parsed["roles"], parsed["live_start"]
    walk_limit = parsed.get("walk_limit")  # strategy stable (stable.py)
    limit = parsed["limit"] if walk_limit is None else walk_limit
    count = len(costs)
    pinned_units = sorted({unit_of[index] for index in compress(range(count), parsed["pinned"])})
    fixed = set()  # the messages of the pinned units (a unit is its start and the tool results after it)
    for start in pinned_units:
        index = start
        while index < count and unit_of[index] == start:
            fixed.add(index)
            index += 1
    masked = costs[:live_start]  # what the walk weighs: the costs before the live turn, the pinned ones as 0
    for index in fixed:
        if index < live_start:
            masked[index] = 0
    need = (
        parsed.get("priming", REPLY_PRIMING)
        + parsed["tools_tokens"]
        + sum(costs[index] for index in fixed)
        + sum(costs[live_start:])
        - sum(costs[index] for index in fixed if index >= live_start)
    )
    remaining = limit - need
    if remaining < 0:
        return None
    prefix = [0, *accumulate(masked)]  # prefix[i]: the walked costs before message i
    # The oldest unit start whose units up to the live turn fit what remains: the walk's stop.
    cut = bisect_left(prefix, prefix[live_start] - remaining)
    cut = max(cut, parsed.get("floor", 0))  # strategy stable: the unpinned units before the cut kept from the previous call go
    while cut < live_start and unit_of[cut] != cut:
        cut += 1
    # The user start, from the oldest kept unpinned unit on (pinned units keep their place).
    started = any(roles[index] not in ALWAYS_PINNED for index in fixed if index < cut)
    all_before_kept = prefix[cut] == 0
    start = cut
    while start < live_start:
        end = start + 1
        while end < count and unit_of[end] == start:
            end += 1
        if start in fixed:
            started = started or roles[start] not in ALWAYS_PINNED
        elif roles[start] != "user" and (not started or not all_before_kept):
            all_before_kept = False
            cut = end  # dropped for the start
        else:
            break
        start = end
    return sorted(index for index in fixed if index < cut) + list(range(cut, count))


def select(parsed: Parsed, with_trace: bool = True) -> Result:
    """The report's results; without the trace (``trim_messages``, whose caller sends the messages
    and reads the counts) when ``with_trace`` is false."""
    limit, costs, messages = parsed["limit"], parsed["costs"], parsed["messages"]
    fast = None if with_trace else kept_fast(parsed)
    if fast is not None:
        kept_indices, shortfall = fast, 0
        dropped = sorted(set(range(len(costs))).difference(fast))
    else:
        kept, reasons, before, pinned, pinned_tokens, live_tokens = rule(parsed)
        shortfall = max(0, pinned_tokens + live_tokens - limit)
        kept_indices = list(compress(range(len(kept)), kept))
        dropped = [index for index, keep in enumerate(kept) if not keep]
    tokens = REPLY_PRIMING + parsed["tools_tokens"] + sum(map(costs.__getitem__, kept_indices)) if kept_indices else 0
    if parsed.get("template") and kept_indices:  # the kept messages rendered again: the exact prompt
        try:
            tokens = rendered_tokens(
                [messages[index] for index in kept_indices],
                parsed["template"],
                parsed["tokenizer"],
                parsed["template_tools"],
                parsed["template_options"],
            )
        except TemplateError:  # (Mistral's turn order broken by what was dropped: the shares stand, the check says it)
            pass
    flat = parsed["flat"]
    sent = list(map(dict, map(messages.__getitem__, kept_indices)))  # at C speed: most messages are flat text
    for position in [position for position, index in enumerate(kept_indices) if not flat[index]]:
        sent[position] = as_sent(messages[kept_indices[position]])
    if not with_trace:
        return {
            "limit": limit,
            "tokens": tokens,
            "remaining": limit - tokens,
            "shortfall": shortfall,
            "kept": kept_indices,
            "dropped": dropped,
            "messages": sent,
            "images": parsed["images"],
            "tools_tokens": parsed["tools_tokens"],
        }
    unit_tokens: dict[int, int] = {}
    for index, start in enumerate(parsed["unit_of"]):
        unit_tokens[start] = unit_tokens.get(start, 0) + costs[index]
    live_start = parsed["live_start"]
    trace = [
        {
            "index": index,
            "role": parsed["roles"][index],
            "tokens": costs[index],
            "unit": parsed["unit_of"][index],
            "unit_tokens": unit_tokens[parsed["unit_of"][index]],
            "pinned": pinned[index],
            "live": index >= live_start,
            "remaining_before": before[index],
            "kept": kept[index],
            "reason": reasons[index],
        }
        for index in reversed(range(len(costs)))
    ]
    report: Result = {
        "tokenizer": parsed["tokenizer"],
        "model": parsed["model"],
        "limit": limit,
        "tokens": tokens,
        "remaining": limit - tokens,
        "pinned_tokens": pinned_tokens,
        "live_turn": list(range(live_start, len(costs))),
        "live_tokens": live_tokens,
        "shortfall": shortfall,
        "kept": kept_indices,
        "dropped": dropped,
        "messages": sent,
        "images": parsed["images"],
        "tools": [{"name": name, "tokens": tokens} for name, tokens in zip(parsed["tools"], parsed["tool_costs"])],
        "tools_tokens": parsed["tools_tokens"],
        "trace": trace,
    }
    template = parsed.get("template")
    if template:
        report["template"], report["template_tokens"] = template, parsed["priming"]
    return report


# What a message may have that a request does not take: this tool's own key, and a reply's.
NOT_SENT = frozenset(("pinned", "annotations"))


def as_sent(message: dict) -> dict:
    """The message ready to send: as given, without what a request does not take (``pinned`` and an
    image part's ``size``, this tool's own keys; a reply's ``annotations``; a null optional field)
    and as a copy down to its strings, so that changing the result never changes the caller's history."""
    return {
        key: value if type(value) is str else _copied(value)
        for key, value in message.items()
        if key not in NOT_SENT and (value is not None or (key == "content" and message.get("role") == "assistant"))
    }


def _copied(value: object) -> object:
    """A validated message value (text, parts, tool calls) copied through its lists and objects,
    without this tool's own ``size`` on an image part."""
    if isinstance(value, list):
        return [item if type(item) is str else _copied(item) for item in value]
    if isinstance(value, dict):
        image = value.get("type") == "image_url"
        return {key: item if type(item) is str else _copied(item) for key, item in value.items() if not (image and key == "size")}
    return value


def succeeded(result: Result) -> bool:
    return result["shortfall"] == 0


def _unit_name(tokenizer: str) -> str:
    return "estimated tokens" if tokenizer == "estimate" else f"tokens ({tokenizer})"


def shortfall_text(result: Result) -> str:
    """What must be kept, and by how much it is over the limit."""
    need = result["pinned_tokens"] + result["live_tokens"]
    over = f"{result['shortfall']} over the limit of {result['limit']}."
    parts = []
    live = [row["index"] for row in reversed(result["trace"]) if row["live"] and not row["pinned"]]
    if live:
        parts.append(f"the live turn (message{'s' if len(live) > 1 else ''} {ranges(live)}, from the newest user message on)")
    pinned = [row["index"] for row in reversed(result["trace"]) if row["pinned"]]
    if pinned:
        shown = ", ".join(f"#{index}" for index in pinned[:10]) + (", …" if len(pinned) > 10 else "")
        parts.append(f"the pinned {'message' if len(pinned) == 1 else 'messages'} ({shown})")
    if result["tools_tokens"]:
        parts.append(f"the tool definitions ({result['tools_tokens']})")
    if result.get("system_tokens"):  # Anthropic's system prompt, Responses' instructions: sent apart
        parts.append(f"the {'instructions' if result.get('format') == 'responses' else 'system prompt'} ({result['system_tokens']})")
    priming = f"the {result['template']} template's own tokens" if result.get("template") else "the reply priming"
    if not parts:
        return f"{priming[0].upper()}{priming[1:]} alone needs {need} {_unit_name(result['tokenizer'])}, {over}"
    listed = ", ".join(parts)
    return f"{listed[0].upper()}{listed[1:]} and {priming} need {need} {_unit_name(result['tokenizer'])}, {over}"


def summarize(result: Result) -> str:
    total = len(result["trace"])
    if result["shortfall"]:
        return shortfall_text(result)
    pinned = sum(1 for row in result["trace"] if row["reason"] == PINNED)
    dropped = f", dropped {ranges(result['dropped'])}" if result["dropped"] else ""
    cleared = ""
    if result.get("cleared"):  # clearing (clearing.py): what was cleared before any turn was dropped
        rows = result["cleared"]
        saved = sum(row["tokens_before"] - row["tokens_after"] for row in rows)
        cleared = f" Cleared {plural(len(rows), 'item')} first ({saved} tokens of tool results or thinking)."
    return (
        f"Kept {len(result['kept'])} of {plural(total, 'message')} ({pinned} pinned){dropped}: the prompt counts "
        f"{result['tokens']} of {result['limit']} {_unit_name(result['tokenizer'])}.{cleared}"
    )
