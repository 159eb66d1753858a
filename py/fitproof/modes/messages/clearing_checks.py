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
AS_BEFORE, OVER_TRIGGER, OLDER_THINKING = "cleared_as_before", "cleared_over_trigger", "thinking_of_an_older_turn"


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
            "keep_thinking": clear.get("keep_thinking"),
            "live_turn": clear.get("live_turn") is True,
        }
    options: dict[str, Any] = {
        "trigger": ANTHROPIC_TRIGGER,
        "trigger_tool_uses": None,
        "keep": TRIGGER_DEFAULT_KEEP,
        "clear_at_least": 0,
        "exclude_tools": [],
        "clear_tool_inputs": False,
        "low_watermark": None,
        "keep_thinking": None,
        "live_turn": False,  # (assumed of Anthropic's server: never the current turn's results)
        "none": True,
    }
    for edit in data["context_management"].get("edits") or []:
        if edit.get("type") == "clear_thinking_20251015":
            keep = edit.get("keep")
            options["keep_thinking"] = 1 if keep is None else "all" if keep == "all" or keep.get("type") == "all" else keep["value"]
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


def _fmt(history) -> str:
    return getattr(history, "fmt", "chat")


def _results(history) -> list[dict]:
    """Each tool result with the name of the call it answers, oldest first: ``{index, block, tool, id, call, position}``."""
    fmt, messages, found = _fmt(history), history.original, []
    for index, message in enumerate(messages):
        if history.roles[index] != "tool":
            continue
        caller = messages[history.unit[index]]
        if fmt == "chat":
            for position, call in enumerate(caller.get("tool_calls") or []):
                if call["id"] == message["tool_call_id"]:
                    name = call["function"]["name"] if call["type"] == "function" else call["custom"]["name"]
                    found.append(
                        {"index": index, "block": None, "tool": name, "id": call["id"], "call": history.unit[index], "position": position}
                    )
                    break
        elif fmt == "anthropic":
            uses = caller["content"] if isinstance(caller["content"], list) else []
            for block, result in enumerate(message["content"]):
                if result["type"] != "tool_result":
                    continue
                found_at: int | None = next(
                    (at for at, use in enumerate(uses) if use["type"] == "tool_use" and use["id"] == result["tool_use_id"]), None
                )
                name = uses[found_at]["name"] if found_at is not None else "tool"
                found.append(
                    {
                        "index": index,
                        "block": block,
                        "tool": name,
                        "id": result["tool_use_id"],
                        "call": history.unit[index],
                        "position": found_at,
                    }
                )
        else:
            call = next(
                (
                    other
                    for other in range(history.unit[index], index)
                    if messages[other].get("type") in ("function_call", "custom_tool_call")
                    and messages[other]["call_id"] == message["call_id"]
                ),
                None,
            )
            name = messages[call]["name"] if call is not None else "tool"
            found.append({"index": index, "block": None, "tool": name, "id": message["call_id"], "call": call, "position": None})
    return found


def _size(history, item: dict) -> int:
    """The tokens of the result's own content."""
    fmt, message = _fmt(history), history.original[item["index"]]
    if fmt == "anthropic":
        content = message["content"][item["block"]].get("content")
        if content is None or isinstance(content, str):
            return history.count(content or "")
        emptied = {
            **message,
            "content": [{**block, "content": ""} if at == item["block"] else block for at, block in enumerate(message["content"])],
        }
    else:
        key = "content" if fmt == "chat" else "output"
        if isinstance(message[key], str):
            return history.count(message[key])
        emptied = {**message, key: ""}
    return history.recount_of(message) - history.recount_of(emptied)


def _copies(history, cleared: list[tuple[dict, bool]], thinking: list[tuple[int, int]] = ()) -> dict[int, dict]:  # type: ignore[assignment]
    """The messages with these results (and their calls' arguments, asked for) cleared and these thinking blocks removed."""
    fmt, messages = _fmt(history), history.original
    copies: dict[int, dict] = {}

    def copy_of(index: int) -> dict:
        if index not in copies:
            copies[index] = dict(messages[index])
            if fmt == "anthropic" and isinstance(messages[index]["content"], list):
                copies[index]["content"] = list(messages[index]["content"])
        return copies[index]

    for item, inputs in cleared:
        text = placeholder(item["tool"], _size(history, item))
        copy = copy_of(item["index"])
        if fmt == "chat":
            copy["content"] = text
        elif fmt == "responses":
            copy["output"] = text
        else:
            copy["content"][item["block"]] = {**copy["content"][item["block"]], "content": text}
        if not inputs or item["call"] is None:
            continue
        caller = copy_of(item["call"])
        if fmt == "chat":
            calls = list(caller["tool_calls"])
            call = calls[item["position"]]
            if call["type"] == "custom":
                calls[item["position"]] = {**call, "custom": {**call["custom"], "input": ""}}
            else:
                calls[item["position"]] = {**call, "function": {**call["function"], "arguments": "{}"}}
            caller["tool_calls"] = calls
        elif fmt == "responses":
            if caller["type"] == "function_call":
                caller["arguments"] = "{}"
            else:
                caller["input"] = ""
        elif item["position"] is not None:
            caller["content"][item["position"]] = {**caller["content"][item["position"]], "input": {}}
    for index, block in thinking:
        copy_of(index)["content"][block] = None  # removed below, once every edit of the message is in
    for copy in copies.values():
        if fmt == "anthropic" and isinstance(copy["content"], list):
            copy["content"] = [block for block in copy["content"] if block is not None]
    return copies


def _thinking(history, keep: object) -> list[tuple[int, int, int]]:
    """``(message, block, tokens)``: the thinking of assistant turns older than the newest ``keep``, never the
    live turn's, a pinned unit's, or a message's only blocks (Anthropic)."""
    if _fmt(history) != "anthropic" or keep is None or keep == "all":
        return []
    messages, turn, turns, found = history.original, 0, [], []
    for index in range(history.total):
        turn += history.roles[index] == "user"
        turns.append(turn)
    blocks = [
        (index, block)
        for index in range(history.total)
        if history.roles[index] == "assistant" and isinstance(messages[index]["content"], list)
        for block, value in enumerate(messages[index]["content"])
        if value["type"] in ("thinking", "redacted_thinking")
    ]
    newest = sorted({turns[index] for index, _ in blocks})
    kept = set(newest[len(newest) - keep :]) if keep else set()  # type: ignore[operator]
    for index, block in blocks:
        content = messages[index]["content"]
        if history.live[index] or index >= history.live_start or history.pinned[index] or turns[index] in kept:
            continue
        if all(value["type"] in ("thinking", "redacted_thinking") for value in content):
            continue
        value = content[block]
        found.append((index, block, history.count(value.get("thinking", value.get("data", "")))))
    return found


class Derived:
    """The clearing replayed: the rows, the summary's figures, the copies now and as the previous call sent them."""

    def __init__(self, history) -> None:
        recount = history.recount_of
        data, limit, total = history.data, history.limit, history.total
        options = _options(data, limit)
        results = [] if options.get("none") else _results(history)
        by_key = {(item["index"], item["block"]): item for item in results}
        previous = data.get("previous")
        prior = [(by_key[(item["index"], item.get("block"))], bool(item.get("input"))) for item in (previous or {}).get("cleared") or []]
        cut = previous["cut"] if previous and data.get("strategy") == "stable" else 0
        while cut < history.live_start and history.unit[cut] != cut:
            cut += 1

        def in_prompt(index: int) -> bool:
            return history.unit[index] >= cut or history.pinned[index]

        thinking = _thinking(history, options.get("keep_thinking"))  # removed first: it is no clearing's choice
        removed = [(index, block) for index, block, _ in thinking]

        def prompt(cleared: list[tuple[dict, bool]]) -> int:
            copies = _copies(history, cleared, removed)
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
        newest = {(item["index"], item["block"]) for item in results[len(results) - options["keep"] :]} if options["keep"] else set()
        target = floor(_fraction(options["low_watermark"]) * limit) if options["low_watermark"] is not None else None
        done = {(item["index"], item["block"]) for item, _ in prior}
        chosen: list[tuple[dict, bool]] = []
        now = before
        if triggered:
            for item in results:
                if target is not None and now <= target:
                    break
                index = item["index"]
                if (
                    (index, item["block"]) in done
                    or (index, item["block"]) in newest
                    or item["tool"] in options["exclude_tools"]
                    or ((history.live[index] or index >= history.live_start) and not options["live_turn"])
                    or history.pinned[index]
                    or not in_prompt(index)
                ):
                    continue
                wanted = options["clear_tool_inputs"]
                inputs = (wanted if isinstance(wanted, bool) else item["tool"] in wanted) and item["call"] is not None
                tried = prompt(prior + chosen + [(item, inputs)])
                if tried >= now:
                    continue
                chosen.append((item, inputs))
                now = tried
            if chosen and before - now < options["clear_at_least"]:
                chosen, now = [], before
        self.copies = _copies(history, prior + chosen, removed)
        self.previous_copies = _copies(history, prior, removed)
        self.rows = []
        for item, inputs in prior + chosen:
            size = _size(history, item)
            self.rows.append(
                {
                    "index": item["index"],
                    "block": item["block"],
                    "kind": "result",
                    "tool": item["tool"],
                    "id": item["id"],
                    "tokens_before": size,
                    "tokens_after": history.count(placeholder(item["tool"], size)),
                    "input": inputs,
                    "reason": AS_BEFORE if (item, inputs) in prior else OVER_TRIGGER,
                }
            )
        for index, block, tokens in thinking:
            self.rows.append(
                {
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
            )
        self.rows.sort(key=lambda row: (row["index"], -1 if row["block"] is None else row["block"]))
        self.figures = {
            "tokens_before": before,
            "tokens_after": now,
            "triggered": triggered,
            "cleared_now": len(chosen),
            "freed": before - now,
        }
        names = {tool.get("name") or (tool.get("function") or {}).get("name") for tool in data.get("tools") or []}
        self.warnings = [
            f"exclude_tools names {name!r}, which no tool definition names" for name in options["exclude_tools"] if name not in names
        ]
        self.prior = prior
        self.as_previous = [
            {"index": row["index"], "block": row["block"], "input": row["input"]} for row in self.rows if row["kind"] == "result"
        ]


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
    key = "output" if _fmt(history) == "responses" else "content"  # where a format's result holds what is cleared
    for item, _ in derived.prior:
        index = item["index"]
        if reported.get(index, {}).get("reason") != AS_BEFORE:
            return f"message {index} was cleared by the previous call, the report does not clear it again"
        if index in sent and sent[index].get(key) != derived.previous_copies[index].get(key):
            return (
                f"message {index} is sent as {sent[index].get(key)!r}, the previous call sent {derived.previous_copies[index].get(key)!r}"
            )
    return None


SUMMARY_PREFIX = "Summary of the earlier conversation: "  # the contract's words, written again


def summary_of(history) -> None:
    """A caller's summary: sent (its cost with the pinned part) when the prompt after clearing is over the
    limit, so that something is dropped; ``history.result`` then without it, for the other checks."""
    history.summary_cost, history.summary_message, history.full_result = 0, None, history.result
    summary = (history.data.get("clear") or {}).get("summary") if isinstance(history.data.get("clear"), dict) else None
    if not summary or summary.get("text") is None or history.derived.figures["tokens_after"] <= history.limit:
        return
    message = {"role": "user", "content": SUMMARY_PREFIX + summary["text"]}
    history.summary_message = message
    history.summary_cost = 3 + history.count("user") + history.count(message["content"])
    history.priming += history.summary_cost
    result = history.result
    if result["kept"] and len(result["messages"]) == len(result["kept"]) + 1:
        position = sum(1 for index in result["kept"] if result["dropped"] and index < result["dropped"][0])
        history.result = {**result, "messages": result["messages"][:position] + result["messages"][position + 1 :]}


def summary_sent(history) -> str | None:
    """The span a summary replaces (the dropped messages, their tokens), the allowance, and the summary in its place."""
    result, data = history.full_result, history.data
    summary = data["clear"].get("summary") if isinstance(data.get("clear"), dict) else None
    if summary is None:
        return None
    kept, dropped = result["kept"], result["dropped"]
    if not kept or not dropped:
        return None if result.get("summary_span") is None else "nothing is dropped, yet the report names a span to summarize"
    position = sum(1 for index in kept if index < dropped[0])
    expected = {
        "from": dropped[0],
        "to": dropped[-1],
        "messages": len(dropped),
        "tokens": sum(history.cost(index) for index in dropped),
        "allowance": summary.get("tokens"),
        "summary_tokens": history.summary_cost or None,
        "position": position,
        "sent": history.summary_message is not None,
    }
    if result.get("summary_span") != expected:
        return f"the span to summarize re-derives to {expected}, the report says {result.get('summary_span')}"
    if history.summary_message is not None:
        sent = result["messages"]
        if len(sent) != len(kept) + 1 or sent[position] != history.summary_message:
            return f"the summary should be sent as message {position} of the prompt, {history.summary_message}"
    elif len(result["messages"]) != len(kept):
        return "a summary is sent that the input does not give"
    return None


CHECKS = (
    ("tool results cleared", cleared_rederived),
    ("cleared as before", cleared_as_before),
    ("summary in place of the dropped span", summary_sent),
)
