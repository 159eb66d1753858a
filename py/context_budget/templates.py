"""Chat templates in Python: a conversation rendered to the exact prompt a model's server builds.

``render(messages, template)`` gives the prompt text; ``count_rendered(messages, template,
tokenizer)`` its exact token count and each message's share. The templates are the models' own
Jinja ``chat_template`` rewritten in plain Python (no Jinja at run time), and proven equal to
``jinja2`` rendering the original (with the globals Hugging Face gives it) in the tests:

- ``llama3``: Llama 3's template (``<|start_header_id|>role<|end_header_id|>\\n\\n`` + the content
  stripped + ``<|eot_id|>``, ``<|begin_of_text|>`` first);
- ``qwen3``: Qwen 3's, with its tools block, ``<tool_call>``/``<tool_response>`` and the
  ``<think>\\n\\n</think>\\n\\n`` it writes into assistant turns after the last user turn;
- ``deepseek_v3``: DeepSeek V3/R1's, system prompts joined at the start, tool calls and outputs;
- ``mistral``: Mistral's instruct format for its tekken tokenizer (mistral-common's V3, Mistral Nemo):
  ``<s>[INST]user[/INST]assistant</s>...``, the (non-empty) system prompts joined by a blank line in
  front of the last user message. Text conversations only: user and assistant turns alternate, starting and
  ending with a user turn (the ``[/INST]`` is the generation prompt); tools are refused.

Not here (yet): Llama 3.1's dated system block and GPT-OSS's harmony format, whose official
templates are in none of the pinned packages the tests can check them against.

A message is ``{"role": str, "content": str, ...}``; ``name`` is accepted and, as in these
templates, not rendered. Assistant messages may carry ``tool_calls`` (``[{"type": "function",
"function": {"name": str, "arguments": str or object}}]``), Qwen's ``reasoning_content`` too; DeepSeek
renders tool calls of an assistant message whose ``content`` is None. ``tools`` is a list of JSON
schemas (Qwen 3 writes them into its system block).

How a count is shared out (``count_rendered``): the prompt is a sequence of pieces, each written for
one message (its header, content, end tokens) or for none (BOS, the tools block, the generation
prompt). Special tokens are one token each and cut the text, so a message's share is the tokens of
its own pieces; where two messages' text runs into each other with no special token between (Qwen's
consecutive tool responses), the run is counted whole and the difference from counting each piece
alone goes to the later message. So ``sum(per_message) + overhead == total`` always, and ``total``
is the count of exactly the rendered prompt.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

TEMPLATES = ("llama3", "qwen3", "deepseek_v3", "mistral")


class TemplateError(ValueError):
    """A conversation the template cannot render (the message says which message and why)."""


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
        raise TemplateError(f"messages[{index}].content must be a string, got {type(content).__name__}")
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
            raise TemplateError(f"messages[{i}]: the mistral template takes no system message right after an assistant turn")
    for position, (i, message) in enumerate(turns):
        wanted = "user" if position % 2 == 0 else "assistant"
        if message.get("role") != wanted:
            raise TemplateError(f"messages[{i}]: the mistral template needs user and assistant turns in turn, "
                                f"starting with user; got {message.get('role')!r} where {wanted!r} belongs")
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
                raise TemplateError(f"messages[{i}]: an assistant turn needs content for the mistral template")
            out += [Piece(i, content.rstrip(" "), False), Piece(i, "</s>", True)]
    return out


_RENDERERS = {"llama3": _llama3, "qwen3": _qwen3, "deepseek_v3": _deepseek_v3, "mistral": _mistral}


def pieces(messages: list[dict], template: str, *, add_generation_prompt: bool = True, tools: Any = None,
           **options: Any) -> list[Piece]:
    """The rendered prompt as pieces (owner, text, is a special token), in order."""
    if template not in _RENDERERS:
        raise TemplateError(f"unknown template {template!r}; known: {', '.join(TEMPLATES)}")
    if not isinstance(messages, list) or not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        raise TemplateError("messages must be a list of objects, each with a string role")
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
