"""The mode's checks for the Anthropic and Responses formats: the chat format's own checks
(``chat_checks.py``: no holes, the replayed walk, the user start, the live turn, the pinned items), run on
a ``History`` re-read here from the raw input (its units, its recounts), and the two that read the
format itself: the kept items re-counted and sent as given, and the tool uses paired with their
results. Nothing here calls the readers or the rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...._shared import checks as _checks
from ....tokenizers import resolve
from .. import chat_checks as chat
from .. import clearing_checks, stable_checks
from ..images import data_url_size

_NOT_SENT = ("pinned", "tokens")  # the package's own keys: pinned, and a count the caller gave ("tokens")
# The Responses item types the mode reads; another (a built-in tool's call, a reference) is here
# only with the caller's count, "tokens", which is its cost beside the framing of an assistant item.
_READ = ("message", "function_call", "custom_tool_call", "function_call_output", "custom_tool_call_output", "reasoning")
_KEEP = {"anthropic": ("input", "input_schema"), "responses": ("arguments",)}


def _anthropic_image(block: dict) -> int:
    """width x height / 750 (rounded up) after the long edge is cut to 1568; 1,600 at most, and for an unknown size."""
    source = block["source"]
    size = data_url_size(f"data:{source.get('media_type')};base64,{source['data'][: 1 << 20]}") if source.get("type") == "base64" else None
    if not size:
        return 1600
    num, den = size[0] * size[1], 1
    if max(size) > 1568:
        num, den = num * 1568 * 1568, max(size) ** 2
    if num > 1_200_000 * den:
        return 1600
    return -(-num // (750 * den))


def _anthropic_texts(blocks: object, out: list[str], images: list[int]) -> None:
    """The blocks' texts; the tokens counted apart (images, and a block's count given as "tokens")."""
    if isinstance(blocks, str):
        out.append(blocks)
        return
    for block in blocks or ():  # type: ignore[attr-defined]  # a list of blocks: read and checked by the reader before any check runs
        kind = block["type"]
        if kind == "text":
            out.append(block["text"])
        elif kind == "thinking":
            out.append(block["thinking"])
        elif kind == "redacted_thinking":
            out.append(block["data"])
        elif kind == "image":
            images.append(_anthropic_image(block))
        elif kind == "tool_use":
            out.append(chat.compact({"id": block["id"], "name": block["name"], "input": block["input"]}))
        elif kind == "tool_result":
            out.append(block["tool_use_id"])
            _anthropic_texts(block.get("content"), out, images)
        elif kind == "document":
            out.extend(block[key] for key in ("title", "context") if isinstance(block.get(key), str))
            source = block["source"]
            if source["type"] == "text":
                out.append(source["data"])
            else:
                _anthropic_texts(source["content"], out, images)
        else:  # a block the mode does not count, with its count given
            images.append(block["tokens"])


def _responses_image(part: dict) -> int:
    return chat.image_tokens(
        {"image_url": {"url": part.get("image_url") or "", "detail": part.get("detail") or "auto"}, "size": part.get("size")}
    )


def _responses_parts(parts: str | list, out: list[str], images: list[int]) -> None:
    """A message's content or a call's output: a string, or parts of text (a refusal's too) and images."""
    for part in [parts] if isinstance(parts, str) else parts:
        if isinstance(part, str):
            out.append(part)
        elif part["type"] == "input_image":
            images.append(_responses_image(part))
        else:
            out.append(part["refusal"] if part["type"] == "refusal" else part["text"])


def _responses_texts(item: dict, out: list[str], images: list[int]) -> str:
    """The item's texts and images; its role word."""
    kind = item.get("type", "message")
    if kind == "message":
        _responses_parts(item["content"], out, images)
        return item["role"]
    if kind in ("function_call", "custom_tool_call"):
        body = "arguments" if kind == "function_call" else "input"
        out.append(chat.compact({"call_id": item["call_id"], "name": item["name"], body: item[body]}))
        return "assistant"
    if kind in ("function_call_output", "custom_tool_call_output"):
        out.append(item["call_id"])
        _responses_parts(item["output"], out, images)
        return "tool"
    if kind != "reasoning":  # an item the mode does not read, with its count given
        images.append(item["tokens"])
        return "assistant"
    out.extend(part["text"] for key in ("summary", "content") for part in item.get(key) or ())
    return "assistant"


class History(chat.History):
    """The raw Anthropic or Responses input as the checks read it."""

    def __init__(self, data: dict, result: Mapping[str, Any], fmt: str) -> None:  # noqa: C901 (one reading, in order)
        self.fmt = fmt
        self.data = data
        key = "input" if fmt == "responses" and "input" in data else "messages"
        self.messages = messages = data[key]
        self.limit = _checks.raw_number(data["limit"])
        self.tokenizer = str(resolve(data.get("tokenizer", "estimate" if fmt == "anthropic" else "o200k_base")))
        self.result = result
        self.total = total = len(messages)
        self._counted: dict[str, int] = {}
        self._costs: dict[int, int] = {}
        self.kept = result["kept"]
        self.kept_set = set(self.kept)
        self.template = None
        roles: list[str] = []
        words: list[str] = []
        own_turn: list[bool] = []
        unit = list(range(total))
        self.calls: list[list[str]] = []
        self.answers: list[list[str]] = []
        self.texts: list[tuple[list[str], list[int]]] = []
        self.given = given = [False] * total  # a Responses item the mode does not read (its count given)
        for index, item in enumerate(messages):
            texts: list[str] = []
            images: list[int] = []
            calls, answers = [], []
            if fmt == "anthropic":
                content = item["content"]
                blocks = content if isinstance(content, list) else []
                answers = [block["tool_use_id"] for block in blocks if block["type"] == "tool_result"]
                calls = [block["id"] for block in blocks if block["type"] == "tool_use"]
                role = "tool" if answers else item["role"]
                own_turn.append(item["role"] == "user" and (not answers or any(block["type"] != "tool_result" for block in blocks)))
                _anthropic_texts(content, texts, images)
                words.append("user" if answers else item["role"])
                if answers and index and unit[index - 1] == index - 1 and self.calls[index - 1]:
                    unit[index] = unit[index - 1]
            else:
                kind = item.get("type", "message")
                given[index] = kind not in _READ
                word = _responses_texts(item, texts, images)
                words.append(word)
                role = word
                own_turn.append(kind == "message" and item["role"] == "user")
                if kind in ("function_call", "custom_tool_call"):
                    calls = [item["call_id"]]
                if kind in ("function_call_output", "custom_tool_call_output"):
                    answers = [item["call_id"]]
                previous = messages[index - 1] if index else None
                previous_kind = previous.get("type", "message") if previous else None
                previous_assistant = previous_kind in ("function_call", "custom_tool_call", "reasoning") or (
                    previous is not None and (given[index - 1] or (previous_kind == "message" and previous["role"] == "assistant"))
                )
                if given[index] and index:  # with the item before it, whatever it is
                    unit[index] = unit[index - 1]
                elif answers and index and (roles[index - 1] == "tool" or self.calls[index - 1] or given[index - 1]):
                    unit[index] = unit[index - 1]
                elif calls and previous_assistant:
                    unit[index] = unit[index - 1]
                elif (kind == "reasoning" or (kind == "message" and item["role"] == "assistant")) and previous_kind == "reasoning":
                    unit[index] = unit[index - 1]
            roles.append(role)
            self.calls.append(calls)
            self.answers.append(answers)
            self.texts.append((texts, images))
        self.roles, self.unit, self.words = roles, unit, words
        pinned_unit = {
            unit[index] for index, item in enumerate(messages) if roles[index] in chat.ALWAYS_PINNED or item.get("pinned") is True
        }
        self.pinned = [unit[index] in pinned_unit for index in range(total)]
        users = [index for index in range(total) if own_turn[index]]
        self.live_start = unit[users[-1]] if users else total
        self.live = [index >= self.live_start and not self.pinned[index] for index in range(total)]
        system = data.get("system") if fmt == "anthropic" else data.get("instructions")
        system_texts: list[str] = []
        _anthropic_texts(system, system_texts, []) if fmt == "anthropic" else system_texts.extend([system] if system else [])
        self.system_tokens = (
            3 + self.count("system" if fmt == "anthropic" else "developer") + sum(map(self.count, system_texts)) if system_texts else 0
        )
        self.tools_tokens = self._tools(data.get("tools") or [])
        self.priming = chat.REPLY_PRIMING + self.system_tokens
        self.original = self.previous_messages = messages
        self.derived = None
        if clearing_checks.given(data):  # the cleared results replayed: the items as sent
            self.derived = clearing_checks.Derived(self)
            for index, copy in self.derived.copies.items():
                texts, images = [], []
                self._texts_of(copy, texts, images)
                self.texts[index] = (texts, images)
            self.messages = [self.derived.copies.get(index, item) for index, item in enumerate(messages)]
            self.previous_messages = [self.derived.previous_copies.get(index, item) for index, item in enumerate(messages)]
            self._costs = {}
            clearing_checks.summary_of(self)
        self.pinned_need = self.priming + self.tools_tokens + sum(self.cost(index) for index in range(total) if self.pinned[index])
        self.live_need = sum(self.cost(index) for index in range(total) if self.live[index])
        # Strategy stable: the limit the walk cuts down to and the cut kept from the previous call, re-derived (as in the chat format).
        self.walk_limit, self.floor, _ = stable_checks.walk_of(self)

    def sent_again(self, item: dict) -> dict:
        """An item as the request sends it, written again from the input (the prefix compares these)."""
        return _sent_again(item, _KEEP[self.fmt], True)  # type: ignore[return-value]  # a dict in, a dict out

    def previous_cost(self, index: int) -> int:
        """The item's cost in the previous call's prompt (another only when clearing cleared it since)."""
        if self.previous_messages[index] is self.messages[index]:
            return self.cost(index)
        return self.recount_of(self.previous_messages[index])

    def _tools(self, tools: list) -> int:
        if not tools:
            return 0
        if self.fmt == "anthropic":
            total = 346
            for tool in tools:
                if tool.get("type") in (None, "custom"):
                    total += self.count(
                        chat.compact({key: tool[key] for key in ("name", "description", "input_schema") if tool.get(key) is not None})
                    )
                else:
                    total += self.count(
                        chat.compact({key: value for key, value in tool.items() if key != "cache_control" and value is not None})
                    )
            return total
        functions = [
            {"type": "function", "function": {key: tool[key] for key in ("name", "description", "parameters") if tool.get(key) is not None}}
            for tool in tools
            if tool.get("type") == "function"
        ]
        others = sum(
            self.count(chat.compact({key: value for key, value in tool.items() if value is not None}))
            for tool in tools
            if tool.get("type") != "function"
        )
        return chat.tools_recount(functions, self.tokenizer, self.count) + others

    def _texts_of(self, item: dict, texts: list[str], images: list[int]) -> str:
        """An item's texts and images (appended); its role word."""
        if self.fmt == "anthropic":
            _anthropic_texts(item["content"], texts, images)
            content = item["content"]
            return "user" if isinstance(content, list) and any(block["type"] == "tool_result" for block in content) else item["role"]
        return _responses_texts(item, texts, images)

    def recount_of(self, item: dict) -> int:
        texts: list[str] = []
        images: list[int] = []
        word = self._texts_of(item, texts, images)
        return 3 + self.count(word) + sum(map(self.count, texts)) + sum(images)

    def cost(self, index: int) -> int:  # (count: the chat History's)
        if index not in self._costs:
            texts, images = self.texts[index]
            self._costs[index] = 3 + self.count(self.words[index]) + sum(map(self.count, texts)) + sum(images)
        return self._costs[index]


def _sent_again(value: object, keep: tuple[str, ...], top: bool = False) -> object:
    if isinstance(value, dict):
        copied = {
            key: (item if key in keep else _sent_again(item, keep))
            for key, item in value.items()
            if item is not None and not (top and key in _NOT_SENT)
        }
        content = copied.get("content")
        if top and isinstance(content, list):  # an Anthropic block's given count is not sent either
            copied["content"] = [
                {k: v for k, v in block.items() if k != "tokens"} if isinstance(block, dict) else block for block in content
            ]
        if "async_" in copied:
            copied["async"] = copied.pop("async_")
        if copied.get("type") == "input_image":
            copied.pop("size", None)
        return copied
    if isinstance(value, list):
        return [_sent_again(item, keep) for item in value]
    return value


def recounted(history: History) -> str | None:
    result, kept, limit = history.result, history.kept, history.limit
    split = chat.split_problem(history)
    if split:
        return split
    keep = _KEEP[history.fmt]
    if result["messages"] != [_sent_again(history.messages[index], keep, True) for index in kept]:
        return "the messages to send differ from the kept input messages"
    if result["tools_tokens"] != history.tools_tokens:
        return f"the tool definitions re-count to {history.tools_tokens} tokens, the report says {result['tools_tokens']}"
    if result.get("system_tokens") != history.system_tokens:
        return f"the {'system prompt' if history.fmt == 'anthropic' else 'instructions'} re-count to {history.system_tokens} tokens, the report says {result.get('system_tokens')}"
    tokens = history.priming + history.tools_tokens + sum(map(history.cost, kept)) if kept else 0
    return chat.totals_problem(result, tokens, limit)


def tools_paired(history: History) -> str | None:
    """Walking the kept items: every result answers a call of the kept unit right before it, and
    every kept call has its kept result before another unit starts."""
    waiting: dict[bytes, int] = {}
    kept = history.kept
    for position, index in enumerate(kept):
        if history.given[index]:  # neither a call nor a result: in the unit of the item before it
            continue
        answers = history.answers[index]
        if answers:
            for answered in answers:
                key = _checks.code_units(answered)
                if not waiting.get(key):
                    return f"the kept tool result at {index} answers {answered!r}, a call not kept right before it"
                waiting[key] -= 1
                if not waiting[key]:
                    del waiting[key]
            if history.fmt == "anthropic" and waiting:
                break
            continue
        joins = position > 0 and history.unit[index] == history.unit[kept[position - 1]] and not history.answers[kept[position - 1]]
        if waiting and not joins:
            break
        if not joins:
            waiting = {}
        for call in history.calls[index]:
            key = _checks.code_units(call)
            waiting[key] = waiting.get(key, 0) + 1
    if waiting:
        return f"the kept call {next(iter(waiting)).decode('utf-16-be', 'surrogatepass')!r} has no kept tool result after it"
    return None


CHECKS = (
    ("kept messages re-counted", recounted),
    ("no holes", chat.no_holes),
    ("tool calls paired", tools_paired),
    ("history starts with user", chat.user_start),
    ("live turn kept", chat.live_turn_kept),
    ("pinned messages kept", chat.pinned_kept),
)


def verify(data: dict, result: Mapping[str, Any], fmt: str) -> list[_checks.Check]:
    history = History(data, result, fmt)
    checks = CHECKS + (stable_checks.CHECKS if stable_checks.given(data) else ())
    checks += clearing_checks.CHECKS if clearing_checks.given(data) else ()
    return [_checks.verdict_of(name, check, history) for name, check in checks]


__all__ = ["verify"]
