"""The library API for chat histories: ``trim_messages``, ``count_messages``, ``TrimmedMessages``,
``MessagesError`` and ``MessagesDoNotFit``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import Any

from ..._base.errors import InvalidInputError, input_problems
from ..._shared.shape import InvalidInput
from ..._base.values import LIMIT_TOO_LOW, MAX_SAFE_INTEGER, Problem, got, plural, preview
from .accounting import REPLY_PRIMING, RememberedCounter
from .rule import shortfall_text
from .clearing import parse, select
from .stable import remembered_previous, remember
from .prompt_template import rendered_tokens
from .history import Parsed
from . import langchain_messages


class MessagesError(InvalidInputError):
    """Invalid input for ``trim_messages``/``count_messages``, or what must be kept over the limit.

    ``problems`` holds every problem found (``problem.path``, ``problem.message``, also
    readable as ``problem["path"]``); none when ``messages`` is not a list at all.
    """


class MessagesDoNotFit(MessagesError):
    """What must be kept does not fit ``limit``: the pinned (system, developer, ``pinned``)
    messages, the live turn (the newest user message and every message after it), the tool
    definitions and the 3 tokens that prime the reply. Nothing is trimmed: sending less would
    lose the question being asked.

    ``shortfall``: the tokens over the limit; ``needed``: what must be kept counts; ``limit``;
    ``live_turn`` and ``pinned``: the input indices of those messages.
    """

    def __init__(
        self,
        text: str,
        problems: Any = (),
        summary: str | None = None,
        report: dict | None = None,
        *,
        shortfall: int = 0,
        needed: int = 0,
        limit: int = 0,
        live_turn: list[int] | None = None,
        pinned: list[int] | None = None,
    ) -> None:
        super().__init__(text, problems, summary, report)
        self.shortfall, self.needed, self.limit = shortfall, needed, limit
        self.live_turn, self.pinned = live_turn or [], pinned or []

    def __reduce__(self):  # pickled whole, its numbers too
        return _rebuilt, (type(self), str(self), self.problems, self.__dict__)


def _rebuilt(kind: type, text: str, problems: Any, state: dict) -> MessagesDoNotFit:
    error = kind(text, problems)
    error.__dict__.update(state)
    return error


class TrimmedMessages(list[dict[str, Any]]):
    """The kept messages, ready to send (a ``list``: pass it as ``messages=``), with the counts:
    ``tokens`` (the prompt: the kept messages, the tool definitions and the reply priming),
    ``limit``, ``remaining``, ``kept`` and ``dropped`` (input indices, input order), ``tools_tokens``
    and ``images_at_most`` (``(message, part)`` of each image whose size was unknown, counted at
    the most an image can cost), ``format`` (``"chat"``, ``"anthropic"`` or ``"responses"``:
    the format read, named or detected; LangChain messages given are returned as the caller's own
    objects, a copy where clearing changed one), ``given_counts`` (``{index, block, type, tokens}`` of
    each item or block counted by the count the caller gave as ``"tokens"``, in the anthropic and
    responses formats; empty otherwise), and ``counter_calls`` (with ``token_counter``: how many
    texts this call asked it about; None without one)."""

    tokens: int
    limit: int
    remaining: int
    kept: list[int]
    dropped: list[int]
    tools_tokens: int
    images_at_most: list[tuple[int, int]]
    given_counts: list[dict[str, Any]]
    counter_calls: int | None = None  # with token_counter: how many times this call asked it
    # With strategy, previous or caching (stable.py, reuse.py): the report's fields of the same names.
    strategy: str | None = None
    cut: int | None = None
    as_previous: dict | None = None
    previous: dict | None = None
    reuse: dict | None = None
    # With clear or context_management (clearing.py): the report's fields of the same names.
    cleared: list[dict] | None = None
    clearing: dict | None = None
    summary_span: dict | None = None
    format: str


def _error(text: str, problems: list[Problem]) -> MessagesError:
    return MessagesError(text, input_problems(problems))


def _as_dict(value: object) -> object:
    """A message or a tool definition as its dict: an SDK object (anything with ``model_dump()``,
    such as the OpenAI SDK's ``ChatCompletionMessage``) dumped, another mapping copied; and a
    message's content blocks that are SDK objects (``{"role": "assistant", "content": reply.content}``,
    as Anthropic's SDK has a reply appended) dumped too. ``evaluate`` takes JSON values only."""
    if not isinstance(value, dict):
        dump = getattr(value, "model_dump", None)
        if callable(dump):
            value = dump()
        elif isinstance(value, Mapping):
            value = dict(value)
        else:
            return value
    if not isinstance(value, dict):
        return value
    content = value.get("content")
    if type(content) is list and not set(map(type, content)) <= {dict, str}:
        return {**value, "content": [block.model_dump() if callable(getattr(block, "model_dump", None)) else block for block in content]}
    return value


def _has_objects(messages: list[dict]) -> bool:
    """Whether a message's content holds an SDK object (a block of a reply appended as it came)."""
    lists = [content for content in map(dict.get, messages, repeat("content")) if type(content) is list]
    return any(not set(map(type, content)) <= {dict, str} for content in lists)


def _listed(value: object, what: str) -> list:
    if isinstance(value, list):
        return value
    # One message, or text, would iterate as keys or characters: say what was meant instead.
    if isinstance(value, (dict, str, bytes, bytearray)) or callable(getattr(value, "model_dump", None)):
        hint = f" (one {what[:-1]}? put it in a list: [{what[:-1]}])" if not isinstance(value, (str, bytes, bytearray)) else ""
        raise MessagesError(
            f"{what} must be a list of {what[:-1]} dicts, got {got(value) if isinstance(value, (dict, str, bytes, bytearray)) else preview(value)}{hint}"
        )
    try:
        return list(value)  # type: ignore[call-overload]  # a tuple or any other sequence
    except TypeError:
        raise MessagesError(f"{what} must be a list of {what[:-1]} dicts, got {preview(value)}") from None


def _parse_call(
    messages: object,
    limit: object,
    tokenizer: object,
    tools: object = None,
    token_counter: Callable[[str], int] | None = None,
    require_user: bool = True,
    template: object = None,
    template_options: object = None,
    cache_keys: dict | None = None,
    format: object = None,
    system: object = None,
    instructions: object = None,
) -> Parsed:
    messages = _listed(messages, "messages")
    if not set(map(type, messages)) <= {dict} or _has_objects(messages):  # (at C speed: a chat loop sends a long history every call)
        messages = [_as_dict(message) for message in messages]
    data: dict[str, object] = {"mode": "messages", "limit": limit, "messages": messages}
    if tokenizer is not None:
        data["tokenizer"] = tokenizer
    if format is not None or system is not None or instructions is not None:
        if format is not None:
            data["format"] = format
        if system is not None:
            data["system"] = [_as_dict(block) for block in system] if isinstance(system, (list, tuple)) else system
        if instructions is not None:
            data["instructions"] = instructions
    if tools is not None:
        tools = _listed(tools, "tools")
        data["tools"] = [_as_dict(tool) for tool in tools]
    if template is not None:
        data["template"] = template
    if template_options is not None:
        data["template_options"] = template_options
    data.update({key: value for key, value in (cache_keys or {}).items() if value is not None})
    if token_counter is not None and not callable(token_counter):
        raise MessagesError(f"token_counter must be a function text -> int, got {preview(token_counter)}")
    if token_counter is not None and not isinstance(token_counter, RememberedCounter):
        token_counter = RememberedCounter(token_counter)
    try:
        return parse(data, token_counter, require_user)
    except InvalidInput as invalid:
        raise _problems_error(invalid.problems) from None


def _problems_error(problems: Sequence[Problem]) -> MessagesError:
    first = problems[0]
    more = len(problems) - 1
    text = f"{first.path}: {first.message}" + (f" (and {plural(more, 'more problem')}; see .problems)" if more else "")
    return _error(text, list(problems))


def _read_langchain(messages: Any, format: object) -> tuple[Any, list | None]:
    """``messages`` with each LangChain message read as its chat dict, and the caller's objects by
    index (None when there were none): langchain_messages.py."""
    listed = _listed(messages, "messages")
    read, originals, problems = langchain_messages.read(listed)
    if problems:
        raise _problems_error(problems)
    if originals is not None and format not in (None, "chat"):
        raise MessagesError(f'LangChain messages are read as the chat format; format must be left out or "chat", got {preview(format)}')
    return (read if originals is not None else messages), originals


def trim_messages(
    messages: Sequence[Mapping[str, object] | Any],
    limit: int,
    tokenizer: str | None = None,
    *,
    format: str | None = None,
    system: str | Sequence[Mapping[str, object] | Any] | None = None,
    instructions: str | None = None,
    tools: Sequence[Mapping[str, object] | Any] | None = None,
    token_counter: Callable[[str], int] | None = None,
    template: str | None = None,
    template_options: Mapping[str, object] | None = None,
    strategy: str | None = None,
    low_watermark: float | None = None,
    previous: Mapping[str, object] | None = None,
    caching: Mapping[str, object] | None = None,
    clear: Mapping[str, object] | bool | None = None,
    context_management: Mapping[str, object] | None = None,
    conversation: object = None,
) -> TrimmedMessages:
    """The newest turns of an OpenAI-format chat history that fit ``limit`` prompt tokens, with
    the system, developer and pinned messages and the live turn (the newest user message and
    every message after it), ready to send.

    ``messages``: message dicts (``{role, content, name?, tool_calls?, tool_call_id?, pinned?}``,
    the fields of the OpenAI SDK's request types, a reply's ``model_dump()``) or SDK objects
    (anything with ``model_dump()``), or LangChain messages (``SystemMessage``, ``HumanMessage``,
    ``AIMessage``, ``ToolMessage``; read as ``convert_to_openai_messages`` reads them, and returned as
    the caller's own objects: langchain_messages.py). ``tokenizer``: ``"o200k_base"`` (the default), ``"cl100k_base"``,
    ``"estimate"`` or a model name (``"gpt-4o"``, ``"gpt-4o-2024-08-06"``, ``"gpt-4"``). ``tools``: the
    request's function definitions, counted with the pinned messages. ``token_counter``: a
    ``text -> int`` for another model's tokenizer, used for every text with the same per-message
    accounting (then ``tokenizer`` only picks the tool-definition constants); it must be pure: its
    answers are remembered across calls, so a grown history asks it about the new texts only. ``template``
    (``"llama3"``, ``"llama3_1"``, ``"qwen3"``, ``"deepseek_v3"``, ``"mistral"``, ``"harmony"``): count
    the prompt as that chat template renders it, special tokens and generation prompt included, with
    ``tokenizer`` naming the model's own tokenizer (``register_tokenizer``); ``.tokens`` is then the
    kept messages rendered and counted. ``template_options``: the template's own options
    (``{"date_string": "02 Dec 2026"}`` for llama3_1, ``{"reasoning_effort": "high", "current_date":
    "2026-12-02"}`` for harmony, ``{"enable_thinking": False}`` for qwen3; docs/contract.md lists them).

    ``strategy="stable"`` (with ``low_watermark``, 0.7 by default) keeps the previous call's cut while
    everything from it fits, so the prompt provider caches stay warm; ``previous`` is the previous
    call's ``.as_previous``, and when it is left out with ``strategy="stable"`` the ``.as_previous``
    of this process's last call on the same history is used (``.previous`` says which): the result is
    ``evaluate``'s with that ``previous``. ``caching`` (``{"provider": "openai"}`` or ``{"provider":
    "anthropic", "min_tokens": 1024}``, each with optional ``prices`` per million tokens) fills
    ``.reuse`` with the tokens billed as cached, written and plain input, and the costs.

    ``clear`` (``{}`` or ``True`` for the defaults; ``{trigger, keep, clear_at_least, exclude_tools,
    clear_tool_inputs, low_watermark, keep_thinking}``): over the trigger (the limit by default), the
    oldest tool results' content is replaced with a placeholder naming the tool and its size before
    any turn is dropped; ``.cleared`` lists them and ``.as_previous`` carries them to the next call,
    which clears them again byte for byte (left out, the last call on this history is used, as for
    strategy stable). ``clear={"summary": {"tokens": 500, "text": ...}}`` names the dropped span in the
    report and sends the caller's summary in its place (a user message, counted, not in ``.kept``).
    ``context_management``: Anthropic's own edits object, read as the same options (``format="anthropic"``).
    ``conversation``: an id of the caller's (any hashable) under which the last call is remembered, for
    an application serving more than 16 conversations at once (without it, a call whose remembered
    call was let go of warns ``RememberedCallLost``).

    ``format`` (``"chat"``, ``"anthropic"``, ``"responses"``; detected when the items can mean only
    one): ``messages`` are then Anthropic's Messages (``system=`` the system prompt, sent apart;
    Claude counted by ``"estimate"`` unless ``tokenizer`` or ``token_counter`` says otherwise) or
    OpenAI Responses input items (``instructions=``, sent apart), SDK objects or their dumps, and
    what is returned is the caller's own items as that format's request takes them.

    The same rule and counts as ``evaluate`` in mode ``messages`` (without the checks). Returns a
    :class:`TrimmedMessages`, a list of copies (changing them leaves ``messages`` as it was) that
    also carries the prompt's count (``.tokens``, ``.remaining``, ``.kept``, ``.dropped``).

    Raises :class:`MessagesError` (an ``InvalidInputError``, a ``ValueError``; every problem in
    ``.problems``) for invalid input, naming the JSON path (``$.messages[2].role``) and the value
    received, and :class:`MessagesDoNotFit` (a ``MessagesError``, with ``.shortfall``) when what
    must be kept alone exceeds the limit.
    """
    keys: dict[str, Any] = {
        "strategy": strategy,
        "low_watermark": low_watermark,
        "previous": previous,
        "caching": caching,
        "clear": clear,
        "context_management": context_management,
    }
    messages, originals = _read_langchain(messages, format)
    given_summary = clear.get("summary") if isinstance(clear, Mapping) else None
    summarized = isinstance(given_summary, Mapping) and given_summary.get("text") is not None
    if (
        strategy == "stable" or (clear is not None and not summarized)
    ) and previous is None:  # the remembered last call on this history, if any: as if given (a summary takes none)
        listed = _listed(messages, "messages")
        # (digested as the parse reads them: an SDK block in a message's content dumped, as _parse_call does)
        plain = set(map(type, listed)) <= {dict} and not _has_objects(listed)
        keys["previous"] = remembered_previous(listed if plain else [_as_dict(message) for message in listed], conversation)
    asked = RememberedCounter(token_counter) if token_counter is not None and callable(token_counter) else token_counter
    parsed = _parse_call(
        messages,
        limit,
        tokenizer,
        tools,
        asked,
        template=template,
        template_options=template_options,
        cache_keys=keys,
        format=format,
        system=system,
        instructions=instructions,
    )
    result = select(parsed, with_trace=False)
    if result["shortfall"]:
        result = select(parsed)  # the trace names what must be kept
        text = shortfall_text(result)
        raise MessagesDoNotFit(
            text,
            _error(text, [Problem(("limit",), LIMIT_TOO_LOW, text)]).problems,
            shortfall=result["shortfall"],
            needed=result["pinned_tokens"] + result["live_tokens"],
            limit=result["limit"],
            live_turn=result["live_turn"],
            pinned=[row["index"] for row in reversed(result["trace"]) if row["pinned"]],
        )
    trimmed = TrimmedMessages(result["messages"])
    trimmed.tokens, trimmed.limit, trimmed.remaining = result["tokens"], result["limit"], result["remaining"]
    trimmed.kept, trimmed.dropped, trimmed.tools_tokens = result["kept"], result["dropped"], result["tools_tokens"]
    trimmed.images_at_most = [(image["index"], image["part"]) for image in result["images"] if image["at_most"]]
    trimmed.given_counts = result.get("given_counts", [])
    trimmed.counter_calls = asked.calls if isinstance(asked, RememberedCounter) else None
    if "as_previous" in result:
        trimmed.strategy, trimmed.cut, trimmed.as_previous = result["strategy"], result["cut"], result["as_previous"]
        trimmed.previous, trimmed.reuse = keys["previous"], result["reuse"]
        if (strategy == "stable" or clear is not None) and result["as_previous"] is not None:
            remember(result["as_previous"], keys["previous"] if previous is None else None, conversation)
    if "cleared" in result:
        trimmed.cleared, trimmed.clearing = result["cleared"], result["clearing"]
        trimmed.summary_span = result.get("summary_span")
    trimmed.format = result.get("format", "chat")
    if originals is not None:  # the caller's own LangChain objects back (copies where clearing changed them)
        span = trimmed.summary_span
        trimmed[:] = langchain_messages.given_back(
            list(trimmed),
            trimmed.kept,
            originals,
            messages,  # type: ignore[arg-type]
            trimmed.cleared or [],
            span["position"] if span and span["sent"] else None,
        )
    return trimmed


# trim_messages' keyword parameters again, spelt out on purpose (docs/design.md, "Twins kept on purpose").
def count_messages(
    messages: Sequence[Mapping[str, object] | Any],
    tokenizer: str | None = None,
    *,
    format: str | None = None,
    system: str | Sequence[Mapping[str, object] | Any] | None = None,
    instructions: str | None = None,
    tools: Sequence[Mapping[str, object] | Any] | None = None,
    token_counter: Callable[[str], int] | None = None,
    template: str | None = None,
    template_options: Mapping[str, object] | None = None,
) -> int:
    """The prompt tokens of sending ``messages`` (and ``tools``) as they are: OpenAI's accounting
    (3 per message, plus each value's count, plus 3 that prime the reply), by ``tokenizer`` (a name
    or a model name) or ``token_counter``; with ``template`` (and its ``template_options``), the prompt
    that chat template renders, counted by the model's tokenizer named by ``tokenizer``. Raises :class:`MessagesError` for invalid input.
    LangChain messages are read as ``trim_messages`` reads them."""
    messages, _ = _read_langchain(messages, format)
    parsed = _parse_call(
        messages,
        MAX_SAFE_INTEGER,
        tokenizer,
        tools,
        token_counter,
        require_user=False,
        template=template,
        template_options=template_options,
        format=format,
        system=system,
        instructions=instructions,
    )
    if parsed.get("template"):
        return rendered_tokens(
            parsed["messages"], parsed["template"], parsed["tokenizer"], parsed["template_tools"], parsed["template_options"]
        )
    return parsed.get("priming", REPLY_PRIMING) + parsed["tools_tokens"] + sum(parsed["costs"])
