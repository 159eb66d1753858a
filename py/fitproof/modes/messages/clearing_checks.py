"""The independent checks of clearing (``clearing.py``), in the chat format.

``derive`` re-reads the raw input: the options written again with their defaults, each tool result
and the call it answers, its size re-counted, the placeholder written again, the previous call's
cleared items, the prompt before dropping anything new, and the clearing rule replayed (oldest first,
``keep``, exclusions, the live turn, pinned units, the watermark, ``clear_at_least``). ``chat_checks``
then reads the history with the derived copies in place of the cleared messages, so its checks
(re-counted, no holes, pairing, the live turn) hold the cleared prompt to the limit and show that
nothing but a result's content (and, asked for, its call's arguments) changed. None of this
imports the rule, its formats' part or its options' reader.
"""

from __future__ import annotations

from fractions import Fraction
from math import floor
from typing import Any

TRIGGER_DEFAULT_KEEP = 3  # the contract's defaults, written again
ANTHROPIC_TRIGGER = 100_000
AS_BEFORE, OVER_TRIGGER = "cleared_as_before", "cleared_over_trigger"


def given(data: dict) -> bool:
    return data.get("clear") is not None or data.get("context_management") is not None


def _options(data: dict, limit: int) -> dict:
    """The options again, from the raw input (it was valid: the rule read it)."""
    if data.get("clear") is not None:
        clear = {} if data["clear"] is True else data["clear"]
        trigger = clear.get("trigger")
        return {
            "trigger": limit if trigger is None else trigger,
            "trigger_tool_uses": None,
            "keep": TRIGGER_DEFAULT_KEEP if clear.get("keep") is None else clear["keep"],
            "clear_at_least": clear.get("clear_at_least") or 0,
            "exclude_tools": clear.get("exclude_tools") or [],
            "clear_tool_inputs": clear.get("clear_tool_inputs") or False,
            "low_watermark": clear.get("low_watermark"),
        }
    options: dict[str, Any] = {
        "trigger": ANTHROPIC_TRIGGER,
        "trigger_tool_uses": None,
        "keep": TRIGGER_DEFAULT_KEEP,
        "clear_at_least": 0,
        "exclude_tools": [],
        "clear_tool_inputs": False,
        "low_watermark": None,
        "none": True,
    }
    for edit in data["context_management"].get("edits") or []:
        if edit.get("type") != "clear_tool_uses_20250919":
            continue
        options["none"] = False
        trigger = edit.get("trigger")
        if trigger is not None:
            if trigger["type"] == "tool_uses":
                options["trigger"], options["trigger_tool_uses"] = None, trigger["value"]
            else:
                options["trigger"] = trigger["value"]
        for key in ("keep", "clear_at_least"):
            if edit.get(key) is not None:
                options[key] = edit[key]["value"]
        options["exclude_tools"] = edit.get("exclude_tools") or []
        options["clear_tool_inputs"] = edit.get("clear_tool_inputs") or False
    return options


def placeholder(tool: str, tokens: int) -> str:
    return "[cleared: " + tool + " result, " + format(tokens, ",") + " tokens]"


def _results(history) -> list[dict]:
    """Each tool message with the name of the call it answers, oldest first."""
    found = []
    for index, message in enumerate(history.original):
        if message["role"] != "tool":
            continue
        caller = history.original[history.unit[index]]
        for position, call in enumerate(caller.get("tool_calls") or []):
            if call["id"] == message["tool_call_id"]:
                name = call["function"]["name"] if call["type"] == "function" else call["custom"]["name"]
                found.append({"index": index, "tool": name, "id": call["id"], "call": history.unit[index], "position": position})
                break
    return found


def _size(history, message: dict) -> int:
    content = message["content"]
    if isinstance(content, str):
        return history.count(content)
    return sum(history.count(part["text"]) for part in content)


def _copies(history, cleared: list[tuple[dict, bool]]) -> dict[int, dict]:
    copies: dict[int, dict] = {}
    for item, inputs in cleared:
        index = item["index"]
        copy = copies.setdefault(index, dict(history.original[index]))
        copy["content"] = placeholder(item["tool"], _size(history, history.original[index]))
        if inputs:
            caller = copies.setdefault(item["call"], dict(history.original[item["call"]]))
            calls = list(caller["tool_calls"])
            call = calls[item["position"]]
            if call["type"] == "custom":
                calls[item["position"]] = {**call, "custom": {**call["custom"], "input": ""}}
            else:
                calls[item["position"]] = {**call, "function": {**call["function"], "arguments": "{}"}}
            caller["tool_calls"] = calls
    return copies


class Derived:
    """The clearing replayed: the rows, the summary's figures, the copies now and as the previous call sent them."""

    def __init__(self, history) -> None:
        recount = history.recount_of
        data, limit, total = history.data, history.limit, history.total
        options = _options(data, limit)
        results = [] if options.get("none") else _results(history)
        by_index = {item["index"]: item for item in results}
        previous = data.get("previous")
        prior = [(by_index[item["index"]], bool(item.get("input"))) for item in (previous or {}).get("cleared") or []]
        cut = previous["cut"] if previous and data.get("strategy") == "stable" else 0
        while cut < history.live_start and history.unit[cut] != cut:
            cut += 1

        def in_prompt(index: int) -> bool:
            return history.unit[index] >= cut or history.pinned[index]

        def prompt(cleared: list[tuple[dict, bool]]) -> int:
            copies = _copies(history, cleared)
            return (
                history.priming
                + history.tools_tokens
                + sum(recount(copies[index]) if index in copies else history.cost(index) for index in range(total) if in_prompt(index))
            )

        before = prompt(prior)
        triggered = bool(results) and (
            (options["trigger"] is not None and before > options["trigger"])
            or (options["trigger_tool_uses"] is not None and len(results) > options["trigger_tool_uses"])
        )
        newest = {item["index"] for item in results[len(results) - options["keep"] :]} if options["keep"] else set()
        target = floor(_fraction(options["low_watermark"]) * limit) if options["low_watermark"] is not None else None
        done = {item["index"] for item, _ in prior}
        chosen: list[tuple[dict, bool]] = []
        now = before
        if triggered:
            for item in results:
                if target is not None and now <= target:
                    break
                index = item["index"]
                if (
                    index in done
                    or index in newest
                    or item["tool"] in options["exclude_tools"]
                    or history.live[index]
                    or history.pinned[index]
                    or not in_prompt(index)
                ):
                    continue
                wanted = options["clear_tool_inputs"]
                inputs = wanted if isinstance(wanted, bool) else item["tool"] in wanted
                tried = prompt(prior + chosen + [(item, inputs)])
                if tried >= now:
                    continue
                chosen.append((item, inputs))
                now = tried
            if chosen and before - now < options["clear_at_least"]:
                chosen, now = [], before
        self.copies = _copies(history, prior + chosen)
        self.previous_copies = _copies(history, prior)
        self.rows = []
        for item, inputs in sorted(prior + chosen, key=lambda pair: pair[0]["index"]):
            size = _size(history, history.original[item["index"]])
            self.rows.append(
                {
                    "index": item["index"],
                    "block": None,
                    "kind": "result",
                    "tool": item["tool"],
                    "id": item["id"],
                    "tokens_before": size,
                    "tokens_after": history.count(placeholder(item["tool"], size)),
                    "input": inputs,
                    "reason": AS_BEFORE if (item, inputs) in prior else OVER_TRIGGER,
                }
            )
        self.figures = {
            "tokens_before": before,
            "tokens_after": now,
            "triggered": triggered,
            "cleared_now": len(chosen),
            "freed": before - now,
        }
        names = {tool["function"]["name"] for tool in data.get("tools") or []}
        self.warnings = [
            f"exclude_tools names {name!r}, which no tool definition names" for name in options["exclude_tools"] if name not in names
        ]
        self.prior = prior
        self.as_previous = [{"index": row["index"], "block": None, "input": row["input"]} for row in self.rows]


def _fraction(value: object) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)  # type: ignore[arg-type,call-overload]


def cleared_rederived(history) -> str | None:
    """The report's cleared items and figures are the replay's."""
    derived, result = history.derived, history.result
    rows = result.get("cleared")
    if rows != derived.rows:
        got = [(row.get("index"), row.get("reason")) for row in rows or []]
        want = [(row["index"], row["reason"]) for row in derived.rows]
        if got != want:
            return f"the clearing re-derives to {want} (message, reason), the report says {got}"
        return f"the cleared items re-derive to {derived.rows}, the report says {rows}"
    figures = result.get("clearing") or {}
    for key, value in derived.figures.items():
        if figures.get(key) != value:
            return f"the clearing's {key} re-derives to {value}, the report says {figures.get(key)}"
    if figures.get("warnings") != derived.warnings:
        return f"the warnings re-derive to {derived.warnings}, the report says {figures.get('warnings')}"
    trace = result.get("trace") or []
    marked = sorted(row["index"] for row in trace if row.get("cleared"))
    if marked != sorted({row["index"] for row in derived.rows}):
        return f"the trace marks messages {marked} cleared, the replay clears {sorted({row['index'] for row in derived.rows})}"
    return None


def cleared_as_before(history) -> str | None:
    """Every result the previous call cleared is cleared again, and sent as the same bytes."""
    derived, result = history.derived, history.result
    reported = {row["index"]: row for row in result.get("cleared") or []}
    sent = dict(zip(result["kept"], result["messages"]))
    for item, _ in derived.prior:
        index = item["index"]
        if reported.get(index, {}).get("reason") != AS_BEFORE:
            return f"message {index} was cleared by the previous call, the report does not clear it again"
        if index in sent and sent[index].get("content") != derived.previous_copies[index]["content"]:
            return f"message {index} is sent as {sent[index].get('content')!r}, the previous call sent {derived.previous_copies[index]['content']!r}"
    return None


CHECKS = (
    ("tool results cleared", cleared_rederived),
    ("cleared as before", cleared_as_before),
)
