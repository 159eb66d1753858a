"""Clearing old tool results before dropping turns (input key ``clear``, or Anthropic's
``context_management``; the options in ``clearing_options.py``, each format's part in
``clearing_formats.py``).

The prompt is counted as the call would send it before dropping anything new: the pinned units and
every message from the previous call's cut on (strategy stable with ``previous``; else the whole
history), with the previous call's cleared results cleared again (sticky: the same bytes). When it
is over the trigger, the tool results are cleared oldest first, skipping the newest ``keep``, an
excluded tool's, the live turn's (unless ``live_turn``: an agent's one long request), a pinned
unit's, those before that cut and those whose placeholder costs as much as they do, down to the low
watermark (or all of them); a clearing that
frees fewer than ``clear_at_least`` tokens is not done. Thinking blocks of assistant turns older
than the newest ``keep_thinking`` are removed (never the live turn's, never a pinned unit's, never a
message's only blocks). The rule (``rule.py``, through ``stable.py``) then runs on the cleared
costs, and drops whole units only if the prompt still does not fit.

This module reads the keys around ``stable.parse`` (which never sees them), puts the cleared costs in
what the rule reads, and after ``stable.select`` puts the cleared copies in the messages sent, the
report's ``cleared`` and ``clearing``, and the cleared items in ``as_previous``.
"""

from __future__ import annotations

from typing import Callable

from ..._base.values import INVALID_VALUE, WRONG_TYPE, Key, Problem, got, preview, unknown_keys
from ..._shared.shape import InvalidInput
from ...tokenizers import TOKENIZERS, counter
from . import clearing_formats as fmt_parts
from . import clearing_options, reading, stable
from .accounting import PER_MESSAGE, REPLY_PRIMING, callers_counter
from .rule import as_sent
from .history import Parsed, Result

KEYS = ("clear", "context_management")
# A cleared item's reason: cleared again as the previous call cleared it, cleared by this call, an older turn's thinking.
AS_BEFORE, OVER_TRIGGER, OLDER_THINKING = "cleared_as_before", "cleared_over_trigger", "thinking_of_an_older_turn"
PREVIOUS_ITEM_KEYS = ("index", "block", "input")


def _counter(parsed: Parsed, token_counter: Callable[[str], int] | None) -> Callable[[str], int]:
    tokenizer = parsed["tokenizer"]
    if token_counter is not None:
        return callers_counter(token_counter)
    if tokenizer in TOKENIZERS:
        return reading.cached_counter(tokenizer)
    return callers_counter(counter(tokenizer))


def parse(data: object, token_counter: Callable[[str], int] | None = None, require_user: bool = True) -> Parsed:
    """``stable.parse`` with the clearing keys read apart, and the clearing applied to the costs."""
    if not isinstance(data, dict) or not any(data.get(key) is not None for key in KEYS):
        return stable.parse(
            {key: value for key, value in data.items() if key not in KEYS} if isinstance(data, dict) else data, token_counter, require_user
        )
    problems: list[Problem] = []
    if data.get("clear") is not None and data.get("context_management") is not None:
        problems.append(
            Problem(
                ("context_management",),
                INVALID_VALUE,
                "give clear or context_management, not both (they are two ways to say the same options)",
            )
        )
    if data.get("clear") is not None:
        options = clearing_options.read_clear(data["clear"], problems)
    else:
        options = clearing_options.read_context_management(data["context_management"], problems)
    rest = {key: value for key, value in data.items() if key not in KEYS}
    if not any(rest.get(key) is not None for key in stable.KEYS):
        rest["strategy"] = "newest"  # the report then has as_previous, to give back as previous: clearing is sticky
    parsed = reading.parse_layered(stable.parse, rest, token_counter, require_user, problems)
    fmt = parsed.get("format", "chat")
    if parsed.get("template"):
        problems.append(
            Problem(
                ("clear",), INVALID_VALUE, "clearing is not built for a template's prompt (its costs are shares of the rendered prompt)"
            )
        )
    if data.get("context_management") is not None and fmt != "anthropic":
        problems.append(
            Problem(("context_management",), INVALID_VALUE, f"context_management is Anthropic's: give clear in the {fmt} format")
        )
    previous = (parsed.get("options") or {}).get("previous")
    prior = _read_previous_cleared(previous, parsed, fmt, problems) if previous is not None else []
    if problems or options is None:
        raise InvalidInput(problems, "input shape", reading.INPUT_SUMMARY)
    strategy = parsed.get("options") or {}
    floor = previous["cut"] if previous is not None and strategy.get("strategy") == "stable" else 0
    count = _counter(parsed, token_counter)
    parsed["clearing"] = apply(parsed, fmt, options, prior, floor, count)
    parsed["costs"] = parsed["clearing"]["costs"]
    summary = options["summary"]
    if summary is not None and summary["text"] is not None:
        if previous is not None or strategy.get("caching") is not None:
            problem = Problem(
                ("clear", "summary", "text"),
                INVALID_VALUE,
                "a summary is not built for previous or caching yet (its text changes the prompt where the dropped span was): leave one out",
            )
            raise InvalidInput([problem], "input shape", reading.INPUT_SUMMARY)
        if parsed["clearing"]["summary"]["tokens_after"] > parsed["limit"]:  # something must be dropped: the summary takes its place
            message = clearing_options.summary_message(summary["text"])
            cost = PER_MESSAGE + count(message["role"]) + count(message["content"])
            parsed["priming"] = parsed.get("priming", REPLY_PRIMING) + cost
            parsed["clearing"]["summary_message"], parsed["clearing"]["summary_tokens"] = message, cost
    return parsed


def _read_previous_cleared(previous: dict, parsed: Parsed, fmt: str, problems: list[Problem]) -> list[tuple[int, int | None, bool]]:
    """``previous.cleared`` (the previous report's ``as_previous.cleared``): each a tool result of
    this history's first ``previous.messages`` messages, else an input error at its path."""
    given = previous.get("cleared")
    at: tuple[Key, ...] = ("previous", "cleared")
    if given is None:
        return []
    if not isinstance(given, list):
        problems.append(
            Problem(at, WRONG_TYPE, f"expected the previous call's cleared items, an array of {{index, block, input}}, got {got(given)}")
        )
        return []
    results = {
        (item["index"], item["block"]): item for item in fmt_parts.items(fmt, parsed["messages"], parsed["roles"], parsed["unit_of"])
    }
    read = []
    for position, item in enumerate(given):
        item_at = (*at, position)
        if not isinstance(item, dict):
            problems.append(Problem(item_at, WRONG_TYPE, f"expected {{index, block, input}}, got {got(item)}"))
            continue
        before = len(problems)
        problems.extend(unknown_keys(item, item_at, PREVIOUS_ITEM_KEYS))
        index, block, inputs = item.get("index"), item.get("block"), item.get("input", False)
        if not isinstance(inputs, bool):
            problems.append(Problem((*item_at, "input"), WRONG_TYPE, f"expected true or false, got {preview(inputs)}"))
        key = (index, block)
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or (block is not None and (isinstance(block, bool) or not isinstance(block, int)))
        ):
            problems.append(
                Problem((*item_at, "index"), WRONG_TYPE, f"expected a message index (and a block index or null), got {preview(item)}")
            )
        elif index >= previous["messages"] or key not in results:
            problems.append(
                Problem(
                    item_at,
                    INVALID_VALUE,
                    f"the previous call cleared no tool result of this history here (message {index}, block {block}): "
                    f"previous comes from another history; got {preview(item)}",
                )
            )
        if len(problems) == before:
            read.append((int(index), block, bool(inputs)))  # type: ignore[arg-type]  # read and checked above
    return read


def _clears_inputs(options: dict, tool: str) -> bool:
    inputs = options["clear_tool_inputs"]
    return inputs if isinstance(inputs, bool) else tool in inputs


def apply(parsed: Parsed, fmt: str, options: dict, prior: list, floor: int, count: Callable[[str], int]) -> dict:
    """The clearing: the costs after it, the cleared copies by message index, the report's rows and summary."""
    messages, roles, unit_of, limit = parsed["messages"], parsed["roles"], parsed["unit_of"], parsed["limit"]
    original = list(parsed["costs"])
    costs = list(original)
    total = len(costs)
    pinned_units = {unit_of[index] for index in range(total) if parsed["pinned"][index]}
    live_start = parsed["live_start"]
    results = fmt_parts.items(fmt, messages, roles, unit_of) if options["tool_uses"] else []
    edits: dict[int, dict] = {}
    rows: dict[tuple[int, int | None], dict] = {}
    sizes: dict[tuple[int, int | None], int] = {}

    def size_of(item: dict) -> int:
        key = (item["index"], item["block"])
        if key not in sizes:
            sizes[key] = fmt_parts.size(fmt, messages[item["index"]], item["block"], item["index"], count)
        return sizes[key]

    def recost(index: int) -> None:
        edit = edits.get(index)
        costs[index] = (
            original[index] if edit is None else fmt_parts.cost(fmt, fmt_parts.cleared_copy(fmt, messages[index], edit), index, count)
        )

    def clear(item: dict, inputs: bool) -> list[int]:
        """The item cleared in ``edits``; the messages whose cost changed."""
        tokens = size_of(item)
        edits.setdefault(item["index"], fmt_parts.new_edit())["results"][item["block"]] = fmt_parts.placeholder(item["tool"], tokens)
        touched = [item["index"]]
        if inputs and item["call_index"] is not None:
            edits.setdefault(item["call_index"], fmt_parts.new_edit())["inputs"].add(item["call_block"])
            touched.append(item["call_index"])
        for index in touched:
            recost(index)
        return touched

    def unclear(item: dict, touched: list[int]) -> None:
        edit = edits[item["index"]]
        del edit["results"][item["block"]]
        if len(touched) > 1:
            edits[item["call_index"]]["inputs"].discard(item["call_block"])
        for index in touched:
            if not any(edits[index].values()):
                del edits[index]
            recost(index)

    def row(item: dict, inputs: bool, reason: str) -> dict:
        tokens = size_of(item)
        return {
            "index": item["index"],
            "block": item["block"],
            "kind": "result",
            "tool": item["tool"],
            "id": item["id"],
            "tokens_before": tokens,
            "tokens_after": count(fmt_parts.placeholder(item["tool"], tokens)),
            "input": inputs,
            "reason": reason,
        }

    by_key = {(item["index"], item["block"]): item for item in results}
    for index, block, inputs in prior:  # the previous call's cleared items, cleared again, byte for byte
        item = by_key[(index, block)]
        clear(item, inputs)
        rows[(index, block)] = row(item, inputs, AS_BEFORE)
    thinking_rows = _thinking(parsed, fmt, options, edits, count, pinned_units)
    for index in {index for index, _, _ in thinking_rows}:
        recost(index)
    for index, block, tokens in thinking_rows:
        rows[(index, block)] = {
            "index": index,
            "block": block,
            "kind": "thinking",
            "tool": None,
            "id": None,
            "tokens_before": tokens,
            "tokens_after": 0,
            "input": False,
            "reason": OLDER_THINKING,
        }
    floor_start = floor
    while floor_start < live_start and unit_of[floor_start] != floor_start:
        floor_start += 1

    def in_prompt(index: int) -> bool:
        return unit_of[index] >= floor_start or unit_of[index] in pinned_units

    base = parsed.get("priming", REPLY_PRIMING) + parsed["tools_tokens"]
    before = base + sum(costs[index] for index in range(total) if in_prompt(index))
    trigger = limit if options["trigger"] is None and options["trigger_tool_uses"] is None else options["trigger"]
    triggered = bool(results) and (
        (trigger is not None and before > trigger)
        or (options["trigger_tool_uses"] is not None and len(results) > options["trigger_tool_uses"])
    )
    protected = {(item["index"], item["block"]) for item in results[len(results) - options["keep"] :]} if options["keep"] else set()
    excluded = set(options["exclude_tools"])
    target = stable.watermark_limit(options["low_watermark"], limit) if options["low_watermark"] is not None else None
    now = before
    chosen: list[tuple[dict, list[int], bool]] = []
    if triggered:
        for item in results:
            key = (item["index"], item["block"])
            if target is not None and now <= target:
                break
            if (
                key in rows
                or key in protected
                or item["tool"] in excluded
                or (item["index"] >= live_start and not options["live_turn"])
                or unit_of[item["index"]] in pinned_units
                or not in_prompt(item["index"])
            ):
                continue
            inputs = _clears_inputs(options, item["tool"]) and item["call_index"] is not None
            was = sum(costs[index] for index in {item["index"], item["call_index"] if inputs else item["index"]})
            touched = clear(item, inputs)
            saving = was - sum(costs[index] for index in set(touched))
            if saving <= 0:  # the placeholder costs as much as the result: left as it is
                unclear(item, touched)
                continue
            now -= saving
            chosen.append((item, touched, inputs))
        if chosen and before - now < options["clear_at_least"]:
            for item, touched, _ in reversed(chosen):
                unclear(item, touched)
            chosen, now = [], before
    for item, _, inputs in chosen:
        rows[(item["index"], item["block"])] = row(item, inputs, OVER_TRIGGER)
    # The previous call's prompt: its own cleared items, and the same older thinking removed (older turns only grow).
    if chosen:
        before_edits = _edits_for(fmt, messages, [(by_key[(index, block)], inputs) for index, block, inputs in prior], thinking_rows, count)
        previous_costs = list(original)
        for index, edit in before_edits.items():
            previous_costs[index] = fmt_parts.cost(fmt, fmt_parts.cleared_copy(fmt, messages[index], edit), index, count)
        previous_state = {index: _state(edit) for index, edit in before_edits.items()}
    else:
        previous_costs, previous_state = list(costs), {index: _state(edit) for index, edit in edits.items()}
    warnings = [
        f"exclude_tools names {name!r}, which no tool definition names" for name in options["exclude_tools"] if name not in parsed["tools"]
    ]
    after = base + sum(costs[index] for index in range(total) if in_prompt(index))
    return {
        "costs": costs,
        "original_costs": original,
        "previous_costs": previous_costs,
        "options": options,
        "copies": {index: fmt_parts.cleared_copy(fmt, messages[index], edit) for index, edit in edits.items()},
        "state": {index: _state(edit) for index, edit in edits.items()},
        "previous_state": previous_state,
        "rows": [rows[key] for key in sorted(rows, key=lambda key: (key[0], -1 if key[1] is None else key[1]))],
        "summary": {
            **clearing_options.described(options, limit),
            "tokens_before": before,
            "tokens_after": after,
            "triggered": triggered,
            "cleared_now": len(chosen),
            "freed": before - after if chosen else 0,
            "warnings": warnings,
        },
    }


def _edits_for(fmt: str, messages: list, cleared: list[tuple[dict, bool]], thinking: list, count: Callable[[str], int]) -> dict[int, dict]:
    """The edits of these cleared items and removed thinking blocks alone."""
    edits: dict[int, dict] = {}
    for item, inputs in cleared:
        tokens = fmt_parts.size(fmt, messages[item["index"]], item["block"], item["index"], count)
        edits.setdefault(item["index"], fmt_parts.new_edit())["results"][item["block"]] = fmt_parts.placeholder(item["tool"], tokens)
        if inputs and item["call_index"] is not None:
            edits.setdefault(item["call_index"], fmt_parts.new_edit())["inputs"].add(item["call_block"])
    for index, block, _ in thinking:
        edits.setdefault(index, fmt_parts.new_edit())["thinking"].add(block)
    return edits


def _state(edit: dict) -> tuple:
    return (
        tuple(sorted(edit["results"], key=lambda block: -1 if block is None else block)),
        tuple(sorted(edit["inputs"], key=lambda block: -1 if block is None else block)),
        tuple(sorted(edit["thinking"])),
    )


def _thinking(
    parsed: Parsed, fmt: str, options: dict, edits: dict, count: Callable[[str], int], pinned_units: set
) -> list[tuple[int, int, int]]:
    """``(message, block, tokens)`` of the thinking blocks removed: those of assistant turns older than
    the newest ``keep_thinking`` (a turn: the assistant messages after one user turn), never the live
    turn's or a pinned unit's, never a message's only blocks."""
    keep = options["keep_thinking"]
    if keep is None or keep == "all" or fmt != "anthropic":
        return []
    messages, roles, unit_of, live_start = parsed["messages"], parsed["roles"], parsed["unit_of"], parsed["live_start"]
    turn_of, turn = [], 0
    for role in roles:
        turn += role == "user"
        turn_of.append(turn)
    blocks = fmt_parts.thinking_blocks(messages, roles)
    turns = sorted({turn_of[index] for index, _ in blocks})
    kept_turns = set(turns[len(turns) - keep :]) if keep else set()
    removed = []
    for index, block in blocks:
        if index >= live_start or unit_of[index] in pinned_units or turn_of[index] in kept_turns:
            continue
        content = messages[index]["content"]
        others = [position for position, value in enumerate(content) if value.get("type") not in ("thinking", "redacted_thinking")]
        if not others:
            continue
        edits.setdefault(index, fmt_parts.new_edit())["thinking"].add(block)
        removed.append((index, block, fmt_parts.thinking_tokens(messages[index], block, count)))
    return removed


def select(parsed: Parsed, with_trace: bool = True) -> Result:
    """``stable.select``, then the cleared copies in what is sent, ``cleared`` and ``clearing``, and
    the cleared items in ``as_previous``."""
    clearing = parsed.get("clearing")
    if clearing is None:
        return stable.select(parsed, with_trace)
    result = stable.select(parsed, with_trace)
    copies = clearing["copies"]
    fmt = parsed.get("format", "chat")
    send = as_sent if fmt == "chat" else parsed["sent"]
    for position, index in enumerate(result["kept"]):
        if index in copies:
            result["messages"][position] = send(copies[index])
    result["cleared"] = [dict(row) for row in clearing["rows"]]
    result["clearing"] = {**clearing["summary"], "warnings": list(clearing["summary"]["warnings"])}
    as_previous = result.get("as_previous")
    if as_previous is not None:
        as_previous["cleared"] = [
            {"index": row["index"], "block": row["block"], "input": row["input"]} for row in clearing["rows"] if row["kind"] == "result"
        ]
    if clearing["options"]["summary"] is not None:
        _summary_span(parsed, result, clearing, fmt)
    if "trace" in result:
        reasons: dict[int, str] = {}
        for row in clearing["rows"]:
            reasons.setdefault(row["index"], row["reason"])
        for trace_row in result["trace"]:
            if trace_row["index"] in reasons:
                trace_row["cleared"] = reasons[trace_row["index"]]
    return result


def _summary_span(parsed: Parsed, result: Result, clearing: dict, fmt: str) -> None:
    """The dropped span a summary would replace (its messages and tokens) and the allowance; with
    the caller's text, the summary message sent in its place (counted with the pinned part)."""
    kept, dropped = result["kept"], result["dropped"]
    message, cost = clearing.get("summary_message"), clearing.get("summary_tokens")
    if not kept or not dropped:
        result["summary_span"] = None
        return
    costs = parsed["costs"]
    position = sum(1 for index in kept if index < dropped[0])
    result["summary_span"] = {
        "from": dropped[0],
        "to": dropped[-1],
        "messages": len(dropped),
        "tokens": sum(costs[index] for index in dropped),
        "allowance": clearing["options"]["summary"]["tokens"],
        "summary_tokens": cost,
        "position": position,
        "sent": message is not None,
    }
    if message is not None and cost is not None:
        result["messages"].insert(position, dict(message))
        if fmt == "chat":  # (the formats count their priming, which holds it, in tokens already)
            result["tokens"] += cost
            result["remaining"] -= cost
        reuse = result.get("reuse")
        if reuse is not None:  # (no previous with a summary: nothing is shared)
            reuse["new_tokens"] = result["tokens"]
