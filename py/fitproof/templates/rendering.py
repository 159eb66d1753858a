"""A template by name: its options checked, its pieces, the prompt text, and the count shared out per message."""

from __future__ import annotations

import json
import re
from typing import Any

from ._common import Piece, Rendered, TemplateError
from .deepseek_v3 import _deepseek_v3
from .gemma3 import _gemma3
from .harmony import HARMONY_DATE, REASONING_EFFORTS, _harmony
from .llama import LLAMA3_1_DATE, _llama3, _llama3_1
from .mistral import _mistral
from .qwen3 import _qwen3


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
    "llama3_1": {
        "date_string": _date("[0-9]{2} [A-Z][a-z]{2} [0-9]{4}", LLAMA3_1_DATE),
        "tools_in_user_message": _is(bool, "true or false"),
        "builtin_tools": _names(),
    },
    "qwen3": {"enable_thinking": _is(bool, "true or false")},
    "deepseek_v3": {},
    "mistral": {},
    "gemma3": {},
    "harmony": {
        "reasoning_effort": _choice(*REASONING_EFFORTS),
        "current_date": _date("[0-9]{4}-[0-9]{2}-[0-9]{2}", HARMONY_DATE),
        "model_identity": _is(str, "a non-empty string"),
        "builtin_tools": _names("browser", "python"),
    },
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
            problems.append(
                (key, f"{key} must be {wanted}, got {json.dumps(value, ensure_ascii=False) if _jsonable(value) else type(value).__name__}")
            )
    return problems


def _jsonable(value: Any) -> bool:
    try:
        return len(json.dumps(value)) < 200
    except (TypeError, ValueError):
        return False


_RENDERERS = {
    "llama3": _llama3,
    "llama3_1": _llama3_1,
    "qwen3": _qwen3,
    "deepseek_v3": _deepseek_v3,
    "mistral": _mistral,
    "harmony": _harmony,
    "gemma3": _gemma3,
}
TEMPLATES = tuple(_RENDERERS)  # every template's name, in the order the docs list them


def pieces(messages: list[dict], template: str, *, add_generation_prompt: bool = True, tools: Any = None, **options: Any) -> list[Piece]:
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
    return "".join(piece.text for piece in pieces(messages, template, add_generation_prompt=add_generation_prompt, tools=tools, **options))


def count_rendered(
    messages: list[dict], template: str, tokenizer: Any, *, add_generation_prompt: bool = True, tools: Any = None, **options: Any
) -> tuple[int, list[int]]:
    """(the rendered prompt's token count, each message's share): see the module's docstring."""
    result = count_rendered_detail(messages, template, tokenizer, add_generation_prompt=add_generation_prompt, tools=tools, **options)
    return result.total, result.per_message


def count_rendered_detail(
    messages: list[dict], template: str, tokenizer: Any, *, add_generation_prompt: bool = True, tools: Any = None, **options: Any
) -> Rendered:
    """``count_rendered`` with the overhead (tokens in no message) and the prompt text."""
    from ..tokenizers import Tokenizer, named_tokenizer

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
                    raise TemplateError(
                        f"template {template!r} writes the special token {piece.text!r}, which "
                        f"{loaded.name} does not have: is it that model's tokenizer?",
                        special_token=piece.text,
                    )
                checked.add(piece.text)
            charge(piece.owner, 1)
        else:
            run.append(piece)
    close_run()
    total = sum(per_message) + overhead
    return Rendered(total, per_message, overhead, "".join(piece.text for piece in parts))
