"""Mode `messages` on a 2,000-turn chat history trimmed to 8k, 32k and 128k tokens, in one run.

    .venv/bin/python bench/messages.py [--turns N] [--runs N] [--tokenizer NAME]

The baseline is counting the history's text with `count_tokens` alone: every value a message
has (role, content, name, tool_call_id, the tool_calls JSON), one call each. Each timed run
starts with the tokenizer's piece cache empty (as a new process would), the baseline too.
Per limit: `trim_messages` (validate, count, select) and `evaluate` (the same plus the report
and its checks, which re-count the kept messages), and where the time goes: validating and
counting (`parse`), selecting (`select`), the checks (`verify`). Both against the
baseline, measured in the same rounds. Counting each distinct text once is the mode's own per-call cache (roles and
repeated short turns), never a cache across calls.
"""

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "py"), str(HERE)]

from _timing import median_time  # noqa: E402
from fitproof import count_tokens, evaluate, tokenizers, trim_messages  # noqa: E402
from fitproof.modes import messages as mode  # noqa: E402

WORDS = (
    "the order shipped late because the carrier lost the parcel for two days and the customer asked "
    "for a refund credit ticket photo claim damaged blender policy says thirty days warehouse scan "
    'réservation naïve 東京 配送 🙂 def main(): return {"status": 200} // TODO fix'
).split()


def history(turns: int, seed: int = 17) -> list[dict]:
    """A system message, then user and assistant turns; one assistant turn in ten calls 1-3 tools."""
    rng = random.Random(seed)

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    messages = [{"role": "system", "content": "You are a support agent. " + text(40, 60)}]
    calls = 0
    while len(messages) < turns:
        messages.append({"role": "user", "content": text(5, 120)})
        if rng.random() < 0.1:
            ids = [f"call_{calls + k}" for k in range(rng.randint(1, 3))]
            calls += len(ids)
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": text(2, 6)})}}
                        for call_id in ids
                    ],
                }
            )
            messages.extend({"role": "tool", "tool_call_id": call_id, "content": text(30, 300)} for call_id in ids)
        messages.append({"role": "assistant", "content": text(20, 250)})
    return messages


def texts_of(messages: list[dict]) -> list[str]:
    """Every value the accounting counts, as count_tokens alone would be called on them."""
    texts = []
    for message in messages:
        for key, value in message.items():
            if value is None:
                continue
            texts.append(mode.tool_calls_text(value) if key == "tool_calls" else value)
    return texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokenizer", default="o200k_base", choices=tokenizers.TOKENIZERS)
    arguments = parser.parse_args()
    name, runs = arguments.tokenizer, arguments.runs
    messages = history(arguments.turns)
    encoding = tokenizers.exact.ENCODINGS.get(name)
    if encoding is not None:
        encoding.load()

    def clear():
        if encoding is not None:
            encoding._counts.clear()

    def interleaved(functions: dict) -> dict:
        """The median seconds of each function over ``runs`` rounds, taken in turn within each
        round (the machine is shared: its load drifts less within a round than across them),
        each with the tokenizer's process-wide piece cache emptied first."""
        times = {name: [] for name in functions}
        for _ in range(runs):
            for name, function in functions.items():
                clear()
                gc.collect()
                started = time.perf_counter()
                function()
                times[name].append(time.perf_counter() - started)
        return {name: statistics.median(values) for name, values in times.items()}

    texts = texts_of(messages)
    total = sum(count_tokens(text, name) for text in texts)
    full = mode.count_messages(messages, name)
    print(
        f"{len(messages):,} messages ({sum(m['role'] == 'tool' for m in messages)} tool results), "
        f"{sum(map(len, texts)):,} characters, {full:,} prompt tokens ({name}); median of {runs} rounds, cold piece cache"
    )
    print(f"baseline: count_tokens on each of the {len(texts):,} texts the accounting counts ({total:,} tokens), one call each")
    print()
    print(
        f"{'limit':>7} {'kept':>6} {'baseline':>9} {'trim_messages':>14} {'ratio':>6} {'evaluate':>9} {'ratio':>6}   "
        f"{'parse (count)':>13} {'select':>7} {'checks':>7}"
    )
    for limit in (8_000, 32_000, 128_000):
        data = {"mode": "messages", "limit": limit, "tokenizer": name, "messages": messages}
        report = evaluate(data)
        assert report["pass"] and report["messages"] == trim_messages(messages, limit, name), report["summary"]
        parsed = mode.parse(data)
        result = mode.select(parsed)
        timed = interleaved(
            {
                "baseline": lambda: sum(count_tokens(text, name) for text in texts),
                "trim": lambda: trim_messages(messages, limit, name),
                "evaluate": lambda: evaluate(data),
                "parse": lambda: mode.parse(data),
            }
        )
        select_time, _ = median_time(lambda: mode.select(parsed), runs)
        mode.parse(data)  # the checks run right after parse inside evaluate: the piece cache is warm
        verify_time, checks = median_time(lambda: mode.verify(data, result, parsed), runs)
        assert all(check["pass"] for check in checks)
        baseline = timed["baseline"]
        print(
            f"{limit:>7,} {len(report['kept']):>6,} {baseline * 1000:6.1f} ms {timed['trim'] * 1000:11.1f} ms {timed['trim'] / baseline:5.2f}x "
            f"{timed['evaluate'] * 1000:6.1f} ms {timed['evaluate'] / baseline:5.2f}x   "
            f"{timed['parse'] * 1000:10.1f} ms {select_time * 1000:4.1f} ms {verify_time * 1000:4.1f} ms"
        )
    print()
    print("ratio = time / baseline. parse validates and counts every message;")
    print("select is the rule; checks re-count the kept messages (piece cache warm from parse, as inside evaluate).")


if __name__ == "__main__":
    main()
