"""GPT-OSS's official template (OpenAI's harmony format): channels, the developer block, tools as TypeScript."""

from __future__ import annotations

from typing import Any

from ._common import Piece, TemplateError, _content, _single_call, _tojson


HARMONY_DATE = "2025-08-05"  # the date written when none is given: GPT-OSS's release (the template reads the clock)
REASONING_EFFORTS = ("low", "medium", "high")
_CHANNEL_TAGS = ("<|channel|>analysis<|message|>", "<|channel|>final<|message|>")
_BROWSER = (
    "## browser\n\n// Tool for browsing.\n// The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\n"
    "// Cite information from the tool using the following format:\n"
    "// `【{cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or `【8†L3】`.\n"
    "// Do not quote more than 10 words directly from the tool output.\n// sources=web (default: web)\n"
    "namespace browser {\n\n// Searches for information related to `query` and displays `topn` results.\n"
    "type search = (_: {\nquery: string,\ntopn?: number, // default: 10\nsource?: string,\n}) => any;\n\n"
    "// Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, showing `num_lines` lines.\n"
    "// Valid link ids are displayed with the formatting: `【{id}†.*】`.\n"
    "// If `cursor` is not provided, the most recent page is implied.\n"
    "// If `id` is a string, it is treated as a fully qualified URL associated with `source`.\n"
    "// If `loc` is not provided, the viewport will be positioned at the beginning of the document or centered on the "
    "most relevant passage, if available.\n"
    "// Use this function without `id` to scroll to a new location of an opened page.\n"
    "type open = (_: {\nid?: number | string, // default: -1\ncursor?: number, // default: -1\nloc?: number, // default: -1\n"
    "num_lines?: number, // default: -1\nview_source?: boolean, // default: false\nsource?: string,\n}) => any;\n\n"
    "// Finds exact matches of `pattern` in the current page, or the page given by `cursor`.\n"
    "type find = (_: {\npattern: string,\ncursor?: number, // default: -1\n}) => any;\n\n} // namespace browser\n\n"
)
_PYTHON = (
    "## python\n\nUse this tool to execute Python code in your chain of thought. The code will not be shown to the user. "
    "This tool should be used for internal reasoning, but not for code that is intended to be visible to the user (e.g. "
    "when creating plots, tables, or files).\n\nWhen you send a message containing Python code to python, it will be "
    "executed in a stateful Jupyter notebook environment. python will respond with the output of the execution or time "
    "out after 120.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. Internet access for "
    "this session is UNKNOWN. Depends on the cluster.\n\n"
)


def _text(value: Any, what: str, at: tuple = ()) -> str:
    if not isinstance(value, str):
        raise TemplateError(f"{what} must be a string, got {type(value).__name__}", at)
    return value


def _ts_type(spec: Any) -> str:
    """The official template's ``render_typescript_type``: a JSON schema as a TypeScript type."""
    if not isinstance(spec, dict):
        return "any"
    kind = spec.get("type")
    if kind == "array":
        items = spec.get("items")
        if items:
            item_kind = items.get("type") if isinstance(items, dict) else None
            if item_kind in ("string", "number", "integer", "boolean"):
                text = ("number" if item_kind == "integer" else item_kind) + "[]"
            else:
                inner = _ts_type(items)
                text = "any[]" if inner == "object | object" or len(inner) > 50 else inner + "[]"
        else:
            text = "any[]"
        return text + " | null" if spec.get("nullable") else text
    if isinstance(kind, list) and kind:
        return " | ".join(map(_jinja_str, kind))
    if spec.get("oneOf"):
        parts = []
        variants = spec["oneOf"]
        for position, variant in enumerate(variants):
            text = _ts_type(variant)
            if isinstance(variant, dict) and variant.get("description"):
                text += "// " + _text(variant["description"], "a oneOf variant's description", ("tools",))
            if isinstance(variant, dict) and "default" in variant:
                text += "                    // default: " + _tojson(variant["default"])
            if position < len(variants) - 1:
                text += " | \n"
            parts.append(text)
        return "".join(parts)
    if kind == "string":
        if spec.get("enum"):
            return '"' + '" | "'.join(map(_jinja_str, spec["enum"])) + '"'
        return "string | null" if spec.get("nullable") else "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "object":
        properties = spec.get("properties")
        if not properties:
            return "object"
        required = spec.get("required") or []
        fields = [name + ("" if name in required else "?") + ": \n                " + _ts_type(sub) for name, sub in properties.items()]
        return "{\n" + ", ".join(fields) + "}"
    return "any"


def _jinja_str(value: Any) -> str:
    """How Jinja's ``join`` writes a value (``True``, ``None``, ``1.5``)."""
    return value if isinstance(value, str) else str(value)


def _harmony_tools(tools: list) -> str:
    """The official template's ``render_tool_namespace("functions", tools)``."""
    text = "## functions\n\nnamespace functions {\n\n"
    for position, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            raise TemplateError(
                f'tools[{position}]: the harmony template needs {{"type": "function", "function": {{...}}}}', ("tools", position)
            )
        text += (
            "// "
            + _text(function.get("description"), f"tools[{position}].function.description", ("tools", position, "function", "description"))
            + "\n"
        )
        text += "type " + _text(function.get("name"), f"tools[{position}].function.name", ("tools", position, "function", "name")) + " = "
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        if not properties:
            text += "() => any;\n\n"
            continue
        assert isinstance(parameters, dict)  # properties came from it
        required = parameters.get("required") or []
        text += "(_: {\n"
        for name, spec in properties.items():
            spec = spec if isinstance(spec, dict) else {}
            if spec.get("description"):
                text += "// " + _text(spec["description"], f"tools[{position}]: a parameter's description", ("tools", position)) + "\n"
            text += name + ("" if name in required else "?") + ": " + _ts_type(spec)
            if "default" in spec:
                if spec.get("enum") or spec.get("oneOf"):
                    default = _text(spec["default"], f"tools[{position}]: the default of an enum or oneOf parameter", ("tools", position))
                    text += (", // default: " if spec.get("enum") else "// default: ") + default
                else:
                    text += ", // default: " + _tojson(spec["default"])
            text += ",\n"
        text += "}) => any;\n\n"
    return text + "} // namespace functions"


def _harmony_message(owner: int, header: str, channel: str | None, text: str, end: str) -> list[Piece]:
    """``<|start|>header<|channel|>channel<|message|>text`` and the end token, all the message's."""
    out = [Piece(owner, "<|start|>", True), Piece(owner, header, False)]
    if channel is not None:
        out += [Piece(owner, "<|channel|>", True), Piece(owner, channel, False)]
    return out + [Piece(owner, "<|message|>", True), Piece(owner, text, False), Piece(owner, end, True)]


def _harmony(
    messages: list[dict],
    add_generation_prompt: bool,
    tools: Any,
    reasoning_effort: str = "medium",
    current_date: str = HARMONY_DATE,
    model_identity: str = "You are ChatGPT, a large language model trained by OpenAI.",
    builtin_tools: list | None = None,
) -> list[Piece]:
    """GPT-OSS's official template: OpenAI's harmony format (system, developer, channels)."""
    if not messages:
        raise TemplateError("the harmony template needs at least one message", ("messages",))
    start, message_tag, end = "<|start|>", "<|message|>", "<|end|>"
    system = f"{model_identity}\nKnowledge cutoff: 2024-06\nCurrent date: {current_date}\n\nReasoning: {reasoning_effort}\n\n"
    if builtin_tools:
        system += "# Tools\n\n" + (_BROWSER if "browser" in builtin_tools else "") + (_PYTHON if "python" in builtin_tools else "")
    system += "# Valid channels: analysis, commentary, final. Channel must be included for every message."
    if tools:
        system += "\nCalls to these tools must go to the commentary channel: 'functions'."
    out: list[Piece] = [
        Piece(None, start, True),
        Piece(None, "system", False),
        Piece(None, message_tag, True),
        Piece(None, system, False),
        Piece(None, end, True),
    ]
    first = 1 if messages[0]["role"] in ("developer", "system") else 0
    developer = _content(messages[0], 0) if first else ""
    if developer or tools:
        owner = None if tools else 0
        out += [Piece(owner, start, True), Piece(owner, "developer", False), Piece(owner, message_tag, True)]
        if developer:
            out.append(Piece(0, "# Instructions\n\n" + developer + "\n\n", False))
        if tools:
            out.append(Piece(None, "# Tools\n\n" + _harmony_tools(tools), False))
        out.append(Piece(owner, end, True))
    last_tool = None
    for i in range(first, len(messages)):
        message = messages[i]
        role = message["role"]
        if role == "assistant":
            # beside a tool call, content may be left out or null (the official template fails on null: read as none)
            content = message.get("content") or "" if "tool_calls" in message else _content(message, i)
            content = _text(content, f"messages[{i}].content", ("messages", i, "content"))
            thinking = message.get("thinking")
            if "thinking" in message:
                thinking = _text(thinking, f"messages[{i}].thinking", ("messages", i, "thinking"))
            for value, field in ((content, "content"), (thinking, "thinking")):
                if value is not None and any(tag in value for tag in _CHANNEL_TAGS):
                    raise TemplateError(
                        f'messages[{i}].{field} holds <|channel|> tags: give the analysis in "thinking" and the final answer in "content"',
                        ("messages", i, field),
                    )
            if "tool_calls" in message:
                call = _single_call(message, i, "harmony")
                later_final = any(m.get("role") == "assistant" and "tool_calls" not in m for m in messages[i + 1 :])
                if content and thinking:
                    raise TemplateError(
                        f"messages[{i}]: the harmony template takes content or thinking in an assistant message with a tool call, not both",
                        ("messages", i),
                    )
                analysis = content or thinking
                if analysis and not later_final:  # dropped once a final answer follows
                    out += _harmony_message(i, "assistant", "analysis", analysis, "<|end|>")
                content_type = call["content_type"] if "content_type" in call else "json"
                content_type = _text(content_type, f"messages[{i}].tool_calls[0].content_type", ("messages", i, "tool_calls", 0))
                out += _harmony_message(
                    i, "assistant to=functions." + call["name"], "commentary " + content_type, _tojson(call.get("arguments")), "<|call|>"
                )
                last_tool = call["name"]
            elif i == len(messages) - 1 and not add_generation_prompt:
                if thinking is not None:  # (exactly when "thinking" is in the message: read above as a string)
                    out += _harmony_message(i, "assistant", "analysis", thinking, "<|end|>")
                out += _harmony_message(i, "assistant", "final", content, "<|return|>")
            else:  # an earlier turn's thinking is dropped
                out += _harmony_message(i, "assistant", "final", content, "<|end|>")
                last_tool = None
        elif role == "tool":
            if last_tool is None:
                raise TemplateError(
                    f"messages[{i}]: the harmony template needs a tool result to follow an assistant tool call", ("messages", i)
                )
            out += _harmony_message(i, "functions." + last_tool + " to=assistant", "commentary", _tojson(_content(message, i)), "<|end|>")
        elif role == "user":
            out += _harmony_message(i, "user", None, _content(message, i), "<|end|>")
        else:
            raise TemplateError(
                f"messages[{i}]: the harmony template renders a {role!r} message only as the first message "
                f"(anywhere else it would be left out of the prompt)",
                ("messages", i, "role"),
            )
    if add_generation_prompt:
        out += [Piece(None, start, True), Piece(None, "assistant", False)]
    return out
