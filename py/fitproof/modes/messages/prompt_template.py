"""A chat history counted as its model's chat template renders it (input key ``template``).

With a template, a message's cost is its share of the rendered prompt (``templates.count_rendered_detail``),
the template's own tokens (BOS, Llama 3.1's dated system block, a tools block, the generation prompt)
replace OpenAI's 3 that prime the reply, and the prompt's count is the kept messages rendered again and
counted. ``template_options`` are the template's own variables (``templates.OPTIONS``: Llama 3.1's date,
harmony's reasoning effort and date, Qwen 3's ``enable_thinking``).
"""

from __future__ import annotations

import json
from typing import Any

from ... import templates
from ..._base.values import INVALID_VALUE, NOT_TEXT, Key, Problem, json_text, preview
from ...tokenizers import named_tokenizer

TOOLS_TEMPLATES = ("llama3_1", "qwen3", "harmony")  # the templates that write tool definitions into the prompt
FIRST_ROLES = {"harmony": ("system", "developer")}  # the roles a template renders as the first message (default: system)


def read_template(top: dict, tokenizer: object, problems: list[Problem]) -> str | None:
    """The template named by ``top["template"]`` with a loaded model tokenizer, or None after a problem."""
    value = top["template"]
    if value not in templates.TEMPLATES:
        problems.append(Problem(("template",), INVALID_VALUE, f"expected one of {', '.join(templates.TEMPLATES)}, got {preview(value)}"))
        return None
    options = top.get("template_options")
    if options is not None and not isinstance(options, dict):
        problems.append(
            Problem(
                ("template_options",),
                INVALID_VALUE,
                f"template_options must be an object of the template's options, got {preview(options)}",
            )
        )
        return None
    before = len(problems)
    for key, problem in templates.option_problems(value, options or {}):
        problems.append(Problem(("template_options", key), INVALID_VALUE, problem))
    if len(problems) > before:
        return None
    if not isinstance(tokenizer, str) or named_tokenizer(tokenizer) is None:
        problems.append(
            Problem(
                ("tokenizer",),
                INVALID_VALUE,
                f"the template {json_text(value)} needs the model's own tokenizer (a name registered with "
                f"register_tokenizer or --tokenizer-file NAME=PATH), got {preview(top.get('tokenizer', 'o200k_base'))}",
            )
        )
        return None
    if top.get("tools") and value not in TOOLS_TEMPLATES:
        problems.append(
            Problem(
                ("tools",),
                INVALID_VALUE,
                f"the template {json_text(value)} does not write tool definitions; only {', '.join(TOOLS_TEMPLATES)} do (leave tools out)",
            )
        )
    return value


def read_options(top: dict) -> dict:
    """The template's options as given (``read_template`` has checked them)."""
    return top.get("template_options") or {}


def check_messages(messages: list, problems: list[Problem], template: object = None) -> None:
    """What a template cannot render: content parts (images, text parts) and the developer role
    (harmony's first message excepted)."""
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        at: tuple[Key, ...] = ("messages", index)
        content = message.get("content")
        if isinstance(content, list):
            kinds = [part.get("type") for part in content if isinstance(part, dict)]
            what = "an image" if "image_url" in kinds else "content parts"
            problems.append(
                Problem(
                    (*at, "content"),
                    NOT_TEXT,
                    f"with a template, content must be a string: a chat template renders text, "
                    f"and this message has {what} (got {preview(content)})",
                )
            )
        # (template is the raw input here: a list or an object is no key of FIRST_ROLES, nor text for json_text)
        if message.get("role") == "developer" and not (
            index == 0 and isinstance(template, str) and "developer" in FIRST_ROLES.get(template, ())
        ):
            where = (
                "; harmony takes it as the first message only"
                if template == "harmony"
                else ' (the chat templates other than harmony know system, user, assistant and tool); use "system"'
            )
            problems.append(
                Problem(
                    (*at, "role"),
                    INVALID_VALUE,
                    f"with the template {json_text(template) if isinstance(template, str) else preview(template)} there is no "
                    f'"developer" role here{where}',
                )
            )


OBJECT_ARGUMENTS = ("llama3_1", "harmony")  # templates that write a tool call's arguments as an object (``| tojson``)


def plain(messages: list[dict], template: str | None = None) -> list[dict]:
    """The messages as a template reads them (this tool's own ``pinned`` left out). For the templates
    that write a tool call's arguments as an object, the OpenAI format's JSON string is parsed first,
    as OpenAI-compatible servers do before they apply such a template (text that is no JSON stays a string)."""
    out = [{key: value for key, value in message.items() if key != "pinned"} for message in messages]
    if template in OBJECT_ARGUMENTS:
        for message in out:
            if isinstance(message.get("tool_calls"), list):
                message["tool_calls"] = [_parsed_arguments(call) for call in message["tool_calls"]]
    return out


def _parsed_arguments(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    try:
        arguments = json.loads(function["arguments"])
    except ValueError:
        return call
    return {**call, "function": {**function, "arguments": arguments}}


def counted(messages: list[dict], template: str, tokenizer: str, tools: Any, options: dict | None = None) -> templates.Rendered:
    """Each message's share and the template's own tokens; Llama 3's ``<|begin_of_text|>`` is the
    template's, not the first message's (it stays when that message is dropped)."""
    detail = templates.count_rendered_detail(plain(messages, template), template, tokenizer, tools=tools or None, **(options or {}))
    if template == "llama3" and messages:
        per_message = list(detail.per_message)
        per_message[0] -= 1
        return detail._replace(per_message=per_message, overhead=detail.overhead + 1)
    return detail


def rendered_tokens(messages: list[dict], template: str, tokenizer: str, tools: Any, options: dict | None = None) -> int:
    """The prompt of these messages rendered and counted whole (special tokens as one token each)."""
    loaded = named_tokenizer(tokenizer)
    assert loaded is not None  # a template was read, so the tokenizer is a loaded one
    return loaded.count(templates.render(plain(messages, template), template, tools=tools or None, **(options or {})))
