"""The parsed history: what the readers (``reading`` for the chat format, ``formats/`` for
Anthropic's and OpenAI Responses') hand the rule, the strategy, the checks and the claims.

One TypedDict, so that mypy checks every read by its key: the keys every history has are
required; the rest belong to one reader or one option (a template, a format, strategy
``stable``) and are read with ``.get`` or where that reader's key is known to be there.
"""

from __future__ import annotations

from typing import Any, Callable, Required, TypedDict


class Read(TypedDict):
    """What the chat reader has read before the costs: the messages, their roles and units."""

    limit: int
    tokenizer: str  # a tokenizer's name, or "estimate"
    model: str | None  # a model name given as the tokenizer (it names its encoding)
    messages: list[Any]  # the input's own messages (or items), as given
    roles: list[str]
    pinned: list[bool]
    flat: list[bool]  # a message copied as it is (no part or field the request does not take)
    unit_of: list[int]  # each message's unit: the index of the message that opens it


class Parsed(Read, total=False):
    # every history
    costs: Required[list[int]]
    live_start: Required[int]  # the newest user message (its unit's start); len(messages) when there is none
    images: Required[list[dict[str, Any]]]
    tools: Required[list[str]]  # the tool definitions' names
    tool_costs: Required[list[int]]
    tools_tokens: Required[int]
    # a template (prompt_template.py): the prompt the model's chat template renders
    template: str
    priming: int  # the reply priming: 3, or the template's overhead, or the format's system prompt's too
    template_tools: object
    template_options: dict[str, Any]
    # Anthropic's Messages and OpenAI Responses (formats/)
    format: str
    format_detected: bool
    format_flat: list[bool]
    items_key: str
    system_tokens: int
    given_counts: list[dict[str, Any]]  # the counts the caller gave ("tokens"): {index, block, type, tokens}
    sent: Callable[[dict], dict]  # an item as a request takes it
    # strategy stable and previous (stable.py); walk_limit and floor are the strategy's, for the rule
    options: dict[str, Any] | None
    walk_limit: int | None
    floor: int
    # clearing (clearing.py): the cleared costs' origin, the cleared copies, the report's rows
    clearing: dict[str, Any]


class Result(TypedDict, total=False):
    """The report's keys of this mode (each listed in ``_evaluation/report.Report`` too); ``select``
    without the trace (``trim_messages``' fast path) gives the first few only."""

    limit: Required[int]
    tokens: Required[int]
    remaining: Required[int]
    shortfall: Required[int]
    kept: Required[list[int]]
    dropped: Required[list[int]]
    messages: Required[list[Any]]
    images: Required[list[dict[str, Any]]]
    tools_tokens: Required[int]
    tokenizer: str
    model: str | None
    pinned_tokens: int
    live_turn: list[int]
    live_tokens: int
    tools: list[dict[str, Any]]
    trace: list[dict[str, Any]]
    template: str
    template_tokens: int
    format: str
    format_detected: bool
    system_tokens: int
    given_counts: list[dict[str, Any]]
    strategy: str
    low_watermark: float
    walk_limit: int
    cut: int | None
    cut_from: str | None
    as_previous: dict[str, Any] | None
    reuse: dict[str, Any] | None
    cleared: list[dict[str, Any]]
    clearing: dict[str, Any]
    summary_span: dict[str, Any] | None
