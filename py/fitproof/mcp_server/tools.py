"""The four tools: what each takes and returns (their definitions are ``definitions.py``'s).

A call answers with ``structuredContent`` (matching the tool's ``outputSchema``) and one short
text for a person or a model to read. Bad arguments answer with ``isError: true`` and a text that
names the JSON path in the arguments (``$.input.items[0].tokens``) and the value received; the
session goes on. ``tools/list`` carries slim input schemas, so every argument is checked here, by
the package's own validation (what ``evaluate``, ``trim_messages`` and ``verify_claim`` refuse is
refused) and by ``_take`` (an unknown or missing argument). Only the public API is called:
``evaluate``, ``count_tokens``, ``trim_messages``, ``verify_claim``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .._base.errors import FitproofError
from .._base.values import and_more, plural
from .._base.words import ranges
from .._evaluation.report import Report
from .._base.values import did_you_mean
from .definitions import MODES, SCHEME, TRIM_ARGUMENTS, claim_words, listing, mode_schema
from .words import preview

__all__ = ["MODES", "ToolError", "call", "claim_words", "listing", "mode_schema", "names"]

TEXT_LIMIT = 2000  # characters of a result's short text


class ToolError(FitproofError):
    """Bad arguments or an outcome with nothing to return: a result with ``isError: true``."""

    def __init__(self, text: str, structured: dict | None = None) -> None:
        super().__init__(text)
        self.structured = structured


def names() -> tuple[str, ...]:
    return tuple(TOOLS)


def call(name: str, arguments: dict, version: str) -> dict:
    """``tools/call``'s result: the tool's structured content and short text, or ``isError`` and why."""
    from ..tokenizers import TokenizerFileError

    try:
        text, structured = TOOLS[name](arguments)
    except ToolError as failure:
        return _result(str(failure), failure.structured, version, is_error=True)
    except TokenizerFileError as failure:  # a registered file found broken only while it counted
        return _result(f"$.tokenizer: its file cannot count this input: {failure}", None, version, is_error=True)
    return _result(text, structured, version)


def _result(text: str, structured: dict | None, version: str, is_error: bool = False) -> dict:
    content = [{"type": "text", "text": _cut(text)}]
    result: dict[str, Any] = {"content": content}
    if structured is not None:
        if version >= "2025-06-18":
            result["structuredContent"] = structured
        else:  # a client of an older version reads only content: the data as JSON text too
            content.append({"type": "text", "text": json.dumps(structured, ensure_ascii=False)})
    result["isError"] = is_error
    return result


# -- arguments -------------------------------------------------------------------------------


def _path(key: str) -> str:
    return f"$.{key}" if key.isidentifier() else f"$[{json.dumps(key, ensure_ascii=False)}]"


def _take(arguments: dict, tool: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Refuse an unknown or missing argument, naming it (and the closest known one)."""
    known = required + optional
    for key in arguments:
        if key not in known:
            raise ToolError(
                f"{_path(key)}: unknown argument{did_you_mean(key, known)}; {tool} takes {', '.join(known)} "
                f"(the full schema: resource {SCHEME}{tool})"
            )
    for key in required:
        if key not in arguments:
            raise ToolError(f"{_path(key)}: missing: {tool} needs {', '.join(required)}")


def _first_problems(problems: list, at: Callable[[str], str]) -> str:
    """The first three problems, each at its path, and how many more there are."""
    said = "; ".join(f"{at(problem.path)}: {problem.message}" for problem in problems[:3])
    return said + and_more(len(problems) - 3, "more problem") if said else ""


def _cut(text: str, width: int = TEXT_LIMIT) -> str:
    return text if len(text) <= width else text[: width - 21] + " … (cut; see the rest)"


def _ranges(indices: list[int], width: int = 200) -> str:
    """``0, 3–5, 9``: sorted indices with runs joined, cut to ``width`` characters."""
    text = ranges(indices, shown=None, dash="–")
    return text if len(text) <= width else text[: width - 1] + "…"


# -- the tools -------------------------------------------------------------------------------


def _check(arguments: dict) -> tuple[str, dict]:
    from .. import evaluate

    _take(arguments, "check", ("input",), ("claim",))
    data = arguments["input"]
    claimed = "claim" in arguments
    if claimed and isinstance(data, dict):  # it replaces a claim the input has, as check --claim does
        data = {**data, "claim": arguments["claim"]}
    report = evaluate(data)
    at = _argument_path(claimed)
    failure = _first_failure(report, at)
    structured: dict[str, Any] = {"pass": report["pass"]}
    if failure is not None:
        structured["failure"] = failure
    structured["report"] = report
    if report.get("errors") or _internal(report):  # the input must change (or the checker broke): a tool error
        raise ToolError(f"{report['summary']} {failure}", structured)
    verdict = "PASS" if report["pass"] else "FAIL"
    text = f"{verdict}  {report['summary']}"
    if failure is not None and failure.partition(": ")[2] not in report["summary"]:
        text += f"\nfirst failure: {failure}"
    return text, structured


def _internal(report: Report) -> bool:
    return any(check.get("name") == "internal error" for check in report.get("checks", ()))


def _argument_path(claim_argument: bool) -> Callable[[str], str]:
    """A report's path (relative to the input) as a path in the tool's arguments."""

    def at(path: str) -> str:
        if claim_argument and (path == "$.claim" or path.startswith(("$.claim.", "$.claim["))):
            return path
        return "$.input" + path[1:] if path.startswith("$") else path

    return at


def _first_failure(report: Report, at: Callable[[str], str]) -> str | None:
    errors = report.get("errors")
    if errors:
        first = errors[0]
        return f"{at(first['path'])}: {first['message']}{and_more(len(errors) - 1, 'more problem', ' in report.errors')}"
    claim = report.get("claim")
    if claim is not None and not claim["pass"] and claim["failures"]:
        failure = claim["failures"][0]
        return f"the claim fails the check {failure['check']!r}: {failure['detail']}"
    for check in report.get("checks", ()):
        if not check["pass"]:
            return f"{check['name']}: {check.get('detail', 'failed')}"
    return None if report["pass"] else report["summary"]


def _count_tokens(arguments: dict) -> tuple[str, dict]:
    from .. import count_tokens
    from ..tokenizers import resolve

    _take(arguments, "count_tokens", ("text",), ("tokenizer",))
    text, tokenizer = arguments["text"], arguments.get("tokenizer", "o200k_base")
    if not isinstance(text, str):
        raise ToolError(f"$.text: expected a string, got {preview(text)}")
    if not isinstance(tokenizer, str):
        raise ToolError(f"$.tokenizer: expected a tokenizer's or a model's name (a string), got {preview(tokenizer)}")
    try:
        tokens = count_tokens(text, tokenizer)
    except ValueError as error:  # an unknown name, a model it cannot count, a rank file missing or altered
        raise ToolError(f"$.tokenizer: {error}") from None
    encoding = resolve(tokenizer)
    encoding = encoding if isinstance(encoding, str) else tokenizer
    named = tokenizer if encoding == tokenizer else f"{tokenizer} ({encoding})"
    how = "estimated" if encoding == "estimate" else "exact"
    return f"{plural(tokens, 'token')} by {named}, {how}", {"tokens": tokens, "tokenizer": tokenizer, "encoding": encoding}


def _trim_messages(arguments: dict) -> tuple[str, dict]:
    import warnings

    from .. import MessagesDoNotFit, MessagesError, trim_messages

    _take(arguments, "trim_messages", TRIM_ARGUMENTS[:2], TRIM_ARGUMENTS[2:])
    messages, limit = arguments["messages"], arguments["limit"]
    if not isinstance(messages, list):
        raise ToolError(f"$.messages: expected a list of messages (objects with role and content), got {preview(messages)}")
    if arguments.get("tools") is not None and not isinstance(arguments["tools"], list):
        raise ToolError(f"$.tools: expected a list of tool definitions (objects), got {preview(arguments['tools'])}")
    conversation = arguments.get("conversation")
    if conversation is not None and not (isinstance(conversation, str) and conversation):
        raise ToolError(f"$.conversation: expected a non-empty string (an id of yours for this conversation), got {preview(conversation)}")
    options = {key: arguments.get(key) for key in TRIM_ARGUMENTS[3:]}
    try:
        with warnings.catch_warnings(record=True) as caught:  # (RememberedCallLost): said in the result, not on standard error
            warnings.simplefilter("always")
            trimmed = trim_messages(messages, limit, arguments.get("tokenizer"), **options)
    except MessagesDoNotFit as error:
        problem = error.problems[0] if error.problems else None
        said = f"{problem.path}: {problem.message}" if problem is not None else str(error)
        raise ToolError(
            f"Nothing to send: {said}",
            {
                "shortfall": error.shortfall,
                "needed": error.needed,
                "limit": error.limit,
                "live_turn": error.live_turn,
                "pinned": error.pinned,
            },
        ) from None
    except MessagesError as error:
        problems = list(error.problems)
        raise ToolError(_first_problems(problems, str) if problems else str(error)) from None
    structured: dict[str, Any] = {
        "messages": list(trimmed),
        "kept": trimmed.kept,
        "dropped": trimmed.dropped,
        "tokens": trimmed.tokens,
        "limit": trimmed.limit,
        "remaining": trimmed.remaining,
        "tools_tokens": trimmed.tools_tokens,
        "images_at_most": [list(pair) for pair in trimmed.images_at_most],
        "format": trimmed.format,
    }
    if trimmed.strategy is not None:  # strategy, previous, caching or clear given: the report's fields of the same names
        structured.update(strategy=trimmed.strategy, cut=trimmed.cut, as_previous=trimmed.as_previous, previous=trimmed.previous)
        structured["reuse"] = trimmed.reuse
    if trimmed.cleared is not None:
        structured.update(cleared=trimmed.cleared, clearing=trimmed.clearing, summary_span=trimmed.summary_span)
    warned = [str(warning.message) for warning in caught]
    if warned:
        structured["warnings"] = warned
    return _trimmed_text(structured), structured


def _trimmed_text(structured: dict) -> str:
    kept, dropped = structured["kept"], structured["dropped"]
    text = (
        f"Send {len(kept)} of {plural(len(kept) + len(dropped), 'message')} ({_ranges(kept)}): "
        f"{structured['tokens']} prompt tokens of {structured['limit']}, {structured['remaining']} left."
    )
    text += f" Dropped: {_ranges(dropped)}." if dropped else " Nothing dropped."
    if structured.get("cleared"):
        freed = structured["clearing"].get("freed", 0)
        text += f" Cleared {plural(len(structured['cleared']), 'tool result')} ({plural(freed, 'token')} freed now)."
    reuse = structured.get("reuse") or {}
    if "cached_tokens" in reuse:
        text += f" Billed: {reuse['cached_tokens']} cached, {reuse['written_tokens']} written, {reuse['input_tokens']} plain input."
    if structured.get("as_previous") is not None:
        text += " Give as_previous back as previous on the next call."
    text += "".join(f"\nwarning: {warning}" for warning in structured.get("warnings", ()))
    return text


def _verify_claim(arguments: dict) -> tuple[str, dict]:
    from .. import InvalidInputError, verify_claim

    _take(arguments, "verify_claim", ("input", "claim"))
    data = arguments["input"]
    if not isinstance(data, dict):
        raise ToolError(f"$.input: expected an object (an input of any mode), got {preview(data)}")
    at = _argument_path(True)
    try:
        verdict = verify_claim(data, arguments["claim"])
    except InvalidInputError as error:
        raise ToolError(_first_problems(list(error.problems), at) or str(error)) from None
    except RuntimeError as error:  # the checker itself broke on this input
        raise ToolError(f"The checker failed on this input; please report it: {str(error)[:300]}") from None
    failures = []
    for failure in verdict.failures:
        row: dict[str, Any] = {"check": failure.check, "detail": failure.detail}
        if failure.id is not None:
            row["id"] = failure.id
        if failure.index is not None:
            row["index"] = failure.index
        failures.append(row)
    if verdict.holds:
        text = "CLAIM HOLDS: it is the selection the rule makes."
    else:
        text = (
            f"CLAIM FAILS: {plural(len(failures), 'failure')}"
            + "".join(f"\n  {row['check']}: {row['detail']}" for row in failures[:5])
            + ("\n  …" if len(failures) > 5 else "")
        )
    return text, {"holds": verdict.holds, "failures": failures}


TOOLS: dict[str, Callable[[dict], tuple[str, dict]]] = {
    "check": _check,
    "count_tokens": _count_tokens,
    "trim_messages": _trim_messages,
    "verify_claim": _verify_claim,
}
