"""A chat history counted as its model's chat template renders it (input key ``template``).

With a template, a message's cost is its share of the rendered prompt (``templates.count_rendered_detail``),
the template's own tokens (BOS, Qwen's tools block, the generation prompt) replace OpenAI's 3 that prime
the reply, and the prompt's count is the kept messages rendered again and counted.
"""

from __future__ import annotations

from typing import Any

from ... import templates
from ..._values import INVALID_VALUE, NOT_TEXT, Key, Problem, json_text, preview
from ...tokenizers import named_tokenizer

# Named in the issue and not renderable yet: their official templates are in no pinned package to check against.
NOT_AVAILABLE = ("llama3_1", "harmony")
TOOLS_TEMPLATES = ("qwen3",)  # the templates that write tool definitions into the prompt


def read_template(top: dict, tokenizer: object, problems: list[Problem]) -> str | None:
    """The template named by ``top["template"]`` with a loaded model tokenizer, or None after a problem."""
    value = top["template"]
    if value not in templates.TEMPLATES:
        why = (", which is not available: no pinned package ships its official template to check a rewrite against"
               if value in NOT_AVAILABLE else "")
        problems.append(Problem(("template",), INVALID_VALUE,
                                f"expected one of {', '.join(templates.TEMPLATES)}, got {preview(value)}{why}"))
        return None
    if not isinstance(tokenizer, str) or named_tokenizer(tokenizer) is None:
        problems.append(Problem(("tokenizer",), INVALID_VALUE,
                                f"the template {json_text(value)} needs the model's own tokenizer (a name registered with "
                                f"register_tokenizer or --tokenizer-file NAME=PATH), got {preview(top.get('tokenizer', 'o200k_base'))}"))
        return None
    if top.get("tools") and value not in TOOLS_TEMPLATES:
        problems.append(Problem(("tools",), INVALID_VALUE,
                                f"the template {json_text(value)} does not write tool definitions; only "
                                f"{', '.join(TOOLS_TEMPLATES)} does (leave tools out)"))
    return value


def check_messages(messages: list, problems: list[Problem]) -> None:
    """What a template cannot render: content parts (images, text parts) and the developer role."""
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        at: tuple[Key, ...] = ("messages", index)
        content = message.get("content")
        if isinstance(content, list):
            kinds = [part.get("type") for part in content if isinstance(part, dict)]
            what = "an image" if "image_url" in kinds else "content parts"
            problems.append(Problem((*at, "content"), NOT_TEXT,
                                    f"with a template, content must be a string: a chat template renders text, "
                                    f"and this message has {what} (got {preview(content)})"))
        if message.get("role") == "developer":
            problems.append(Problem((*at, "role"), INVALID_VALUE,
                                    "with a template there is no \"developer\" role (the chat templates know system, user, "
                                    "assistant and tool); use \"system\""))


def plain(messages: list[dict]) -> list[dict]:
    """The messages as a template reads them (this tool's own ``pinned`` left out)."""
    return [{key: value for key, value in message.items() if key != "pinned"} for message in messages]


def counted(messages: list[dict], template: str, tokenizer: str, tools: Any) -> templates.Rendered:
    """Each message's share and the template's own tokens; Llama 3's ``<|begin_of_text|>`` is the
    template's, not the first message's (it stays when that message is dropped)."""
    detail = templates.count_rendered_detail(plain(messages), template, tokenizer, tools=tools or None)
    if template == "llama3" and messages:
        per_message = list(detail.per_message)
        per_message[0] -= 1
        return detail._replace(per_message=per_message, overhead=detail.overhead + 1)
    return detail


def rendered_tokens(messages: list[dict], template: str, tokenizer: str, tools: Any) -> int:
    """The prompt of these messages rendered and counted whole (special tokens as one token each)."""
    loaded = named_tokenizer(tokenizer)
    return loaded.count(templates.render(plain(messages), template, tools=tools or None))
