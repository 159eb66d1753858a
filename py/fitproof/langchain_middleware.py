"""``TrimMessagesMiddleware``: a LangChain agent middleware that trims the history before each model
call with ``fitproof.trim_messages`` (and clears old tool results first with ``clear=``).

The one module of the package that imports LangChain (``langchain>=1.5``, and langchain-core), when
it is imported: ``import fitproof`` never does. Use::

    from langchain.agents import create_agent
    from fitproof.langchain_middleware import TrimMessagesMiddleware

    agent = create_agent(model, tools, middleware=[TrimMessagesMiddleware(limit=8000, tokenizer="gpt-4o")])

Each model call's request (the system message, the history and the tools' definitions) is counted
as ``trim_messages`` counts it, and the model is sent the kept messages: the system message, the
live turn (the newest user message and everything after it) and the newest whole turns that fit,
a tool call never without its results. The agent's state keeps the whole history; only the request
is trimmed, as LangChain's ``ContextEditingMiddleware`` edits it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as missing:  # pragma: no cover - the optional dependency absent
    raise ImportError("fitproof.langchain_middleware needs LangChain 1.5 or later: pip install 'langchain>=1.5'") from missing

from .modes.messages import TrimmedMessages, trim_messages

__all__ = ["TrimMessagesMiddleware"]


class TrimMessagesMiddleware(AgentMiddleware):
    """Trims each model request to ``limit`` prompt tokens with :func:`fitproof.trim_messages`.

    ``limit``, ``tokenizer``, ``token_counter``, ``strategy`` (``"stable"``: the previous call's cut
    kept while it fits, remembered per thread: the run's ``thread_id``, or the history itself without
    one), ``low_watermark``, ``clear`` (clear the oldest tool results' content before dropping turns),
    ``template`` and ``template_options``: as ``trim_messages`` takes them. ``count_tools`` (True by
    default): count the request's tool definitions (as OpenAI function definitions) with the pinned
    messages.

    ``last`` is the :class:`fitproof.TrimmedMessages` of the latest call (``.kept``, ``.tokens``,
    ``.cleared``...; its messages the request's: the system message first, when there is one).
    When what must be kept alone exceeds ``limit``, the model call raises ``fitproof.MessagesDoNotFit``.
    """

    def __init__(
        self,
        limit: int,
        tokenizer: str | None = None,
        *,
        token_counter: Callable[[str], int] | None = None,
        strategy: str | None = None,
        low_watermark: float | None = None,
        clear: Mapping[str, object] | bool | None = None,
        template: str | None = None,
        template_options: Mapping[str, object] | None = None,
        count_tools: bool = True,
    ) -> None:
        super().__init__()
        self.limit, self.tokenizer, self.token_counter = limit, tokenizer, token_counter
        self.strategy, self.low_watermark, self.clear = strategy, low_watermark, clear
        self.template, self.template_options, self.count_tools = template, template_options, count_tools
        self.last: TrimmedMessages | None = None

    def trimmed(self, request: ModelRequest) -> ModelRequest:
        """The request with its messages trimmed (the agent's state untouched)."""
        system = request.system_message
        history = [system, *request.messages] if system is not None else list(request.messages)
        tools = [convert_to_openai_tool(tool) for tool in request.tools] if self.count_tools and request.tools else None
        kept = trim_messages(
            history,
            self.limit,
            self.tokenizer,
            tools=tools,
            token_counter=self.token_counter,
            strategy=self.strategy,
            low_watermark=self.low_watermark,
            clear=self.clear,
            template=self.template,
            template_options=self.template_options,
            conversation=self._conversation(request),
        )
        self.last = kept
        messages: list[Any] = list(kept)
        if system is not None and messages and messages[0] is system:
            messages = messages[1:]
        return request.override(messages=messages)

    def _conversation(self, request: ModelRequest) -> object:
        """What the last call is remembered under: this middleware and the run's thread, if any."""
        if self.strategy != "stable" and self.clear is None:
            return None
        info = getattr(getattr(request, "runtime", None), "execution_info", None)
        thread = getattr(info, "thread_id", None)
        if thread is None:
            try:
                from langgraph.config import get_config

                thread = (get_config().get("configurable") or {}).get("thread_id")
            except (ImportError, RuntimeError):
                thread = None
        return None if thread is None else ("fitproof.langchain_middleware", id(self), thread)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        if not request.messages:
            return handler(request)
        return handler(self.trimmed(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        if not request.messages:
            return await handler(request)
        return await handler(self.trimmed(request))
