"""What ``tools/list`` and ``resources/*`` say: each tool's short definition, and its full input
schema on request.

``tools/list`` is read into an agent's context before anything is asked, so each tool there has
a short description and a slim input schema: its arguments, each with the JSON types the full
schema allows at its top (``_loose``: never narrower) and a few words. The full input schemas,
built from the package's own JSON Schemas (``schemas/``), are resources an agent reads when it
needs them: ``fitproof://schema/<tool>``, and ``fitproof://schema/mode/<mode>`` for one mode's
input. What the slim schema leaves out, the tool checks itself with the package's own validation
(``evaluate``, ``trim_messages``, ``verify_claim``), so nothing the full schema refuses is taken.
"""

from __future__ import annotations

import json
import os
from typing import Any

MODES = ("relevance", "required", "blocks", "passages", "messages")
TOOL_NAMES = ("check", "count_tokens", "trim_messages", "verify_claim")
SCHEME = "fitproof://schema/"
MIME = "application/json"

TOKENIZER = {
    "type": "string",
    "default": "o200k_base",
    "description": "o200k_base (GPT-4o and later; the default), cl100k_base (GPT-4, GPT-3.5-turbo), o200k_harmony "
    "(GPT-OSS), estimate (a heuristic), or a model name read as its encoding (gpt-4o, gpt-4o-2024-08-06, "
    "gpt-4.1, o3, gpt-4, gpt-3.5-turbo), or a NAME the server was started with (--tokenizer-file NAME=PATH: "
    "a model's own tokenizer.json, GGUF or tekken file). Claude and Gemini publish no tokenizer: use estimate.",
}
TOKENIZER_WORDS = "o200k_base (default), cl100k_base, o200k_harmony, estimate, a model name (gpt-4o), or a --tokenizer-file NAME"
TRIM_TOKENIZER = {**TOKENIZER, "description": TOKENIZER["description"] + " Format anthropic counts by estimate unless told."}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
CONVERSATION = {
    "type": "string",
    "minLength": 1,
    "description": "An id of yours for this conversation: the server remembers its last call under it (strategy stable, "
    "clear), for more than 16 conversations at once.",
}

# -- the full schemas ----------------------------------------------------------------------------

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


def claim_words(with_prompt: bool) -> str:
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


# trim_messages' arguments: the Python call's, in its order (token_counter, a function, has no JSON).
TRIM_ARGUMENTS = (
    "messages",
    "limit",
    "tokenizer",
    "format",
    "system",
    "instructions",
    "tools",
    "template",
    "template_options",
    "strategy",
    "low_watermark",
    "previous",
    "caching",
    "clear",
    "context_management",
    "conversation",
)


def full_schema(tool: str) -> dict:
    """The tool's whole input schema: what ``fitproof://schema/<tool>`` serves."""
    anything = {"anyOf": [mode_schema(mode) for mode in MODES]}
    if tool == "check":
        properties: dict[str, Any] = {
            "input": {
                "description": "One input of any mode (input.mode: relevance when absent, required, blocks, passages, "
                "messages), as `fitproof check` reads it; its fields are in docs/contract.md.",
                **anything,
            },
            "claim": {
                "description": f"Optional: a selection someone says the rule makes, in the mode's words ({claim_words(False)}); "
                "it replaces input.claim.",
                "anyOf": _claim_schemas(),
            },
        }
        required = ["input"]
    elif tool == "verify_claim":
        properties = {
            "input": {"description": "One input of any mode, the input the claim is about (what check's input takes).", **anything},
            "claim": {
                "description": f"The selection someone says the rule makes, in the mode's words: {claim_words(True)}; used optional.",
                "anyOf": _claim_schemas(),
            },
        }
        required = ["input", "claim"]
    elif tool == "count_tokens":
        properties = {"text": {"type": "string", "description": "The text to count."}, "tokenizer": TOKENIZER}
        required = ["text"]
    else:
        messages = mode_schema("messages")["properties"]
        properties = {
            name: TRIM_TOKENIZER if name == "tokenizer" else CONVERSATION if name == "conversation" else messages[name]
            for name in TRIM_ARGUMENTS
        }
        required = ["messages", "limit"]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


# -- the slim schemas ----------------------------------------------------------------------------

_JSON_TYPES = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")


def _loose(schema: dict) -> dict:
    """``schema``'s top level only: ``{"enum": [...]}`` when it is a few values, else ``{"type": ...}``
    with every JSON type it allows (``{}`` when it says none). Never narrower than ``schema``."""
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        parts = [_loose(part) for part in alternatives]
        if all("enum" in part or part == {"type": "null"} for part in parts):
            return {"enum": [value for part in parts for value in part.get("enum", [None])]}
        if any(not part for part in parts):
            return {}
        types = {kind for part in parts for kind in _types(part)}
        if "number" in types:
            types.discard("integer")
        ordered = [kind for kind in _ORDER if kind in types]
        return {"type": ordered[0] if len(ordered) == 1 else ordered}
    if "enum" in schema:
        return {"enum": list(schema["enum"])}
    if "const" in schema:
        return {"enum": [schema["const"]]}
    if "type" in schema:
        return {"type": schema["type"]}
    return {}


def _types(part: dict) -> list[str]:
    if "enum" in part:
        return [_JSON_TYPES[type(value)] for value in part["enum"]]
    kind = part["type"]
    return [kind] if isinstance(kind, str) else list(kind)


SLIM_WORDS: dict[str, dict[str, str]] = {
    "check": {
        "input": "One input of any mode (input.mode: relevance when absent, required, blocks, passages, messages), as `fitproof check` reads it.",
        "claim": "Optional: a selection to judge, in the mode's words (CLAIMS); replaces input.claim.",
    },
    "count_tokens": {"text": "The text to count.", "tokenizer": TOKENIZER_WORDS + "."},
    "trim_messages": {
        "messages": "The history: chat messages {role, content, ...}, or Anthropic messages or Responses input items (format).",
        "limit": "The prompt-token limit.",
        "tokenizer": TOKENIZER_WORDS.replace("(default)", "(default; format anthropic: estimate)") + ".",
        "format": "Detected when the items can mean only one.",
        "system": "anthropic: the system prompt, sent apart.",
        "instructions": "responses: the instructions, sent apart.",
        "tools": "The request's tool definitions, counted with the pinned messages.",
        "template": "Count the prompt as this chat template renders it (with the model's own tokenizer).",
        "template_options": "The template's options.",
        "strategy": "stable: keep the previous cut while it fits (warm prompt caches).",
        "low_watermark": "stable: the share of limit a new cut goes down to (0.7).",
        "previous": "The last call's as_previous (else the server's memory of it).",
        "caching": "{provider: openai | anthropic, min_tokens?, prices?}: the reuse's cached and written tokens.",
        "clear": "true or {trigger, keep, clear_at_least, exclude_tools, clear_tool_inputs, low_watermark, keep_thinking, summary}: "
        "clear old tool results before dropping turns.",
        "context_management": "anthropic: its own edits object, read as clear.",
        "conversation": "Your id for this conversation (the server's memory of its last call).",
    },
    "verify_claim": {
        "input": "The input the claim is about: what check's input takes.",
        "claim": "The claimed selection, in the mode's words: CLAIMS_PROMPT.",
    },
}


def slim_schema(tool: str) -> dict:
    """``full_schema(tool)`` cut to what ``tools/list`` carries: each argument's ``_loose`` types and a few words."""
    full = full_schema(tool)
    words = {
        name: text.replace("CLAIMS_PROMPT", claim_words(True)).replace("CLAIMS", claim_words(False))
        for name, text in SLIM_WORDS[tool].items()
    }
    properties = {name: {**_loose(schema), "description": words[name]} for name, schema in full["properties"].items()}
    return {**full, "properties": properties}


# -- tools/list ----------------------------------------------------------------------------------

_INDICES = {"type": "array", "items": {"type": "integer", "minimum": 0}}
_COUNT = {"type": "integer", "minimum": 0}
_MAYBE = {"type": ["object", "null"]}
OUTPUT_SCHEMAS: dict[str, dict] = {
    "check": {
        "type": "object",
        "properties": {
            "pass": {"type": "boolean", "description": "The report passes (with a claim: the claim holds too)."},
            "failure": {"type": "string", "description": "The first failure in words, when it does not pass."},
            "report": {"type": "object", "description": "evaluate's report; its paths are relative to input."},
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
            "messages": {"type": "array", "items": {"type": "object"}, "description": "What to send, as the format's request takes it."},
            "kept": _INDICES,
            "dropped": _INDICES,
            "tokens": _COUNT,
            "limit": _COUNT,
            "remaining": _COUNT,
            "tools_tokens": _COUNT,
            "images_at_most": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
            "format": {"enum": ["chat", "anthropic", "responses"]},
            "strategy": {"type": "string"},
            "cut": _COUNT,
            "as_previous": {**_MAYBE, "description": "Give it back as previous on the next call."},
            "previous": _MAYBE,
            "reuse": _MAYBE,
            "cleared": {"type": "array", "items": {"type": "object"}},
            "clearing": {"type": "object"},
            "summary_span": _MAYBE,
            "warnings": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["messages", "kept", "dropped", "tokens", "limit", "remaining", "format"],
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


def _where(tool: str) -> str:
    return f" Full input schema: resource {SCHEME}{tool}."


DESCRIPTIONS = {
    "check": "Apply fitproof's rule to one input of any mode and verify it with independent checks: which candidates fit the "
    "token budget, in one documented order, and why each left out was. With claim, judge a selection made elsewhere. "
    "Returns the report and the first failure in words." + _where("check") + f" One mode's input: {SCHEME}mode/<mode>.",
    "count_tokens": "Count a text's tokens: exactly as OpenAI's models do (o200k_base, cl100k_base, a model name), or an estimate."
    + _where("count_tokens"),
    "trim_messages": "Trim a chat history (OpenAI chat, Anthropic Messages or OpenAI Responses) to a prompt-token limit: keep "
    "the system, developer and pinned messages and the live turn, then the newest older turns that fit, a tool call with "
    "its results. Options: strategy stable (cache-friendly cut), caching (cached-token counts), clear (old tool results "
    "first). Returns the messages to send, kept and dropped indices, the counts and as_previous for the next call."
    + _where("trim_messages"),
    "verify_claim": "Judge a claimed selection against an input: whether it is the selection the mode's rule makes, and "
    "every failure if not (its check, what was found, the item)." + _where("verify_claim"),
}
TITLES = {
    "check": "Check a context selection",
    "count_tokens": "Count tokens",
    "trim_messages": "Trim a chat history",
    "verify_claim": "Verify a claimed selection",
}

_LISTINGS: dict[str, list[dict]] = {}


def listing(version: str) -> list[dict]:
    """``tools/list``'s tools for a protocol version (titles, output schemas and annotations where it has them)."""
    if version not in _LISTINGS:
        tools = []
        for name in TOOL_NAMES:
            tool: dict[str, Any] = {"name": name}
            if version >= "2025-06-18":
                tool["title"] = TITLES[name]
            tool["description"] = DESCRIPTIONS[name]
            tool["inputSchema"] = slim_schema(name)
            if version >= "2025-06-18":
                tool["outputSchema"] = OUTPUT_SCHEMAS[name]
            if version >= "2025-03-26":
                tool["annotations"] = READ_ONLY
            tools.append(tool)
        _LISTINGS[version] = tools
    return _LISTINGS[version]


# -- resources -----------------------------------------------------------------------------------


def _resource_text(name: str) -> str | None:
    """A resource's text: compact JSON (an agent reads it in tokens, and indentation would cost a third more)."""
    mode = name.removeprefix("mode/")
    schema = full_schema(name) if name in TOOL_NAMES else mode_schema(mode) if name.startswith("mode/") and mode in MODES else None
    return None if schema is None else json.dumps(schema, ensure_ascii=False, separators=(",", ":"))


_RESOURCES: dict[str, list[dict]] = {}


def resources(version: str) -> list[dict]:
    """``resources/list``'s resources: each tool's full input schema, then each mode's input schema."""
    if version not in _RESOURCES:
        listed = []
        for name in (*TOOL_NAMES, *(f"mode/{mode}" for mode in MODES)):
            text = _resource_text(name)
            assert text is not None
            tool = name in TOOL_NAMES
            resource: dict[str, Any] = {"uri": SCHEME + name, "name": f"{name} input schema" if tool else f"{name[5:]} mode input schema"}
            if version >= "2025-06-18":
                resource["title"] = f"{TITLES[name]}: input schema" if tool else f"Mode {name[5:]}: input schema"
            resource["description"] = (
                f"The {name} tool's full inputSchema (tools/list carries a slim one)."
                if tool
                else f"The JSON Schema of one input of mode {name[5:]} (check's and verify_claim's input)."
            )
            resource["mimeType"] = MIME
            resource["size"] = len(text.encode("utf-8"))
            listed.append(resource)
        _RESOURCES[version] = listed
    return _RESOURCES[version]


def read(uri: str) -> list[dict] | None:
    """``resources/read``'s contents for ``uri``, or None when no resource has it."""
    text = _resource_text(uri[len(SCHEME) :]) if uri.startswith(SCHEME) else None
    return None if text is None else [{"uri": uri, "mimeType": MIME, "text": text}]
