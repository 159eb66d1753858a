"""Clearing old tool results before dropping turns: what each strategy's prompts cost under a prompt
cache, against the cheapest plan that exists (the frontier), on three recorded conversations.

    .venv/bin/python bench/clearing.py [--seed N] [--calls N] [--limit N] [--monotone]

The conversations (bench/_shapes.py; OpenAI chat format, ``--calls`` model calls each, 400 by
default): ``chatty`` (short turns, a short tool result in about one turn in eight), ``agent`` (a
1,500-token system prompt, tasks of 2-8 tool rounds of 1-3 calls; tool results are about 70 % of the
tokens) and ``documents`` (one user turn in three pastes a document of 600-3,000 words). Every
message is counted once by this package's accounting for gpt-4o (o200k_base: 3 a message, its
values, the tool calls' JSON; 3 that prime the reply), and every strategy's prompt is counted from
those counts, so all of them count the same way. Before every call, each strategy builds the prompt
it would send under ``--limit`` (32,000 tokens by default, so that most calls are over it):

- ``LangChain trim_messages``: langchain-core's ``trim_messages(max_tokens=limit - 3,
  strategy="last", include_system=True, start_on="human")``, as bench/cache_cost.py calls it, with
  a counter that returns this package's counts;
- ``LangChain clear + trim``: LangChain 1.5's ``ContextEditingMiddleware`` logic: its
  ``ClearToolUsesEdit(trigger=limit - 3, keep=3)`` (placeholder ``[cleared]``, ``clear_at_least`` 0,
  its defaults otherwise) applied to a copy of the messages, as the middleware does on every call
  (not sticky: it edits the request, never the state), then the same ``trim_messages``. The class is
  langchain 1.5.0's own when ``langchain`` is importable (``pip install langchain==1.5.0``, which is
  not in the test extra); otherwise a transcription of its ``apply`` (the same steps, in this file);
- ``fitproof default``: ``trim_messages(history, limit, "gpt-4o")`` (drop only);
- ``fitproof stable``: ``strategy="stable"``, low watermark 0.7, given its previous call's
  ``as_previous``, as bench/cache_cost.py does;
- ``fitproof stable 0.5``: the same with low watermark 0.5;
- ``fitproof clear``: ``clear={}`` (this package's clearing with its defaults: over the limit, every
  tool result but the newest 3 and the live turn's cleared), then the default walk, given its
  previous call's ``as_previous`` so that cleared results stay cleared, byte for byte;
- ``fitproof clear + stable``: ``strategy="stable"``, low watermark 0.7, with ``clear={"low_watermark":
  0.7, "clear_at_least": 1024}``: clear the oldest results down to the watermark first (from the
  cut kept), cut again to it only if still over the limit;
- ``fitproof clear + stable 0.5``: the same at watermark 0.5 and ``clear_at_least`` 8,192.
  A cleared result reads ``[cleared: read_file result, 1,234 tokens]`` (the package's placeholder).

On every call of the package's strategies the bench asserts the limit, the whole live turn and
every tool result sent after its call.

``STRATEGIES`` is the table: adding one is one line (a name, a factory, its placeholder).

Each prompt is billed under both caching rules exactly as bench/cache_cost.py's ``billed`` bills it
(its function; the prefix is the longest common prefix of whole messages, in tokens, with the same
strategy's previous prompt; a cleared result is a different message from the uncleared one).
Prices are this benchmark's assumption (bench/cache_cost.py's ``PRICES``): per million input
tokens, OpenAI gpt-4.1 $2.00, cached $0.50; Anthropic Claude Sonnet 4 $3.00, cache read $0.30,
cache write (5 minutes) $3.75, as published in 2025. Output tokens are the same for every strategy
and left out. Costs, not times: the figures are the same every run.

The frontier (bench/_frontier.py) is the least cost of any plan in the plan space at a given
average context: per call a cut at a user turn (the prompt keeps the system message, the live turn
and every tool pairing) and a clearing of the oldest ``k`` tool results of the history (sticky;
only results an earlier call sent), under the limit on every call, found by an exact dynamic program
over every call's choices with a Lagrangian weight on context. ``x frontier`` is a strategy's cost
over that lower bound at the strategy's own average context; 1.00x would be a cheapest plan. Each
strategy is compared to the frontier of its own placeholder (drop-only ones to the package's; the
plans they send are in both spaces). ``in plan space`` says whether every one of a strategy's
prompts is such a plan (then the bench also re-bills them with the dynamic program's own arithmetic
and checks the totals agree). ``--monotone`` also solves with cuts that never move back and prints
how much higher that bound is (at most 0.3 % here; the program itself has no such restriction).
The lines under each table give the frontier itself: its cheapest plan, its fullest (the most
context any plan keeps: clearing lets an older turn fit, so it keeps a little more than LangChain's
trim), and the least cost at 95 % ... 70 % of that context as a ratio to LangChain's cost. What is
assumed: context is measured in prompt tokens only (a cleared
result and a dropped turn count the same per token); the frontier knows the whole conversation in
advance (a strategy does not).
"""

from __future__ import annotations

import argparse
import bisect
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "py"), str(HERE)]

import _frontier  # noqa: E402
import _shapes  # noqa: E402
from cache_cost import PRICES, billed  # noqa: E402
from fitproof import count_messages, count_tokens, trim_messages  # noqa: E402

PRIMING = 3
LANGCHAIN_PLACEHOLDER = "[cleared]"  # langchain.agents.middleware.context_editing.DEFAULT_TOOL_PLACEHOLDER
PROVIDERS = ("openai", "anthropic")
FULLEST = 10_000_000.0  # a weight on context (units a token) beyond any call's cost: the plan that keeps the most
LEVELS = (0.95, 0.9, 0.8, 0.7)  # shares of the fullest context where the frontier is printed


_CONTENT_TOKENS: dict[tuple[int, int], int] = {}


def named_placeholder(recorded: _shapes.Recorded, index: int) -> str:
    """The package's placeholder (``clear``): the tool and the result's own tokens, written as it writes it."""
    key = (id(recorded), index)
    if key not in _CONTENT_TOKENS:
        _CONTENT_TOKENS[key] = count_tokens(recorded.history[index]["content"], "o200k_base")
    return f"[cleared: {recorded.tool_names[index]} result, {_CONTENT_TOKENS[key]:,} tokens]"


def langchain_placeholder(recorded: _shapes.Recorded, index: int) -> str:
    return LANGCHAIN_PLACEHOLDER


# ---------------------------------------------------------------------------------------------
# Strategies: each factory takes (recorded, limit) and returns step(call) -> the prompt sent (dicts).


def langchain_trim(recorded, limit):
    from langchain_core.messages import trim_messages as their_trim

    lc = _LangChain(recorded)

    def step(call):
        messages = lc.messages[: recorded.calls[call]]
        kept = their_trim(
            messages, max_tokens=limit - PRIMING, token_counter=lc.counter, strategy="last", include_system=True, start_on="human"
        )
        return lc.as_dicts(kept)

    return step


def langchain_clear_then_trim(recorded, limit):
    from langchain_core.messages import trim_messages as their_trim

    lc = _LangChain(recorded)
    edit = clear_tool_uses_edit(trigger=limit - PRIMING, keep=3)

    def step(call):
        messages = list(lc.messages[: recorded.calls[call]])  # the middleware edits a copy of the request's messages
        edit.apply(messages, count_tokens=lc.counter)
        kept = their_trim(
            messages, max_tokens=limit - PRIMING, token_counter=lc.counter, strategy="last", include_system=True, start_on="human"
        )
        return lc.as_dicts(kept)

    return step


def fitproof_default(recorded, limit):
    def step(call):
        return list(trim_messages(recorded.history[: recorded.calls[call]], limit, "gpt-4o"))

    return step


def fitproof_stable(recorded, limit, low_watermark=0.7):
    # one conversation of its own: the same recorded chat is replayed by many runs, and a run's first
    # call must not find another run's remembered calls (nor warn that they were let go of)
    state = {"previous": None, "conversation": object()}

    def step(call):
        result = trim_messages(
            recorded.history[: recorded.calls[call]],
            limit,
            "gpt-4o",
            strategy="stable",
            low_watermark=low_watermark,
            previous=state["previous"],
            conversation=state["conversation"],
        )
        state["previous"] = result.as_previous
        return list(result)

    return step


def fitproof_clear(recorded, limit, strategy=None, clear=None, low_watermark=None):
    """This package's clearing (``clear``), given its previous call's ``as_previous`` (sticky)."""
    state = {"previous": None, "conversation": object()}  # a conversation of its own, as fitproof_stable's
    keys = {"strategy": strategy, "low_watermark": low_watermark} if strategy else {}

    def step(call):
        result = trim_messages(
            recorded.history[: recorded.calls[call]],
            limit,
            "gpt-4o",
            clear=clear or {},
            previous=state["previous"],
            conversation=state["conversation"],
            **keys,
        )
        state["previous"] = result.as_previous
        return list(result)

    return step


def fitproof_clear_stable(recorded, limit, low_watermark=0.7, clear_at_least=1024):
    """Strategy stable with clearing: clear the oldest results down to the watermark, at least
    ``clear_at_least`` tokens a clearing, then cut down to the same watermark only if still over the limit."""
    return fitproof_clear(recorded, limit, "stable", {"low_watermark": low_watermark, "clear_at_least": clear_at_least}, low_watermark)


def fitproof_stable_half(recorded, limit):
    return fitproof_stable(recorded, limit, 0.5)


def fitproof_clear_stable_half(recorded, limit):
    return fitproof_clear_stable(recorded, limit, 0.5, 8192)


# name -> (factory(recorded, limit) -> step(call) -> prompt, the placeholder its cleared results read)
STRATEGIES = {
    "LangChain trim_messages": (langchain_trim, None),
    "LangChain clear + trim": (langchain_clear_then_trim, langchain_placeholder),
    "fitproof default": (fitproof_default, None),
    "fitproof stable": (fitproof_stable, None),
    "fitproof stable 0.5": (fitproof_stable_half, None),
    "fitproof clear": (fitproof_clear, named_placeholder),
    "fitproof clear + stable": (fitproof_clear_stable, named_placeholder),
    "fitproof clear + stable 0.5": (fitproof_clear_stable_half, named_placeholder),
}


# ---------------------------------------------------------------------------------------------
# LangChain's side.


def clear_tool_uses_edit(**options):
    """langchain 1.5.0's ``ClearToolUsesEdit`` when langchain is installed, else its transcription."""
    try:
        from langchain.agents.middleware.context_editing import ClearToolUsesEdit
    except ImportError:
        return TranscribedClearToolUses(**options)
    return ClearToolUsesEdit(**options)


class TranscribedClearToolUses:
    """langchain 1.5.0's ``ClearToolUsesEdit.apply`` (langchain/agents/middleware/context_editing.py,
    MIT), step for step, for when langchain itself is not installed: over the trigger, every tool
    message but the newest ``keep`` is replaced by the placeholder (skipping those already marked
    cleared, without a matching call, or excluded), stopping once ``clear_at_least`` is freed."""

    source = "transcription of langchain 1.5.0's ClearToolUsesEdit"

    def __init__(
        self, trigger=100_000, clear_at_least=0, keep=3, clear_tool_inputs=False, exclude_tools=(), placeholder=LANGCHAIN_PLACEHOLDER
    ):
        assert not clear_tool_inputs, "not transcribed"
        self.trigger, self.clear_at_least, self.keep = trigger, clear_at_least, keep
        self.exclude_tools, self.placeholder = exclude_tools, placeholder

    def apply(self, messages, *, count_tokens):
        from langchain_core.messages import AIMessage, ToolMessage

        tokens = count_tokens(messages)
        if tokens <= self.trigger:
            return
        candidates = [(idx, msg) for idx, msg in enumerate(messages) if isinstance(msg, ToolMessage)]
        if self.keep >= len(candidates):
            candidates = []
        elif self.keep:
            candidates = candidates[: -self.keep]
        excluded_tools = set(self.exclude_tools)
        for idx, tool_message in candidates:
            if tool_message.response_metadata.get("context_editing", {}).get("cleared"):
                continue
            ai_message = next((m for m in reversed(messages[:idx]) if isinstance(m, AIMessage)), None)
            if ai_message is None:
                continue
            tool_call = next((call for call in ai_message.tool_calls if call.get("id") == tool_message.tool_call_id), None)
            if tool_call is None:
                continue
            if (tool_message.name or tool_call["name"]) in excluded_tools:
                continue
            messages[idx] = tool_message.model_copy(
                update={
                    "artifact": None,
                    "content": self.placeholder,
                    "response_metadata": {
                        **tool_message.response_metadata,
                        "context_editing": {"cleared": True, "strategy": "clear_tool_uses"},
                    },
                }
            )
            if self.clear_at_least > 0 and max(0, tokens - count_tokens(messages)) >= self.clear_at_least:
                break


class _LangChain:
    """The recorded history as LangChain messages (converted once), a counter returning this
    package's counts, and the way back to the recorded messages."""

    def __init__(self, recorded):
        from langchain_core.messages import convert_to_messages

        self.recorded = recorded
        self.messages = convert_to_messages(recorded.history)
        self.index = {id(message): index for index, message in enumerate(self.messages)}

    def _where(self, message) -> tuple[int, str | None]:
        index = self.index.get(id(message))
        if index is not None:
            return index, None
        index = self.recorded.by_call_id[message.tool_call_id]  # a cleared copy
        return index, message.content

    def counter(self, messages) -> int:
        total = 0
        for message in messages:
            index, placeholder = self._where(message)
            total += self.recorded.costs[index] if placeholder is None else self.recorded.cleared_cost(index, placeholder)
        return total

    def as_dicts(self, kept) -> list[dict]:
        prompt = []
        for message in kept:
            index, placeholder = self._where(message)
            original = self.recorded.history[index]
            prompt.append(original if placeholder is None else {**original, "content": placeholder})
        return prompt


# ---------------------------------------------------------------------------------------------
# Billing and the plan space.


class Run:
    """One strategy's prompts on one conversation: their bills, context, and their plan if any."""

    def __init__(self, name: str, recorded: _shapes.Recorded, placeholder) -> None:
        self.name, self.recorded, self.placeholder = name, recorded, placeholder
        self.lookup = {}
        for index, message in enumerate(recorded.history):
            if message["role"] != "tool":
                key = _identity(message)
                assert key not in self.lookup, "two recorded messages are the same"
                self.lookup[key] = index
        self.non_tool = [0]
        for message in recorded.history:
            self.non_tool.append(self.non_tool[-1] + (message["role"] != "tool"))
        self.previous: list[tuple[int, str | None]] = []
        self.previous_breakpoint = 0
        self.cost = {provider: Fraction(0) for provider in PROVIDERS}
        self.tokens = 0
        self.share = 0.0
        self.plan: list[tuple[int, int]] | None = []
        self.limit = 0  # (run_strategies sets it)
        self.outside = ""

    def keys(self, prompt: list[dict]) -> list[tuple[int, str | None]]:
        """The prompt's messages as (recorded index, placeholder or None)."""
        keys = []
        for message in prompt:
            if message["role"] == "tool":
                index = self.recorded.by_call_id[message["tool_call_id"]]
                content = message["content"]
                keys.append((index, None if content == self.recorded.history[index]["content"] else content))
            else:
                keys.append((self.lookup[_identity(message)], None))
        return keys

    def add(self, call: int, prompt: list[dict], check_count: bool) -> None:
        recorded = self.recorded
        keys = self.keys(prompt)
        sizes = [recorded.costs[index] if placeholder is None else recorded.cleared_cost(index, placeholder) for index, placeholder in keys]
        tokens = PRIMING + sum(sizes)
        if check_count:
            assert tokens == count_messages(prompt, "gpt-4o"), (self.name, call)
        if self.name.startswith("fitproof"):  # every call keeps the limit, the live turn and the pairing
            indices = [index for index, _ in keys]
            length = recorded.calls[call]
            assert tokens <= self.limit, (self.name, call, tokens)
            assert indices[-(length - recorded.live_start(call)) :] == list(range(recorded.live_start(call), length)), (self.name, call)
            sent = set(indices)
            for index, _ in keys:
                if recorded.history[index]["role"] == "tool":
                    caller = max(other for other in sent if other < index and recorded.history[other]["role"] == "assistant")
                    calls = {made["id"] for made in recorded.history[caller].get("tool_calls") or ()}
                    assert recorded.history[index]["tool_call_id"] in calls, (self.name, call, index)
        shared = 0
        for old, new in zip(self.previous, keys):
            if old != new:
                break
            shared += 1
        prefix = sum(sizes[:shared])
        for provider in PROVIDERS:
            self.cost[provider] += billed(provider, tokens, prefix, tokens - PRIMING, self.previous_breakpoint)[3]
        self.previous, self.previous_breakpoint = keys, tokens - PRIMING
        self.tokens += tokens
        length = recorded.calls[call]
        self.share += sum(recorded.history[index]["role"] != "tool" for index, _ in keys) / self.non_tool[length]
        self._as_plan(call, keys, tokens)

    def _as_plan(self, call: int, keys, tokens: int) -> None:
        """The prompt as the frontier's (cut, k), or why it is not one."""
        if self.plan is None:
            return
        recorded, length = self.recorded, self.recorded.calls[call]
        indices = [index for index, _ in keys]
        cut = indices[1] if len(indices) > 1 else length
        why = ""
        if indices[0] != 0 or indices[1:] != list(range(cut, length)) or cut not in recorded.user_starts:
            why = f"call {call} keeps other than the system message and whole turns from a cut"
        placeholder = self.placeholder or named_placeholder
        cleared = {index for index, text in keys if text is not None}
        if any(text is not None and text != placeholder(recorded, index) for index, text in keys):
            why = why or f"call {call} clears with another placeholder"
        tools = recorded.tools
        low = bisect.bisect_left(tools, cut)
        least = max([tools.index(index) + 1 for index in cleared], default=0)
        k = max(least, self.plan[-1][1] if self.plan else 0)
        window = {index for index in tools[low:k] if index < length}
        most = 0 if call == 0 else bisect.bisect_left(tools, recorded.calls[call - 1])
        if not why and window != cleared:
            why = f"call {call} un-clears a result or clears other than the oldest"
        if not why and k > most:
            why = f"call {call} clears a result no call has sent"
        if why:
            self.plan, self.outside = None, why
        else:
            self.plan.append((cut, k))


def _identity(message: dict):
    calls = tuple(call["id"] for call in message.get("tool_calls") or ())
    return message["role"], message.get("content") or "", calls


def problem_for(recorded: _shapes.Recorded, limit: int, placeholder) -> _frontier.Problem:
    savings = [recorded.costs[index] - recorded.cleared_cost(index, placeholder(recorded, index)) for index in recorded.tools]
    return _frontier.Problem(recorded.costs, recorded.user_starts, recorded.tools, savings, recorded.calls, limit)


def run_strategies(recorded: _shapes.Recorded, limit: int, strategies=None, check_every: int = 25) -> dict[str, Run]:
    runs = {}
    for name, (factory, placeholder) in (strategies or STRATEGIES).items():
        step = factory(recorded, limit)
        run = runs[name] = Run(name, recorded, placeholder)
        run.limit = limit
        for call in range(len(recorded.calls)):
            prompt = step(call)
            run.add(call, prompt, check_count=call % check_every == 0 or call == len(recorded.calls) - 1)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--limit", type=int, default=32_000)
    parser.add_argument("--monotone", action="store_true", help="also solve with cuts that never move back, and say what that loses")
    arguments = parser.parse_args()
    limit = arguments.limit
    prices = {provider: _frontier.units(PRICES[provider]) for provider in PROVIDERS}
    started = time.perf_counter()
    source = getattr(clear_tool_uses_edit(), "source", "langchain 1.5.0's ClearToolUsesEdit")
    print(
        f"limit {limit:,} tokens (gpt-4o's accounting, o200k_base); {arguments.calls} model calls a conversation, seed {arguments.seed}; "
        f"LangChain clear + trim: {source}"
    )
    print("prices per million input tokens (assumed): OpenAI $2.00, cached $0.50; Anthropic $3.00, read $0.30, write $3.75")
    solves = 0
    for shape, make in _shapes.SHAPES.items():
        recorded = make(arguments.calls, arguments.seed)
        calls = len(recorded.calls)
        over = sum(PRIMING + sum(recorded.costs[:length]) > limit for length in recorded.calls)
        runs = run_strategies(recorded, limit)
        frontiers = {}
        for run in runs.values():
            placeholder = run.placeholder or named_placeholder
            for provider in PROVIDERS:
                key = (placeholder, provider)
                if key not in frontiers:
                    frontiers[key] = _frontier.Frontier(problem_for(recorded, limit, placeholder), provider, prices[provider])
                    frontiers[key].sweep([0.0, FULLEST])
        print()
        print(
            f"{shape}: {calls} calls, {over} over the limit, {len(recorded.history):,} messages "
            f"({sum(recorded.costs):,} tokens, tool results {recorded.tool_share():.0%}) at the end"
        )
        print(
            f"  {'strategy':28} {'avg context':>11} {'non-tool kept':>13} {'OpenAI':>8} {'x LC':>5} {'x frontier':>10} "
            f"{'Anthropic':>9} {'x LC':>5} {'x frontier':>10}  in plan space"
        )
        baseline = runs["LangChain trim_messages"]
        for run in runs.values():
            placeholder = run.placeholder or named_placeholder
            cells = []
            for provider in PROVIDERS:
                frontier = frontiers[(placeholder, provider)]
                bound = frontier.bound(run.tokens)
                cost = run.cost[provider]
                cells.append(f"{float(cost):8.2f} {float(cost / baseline.cost[provider]):4.2f}x {float(cost) * 1e8 / bound:9.2f}x")
                if run.plan is not None:  # the dynamic program's own arithmetic bills the same prompts the same
                    again, tokens = _frontier.plan_cost(frontier.problem, provider, frontier.prices, run.plan)
                    assert (again, tokens) == (cost * 100_000_000, run.tokens), (run.name, provider)
            space = "yes" if run.plan is not None else f"no: {run.outside}"
            print(f"  {run.name:28} {run.tokens / calls:11,.0f} {run.share / calls:12.1%}  " + " ".join(cells) + f"  {space}")
        ours = {name: run for name, run in runs.items() if name.startswith("fitproof")}
        for provider in PROVIDERS:
            ratio = {
                name: float(run.cost[provider]) * 1e8 / frontiers[(run.placeholder or named_placeholder, provider)].bound(run.tokens)
                for name, run in ours.items()
            }
            best = min(ratio, key=ratio.__getitem__)
            theirs = min(float(run.cost[provider]) for name, run in runs.items() if name.startswith("LangChain"))
            print(
                f"  best of this package under {provider}'s rule: {best}, {ratio[best]:.2f}x the frontier at its context, "
                f"{float(ours[best].cost[provider]) / theirs:.2f}x LangChain's best cost"
            )
        cleared = max(run.share for name, run in ours.items() if "clear" in name)
        print(
            f"  non-tool messages kept: clearing at most {cleared / runs['fitproof default'].share - 1:+.0%} against the default's drop-only"
        )
        for provider in PROVIDERS:
            frontier = frontiers[(named_placeholder, provider)]
            cheapest, fullest = frontier.points[0.0], frontier.points[FULLEST]
            levels = [frontier.bound(share * fullest[2]) / 1e8 / float(baseline.cost[provider]) for share in LEVELS]
            print(
                f"  frontier, {provider + ':':10} cheapest plan ${cheapest[1] / 1e8:.2f} at {cheapest[2] / calls:,.0f} tokens a call, "
                f"the fullest ${fullest[1] / 1e8:.2f} at {fullest[2] / calls:,.0f}; "
                f"at {'/'.join(f'{share:.0%}' for share in LEVELS)} of the fullest context: "
                + "/".join(f"{level:.2f}" for level in levels)
                + "x LangChain's cost"
            )
        if arguments.monotone:
            worst = 0.0
            for run in runs.values():
                placeholder = run.placeholder or named_placeholder
                for provider in PROVIDERS:
                    restricted = _frontier.Frontier(problem_for(recorded, limit, placeholder), provider, prices[provider], monotone=True)
                    restricted.sweep([0.0, FULLEST])
                    free = frontiers[(placeholder, provider)].bound(run.tokens)
                    worst = max(worst, restricted.bound(run.tokens) / free - 1)
                    solves += restricted.solves
            print(f"  cuts that never move back: the bound at the strategies' contexts at most {worst:.3%} higher")
        solves += sum(frontier.solves for frontier in frontiers.values())
    print()
    print(f"{solves} dynamic-program solves; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
