"""Chat templates in Python: a conversation rendered to the exact prompt a model's server builds.

``render(messages, template)`` gives the prompt text; ``count_rendered(messages, template,
tokenizer)`` its exact token count and each message's share. The templates are the models' own
Jinja ``chat_template`` rewritten in plain Python (no Jinja at run time), and proven equal to
``jinja2`` rendering the original (with the globals Hugging Face gives it) in the tests:

- ``llama3``: Llama 3's template (``<|start_header_id|>role<|end_header_id|>\\n\\n`` + the content
  stripped + ``<|eot_id|>``, ``<|begin_of_text|>`` first);
- ``llama3_1``: Llama 3.1's official template: a system block dated by the ``date_string`` option
  ("Cutting Knowledge Date", "Today Date"), tools in the first user message (or, with
  ``tools_in_user_message=False``, the system block), one tool call per assistant message, tool
  results as ``ipython``, ``builtin_tools`` written as ``<|python_tag|>name.call(...)<|eom_id|>``;
- ``qwen3``: Qwen 3's, with its tools block, ``<tool_call>``/``<tool_response>`` and the
  ``<think>\\n\\n</think>\\n\\n`` it writes into assistant turns after the last user turn;
- ``deepseek_v3``: DeepSeek V3/R1's, system prompts joined at the start, tool calls and outputs;
- ``mistral``: Mistral's instruct format for its tekken tokenizer (mistral-common's V3, Mistral Nemo):
  ``<s>[INST]user[/INST]assistant</s>...``, the (non-empty) system prompts joined by a blank line in
  front of the last user message. Text conversations only: user and assistant turns alternate, starting and
  ending with a user turn (the ``[/INST]`` is the generation prompt); tools are refused;
- ``harmony``: GPT-OSS's official template (OpenAI's harmony format): the system message
  (``model_identity``, ``current_date``, ``reasoning_effort``, ``builtin_tools``), the first
  system/developer message and the tools (as TypeScript) in a developer message, final answers on
  the ``final`` channel, tool calls on ``commentary``, an assistant's ``thinking`` (or a tool call
  message's content) on ``analysis`` only where the template keeps it;
- ``gemma3``: Gemma 3's (``<bos>``, ``<start_of_turn>user\\n`` ... ``<end_of_turn>\\n``, an assistant as
  ``model``, the system prompt in front of the first turn's content); text and image parts, no tools.

Options are keywords (``OPTIONS`` lists each template's and checks them); the dates are options
with the defaults the docs give, never the clock, so a rendering is a pure function of its input.

A message is ``{"role": str, "content": str, ...}``; ``name`` is accepted and, as in these
templates, not rendered. Assistant messages may carry ``tool_calls`` (``[{"type": "function",
"function": {"name": str, "arguments": str or object}}]``), Qwen's ``reasoning_content`` too; DeepSeek
renders tool calls of an assistant message whose ``content`` is None; Llama 3.1 and harmony write
``arguments`` with ``tojson`` (pass the object). ``tools`` is a list of JSON schemas (Qwen 3 writes
them into its system block, Llama 3.1 as indented JSON, harmony as a TypeScript namespace).

How a count is shared out (``count_rendered``): the prompt is a sequence of pieces, each written for
one message (its header, content, end tokens) or for none (BOS, a tools block, Llama 3.1's dated
system block, harmony's system message, the generation prompt). Special tokens are one token each and cut the text, so a message's share is the tokens of
its own pieces; where two messages' text runs into each other with no special token between (Qwen's
consecutive tool responses), the run is counted whole and the difference from counting each piece
alone goes to the later message. So ``sum(per_message) + overhead == total`` always, and ``total``
is the count of exactly the rendered prompt.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

TEMPLATES = ("llama3", "llama3_1", "qwen3", "deepseek_v3", "mistral", "harmony", "gemma3")


class TemplateError(ValueError):
    """A conversation the template cannot render (the message says which message and why; ``at`` is
    that place as a JSON path's keys, ``("messages", 2, "tool_calls")``, or ``()``)."""

    def __init__(self, message: str, at: tuple = ()) -> None:
        super().__init__(message)
        self.at = at


class Piece(NamedTuple):
    owner: int | None  # the message index, or None for the template's own text
    text: str
    special: bool


class Rendered(NamedTuple):
    total: int
    per_message: list[int]
    overhead: int  # BOS, a tools block, the generation prompt: in total, in no message
    text: str


def _tojson(value: Any) -> str:
    """Hugging Face's ``tojson`` filter for chat templates (not Jinja's HTML-safe one)."""
    return json.dumps(value, ensure_ascii=False)


def _content(message: dict, index: int) -> str:
    content = message.get("content")
    if not isinstance(content, str):
        raise TemplateError(f"messages[{index}].content must be a string, got {type(content).__name__}", ("messages", index, "content"))
    return content


def _llama3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    out: list[Piece] = []
    for i, message in enumerate(messages):
        if i == 0:
            out.append(Piece(i, "<|begin_of_text|>", True))
        out += [Piece(i, "<|start_header_id|>", True), Piece(i, str(message["role"]), False),
                Piece(i, "<|end_header_id|>", True), Piece(i, "\n\n" + _content(message, i).strip(), False),
                Piece(i, "<|eot_id|>", True)]
    if add_generation_prompt:
        out += [Piece(None, "<|start_header_id|>", True), Piece(None, "assistant", False),
                Piece(None, "<|end_header_id|>", True), Piece(None, "\n\n", False)]
    return out


_QWEN_TOOLS_HEAD = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
_QWEN_TOOLS_TAIL = ("\n</tools>\n\nFor each function call, return a json object with function name and arguments "
                    "within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
                    "\"arguments\": <args-json-object>}\n</tool_call>")


def _qwen3(messages: list[dict], add_generation_prompt: bool, tools: Any, enable_thinking: bool | None = None) -> list[Piece]:
    out: list[Piece] = []
    start, end = "<|im_start|>", "<|im_end|>"
    first_is_system = bool(messages) and messages[0].get("role") == "system"
    if tools:
        out += [Piece(None, start, True), Piece(None, "system\n", False)]
        if first_is_system:
            out.append(Piece(0, _content(messages[0], 0) + "\n\n", False))
        text = _QWEN_TOOLS_HEAD + "".join("\n" + _tojson(tool) for tool in tools) + _QWEN_TOOLS_TAIL
        out += [Piece(None, text, False), Piece(None, end, True), Piece(None, "\n", False)]
    elif first_is_system:
        out += [Piece(0, start, True), Piece(0, "system\n" + _content(messages[0], 0), False), Piece(0, end, True),
                Piece(0, "\n", False)]
    multi_step_tool = True
    last_query = len(messages) - 1
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if multi_step_tool and message.get("role") == "user":
            content = _content(message, index)
            if not (content.startswith("<tool_response>") and content.endswith("</tool_response>")):
                multi_step_tool = False
                last_query = index
    for i, message in enumerate(messages):
        role = message.get("role")
        last = i == len(messages) - 1
        if role == "user" or (role == "system" and i > 0):
            out += [Piece(i, start, True), Piece(i, f"{role}\n{_content(message, i)}", False), Piece(i, end, True),
                    Piece(i, "\n", False)]
        elif role == "assistant":
            content = _content(message, i)
            reasoning = ""
            if message.get("reasoning_content") is not None:
                reasoning = message["reasoning_content"]
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            if i > last_query and (last or reasoning):
                text = "assistant\n<think>\n" + reasoning.strip("\n") + "\n</think>\n\n" + content.lstrip("\n")
            else:
                text = "assistant\n" + content
            out += [Piece(i, start, True), Piece(i, text, False)]
            for j, call in enumerate(message.get("tool_calls") or []):
                separator = "\n" if (j == 0 and content) or j > 0 else ""
                if call.get("function"):
                    call = call["function"]
                arguments = call["arguments"]
                arguments = arguments if isinstance(arguments, str) else _tojson(arguments)
                out.append(Piece(i, f'{separator}<tool_call>\n{{"name": "{call["name"]}", "arguments": {arguments}}}\n</tool_call>', False))
            out += [Piece(i, end, True), Piece(i, "\n", False)]
        elif role == "tool":
            if i == 0 or messages[i - 1].get("role") != "tool":
                out += [Piece(i, start, True), Piece(i, "user", False)]
            out.append(Piece(i, "\n<tool_response>\n" + _content(message, i) + "\n</tool_response>", False))
            if last or messages[i + 1].get("role") != "tool":
                out += [Piece(i, end, True), Piece(i, "\n", False)]
    if add_generation_prompt:
        out += [Piece(None, start, True), Piece(None, "assistant\n", False)]
        if enable_thinking is False:
            out.append(Piece(None, "<think>\n\n</think>\n\n", False))
    return out


def _deepseek_v3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    out: list[Piece] = [Piece(None, "<｜begin▁of▁sentence｜>", True)]
    first_system = True
    for i, message in enumerate(messages):
        if message.get("role") == "system":
            out.append(Piece(i, ("" if first_system else "\n\n") + _content(message, i), False))
            first_system = False
    is_first = is_tool = False
    is_output_first = True
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            is_tool = False
            out += [Piece(i, "<｜User｜>", True), Piece(i, _content(message, i), False)]
        if role == "assistant" and message.get("content") is None:
            is_tool = False
            for call in message.get("tool_calls") or []:
                function = call["function"]
                body = f'{call["type"]}'
                code = "\n```json\n" + function["arguments"] + "\n```"
                if not is_first:
                    out += [Piece(i, "<｜Assistant｜>", True), Piece(i, "<｜tool▁calls▁begin｜>", True),
                            Piece(i, "<｜tool▁call▁begin｜>", True), Piece(i, body, False), Piece(i, "<｜tool▁sep｜>", True),
                            Piece(i, function["name"] + code, False), Piece(i, "<｜tool▁call▁end｜>", True)]
                    is_first = True
                else:
                    out += [Piece(i, "\n", False), Piece(i, "<｜tool▁call▁begin｜>", True), Piece(i, body, False),
                            Piece(i, "<｜tool▁sep｜>", True), Piece(i, function["name"] + code, False),
                            Piece(i, "<｜tool▁call▁end｜>", True), Piece(i, "<｜tool▁calls▁end｜>", True),
                            Piece(i, "<｜end▁of▁sentence｜>", True)]
        if role == "assistant" and message.get("content") is not None:
            content = _content(message, i)
            if is_tool:
                out += [Piece(i, "<｜tool▁outputs▁end｜>", True), Piece(i, content, False), Piece(i, "<｜end▁of▁sentence｜>", True)]
                is_tool = False
            else:
                out += [Piece(i, "<｜Assistant｜>", True), Piece(i, content, False), Piece(i, "<｜end▁of▁sentence｜>", True)]
        if role == "tool":
            is_tool = True
            if is_output_first:
                out += [Piece(i, "<｜tool▁outputs▁begin｜>", True), Piece(i, "<｜tool▁output▁begin｜>", True)]
                is_output_first = False
            else:
                out += [Piece(i, "\n", False), Piece(i, "<｜tool▁output▁begin｜>", True)]
            out += [Piece(i, _content(message, i), False), Piece(i, "<｜tool▁output▁end｜>", True)]
    if is_tool:
        out.append(Piece(None, "<｜tool▁outputs▁end｜>", True))
    if add_generation_prompt and not is_tool:
        out.append(Piece(None, "<｜Assistant｜>", True))
    return out


def _mistral(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    if tools or any(m.get("tool_calls") or m.get("role") == "tool" for m in messages):
        raise TemplateError("the mistral template renders text conversations; tools and tool calls are not supported")
    systems = [(i, _content(m, i)) for i, m in enumerate(messages) if m.get("role") == "system"]
    systems = [(i, text) for i, text in systems if text]  # an empty system prompt is left out, as mistral-common does
    turns = [(i, m) for i, m in enumerate(messages) if m.get("role") != "system"]
    for i, message in enumerate(messages):
        if message.get("role") == "system" and i and messages[i - 1].get("role") == "assistant":
            raise TemplateError(f"messages[{i}]: the mistral template takes no system message right after an assistant turn", ("messages", i))
    for position, (i, message) in enumerate(turns):
        wanted = "user" if position % 2 == 0 else "assistant"
        if message.get("role") != wanted:
            raise TemplateError(f"messages[{i}]: the mistral template needs user and assistant turns in turn, "
                                f"starting with user; got {message.get('role')!r} where {wanted!r} belongs", ("messages", i, "role"))
    if not turns or turns[-1][1].get("role") != "user":
        raise TemplateError("the mistral template needs the conversation to end with a user turn")
    last_user = turns[-1][0]
    out: list[Piece] = [Piece(None, "<s>", True)]
    for i, message in turns:
        content = _content(message, i)
        if message["role"] == "user":
            out.append(Piece(i, "[INST]", True))
            if i == last_user:
                out += [Piece(s, text + "\n\n", False) for s, text in systems]
            out += [Piece(i, content, False), Piece(i, "[/INST]", True)]
        else:
            if not content.rstrip(" "):
                raise TemplateError(f"messages[{i}]: an assistant turn needs content for the mistral template", ("messages", i, "content"))
            out += [Piece(i, content.rstrip(" "), False), Piece(i, "</s>", True)]
    return out


def _gemma3_text(message: dict, index: int, what: str) -> list[Piece]:
    """A Gemma 3 turn's content: a string trimmed, or its parts (text trimmed, an image as ``<start_of_image>``)."""
    content = message.get("content")
    if isinstance(content, str):
        return [Piece(index, content.strip(), False)]
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        out = []
        for number, part in enumerate(content):
            if part.get("type") == "image":
                out.append(Piece(index, "<start_of_image>", True))
            elif part.get("type") == "text":
                if not isinstance(part.get("text"), str):
                    raise TemplateError(f"messages[{index}].content[{number}].text must be a string",
                                        ("messages", index, "content", number, "text"))
                out.append(Piece(index, part["text"].strip(), False))
        return out
    raise TemplateError(f"messages[{index}].content must be a string or a list of parts for {what}", ("messages", index, "content"))


def _gemma3(messages: list[dict], add_generation_prompt: bool, tools: Any) -> list[Piece]:
    """Gemma 3's template: a system prompt (untrimmed, then a blank line) in front of the first turn's
    content, turns as ``<start_of_turn>role\n`` + content trimmed + ``<end_of_turn>\n`` (an assistant
    is ``model``), user first and every other turn. The template writes no tools: they are refused."""
    if tools or any(m.get("tool_calls") for m in messages):
        raise TemplateError("the gemma3 template writes no tools or tool calls (they would be left out of the prompt)")
    if not messages:
        raise TemplateError("the gemma3 template needs at least one message", ("messages",))
    out: list[Piece] = [Piece(None, "<bos>", True)]
    prefix: list[Piece] = []
    turns = list(enumerate(messages))
    if messages and messages[0].get("role") == "system":
        content = messages[0].get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict) and isinstance(content[0].get("text"), str):
            content = content[0]["text"]
        if not isinstance(content, str):
            raise TemplateError("messages[0].content must be a string, or parts whose first has a text, for gemma3",
                                ("messages", 0, "content"))
        prefix = [Piece(0, content + "\n\n", False)]
        turns = turns[1:]
    for position, (i, message) in enumerate(turns):
        if (message["role"] == "user") != (position % 2 == 0):
            raise TemplateError(f"messages[{i}]: the gemma3 template needs user and other turns in turn, starting with "
                                f"user; got {message['role']!r}", ("messages", i, "role"))
        role = "model" if message["role"] == "assistant" else message["role"]
        out += [Piece(i, "<start_of_turn>", True), Piece(i, role + "\n", False)]
        if position == 0:
            out += prefix
        out += _gemma3_text(message, i, "gemma3")
        out += [Piece(i, "<end_of_turn>", True), Piece(i, "\n", False)]
    if add_generation_prompt:
        out += [Piece(None, "<start_of_turn>", True), Piece(None, "model\n", False)]
    return out


# ---------------------------------------------------------------- Llama 3.1

LLAMA3_1_DATE = "26 Jul 2024"  # the official template's own default date_string
_LLAMA_TOOLS_RULES = ('Respond in the format {"name": function name, "parameters": dictionary of argument name and its '
                      'value}.Do not use variables.\n\n')


def _llama_tools_text(tools: list) -> str:
    return "".join(json.dumps(tool, ensure_ascii=False, indent=4) + "\n\n" for tool in tools)


def _llama3_1(messages: list[dict], add_generation_prompt: bool, tools: Any, date_string: str = LLAMA3_1_DATE,
              tools_in_user_message: bool = True, builtin_tools: list | None = None) -> list[Piece]:
    """Llama 3.1's official template: the dated system block, tools in the first user message (or the
    system block), one tool call per assistant message, tool results as ``ipython``."""
    if not messages:
        raise TemplateError("the llama3_1 template needs at least one message", ("messages",))
    header_start, header_end, eot = Piece(None, "<|start_header_id|>", True), Piece(None, "<|end_header_id|>", True), "<|eot_id|>"
    out: list[Piece] = [Piece(None, "<|begin_of_text|>", True)]
    first = 0
    system_message = ""
    if messages[0]["role"] == "system":
        system_message, first = _content(messages[0], 0).strip(), 1
    text = ""
    if builtin_tools is not None or tools is not None:
        text += "Environment: ipython\n"
    if builtin_tools is not None:
        text += "Tools: " + ", ".join(t for t in builtin_tools if t != "code_interpreter") + "\n\n"
    text += "Cutting Knowledge Date: December 2023\nToday Date: " + date_string + "\n\n"
    if tools is not None and not tools_in_user_message:
        text += ("You have access to the following functions. To call a function, please respond with JSON for a function "
                 "call." + _LLAMA_TOOLS_RULES + _llama_tools_text(tools))
    out += [header_start, Piece(None, "system", False), header_end, Piece(None, "\n\n" + text, False)]
    owner = 0 if first else None
    out += [Piece(owner, system_message, False), Piece(None, eot, True)]
    if tools_in_user_message and tools is not None:
        if first == len(messages):
            raise TemplateError("the llama3_1 template puts tools in the first user message, and there is none", ("messages",))
        out += [Piece(first, "<|start_header_id|>", True), Piece(first, "user", False), Piece(first, "<|end_header_id|>", True),
                Piece(first, "\n\n", False),
                Piece(None, "Given the following functions, please respond with a JSON for a function call with its proper "
                            "arguments that best answers the given prompt.\n\n" + _LLAMA_TOOLS_RULES + _llama_tools_text(tools), False),
                Piece(first, _content(messages[first], first).strip(), False), Piece(first, eot, True)]
        first += 1
    end = "<|eom_id|>" if builtin_tools is not None else eot
    for i in range(first, len(messages)):
        message = messages[i]
        role = message["role"]
        head = [Piece(i, "<|start_header_id|>", True), Piece(i, "ipython" if role in ("tool", "ipython") else
                                                              "assistant" if "tool_calls" in message else role, False),
                Piece(i, "<|end_header_id|>", True)]
        if not (role in ("tool", "ipython") or "tool_calls" in message):
            out += [*head, Piece(i, "\n\n" + _content(message, i).strip(), False), Piece(i, eot, True)]
        elif "tool_calls" in message:
            call = _single_call(message, i, "llama3_1")
            name, arguments = call["name"], call.get("arguments")
            if builtin_tools is not None and name in builtin_tools:
                if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
                    raise TemplateError(f"messages[{i}].tool_calls[0]: a built-in tool call needs its arguments as an "
                                        f"object of strings", ("messages", i, "tool_calls", 0))
                body = "<|python_tag|>" + name + ".call(" + ", ".join(f'{k}="{v}"' for k, v in arguments.items()) + ")"
                out += [*head, Piece(i, "\n\n", False), Piece(i, "<|python_tag|>", True), Piece(i, body[len("<|python_tag|>"):], False)]
            else:
                out += [*head, Piece(i, '\n\n{"name": "' + name + '", "parameters": ' + _tojson(arguments) + "}", False)]
            out.append(Piece(i, end, True))
        else:
            out += [*head, Piece(i, "\n\n" + _tojson(_content(message, i)), False), Piece(i, eot, True)]
    if add_generation_prompt:
        out += [header_start, Piece(None, "assistant", False), header_end, Piece(None, "\n\n", False)]
    return out


def _single_call(message: dict, index: int, template: str) -> dict:
    """The one tool call (its ``function``) of an assistant message, for the templates that render one."""
    calls = message["tool_calls"]
    if not isinstance(calls, list) or len(calls) != 1:
        raise TemplateError(f"messages[{index}].tool_calls: the {template} template renders exactly one tool call per "
                            f"assistant message, got {len(calls) if isinstance(calls, list) else calls!r}",
                            ("messages", index, "tool_calls"))
    return _function(calls[0], index)


def _function(call: Any, index: int) -> dict:
    """A tool call's ``function`` object (the OpenAI shape) with a string name."""
    function = call.get("function") if isinstance(call, dict) else None
    if isinstance(function, dict):
        call = function
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise TemplateError(f"messages[{index}].tool_calls: a tool call needs a function with a string name", ("messages", index, "tool_calls"))
    return call


# ---------------------------------------------------------------- harmony (GPT-OSS)

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
    "type find = (_: {\npattern: string,\ncursor?: number, // default: -1\n}) => any;\n\n} // namespace browser\n\n")
_PYTHON = (
    "## python\n\nUse this tool to execute Python code in your chain of thought. The code will not be shown to the user. "
    "This tool should be used for internal reasoning, but not for code that is intended to be visible to the user (e.g. "
    "when creating plots, tables, or files).\n\nWhen you send a message containing Python code to python, it will be "
    "executed in a stateful Jupyter notebook environment. python will respond with the output of the execution or time "
    "out after 120.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. Internet access for "
    "this session is UNKNOWN. Depends on the cluster.\n\n")


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
        fields = [name + ("" if name in required else "?") + ": \n                " + _ts_type(sub)
                  for name, sub in properties.items()]
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
            raise TemplateError(f"tools[{position}]: the harmony template needs {{\"type\": \"function\", \"function\": {{...}}}}", ("tools", position))
        text += "// " + _text(function.get("description"), f"tools[{position}].function.description", ("tools", position, "function", "description")) + "\n"
        text += "type " + _text(function.get("name"), f"tools[{position}].function.name", ("tools", position, "function", "name")) + " = "
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        if not properties:
            text += "() => any;\n\n"
            continue
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


def _harmony(messages: list[dict], add_generation_prompt: bool, tools: Any, reasoning_effort: str = "medium",
             current_date: str = HARMONY_DATE, model_identity: str = "You are ChatGPT, a large language model trained by OpenAI.",
             builtin_tools: list | None = None) -> list[Piece]:
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
    out: list[Piece] = [Piece(None, start, True), Piece(None, "system", False), Piece(None, message_tag, True),
                        Piece(None, system, False), Piece(None, end, True)]
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
                    raise TemplateError(f"messages[{i}].{field} holds <|channel|> tags: give the analysis in \"thinking\" "
                                        f"and the final answer in \"content\"", ("messages", i, field))
            if "tool_calls" in message:
                call = _single_call(message, i, "harmony")
                later_final = any(m.get("role") == "assistant" and "tool_calls" not in m for m in messages[i + 1:])
                if content and thinking:
                    raise TemplateError(f"messages[{i}]: the harmony template takes content or thinking in an assistant "
                                        f"message with a tool call, not both", ("messages", i))
                analysis = content or thinking
                if analysis and not later_final:  # dropped once a final answer follows
                    out += _harmony_message(i, "assistant", "analysis", analysis, "<|end|>")
                content_type = call["content_type"] if "content_type" in call else "json"
                content_type = _text(content_type, f"messages[{i}].tool_calls[0].content_type", ("messages", i, "tool_calls", 0))
                out += _harmony_message(i, "assistant to=functions." + call["name"], "commentary " + content_type,
                                        _tojson(call.get("arguments")), "<|call|>")
                last_tool = call["name"]
            elif i == len(messages) - 1 and not add_generation_prompt:
                if "thinking" in message:
                    out += _harmony_message(i, "assistant", "analysis", thinking, "<|end|>")
                out += _harmony_message(i, "assistant", "final", content, "<|return|>")
            else:  # an earlier turn's thinking is dropped
                out += _harmony_message(i, "assistant", "final", content, "<|end|>")
                last_tool = None
        elif role == "tool":
            if last_tool is None:
                raise TemplateError(f"messages[{i}]: the harmony template needs a tool result to follow an assistant tool call", ("messages", i))
            out += _harmony_message(i, "functions." + last_tool + " to=assistant", "commentary", _tojson(_content(message, i)), "<|end|>")
        elif role == "user":
            out += _harmony_message(i, "user", None, _content(message, i), "<|end|>")
        else:
            raise TemplateError(f"messages[{i}]: the harmony template renders a {role!r} message only as the first message "
                                f"(anywhere else it would be left out of the prompt)", ("messages", i, "role"))
    if add_generation_prompt:
        out += [Piece(None, start, True), Piece(None, "assistant", False)]
    return out


def _choice(*allowed: str):
    return lambda value: None if value in allowed else f"one of {', '.join(allowed)}"


def _date(pattern: str, example: str):
    compiled = re.compile(pattern)
    return lambda value: None if isinstance(value, str) and compiled.fullmatch(value) else f"a date like {json.dumps(example)}"


def _names(*allowed: str):
    def check(value: Any) -> str | None:
        ok = isinstance(value, list) and all(isinstance(item, str) and (not allowed or item in allowed) for item in value)
        return None if ok else f"a list of {' and '.join(allowed) if allowed else 'tool names'}"
    return check


def _is(kind: type, what: str):
    return lambda value: None if isinstance(value, kind) and (kind is not str or value) else what


# The options each template reads (its Jinja template's own variables), with what each must be.
OPTIONS: dict[str, dict[str, Any]] = {
    "llama3": {},
    "llama3_1": {"date_string": _date("[0-9]{2} [A-Z][a-z]{2} [0-9]{4}", LLAMA3_1_DATE),
                 "tools_in_user_message": _is(bool, "true or false"), "builtin_tools": _names()},
    "qwen3": {"enable_thinking": _is(bool, "true or false")},
    "deepseek_v3": {},
    "mistral": {},
    "gemma3": {},
    "harmony": {"reasoning_effort": _choice(*REASONING_EFFORTS), "current_date": _date("[0-9]{4}-[0-9]{2}-[0-9]{2}", HARMONY_DATE),
                "model_identity": _is(str, "a non-empty string"), "builtin_tools": _names("browser", "python")},
}


def option_problems(template: str, options: dict) -> list[tuple[str, str]]:
    """(option, what is wrong) for each option ``template`` does not take or takes in another form."""
    known = OPTIONS[template]
    problems = []
    for key, value in options.items():
        if key not in known:
            takes = f"it takes {', '.join(known)}" if known else "it takes none"
            problems.append((key, f"the {template} template has no option {json.dumps(key)} ({takes})"))
        elif (wanted := known[key](value)) is not None:
            problems.append((key, f"{key} must be {wanted}, got {json.dumps(value, ensure_ascii=False) if _jsonable(value) else type(value).__name__}"))
    return problems


def _jsonable(value: Any) -> bool:
    try:
        return len(json.dumps(value)) < 200
    except (TypeError, ValueError):
        return False


_RENDERERS = {"llama3": _llama3, "llama3_1": _llama3_1, "qwen3": _qwen3, "deepseek_v3": _deepseek_v3, "mistral": _mistral,
              "harmony": _harmony, "gemma3": _gemma3}


def pieces(messages: list[dict], template: str, *, add_generation_prompt: bool = True, tools: Any = None,
           **options: Any) -> list[Piece]:
    """The rendered prompt as pieces (owner, text, is a special token), in order."""
    if template not in _RENDERERS:
        raise TemplateError(f"unknown template {template!r}; known: {', '.join(TEMPLATES)}")
    if not isinstance(messages, list) or not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        raise TemplateError("messages must be a list of objects, each with a string role", ("messages",))
    for key, problem in option_problems(template, options):
        raise TemplateError(problem, ("template_options", key))
    return [piece for piece in _RENDERERS[template](messages, add_generation_prompt, tools, **options) if piece.text]


def render(messages: list[dict], template: str, *, add_generation_prompt: bool = True, tools: Any = None, **options: Any) -> str:
    """The prompt text exactly as the model's own template writes it (special tokens as their text)."""
    return "".join(piece.text for piece in pieces(messages, template, add_generation_prompt=add_generation_prompt,
                                                   tools=tools, **options))


def count_rendered(messages: list[dict], template: str, tokenizer: Any, *, add_generation_prompt: bool = True,
                   tools: Any = None, **options: Any) -> tuple[int, list[int]]:
    """(the rendered prompt's token count, each message's share): see the module's docstring."""
    result = count_rendered_detail(messages, template, tokenizer, add_generation_prompt=add_generation_prompt,
                                   tools=tools, **options)
    return result.total, result.per_message


def count_rendered_detail(messages: list[dict], template: str, tokenizer: Any, *, add_generation_prompt: bool = True,
                          tools: Any = None, **options: Any) -> Rendered:
    """``count_rendered`` with the overhead (tokens in no message) and the prompt text."""
    from .tokenizers import Tokenizer, named_tokenizer

    loaded = tokenizer if isinstance(tokenizer, Tokenizer) else named_tokenizer(tokenizer) if isinstance(tokenizer, str) else None
    if loaded is None:
        raise TemplateError(f"count_rendered needs a loaded tokenizer (load_tokenizer) or a registered name, got {tokenizer!r}")
    parts = pieces(messages, template, add_generation_prompt=add_generation_prompt, tools=tools, **options)
    per_message = [0] * len(messages)
    overhead = 0
    checked: set[str] = set()

    def charge(owner: int | None, count: int) -> None:
        nonlocal overhead
        if owner is None:
            overhead += count
        else:
            per_message[owner] += count

    run: list[Piece] = []

    def close_run() -> None:
        if not run:
            return
        whole = loaded.count("".join(piece.text for piece in run))
        if len({piece.owner for piece in run}) == 1:
            charge(run[0].owner, whole)
        else:
            alone = [loaded.count(piece.text) for piece in run]
            for piece, count in zip(run, alone):
                charge(piece.owner, count)
            charge(run[-1].owner, whole - sum(alone))
        run.clear()

    for piece in parts:
        if piece.special:
            close_run()
            if piece.text not in checked:
                if loaded.count_prompt(piece.text) != 1:
                    raise TemplateError(f"template {template!r} writes the special token {piece.text!r}, which "
                                        f"{loaded.name} does not have: is it that model's tokenizer?")
                checked.add(piece.text)
            charge(piece.owner, 1)
        else:
            run.append(piece)
    close_run()
    total = sum(per_message) + overhead
    return Rendered(total, per_message, overhead, "".join(piece.text for piece in parts))
