"""What trimming costs once the provider's prompt cache is counted: a 500-turn tool-using chat at a fixed limit.

    .venv/bin/python bench/cache_cost.py [--turns N] [--limit N] [--seed N] [--watermark W]

The conversation is bench/chat_loop.py's (a user message; in about one turn in four an assistant
message calling one or two tools and their results, trimmed again for that step; the reply),
trimmed before every model call to a fixed limit (32,000 tokens by default, so that most of the
calls are over it) by:

- LangChain's `trim_messages(history, max_tokens=limit - 3, strategy="last", include_system=True,
  start_on="human")` with bench/chat_loop.py's counter (the same accounting, tiktoken);
- this package's default strategy, `trim_messages(history, limit, "gpt-4o")`;
- this package's `strategy="stable"` (low watermark 0.7 by default), given its previous call.

For each call the prompt sent is known (its messages, as input indices, and its tokens), and each
strategy's prompts are billed under both caching rules of `modes/messages/reuse.py`: OpenAI's
(automatic, from 1,024 tokens, in steps of 128) and Anthropic's (a `cache_control` breakpoint at the
end of the last message: a call reads the previous call's prefix when it starts with all of it,
writes the rest; minimum 1,024 tokens). The bench bills every prompt with its own code, and checks
that it agrees, call by call, with the `reuse` this package reports for its own two strategies.

Prices are an assumption of this benchmark (the package ships none): per million input tokens,
OpenAI gpt-4.1 $2.00, cached $0.50; Anthropic Claude Sonnet 4 $3.00, cache read $0.30, cache write
(5 minutes) $3.75, as published in 2025. The output tokens are the same for every strategy and are
left out. Costs, not times: the result is deterministic.
"""

import argparse
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "py"), str(HERE)]

import _text  # noqa: E402
from chat_loop import Converted, conversation, langchain_counter, their_kept  # noqa: E402
from fitproof import trim_messages  # noqa: E402

PRICES = {
    "openai": {"input": 2.0, "cached_input": 0.5},
    "anthropic": {"input": 3.0, "cached_input": 0.3, "cache_write": 3.75},
}
CACHING = {
    "openai": {"provider": "openai", "prices": PRICES["openai"]},
    "anthropic": {"provider": "anthropic", "min_tokens": 1024, "prices": PRICES["anthropic"]},
}
PRIMING = 3


def billed(provider: str, tokens: int, prefix: int, breakpoint_now: int, previous_breakpoint: int) -> tuple[int, int, int, Fraction]:
    """(cached, written, plain input, cost in dollars) of one call, by the bench's own arithmetic."""
    prices = {key: Fraction(repr(value)) for key, value in PRICES[provider].items()}
    if provider == "openai":
        cached = prefix // 128 * 128 if prefix >= 1024 else 0
        written = 0
    else:
        cached = previous_breakpoint if 1024 <= previous_breakpoint <= prefix else 0
        written = breakpoint_now - cached if breakpoint_now >= 1024 else 0
    plain = tokens - cached - written
    cost = (prices["input"] * plain + prices["cached_input"] * cached + prices.get("cache_write", 0) * written) / 1_000_000
    return cached, written, plain, cost


class Ledger:
    """One strategy's calls: each prompt's messages and tokens, and its bill under each rule."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.previous: list[int] = []
        self.previous_breakpoint = 0
        self.calls = 0
        self.tokens = 0
        self.live_lost = 0
        self.prefix = 0
        self.cost = {"openai": Fraction(0), "anthropic": Fraction(0)}
        self.cached = {"openai": 0, "anthropic": 0}
        self.written = 0
        self.without = {"openai": Fraction(0), "anthropic": Fraction(0)}
        self.bills: list[dict] = []

    def add(self, kept: list[int], tokens: int, costs: dict[int, int], live: list[int]) -> None:
        shared = 0
        for old, new in zip(self.previous, kept):
            if old != new:
                break
            shared += 1
        prefix = sum(costs[index] for index in kept[:shared])
        breakpoint_now = tokens - PRIMING
        bill = {}
        for provider in ("openai", "anthropic"):
            cached, written, plain, cost = billed(provider, tokens, prefix, breakpoint_now, self.previous_breakpoint)
            self.cost[provider] += cost
            self.cached[provider] += cached
            self.without[provider] += Fraction(repr(PRICES[provider]["input"])) * tokens / 1_000_000
            if provider == "anthropic":
                self.written += written
            bill[provider] = (cached, written, plain, cost)
        self.bills.append(bill)
        self.calls += 1
        self.tokens += tokens
        self.prefix += prefix
        self.live_lost += not set(live) <= set(kept)
        self.previous, self.previous_breakpoint = kept, breakpoint_now


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--limit", type=int, default=32_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--watermark", type=float, default=0.7)
    parser.add_argument("--openai-cached", type=float, default=0.5, help="OpenAI's cached input price per million (input: $2.00)")
    parser.add_argument("--no-formats", action="store_true", help="leave out the anthropic and responses formats' stable runs")
    arguments = parser.parse_args()
    PRICES["openai"]["cached_input"] = arguments.openai_cached
    from langchain_core.messages import trim_messages as langchain_trim

    limit = arguments.limit
    encoding = _text.reference_encoding("o200k_base")
    counter = langchain_counter(encoding, {})
    ledgers = {name: Ledger(name) for name in ("LangChain trim_messages", "this package, default", "this package, stable")}
    costs: dict[int, int] = {}  # each message's tokens by the accounting (3, role, content, ...), without the priming
    previous = {"openai": None, "anthropic": None}
    disagreements = 0
    history_size = 0
    converted = Converted()
    formats = FormatRuns(limit, arguments.watermark) if not arguments.no_formats else None
    for history, _step in conversation(arguments.turns, arguments.seed):
        history_size = len(history)
        if formats is not None:
            converted.update(history)
            formats.call(history, converted)
        for index in range(len(costs), len(history)):
            costs[index] = counter([_langchain_message(history[index])])
        live_start = max(index for index, message in enumerate(history) if message["role"] == "user")
        live = list(range(live_start, len(history)))

        theirs = langchain_trim(
            history, max_tokens=limit - PRIMING, token_counter=counter, strategy="last", include_system=True, start_on="human"
        )
        kept = their_kept(history, theirs)
        ledgers["LangChain trim_messages"].add(kept, PRIMING + sum(costs[index] for index in kept), costs, live)

        for name, strategy in (("this package, default", "newest"), ("this package, stable", "stable")):
            ledger = ledgers[name]
            reports = {}
            for provider in ("openai", "anthropic"):
                key = (name, provider)
                keys = {"strategy": strategy, "caching": CACHING[provider], "previous": previous.get(key)}
                if strategy == "stable":
                    keys["low_watermark"] = arguments.watermark
                reports[provider] = trim_messages(history, limit, "gpt-4o", **keys)
                previous[key] = reports[provider].as_previous
            ours = reports["openai"]
            assert ours.kept == reports["anthropic"].kept  # the caching rule never changes what is kept
            ledger.add(ours.kept, ours.tokens, costs, live)
            for provider in ("openai", "anthropic"):
                reuse = reports[provider].reuse
                cached, written, plain, cost = ledger.bills[-1][provider]
                if (reuse["cached_tokens"], reuse["written_tokens"], reuse["input_tokens"]) != (cached, written, plain) or abs(
                    reuse["cost"] - float(cost)
                ) > 1e-12:
                    disagreements += 1

    langchain, default, stable = ledgers.values()
    print(
        f"{arguments.turns} turns, {langchain.calls} model calls, {history_size:,} messages at the end; limit {limit:,} tokens "
        f"(o200k_base, gpt-4o's accounting); stable's low watermark {arguments.watermark}"
    )
    print(
        f"prices per million input tokens (assumed, the package ships none): OpenAI $2.00, cached ${arguments.openai_cached:.2f}; "
        "Anthropic $3.00, read $0.30, write $3.75"
    )
    print()
    header = f"{'':26} {'avg context':>12} {'live lost':>10} {'reused prefix':>14} {'OpenAI cost':>12} {'x LC':>6} {'Anthropic cost':>15} {'x LC':>6}"
    print(header)
    for ledger in ledgers.values():
        average = ledger.tokens / ledger.calls
        reused = ledger.prefix / ledger.tokens
        openai, anthropic = ledger.cost["openai"], ledger.cost["anthropic"]
        print(
            f"{ledger.name:26} {average:12,.0f} {ledger.live_lost:10} {reused:13.1%} {float(openai):12.2f} "
            f"{float(openai / langchain.cost['openai']):5.2f}x {float(anthropic):15.2f} {float(anthropic / langchain.cost['anthropic']):5.2f}x"
        )
    print(
        f"{'without caching':26} {'':12} {'':10} {'':14} {float(langchain.without['openai']):12.2f} {'':6} "
        f"{float(langchain.without['anthropic']):15.2f}   (LangChain's prompts at the plain input price)"
    )
    print()
    context = stable.tokens / default.tokens
    print(f"stable's average context: {context:.1%} of the default strategy's (target >= 80 %)")
    for provider, label in (("openai", "OpenAI"), ("anthropic", "Anthropic")):
        ratio = float(stable.cost[provider] / langchain.cost[provider])
        print(f"stable's cost under {label}'s rule: {ratio:.2f}x LangChain's (target <= 0.40x)")
    print(
        f"live turn kept on every call: LangChain {langchain.calls - langchain.live_lost} of {langchain.calls}, "
        f"default {default.calls - default.live_lost}, stable {stable.calls - stable.live_lost}"
    )
    print(f"the package's reuse and the bench's own billing disagree on {disagreements} of {2 * 2 * default.calls} bills")
    if formats is not None:
        formats.print()


class FormatRuns:
    """Strategy stable on the same conversation in the three request formats, converted as it grows
    (bench/chat_loop.py's ``Converted``), all counted by o200k_base so that the formats' prompts are
    the same text; each format's bill is the package's own ``reuse`` under each rule."""

    FORMATS = ("chat", "anthropic", "responses")

    def __init__(self, limit: int, watermark: float) -> None:
        self.limit, self.watermark = limit, watermark
        self.previous: dict[tuple[str, str], object] = {}
        self.cost = {(fmt, provider): 0.0 for fmt in self.FORMATS for provider in CACHING}
        self.cached = {key: 0 for key in self.cost}
        self.tokens = dict.fromkeys(self.FORMATS, 0)
        self.calls = 0

    def call(self, history: list[dict], converted) -> None:
        requests = {
            "chat": (history, {}),
            "anthropic": (converted.anthropic, {"format": "anthropic", "system": converted.system}),
            "responses": (converted.responses, {"format": "responses"}),
        }
        self.calls += 1
        for fmt, (messages, keys) in requests.items():
            for provider in CACHING:
                result = trim_messages(
                    messages,
                    self.limit,
                    "o200k_base",
                    strategy="stable",
                    low_watermark=self.watermark,
                    caching=CACHING[provider],
                    previous=self.previous.get((fmt, provider)),
                    **keys,
                )
                self.previous[(fmt, provider)] = result.as_previous
                self.cost[(fmt, provider)] += result.reuse["cost"]
                self.cached[(fmt, provider)] += result.reuse["cached_tokens"]
            self.tokens[fmt] += result.tokens

    def print(self) -> None:
        print()
        print(f"strategy stable in the three formats, the same conversation converted ({self.calls} calls, o200k_base counts):")
        print(f"{'format':12} {'avg context':>12} {'OpenAI cost':>12} {'x chat':>7} {'Anthropic cost':>15} {'x chat':>7}")
        for fmt in self.FORMATS:
            row = f"{fmt:12} {self.tokens[fmt] / self.calls:12,.0f}"
            for provider in CACHING:
                ratio = self.cost[(fmt, provider)] / self.cost[("chat", provider)]
                row += f" {self.cost[(fmt, provider)]:{12 if provider == 'openai' else 15}.2f} {ratio:6.3f}x"
            print(row)
        worst = max(abs(self.cost[(fmt, p)] / self.cost[("chat", p)] - 1) for fmt in self.FORMATS for p in CACHING)
        print(f"the formats' stable costs differ from the chat format's by at most {worst:.1%} (target <= 5 %)")


def _langchain_message(message: dict):
    """One message as LangChain's counter reads it (the converted message LangChain gives its counter)."""
    from langchain_core.messages import convert_to_messages

    return convert_to_messages([message])[0]


if __name__ == "__main__":
    main()
