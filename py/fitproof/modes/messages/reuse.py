"""What a call reuses of the previous call's prompt: the previous call given back as input
(``previous``), the prefix both prompts share, what a provider bills as cached, written and plain
input under its caching rule (``caching``), and, with prices given, what the call costs.

The previous call is input, never hidden state: a report carries ``as_previous`` (the history's
length and digest, the cut, the digest of what leads the prompt), and the next call gives it back
as ``previous``. Its prompt is then known exactly: a valid history's kept messages are its pinned
units and every message from the cut on, so the previous prompt is the current history's first
``messages`` messages read that way.

The shared prefix is counted in the prompt's own tokens. With OpenAI's accounting (no template) a
prompt is the tool definitions, then each message, then the reply priming, each message a run of
tokens of its own (delimited by special tokens), so the prefix is the tools and the leading kept
messages both prompts have in common, counted whole (a message that changed shares none of its
tokens). With a chat template both prompts are rendered and tokenized, and the prefix is the
longest run of identical tokens: exact, whatever the template writes.

The caching rules (prices never shipped: they change, and are input):

- ``openai``: automatic, from 1,024 tokens, in steps of 128: the cached tokens are the shared
  prefix rounded down to a multiple of 128, or 0 below 1,024. Nothing is billed for writing.
- ``anthropic``: up to a ``cache_control`` breakpoint, here at the end of the last message (before
  the reply priming or the template's generation prompt). A call reads the previous call's cached
  prefix when its prompt starts with all of it (up to the previous breakpoint) and that prefix
  reached the model's minimum (``min_tokens``, input: 1,024, 2,048 or 4,096 by model); it writes
  the rest up to its own breakpoint when that reaches the minimum. Only the previous call's cache
  entry is looked at (its lifetime is taken as not expired).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction

from ..._base.values import INVALID_VALUE, MISSING_KEY, WRONG_TYPE, Key, Problem, got, json_text, preview, unknown_keys
from ...tokenizers import named_tokenizer
from ... import templates
from .accounting import REPLY_PRIMING
from .memory import Bounded, frozen
from .prompt_template import plain
from .history import Parsed

PROVIDERS = ("openai", "anthropic")
OPENAI_MINIMUM, OPENAI_STEP = 1024, 128
PREVIOUS_KEYS = ("messages", "cut", "history", "head")
PREVIOUS_OPTIONAL = ("cleared",)  # clearing's (clearing.py): the previous call's cleared items, read there
CACHING_KEYS = {"openai": ("provider", "prices"), "anthropic": ("provider", "min_tokens", "prices")}
PRICE_KEYS = {"openai": ("input", "cached_input"), "anthropic": ("input", "cached_input", "cache_write")}
PER_MILLION = 1_000_000
HEAD_KEYS = ("system", "instructions")  # what leads the prompt in the anthropic and responses formats (no chat key)
_DIGEST_PREFIX = "sha256:"


# ---------------------------------------------------------------- digests


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8", "surrogatepass")


_KEEP_NULLS = frozenset(("input",))  # an Anthropic tool use's input is sent exactly as given, nulls too


def without_null_fields(value: object, keep: bool = False) -> object:
    """A message as it is digested: a null field is the same as the field left out (an SDK's
    ``model_dump()`` writes one for each field not given, ``exclude_none=True`` none), at any depth
    but inside a tool use's ``input``."""
    if keep:
        return value
    if type(value) is dict:
        return {key: without_null_fields(item, key in _KEEP_NULLS) for key, item in value.items() if item is not None}  # type: ignore[union-attr]
    if type(value) is list:
        return [without_null_fields(item) for item in value]  # type: ignore[union-attr]
    return value


def history_digest(messages: list) -> str:
    """The digest of a history's messages, as given (keys in any order, a null field as one left out)."""
    return digests_at(messages, {len(messages)})[len(messages)]


def running_digests(messages: list, sizes: set[int]) -> dict[int, str]:
    """``history_digest(messages[:size])`` for each size (a history that cannot be written as JSON has none)."""
    try:
        return digests_at(messages, sizes)
    except (TypeError, ValueError):
        return {}


class _Digested:
    """A history digested before: its copy (``memory.frozen``: compared exactly, numbers by type),
    the digest of each of its prefixes, and the hash after its last message."""

    __slots__ = ("snapshot", "digests", "state")
    key, chars = None, 0  # (one memory for every history; bounded by its messages)

    def __init__(self, snapshot: list, digests: list[str], state: object) -> None:
        self.snapshot, self.digests, self.state = snapshot, digests, state


MAX_DIGESTED, MAX_DIGESTED_MESSAGES = 16, 200_000
_DIGESTED: Bounded[_Digested] = Bounded(MAX_DIGESTED, MAX_DIGESTED_MESSAGES)


def digests_at(messages: list, sizes: set[int]) -> dict[int, str]:
    """``{size: the digest of messages[:size]}`` for each size, at most ``len(messages)``. A chat sends
    the same history again with turns appended: the digests of a history digested before (its
    messages compared exactly with a copy, as ``memory.py`` compares them) are taken from it, and
    only the appended messages are written as JSON and hashed. The digests never depend on it."""
    import hashlib  # not at the top: hashlib asks for _hashlib, which the page's compiled standard library lacks, and the page would then fetch the whole one (2.5 MB) on every first visit

    known = _DIGESTED.find(messages)
    digests = list(known.digests) if known else [_DIGEST_PREFIX + hashlib.sha256().hexdigest()]
    state = known.state.copy() if known else hashlib.sha256()  # type: ignore[attr-defined]
    for message in messages[len(digests) - 1 :]:
        state.update(_json(without_null_fields(message)))
        state.update(b"\n")  # (JSON text has no raw newline)
        digests.append(_DIGEST_PREFIX + state.copy().hexdigest())
    if len(messages) <= MAX_DIGESTED_MESSAGES and (known is None or len(messages) > len(known.snapshot)):
        appended = frozen(messages[len(known.snapshot) if known else 0 :])[0]
        _DIGESTED.keep(_Digested((known.snapshot if known else []) + appended, digests, state), known)
    return {size: digests[size] for size in sizes if 0 <= size <= len(messages)}


def head_digest(data: dict) -> str:
    """The digest of what leads every prompt and is no message: the tokenizer, the tools, the template and its options."""
    import hashlib  # (see digests_at)

    head = [data.get("tokenizer"), data.get("tools"), data.get("template"), data.get("template_options")]
    for key in HEAD_KEYS:  # Anthropic's system prompt, the Responses instructions: they lead the prompt too
        if data.get(key) is not None:
            head.append([key, data[key]])
    return _DIGEST_PREFIX + hashlib.sha256(_json(head)).hexdigest()


# ---------------------------------------------------------------- reading


def _count(value: object, at: tuple[Key, ...], problems: list[Problem], low: int = 0) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) and not (isinstance(value, float) and value.is_integer()):
        problems.append(Problem(at, WRONG_TYPE, f"expected an integer from {low}, got {preview(value)}"))
        return None
    if not low <= value <= 2**53 - 1:
        problems.append(Problem(at, INVALID_VALUE, f"expected an integer from {low}, got {preview(value)}"))
        return None
    return int(value)


def read_previous(value: object, problems: list[Problem]) -> dict | None:
    """``previous`` as given (a report's ``as_previous``), or None after recording its problems."""
    at: tuple[Key, ...] = ("previous",)
    if not isinstance(value, dict):
        problems.append(
            Problem(
                at, WRONG_TYPE, f"expected the previous call's as_previous, an object {{messages, cut, history, head}}, got {got(value)}"
            )
        )
        return None
    before = len(problems)
    problems.extend(unknown_keys(value, at, PREVIOUS_KEYS + PREVIOUS_OPTIONAL))
    for key in PREVIOUS_KEYS:
        if key not in value:
            problems.append(
                Problem((*at, key), MISSING_KEY, f"missing key {json_text(key)} (give the previous report's as_previous as it is)", key)
            )
    size = _count(value["messages"], (*at, "messages"), problems, 1) if "messages" in value else None
    cut = _count(value["cut"], (*at, "cut"), problems) if "cut" in value else None
    # A call keeps at least its live turn, so its cut (the first message after the dropped ones) is one of its messages.
    if size is not None and cut is not None and cut >= size:
        problems.append(
            Problem(
                (*at, "cut"),
                INVALID_VALUE,
                f"the cut is a message index of the previous history (at most {size - 1}), got {preview(value['cut'])}",
            )
        )
    for key in ("history", "head"):
        text = value.get(key)
        if key in value and not (
            isinstance(text, str)
            and text.startswith(_DIGEST_PREFIX)
            and len(text) == len(_DIGEST_PREFIX) + 64
            and all(char in "0123456789abcdef" for char in text[len(_DIGEST_PREFIX) :])
        ):
            problems.append(
                Problem(
                    (*at, key),
                    INVALID_VALUE,
                    f'expected a digest "sha256:" and 64 hex digits, as the previous report gave it, got {preview(text)}',
                )
            )
    if len(problems) > before:
        return None
    return {"messages": size, "cut": cut, "history": value["history"], "head": value["head"], "cleared": value.get("cleared")}


def check_previous(previous: dict, messages: list, problems: list[Problem]) -> None:
    """A ``previous`` from another history (or an edited one) is an input error, at the key that shows it."""
    size = previous["messages"]
    if size > len(messages):
        problems.append(
            Problem(
                ("previous", "messages"),
                INVALID_VALUE,
                f"previous was made from a history of {size} messages and this one has {len(messages)}: "
                f"it comes from another history (give the previous report's as_previous of this conversation), got {size}",
            )
        )
        return
    digest = digests_at(messages, {size})[size]
    if digest != previous["history"]:
        problems.append(
            Problem(
                ("previous", "history"),
                INVALID_VALUE,
                f"the first {size} messages are not the ones previous was made from (they digest to {digest}): "
                f"it comes from another history, or one changed since; got {json_text(previous['history'])}",
            )
        )


# The largest price per million tokens read: a prompt of 2^53 tokens (the largest count) then costs
# under 1e25, far inside a double, where 1.7e308 overflowed the cost of a 1.16 M-token prompt.
MAX_PRICE = 10**12


def _price(value: object, at: tuple[Key, ...], problems: list[Problem]) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(Problem(at, WRONG_TYPE, f"expected a price per million tokens (a number from 0), got {preview(value)}"))
        return None
    if value != value or value in (float("inf"), float("-inf")):
        problems.append(Problem(at, INVALID_VALUE, f"expected a finite price per million tokens, got {preview(value)}"))
        return None
    if value < 0:
        problems.append(Problem(at, INVALID_VALUE, f"a price cannot be negative, got {preview(value)}"))
        return None
    if value > MAX_PRICE:
        problems.append(
            Problem(
                at,
                INVALID_VALUE,
                f"expected a price per million tokens of at most {MAX_PRICE:.0e} (so that any prompt's "
                f"cost is a number JSON can hold), got {preview(value)}",
            )
        )
        return None
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def read_caching(value: object, problems: list[Problem]) -> dict | None:
    """``caching``: ``{provider, min_tokens? (anthropic), prices?}``, or None after recording its problems."""
    at: tuple[Key, ...] = ("caching",)
    if not isinstance(value, dict):
        problems.append(Problem(at, WRONG_TYPE, f"expected an object {{provider, min_tokens?, prices?}}, got {got(value)}"))
        return None
    before = len(problems)
    provider = value.get("provider")
    if "provider" not in value:
        problems.append(Problem((*at, "provider"), MISSING_KEY, f'missing key "provider" ({" or ".join(PROVIDERS)})', "provider"))
        return None
    if provider not in PROVIDERS:
        problems.append(Problem((*at, "provider"), INVALID_VALUE, f"expected one of {', '.join(PROVIDERS)}, got {preview(provider)}"))
        return None
    problems.extend(unknown_keys(value, at, CACHING_KEYS[provider]))
    minimum = OPENAI_MINIMUM
    if provider == "anthropic":
        if "min_tokens" not in value:
            problems.append(
                Problem(
                    (*at, "min_tokens"),
                    MISSING_KEY,
                    'missing key "min_tokens": the model\'s minimum cacheable prompt (Anthropic documents 1,024 to 4,096 tokens by model)',
                    "min_tokens",
                )
            )
        else:
            minimum = _count(value["min_tokens"], (*at, "min_tokens"), problems, 1) or 0
    prices = None
    if value.get("prices") is not None:
        given = value["prices"]
        prices_at = (*at, "prices")
        if not isinstance(given, dict):
            problems.append(
                Problem(
                    prices_at,
                    WRONG_TYPE,
                    f"expected an object of prices per million tokens {{{', '.join(PRICE_KEYS[provider])}}}, got {got(given)}",
                )
            )
        else:
            problems.extend(unknown_keys(given, prices_at, PRICE_KEYS[provider]))
            prices = {}
            for key in PRICE_KEYS[provider]:
                if key not in given:
                    problems.append(
                        Problem((*prices_at, key), MISSING_KEY, f"missing key {json_text(key)} (a price per million tokens)", key)
                    )
                else:
                    prices[key] = _price(given[key], (*prices_at, key), problems)
    if len(problems) > before:
        return None
    return {"provider": provider, "min_tokens": minimum, "prices": prices, "given_prices": value.get("prices")}


# ---------------------------------------------------------------- the previous prompt and the shared prefix


def previous_kept(previous: dict, unit_of: list[int], pinned: list[bool]) -> list[int]:
    """The previous call's kept messages: its pinned units and every message from its cut on."""
    pinned_units = {unit_of[index] for index, flag in enumerate(pinned) if flag}
    size, cut = previous["messages"], previous["cut"]
    return [index for index in range(size) if index >= cut or unit_of[index] in pinned_units]


def common_prefix(first: Sequence[object], second: Sequence[object]) -> int:
    """How many leading entries the two sequences have in common: kept message indices of the same
    history, or the prompt's rendered pieces."""
    shared = 0
    for one, other in zip(first, second):
        if one != other:
            break
        shared += 1
    return shared


def rendered(parsed: Parsed, kept: list[int], generation_prompt: bool = True) -> str:
    messages = parsed["messages"]
    return templates.render(
        plain([messages[index] for index in kept], parsed["template"]),
        parsed["template"],
        add_generation_prompt=generation_prompt,
        tools=parsed["template_tools"] or None,
        **parsed["template_options"],
    )


def prompt_measure(parsed: Parsed, kept: list[int], costs: list[int] | None = None) -> tuple[int, int, list[bytes] | None]:
    """A prompt's tokens, its tokens up to the end of its last message (the breakpoint), and with a
    template its tokens themselves."""
    if not kept:
        return 0, 0, None
    if parsed.get("template"):
        loaded = named_tokenizer(parsed["tokenizer"])
        assert loaded is not None  # a template's tokenizer is read and loaded by then (template.read_template)
        tokens = loaded.tokens(rendered(parsed, kept))
        return len(tokens), loaded.count(rendered(parsed, kept, generation_prompt=False)), tokens
    costs = parsed["costs"] if costs is None else costs
    body = parsed["tools_tokens"] + parsed.get("system_tokens", 0) + sum(costs[index] for index in kept)
    return body + REPLY_PRIMING, body, None


def reuse(parsed: Parsed, kept: list[int], tokens: int) -> dict:
    """The report's ``reuse``: what this prompt shares with the previous call's, and with
    ``caching`` what is billed as cached, written and plain input, and the costs with prices."""
    options = parsed.get("options")
    assert options is not None  # the reuse is reported only for the keys of stable.py, which parse read into options
    previous, caching = options["previous"], options["caching"]
    breakpoint_now = prompt_measure(parsed, kept)[1] if kept else 0
    result: dict = {"previous_tokens": None, "prefix_messages": 0, "prefix_tokens": 0, "new_tokens": tokens}
    previous_breakpoint = 0
    if previous is not None:
        before = previous_kept(previous, parsed["unit_of"], parsed["pinned"])
        clearing = parsed.get("clearing")  # cleared results (clearing.py): the previous prompt had only its own cleared
        previous_tokens, previous_breakpoint, previous_list = prompt_measure(
            parsed, before, clearing["previous_costs"] if clearing else None
        )
        result["previous_tokens"] = previous_tokens
        same_head = previous["head"] == options["head"]
        if same_head and kept and before:
            shared = common_prefix(before, kept)
            if clearing:  # a message cleared since shares none of its tokens
                now_state, then_state = clearing["state"], clearing["previous_state"]
                shared = next(
                    (position for position in range(shared) if now_state.get(kept[position]) != then_state.get(kept[position])), shared
                )
            if parsed.get("template"):
                prefix = common_prefix(previous_list or [], prompt_measure(parsed, kept)[2] or [])
            else:
                lead = parsed["tools_tokens"] + parsed.get("system_tokens", 0)  # the tools, and a format's system prompt or instructions
                prefix = lead + sum(parsed["costs"][index] for index in kept[:shared]) if shared else 0
            result["prefix_messages"], result["prefix_tokens"] = shared, prefix
            result["new_tokens"] = tokens - prefix
        elif not same_head:
            previous_breakpoint = 0  # another tokenizer, other tools or template: another prompt from its first token
    if caching is not None:
        result.update(billed(caching, tokens, result["prefix_tokens"], breakpoint_now, previous_breakpoint))
    return result


def billed(caching: dict, tokens: int, prefix: int, breakpoint_now: int, previous_breakpoint: int) -> dict:
    """The tokens billed as cached, written and plain input, and the costs (with prices)."""
    provider, minimum = caching["provider"], caching["min_tokens"]
    if provider == "openai":
        cached = prefix // OPENAI_STEP * OPENAI_STEP if prefix >= OPENAI_MINIMUM else 0
        written = 0
        row: dict = {"provider": provider, "min_tokens": OPENAI_MINIMUM}
    else:
        cached = previous_breakpoint if previous_breakpoint >= minimum and prefix >= previous_breakpoint else 0
        written = breakpoint_now - cached if breakpoint_now >= minimum else 0
        row = {"provider": provider, "min_tokens": minimum, "breakpoint": breakpoint_now}
    row.update({"cached_tokens": cached, "written_tokens": written, "input_tokens": tokens - cached - written})
    prices = caching["prices"]
    if prices is not None:
        cost = prices["input"] * row["input_tokens"] + prices["cached_input"] * cached + prices.get("cache_write", Fraction(0)) * written
        row["cost"] = float(cost / PER_MILLION)
        row["cost_without_caching"] = float(prices["input"] * tokens / PER_MILLION)
    return row
