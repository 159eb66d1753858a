"""The four tools, their schemas, and what each returns.

Each tool's input schema is built from the package's own JSON Schemas (``schemas/``): ``check``
takes any mode's input (the five schemas, ``anyOf``) and an optional claim (the modes' claim
shapes); ``trim_messages`` takes mode ``messages``' own ``messages``, ``limit`` and ``tools``;
``verify_claim`` takes an input (described, not repeated: it is ``check``'s) and a claim.

A call answers with ``structuredContent`` (matching the tool's ``outputSchema``) and one short
text for a person or a model to read. Bad arguments answer with ``isError: true`` and a text that
names the JSON path in the arguments (``$.input.items[0].tokens``) and the value received; the
session goes on. Only the public API is called: ``evaluate``, ``count_tokens``,
``trim_messages``, ``verify_claim``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

from .._base.errors import FitproofError
from .._base.values import and_more, plural
from .._base.words import ranges
from .._evaluation.report import Report
from .._base.values import did_you_mean
from .words import preview

MODES = ("relevance", "required", "blocks", "passages", "messages")
TEXT_LIMIT = 2000  # characters of a result's short text

TOKENIZER = {
    "type": "string",
    "default": "o200k_base",
    "description": "o200k_base (GPT-4o and later; the default), cl100k_base (GPT-4, GPT-3.5-turbo), o200k_harmony "
    "(GPT-OSS), estimate (a heuristic), or a model name read as its encoding (gpt-4o, gpt-4o-2024-08-06, "
    "gpt-4.1, o3, gpt-4, gpt-3.5-turbo), or a NAME the server was started with (--tokenizer-file NAME=PATH: "
    "a model's own tokenizer.json, GGUF or tekken file). Claude and Gemini publish no tokenizer: use estimate.",
}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


class ToolError(FitproofError):
    """Bad arguments or an outcome with nothing to return: a result with ``isError: true``."""

    def __init__(self, text: str, structured: dict | None = None) -> None:
        super().__init__(text)
        self.structured = structured


# -- schemas ---------------------------------------------------------------------------------

_SCHEMAS: dict[str, dict] = {}


def mode_schema(mode: str) -> dict:
    """The package's schema of ``mode``, as a subschema (its ``$schema`` and ``$id`` left out)."""
    if mode not in _SCHEMAS:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", f"{mode}.schema.json")
        with open(path, encoding="utf-8") as file:
            schema = json.load(file)
        _SCHEMAS[mode] = {key: value for key, value in schema.items() if key not in ("$schema", "$id")}
    return _SCHEMAS[mode]


def _claim_schemas() -> list[dict]:
    shapes: list[dict] = []
    for mode in MODES:
        claim = mode_schema(mode)["properties"]["claim"]
        if claim not in shapes:
            shapes.append(claim)
    return shapes


def _claim_words(with_prompt: bool) -> str:
    """Each mode's claim in its own words, read from the schemas' claim shapes (the first property
    is the mode's kept list): "{selected: [ids]} in relevance and required, ..."."""
    groups: dict[str, list[str]] = {}
    for mode in MODES:
        claim = mode_schema(mode)["properties"]["claim"]["properties"]
        key = next(iter(claim))
        listed = "indices" if claim[key]["items"]["type"] == "integer" else "ids"
        prompt = ", prompt?" if with_prompt and "prompt" in claim else ""
        groups.setdefault(f"{{{key}: [{listed}]{prompt}}}", []).append(mode)
    return ", ".join(f"{shape} in {' and '.join(modes)}" for shape, modes in groups.items())


def _input_schema(tool: str) -> dict:
    if tool == "check":
        return {
            "type": "object",
            "properties": {
                "input": {
                    "description": "One input of any mode (input.mode: relevance when absent, required, blocks, passages, "
                    "messages), as `fitproof check` reads it; its fields are in docs/contract.md.",
                    "anyOf": [mode_schema(mode) for mode in MODES],
                },
                "claim": {
                    "description": f"Optional: a selection someone says the rule makes, in the mode's words ({_claim_words(False)}); "
                    "it replaces input.claim.",
                    "anyOf": _claim_schemas(),
                },
            },
            "required": ["input"],
            "additionalProperties": False,
        }
    if tool == "verify_claim":
        return {
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "description": "One input of any mode, the input the claim is about: what the check "
                    "tool's input takes (its schema is there).",
                },
                "claim": {
                    "description": f"The selection someone says the rule makes, in the mode's words: {_claim_words(True)}; used optional.",
                    "anyOf": _claim_schemas(),
                },
            },
            "required": ["input", "claim"],
            "additionalProperties": False,
        }
    if tool == "count_tokens":
        return {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to count."}, "tokenizer": TOKENIZER},
            "required": ["text"],
            "additionalProperties": False,
        }
    messages = mode_schema("messages")["properties"]
    return {
        "type": "object",
        "properties": {
            "messages": messages["messages"],
            "limit": messages["limit"],
            "tokenizer": TOKENIZER,
            "tools": messages["tools"],
            "template": messages["template"],
            "template_options": messages["template_options"],
        },
        "required": ["messages", "limit"],
        "additionalProperties": False,
    }


_INDICES = {"type": "array", "items": {"type": "integer", "minimum": 0}}
_COUNT = {"type": "integer", "minimum": 0}
OUTPUT_SCHEMAS: dict[str, dict] = {
    "check": {
        "type": "object",
        "properties": {
            "pass": {"type": "boolean", "description": "The report passes (with a claim: the claim holds too)."},
            "failure": {"type": "string", "description": "The first failure in words, when it does not pass."},
            "report": {
                "type": "object",
                "description": "evaluate's report (docs/contract.md#the-report); its paths are relative to input.",
            },
        },
        "required": ["pass", "report"],
    },
    "count_tokens": {
        "type": "object",
        "properties": {"tokens": _COUNT, "tokenizer": {"type": "string"}, "encoding": {"type": "string"}},
        "required": ["tokens", "tokenizer", "encoding"],
    },
    "trim_messages": {
        "type": "object",
        "properties": {
            "messages": {"type": "array", "items": {"type": "object"}, "description": "What to send, as a request takes it."},
            "kept": _INDICES,
            "dropped": _INDICES,
            "tokens": _COUNT,
            "limit": _COUNT,
            "remaining": _COUNT,
            "tools_tokens": _COUNT,
            "images_at_most": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        },
        "required": ["messages", "kept", "dropped", "tokens", "limit", "remaining"],
    },
    "verify_claim": {
        "type": "object",
        "properties": {
            "holds": {"type": "boolean"},
            "failures": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "check": {"type": "string"},
                        "detail": {"type": "string"},
                        "id": {"type": "string"},
                        "index": {"type": "integer"},
                    },
                    "required": ["check", "detail"],
                },
            },
        },
        "required": ["holds", "failures"],
    },
}

DESCRIPTIONS = {
    "check": (
        "Apply fitproof's rule to one input of any mode and verify the result with independent checks: "
        "which candidates fit the budget, in one documented order, and why each one left out was left out. "
        "With a claim (a selection an agent or another program made), judge whether it is the rule's selection. "
        "Returns the report (kept, left out with reasons, the checks, a trace) and the first failure in words."
    ),
    "count_tokens": "Count the tokens of a text: exactly as OpenAI's models do (o200k_base, cl100k_base, or a model name), or an estimate.",
    "trim_messages": (
        "Trim an OpenAI-format chat history to a prompt-token limit: keep every system, developer and pinned message "
        "and the live turn (the newest user message and what follows), then the newest older turns that fit, a tool "
        "call always with its results, with no holes. Returns the messages to send and the indices kept and dropped."
    ),
    "verify_claim": (
        "Judge a claimed selection against an input: whether it is the selection the mode's rule makes, worked out "
        "from the input alone, and every failure if not (its check, what was found, the item it is about)."
    ),
}
TITLES = {
    "check": "Check a context selection",
    "count_tokens": "Count tokens",
    "trim_messages": "Trim a chat history",
    "verify_claim": "Verify a claimed selection",
}

_LISTINGS: dict[str, list[dict]] = {}


def names() -> tuple[str, ...]:
    return tuple(TOOLS)


def listing(version: str) -> list[dict]:
    """``tools/list``'s tools for a protocol version (titles, output schemas and annotations where it has them)."""
    if version not in _LISTINGS:
        tools = []
        for name in TOOLS:
            tool: dict[str, Any] = {"name": name}
            if version >= "2025-06-18":
                tool["title"] = TITLES[name]
            tool["description"] = DESCRIPTIONS[name]
            tool["inputSchema"] = _input_schema(name)
            if version >= "2025-06-18":
                tool["outputSchema"] = OUTPUT_SCHEMAS[name]
            if version >= "2025-03-26":
                tool["annotations"] = READ_ONLY
            tools.append(tool)
        _LISTINGS[version] = tools
    return _LISTINGS[version]


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
            raise ToolError(f"{_path(key)}: unknown argument{did_you_mean(key, known)}; {tool} takes {', '.join(known)}")
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
    from .. import MessagesDoNotFit, MessagesError, trim_messages

    _take(arguments, "trim_messages", ("messages", "limit"), ("tokenizer", "tools", "template", "template_options"))
    messages, limit = arguments["messages"], arguments["limit"]
    tokenizer = arguments.get("tokenizer", "o200k_base")
    if not isinstance(messages, list):
        raise ToolError(f"$.messages: expected a list of messages (objects with role and content), got {preview(messages)}")
    try:
        trimmed = trim_messages(
            messages,
            limit,
            tokenizer,
            tools=arguments.get("tools"),
            template=arguments.get("template"),
            template_options=arguments.get("template_options"),
        )
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
        if not problems:
            raise ToolError(f"$.messages: {error}") from None
        raise ToolError(_first_problems(problems, str)) from None
    structured = {
        "messages": list(trimmed),
        "kept": trimmed.kept,
        "dropped": trimmed.dropped,
        "tokens": trimmed.tokens,
        "limit": trimmed.limit,
        "remaining": trimmed.remaining,
        "tools_tokens": trimmed.tools_tokens,
        "images_at_most": [list(pair) for pair in trimmed.images_at_most],
    }
    total = len(trimmed.kept) + len(trimmed.dropped)
    text = (
        f"Send {len(trimmed.kept)} of {plural(total, 'message')} ({_ranges(trimmed.kept)}): "
        f"{trimmed.tokens} prompt tokens of {trimmed.limit}, {trimmed.remaining} left."
    )
    text += f" Dropped: {_ranges(trimmed.dropped)}." if trimmed.dropped else " Nothing dropped."
    return text, structured


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
