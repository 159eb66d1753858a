"""The options of clearing (``clearing.py``): the input key ``clear`` in this package's words, and
Anthropic's own ``context_management`` edits object read as the same options.

``clear``: ``{trigger?, keep?, clear_at_least?, exclude_tools?, clear_tool_inputs?, low_watermark?,
keep_thinking?}``, counts as plain integers. ``context_management``: ``{edits: [...]}`` as Anthropic's
Messages API takes it (anthropic 2.10.0's ``BetaContextManagementConfigParam``): a
``clear_tool_uses_20250919`` edit (``trigger`` ``{type: "input_tokens" | "tool_uses", value}``, ``keep``
``{type: "tool_uses", value}``, ``clear_at_least`` ``{type: "input_tokens", value}``, ``exclude_tools``,
``clear_tool_inputs``) and a ``clear_thinking_20251015`` edit (``keep`` ``{type: "thinking_turns",
value}``, ``{type: "all"}`` or ``"all"``), with Anthropic's defaults (trigger 100,000 input tokens,
keep 3 tool uses, thinking kept for 1 turn). Every problem is said at its path with the value received.
"""

from __future__ import annotations

from ..._base.values import INVALID_VALUE, MISSING_KEY, WRONG_TYPE, Key, Problem, got, json_text, preview, unknown_keys

CLEAR_KEYS = (
    "trigger",
    "keep",
    "clear_at_least",
    "exclude_tools",
    "clear_tool_inputs",
    "low_watermark",
    "keep_thinking",
    "live_turn",
    "summary",
)
SUMMARY_KEYS = ("tokens", "text")
DEFAULT_KEEP = 3
ANTHROPIC_TRIGGER = 100_000  # Anthropic's documented default: 100,000 input tokens
ANTHROPIC_THINKING_KEEP = 1  # Anthropic's documented default: the thinking of the last assistant turn
TOOL_USES_EDIT, THINKING_EDIT = "clear_tool_uses_20250919", "clear_thinking_20251015"
EDIT_KEYS = {
    TOOL_USES_EDIT: ("type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"),
    THINKING_EDIT: ("type", "keep"),
}
MAX_COUNT = 2**53 - 1


def defaults() -> dict:
    """Every option at its default (``trigger`` None: the limit)."""
    return {
        "trigger": None,
        "trigger_tool_uses": None,
        "keep": DEFAULT_KEEP,
        "clear_at_least": 0,
        "exclude_tools": [],
        "clear_tool_inputs": False,
        "low_watermark": None,
        "keep_thinking": None,
        "live_turn": False,  # true: the live turn's results may be cleared too (an agent's one long request)
        "tool_uses": True,
        "source": "clear",
        "summary": None,
    }


def _count(value: object, at: tuple[Key, ...], what: str, problems: list[Problem]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and not value.is_integer()):
        problems.append(Problem(at, WRONG_TYPE, f"expected a count (an integer from 0), {what}, got {preview(value)}"))
        return None
    if not 0 <= value <= MAX_COUNT:
        problems.append(Problem(at, INVALID_VALUE, f"expected a count (an integer from 0), {what}, got {preview(value)}"))
        return None
    return int(value)


def _names(value: object, at: tuple[Key, ...], what: str, problems: list[Problem]) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        bad = (
            next((position for position, name in enumerate(value) if not isinstance(name, str)), None) if isinstance(value, list) else None
        )
        where = (*at, bad) if bad is not None else at
        shown = value[bad] if bad is not None and isinstance(value, list) else value
        problems.append(Problem(where, WRONG_TYPE, f"expected an array of tool names, {what}, got {preview(shown)}"))
        return None
    return list(value)


def _inputs(value: object, at: tuple[Key, ...], problems: list[Problem]) -> bool | list[str] | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return _names(value, at, "the tools whose calls lose their arguments when their result is cleared", problems)
    problems.append(Problem(at, WRONG_TYPE, f"expected true, false or an array of tool names, got {preview(value)}"))
    return None


def _flag(value: object, at: tuple[Key, ...], what: str, problems: list[Problem]) -> bool | None:
    if isinstance(value, bool):
        return value
    problems.append(Problem(at, WRONG_TYPE, f"expected true or false, {what}, got {preview(value)}"))
    return None


def _watermark(value: object, at: tuple[Key, ...], problems: list[Problem]) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(
            Problem(at, WRONG_TYPE, f"expected a number in (0, 1], the share of the limit clearing goes down to, got {preview(value)}")
        )
        return None
    if not 0 < value <= 1:
        problems.append(
            Problem(
                at,
                INVALID_VALUE,
                f"expected a number in (0, 1] (above 0, at most 1), the share of the limit clearing goes down to, got {preview(value)}",
            )
        )
        return None
    return value


def _thinking(value: object, at: tuple[Key, ...], problems: list[Problem]) -> int | str | None:
    if value == "all":
        return "all"
    return _count(value, at, 'or "all": the newest assistant turns whose thinking blocks stay', problems)


def _summary(value: object, at: tuple[Key, ...], problems: list[Problem]) -> dict | None:
    """``{tokens?, text?}``: the allowance a summary of the dropped span may take, and the caller's summary text."""
    if not isinstance(value, dict):
        problems.append(
            Problem(at, WRONG_TYPE, f"expected an object {{tokens?, text?}} (the summary of the dropped span), got {got(value)}")
        )
        return None
    problems.extend(unknown_keys(value, at, SUMMARY_KEYS))
    tokens = (
        _count(value["tokens"], (*at, "tokens"), "the tokens a summary may take", problems) if value.get("tokens") is not None else None
    )
    text = value.get("text")
    if text is not None and (not isinstance(text, str) or not text.strip()):
        problems.append(Problem((*at, "text"), WRONG_TYPE, f"expected the summary's text (a non-empty string), got {preview(text)}"))
        text = None
    return {"tokens": tokens, "text": text}


def read_clear(value: object, problems: list[Problem]) -> dict | None:
    """``clear`` read into the options, or None after recording its problems."""
    at: tuple[Key, ...] = ("clear",)
    if value is True:
        value = {}
    if not isinstance(value, dict):
        problems.append(Problem(at, WRONG_TYPE, f"expected an object of clearing options ({{}} for the defaults), got {got(value)}"))
        return None
    before = len(problems)
    problems.extend(unknown_keys(value, at, CLEAR_KEYS))
    options = defaults()
    readers = {
        "trigger": lambda given, where: _count(given, where, "the prompt's tokens above which clearing starts", problems),
        "keep": lambda given, where: _count(given, where, "the newest tool uses never cleared", problems),
        "clear_at_least": lambda given, where: _count(given, where, "the least a clearing must free", problems),
        "exclude_tools": lambda given, where: _names(given, where, "the tools whose results are never cleared", problems),
        "clear_tool_inputs": lambda given, where: _inputs(given, where, problems),
        "low_watermark": lambda given, where: _watermark(given, where, problems),
        "keep_thinking": lambda given, where: _thinking(given, where, problems),
        "live_turn": lambda given, where: _flag(given, where, "whether the live turn's tool results may be cleared too", problems),
        "summary": lambda given, where: _summary(given, where, problems),
    }
    for key, reader in readers.items():
        if value.get(key) is not None:
            options[key] = reader(value[key], (*at, key))
    if len(problems) > before:
        return None
    return options


def _typed(value: object, at: tuple[Key, ...], types: tuple[str, ...], problems: list[Problem]) -> tuple[str, int | None] | None:
    """An Anthropic ``{type, value}`` object (``{type: "all"}`` has no value)."""
    shape = " or ".join(f'{{"type": "{kind}"' + (', "value": N}' if kind != "all" else "}") for kind in types)
    if not isinstance(value, dict):
        problems.append(Problem(at, WRONG_TYPE, f"expected {shape}, got {got(value)}"))
        return None
    kind = value.get("type")
    if kind not in types:
        problems.append(Problem((*at, "type"), INVALID_VALUE, f"expected one of {', '.join(types)}, got {preview(kind)}"))
        return None
    problems.extend(unknown_keys(value, at, ("type",) if kind == "all" else ("type", "value")))
    if kind == "all":
        return "all", None
    if "value" not in value:
        problems.append(Problem((*at, "value"), MISSING_KEY, 'missing key "value" (a count)', "value"))
        return None
    counted = _count(value["value"], (*at, "value"), f"the {kind.replace('_', ' ')}", problems)
    return None if counted is None else (kind, counted)


def read_context_management(value: object, problems: list[Problem]) -> dict | None:
    """Anthropic's ``context_management`` read into the same options, or None after recording its problems."""
    at: tuple[Key, ...] = ("context_management",)
    if not isinstance(value, dict):
        problems.append(Problem(at, WRONG_TYPE, f"expected Anthropic's context_management object {{edits: [...]}}, got {got(value)}"))
        return None
    before = len(problems)
    problems.extend(unknown_keys(value, at, ("edits",)))
    edits = value.get("edits", [])
    options = {**defaults(), "trigger": ANTHROPIC_TRIGGER, "tool_uses": False, "source": "context_management"}
    if not isinstance(edits, list):
        problems.append(Problem((*at, "edits"), WRONG_TYPE, f"expected an array of edits, got {got(edits)}"))
        return None
    seen: set[str] = set()
    for position, edit in enumerate(edits):
        edit_at: tuple[Key, ...] = (*at, "edits", position)
        if not isinstance(edit, dict):
            problems.append(Problem(edit_at, WRONG_TYPE, f"expected an edit {{type, ...}}, got {got(edit)}"))
            continue
        kind = edit.get("type")
        if kind not in EDIT_KEYS:
            problems.append(
                Problem(
                    (*edit_at, "type"),
                    INVALID_VALUE,
                    f"expected one of {', '.join(EDIT_KEYS)} (the edits this mode reads; compaction is not modelled), got {preview(kind)}",
                )
            )
            continue
        if kind in seen:
            problems.append(Problem((*edit_at, "type"), INVALID_VALUE, f"the edit {json_text(kind)} is given twice"))
            continue
        seen.add(kind)
        problems.extend(unknown_keys(edit, edit_at, EDIT_KEYS[kind]))
        if kind == THINKING_EDIT:
            keep = edit.get("keep")
            if keep is None:
                options["keep_thinking"] = ANTHROPIC_THINKING_KEEP
            elif keep == "all":
                options["keep_thinking"] = "all"
            else:
                typed = _typed(keep, (*edit_at, "keep"), ("thinking_turns", "all"), problems)
                if typed is not None:
                    options["keep_thinking"] = "all" if typed[0] == "all" else typed[1]
            continue
        options["tool_uses"] = True
        if edit.get("trigger") is not None:
            typed = _typed(edit["trigger"], (*edit_at, "trigger"), ("input_tokens", "tool_uses"), problems)
            if typed is not None:
                options["trigger"], options["trigger_tool_uses"] = (typed[1], None) if typed[0] == "input_tokens" else (None, typed[1])
        for key, kinds in (("keep", ("tool_uses",)), ("clear_at_least", ("input_tokens",))):
            if edit.get(key) is not None:
                typed = _typed(edit[key], (*edit_at, key), kinds, problems)
                if typed is not None:
                    options[key] = typed[1]
        if edit.get("exclude_tools") is not None:
            options["exclude_tools"] = _names(edit["exclude_tools"], (*edit_at, "exclude_tools"), "the tools whose uses are kept", problems)
        if edit.get("clear_tool_inputs") is not None:
            options["clear_tool_inputs"] = _inputs(edit["clear_tool_inputs"], (*edit_at, "clear_tool_inputs"), problems)
    if len(problems) > before:
        return None
    return options


def described(options: dict, limit: int) -> dict:
    """The options as the report gives them back (``trigger`` resolved)."""
    trigger = options["trigger"]
    return {
        "source": options["source"],
        "trigger": limit if trigger is None and options["trigger_tool_uses"] is None else trigger,
        "trigger_tool_uses": options["trigger_tool_uses"],
        "keep": options["keep"],
        "clear_at_least": options["clear_at_least"],
        "exclude_tools": list(options["exclude_tools"]),
        "clear_tool_inputs": options["clear_tool_inputs"]
        if isinstance(options["clear_tool_inputs"], bool)
        else list(options["clear_tool_inputs"]),
        "low_watermark": options["low_watermark"],
        "keep_thinking": options["keep_thinking"],
        "live_turn": options["live_turn"],
        "tool_uses": options["tool_uses"],
    }


SUMMARY_PREFIX = "Summary of the earlier conversation: "


def summary_message(text: str) -> dict:
    """The message a caller's summary is sent as, in every format: a user message (pinned in its place)."""
    return {"role": "user", "content": SUMMARY_PREFIX + text}
