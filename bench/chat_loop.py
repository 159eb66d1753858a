"""A chat application's loop: 500 turns, the history trimmed before every model call, against LangChain.

    .venv/bin/python bench/chat_loop.py [--turns N] [--plain-turns N] [--seed N] [--formats-only]

The loop appends what a chat application appends (a user message; in about one turn in four an
assistant message calling one or two tools and their results, trimmed again for that step; the
assistant's reply), OpenAI-shaped, and before every model call trims the history to a GPT-4o
window minus reserved output (128,000 - 4,000 tokens). Side by side, in the same process and on
the same histories:

- `trim_messages(history, 124_000, "gpt-4o")` (this package; counts remembered across calls);
- LangChain's `trim_messages(history, max_tokens=124_000 - 3, strategy="last", include_system=True,
  start_on="human")` with a counter that applies the same accounting (3 per message, role,
  content, name, tool_call_id, the tool calls' compact JSON) with tiktoken, once with a dict
  cache of each text's count (`cached`) and once without (`plain`: on the first `--plain-turns`
  turns only, because it re-counts the whole history on every call, and the others are timed on
  the same turns beside it).

Each call's kept messages are compared (as input indices); a call where they differ is counted
and explained.

The same conversation is also kept, appended to call by call as an application would, as
Anthropic's Messages (`system` apart, `tool_use` blocks, one user message of `tool_result` blocks a
tool round) and as OpenAI Responses input items (`function_call` / `function_call_output`), and
trimmed in those formats before the same calls: `trim_messages(items, 124_000, format=...)` (Claude
by the estimate, its default, and by o200k_base; Responses by o200k_base). Their per-call times are
set beside the chat format's, measured in the same run (`--formats-only` skips LangChain). Per-call times are medians over the calls whose history has about 100, 500 and
1,000 messages (within 50 of it), and the totals; the ratio is this package's time over
LangChain's cached one. Each timed call follows a full garbage collection, so that neither pays for
the other's garbage (LangChain's message objects made a collection inside the next call cost
tens of milliseconds).
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

import _text  # noqa: E402
from fitproof import trim_messages  # noqa: E402
from messages import WORDS  # noqa: E402  (bench/messages.py's words)

LIMIT = 128_000 - 4_000


def conversation(turns: int, seed: int):
    """Yield ``(history, step)`` before each model call; the history is one list, appended to."""
    rng = random.Random(seed)

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    history = [{"role": "system", "content": "You are a support agent for an online shop. " + text(60, 90)}]
    calls = 0
    for turn in range(turns):
        history.append({"role": "user", "content": text(8, 90)})
        yield history, "user"
        if rng.random() < 0.25:
            ids = [f"call_{calls + k}" for k in range(rng.randint(1, 2))]
            calls += len(ids)
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "lookup_order", "arguments": json.dumps({"query": text(2, 5)})},
                        }
                        for call_id in ids
                    ],
                }
            )
            history.extend({"role": "tool", "tool_call_id": call_id, "content": text(80, 700)} for call_id in ids)
            yield history, "tool round"
        history.append({"role": "assistant", "content": text(30, 260)})


class Converted:
    """The chat history as Anthropic's messages and as Responses items, converted as it grows."""

    def __init__(self) -> None:
        self.anthropic: list[dict] = []
        self.system = None
        self.responses: list[dict] = []
        self.done = 0

    def update(self, history: list[dict]) -> None:
        for index in range(self.done, len(history)):
            message = history[index]
            role = message["role"]
            if role == "system" and index == 0:
                self.system = message["content"]
                self.responses.append({"role": "system", "content": message["content"]})
            elif role == "tool":
                block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
                if history[index - 1]["role"] == "tool":
                    self.anthropic[-1] = {"role": "user", "content": self.anthropic[-1]["content"] + [block]}
                else:
                    self.anthropic.append({"role": "user", "content": [block]})
                self.responses.append({"type": "function_call_output", "call_id": message["tool_call_id"], "output": message["content"]})
            elif message.get("tool_calls"):
                calls = message["tool_calls"]
                text = [{"type": "text", "text": message["content"]}] if message.get("content") else []
                self.anthropic.append(
                    {
                        "role": "assistant",
                        "content": text
                        + [
                            {
                                "type": "tool_use",
                                "id": call["id"],
                                "name": call["function"]["name"],
                                "input": json.loads(call["function"]["arguments"]),
                            }
                            for call in calls
                        ],
                    }
                )
                if message.get("content"):
                    self.responses.append({"role": "assistant", "content": message["content"]})
                self.responses.extend(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                    }
                    for call in calls
                )
            else:
                self.anthropic.append({"role": role, "content": message["content"]})
                self.responses.append({"role": role, "content": message["content"]})
        self.done = len(history)


def langchain_counter(encoding, cache: dict | None):
    """The same accounting over LangChain's message objects, counting with tiktoken (without the
    reply priming, which LangChain's partial counts would add twice: max_tokens is limit - 3)."""
    kinds = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}

    if cache is None:

        def count(value: str) -> int:
            return len(encoding.encode_ordinary(value))
    else:

        def count(value: str) -> int:
            tokens = cache.get(value)
            if tokens is None:
                tokens = cache[value] = len(encoding.encode_ordinary(value))
            return tokens

    def counter(messages) -> int:
        total = 0
        for message in messages:
            total += 3 + count(kinds[message.type])
            if message.content:
                total += count(message.content)
            if message.type == "ai" and message.tool_calls:
                calls = [
                    {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": json.dumps(call["args"])}}
                    for call in message.tool_calls
                ]
                total += count(json.dumps(calls, separators=(",", ":"), ensure_ascii=False))
            if message.type == "tool":
                total += count(message.tool_call_id)
        return total

    return counter


def their_kept(history: list, kept: list) -> list[int]:
    """LangChain's kept messages as input indices: the system message and a suffix (it drops none between)."""
    rest = len(kept) - (1 if kept and kept[0].type == "system" else 0)
    return ([0] if rest < len(kept) else []) + list(range(len(history) - rest, len(history)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--plain-turns", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--formats-only", action="store_true", help="time the three formats only, without LangChain")
    arguments = parser.parse_args()
    from langchain_core.messages import trim_messages as langchain_trim

    encoding = _text.reference_encoding("o200k_base")
    cached = langchain_counter(encoding, {})
    plain = langchain_counter(encoding, None)

    def theirs(history, counter):
        return langchain_trim(history, max_tokens=LIMIT - 3, token_counter=counter, strategy="last", include_system=True, start_on="human")

    warm = [{"role": "system", "content": "warm up"}, {"role": "user", "content": "hello there"}]
    trim_messages(warm, LIMIT, "gpt-4o")  # loads the rank file, as an application's first call does
    theirs(warm, cached), theirs(warm, plain)  # LangChain's first call imports what it converts with
    rows = []  # (history length, ours, cached, plain or None, our prompt's tokens)
    differ = []
    turn = 0
    converted = Converted()
    formats = {  # name -> call; each timed in the same loop as the chat format
        "anthropic (estimate)": lambda: trim_messages(converted.anthropic, LIMIT, format="anthropic", system=converted.system),
        "anthropic (o200k)": lambda: trim_messages(converted.anthropic, LIMIT, "o200k_base", format="anthropic", system=converted.system),
        "responses (o200k)": lambda: trim_messages(converted.responses, LIMIT, format="responses"),
    }
    format_rows: list[tuple] = []  # (history length, chat time, each format's time)
    for history, step in conversation(arguments.turns, arguments.seed):
        turn += step == "user"
        converted.update(history)
        gc.collect()  # each timed call after a full collection (bench/_timing.py's rule): neither pays for the other's garbage
        started = time.perf_counter()
        ours = trim_messages(history, LIMIT, "gpt-4o")
        ours_time = time.perf_counter() - started
        times = []
        for call in formats.values():
            gc.collect()
            started = time.perf_counter()
            call()
            times.append(time.perf_counter() - started)
        format_rows.append((len(history), ours_time, *times))
        if arguments.formats_only:
            continue
        gc.collect()
        started = time.perf_counter()
        kept = theirs(history, cached)
        cached_time = time.perf_counter() - started
        plain_time = None
        if turn <= arguments.plain_turns:
            gc.collect()
            started = time.perf_counter()
            theirs(history, plain)
            plain_time = time.perf_counter() - started
        rows.append((len(history), ours_time, cached_time, plain_time, ours.tokens))
        if ours.kept != their_kept(history, kept):
            differ.append((len(rows), len(history), ours.kept[:3], their_kept(history, kept)[:3]))

    _formats_table(format_rows, list(formats), arguments.turns)
    if arguments.formats_only:
        return
    final_tokens = rows[-1][4]
    print(
        f"{arguments.turns} turns, {len(rows)} model calls, {rows[-1][0]:,} messages at the end "
        f"(the last prompt {final_tokens:,} tokens after trimming to {LIMIT:,}); times in ms"
    )
    print()
    print(f"{'messages':>9} {'calls':>6} {'this tool':>10} {'LangChain cached':>17} {'ratio':>6} {'LangChain plain':>16}")
    for size in (100, 500, 1000):
        near = [row for row in rows if abs(row[0] - size) <= 50]
        if not near:
            continue
        ours = statistics.median(row[1] for row in near) * 1000
        cached_ms = statistics.median(row[2] for row in near) * 1000
        plains = [row[3] for row in near if row[3] is not None]
        plain_text = f"{statistics.median(plains) * 1000:13.2f}" if plains else f"{'(not run)':>13}"
        print(f"{size:>9,} {len(near):>6} {ours:10.2f} {cached_ms:17.2f} {ours / cached_ms:5.2f}x {plain_text:>16}")
    total_ours = sum(row[1] for row in rows)
    total_cached = sum(row[2] for row in rows)
    print(f"{'total':>9} {len(rows):>6} {total_ours * 1000:10.0f} {total_cached * 1000:17.0f} {total_ours / total_cached:5.2f}x")
    plain_rows = [row for row in rows if row[3] is not None]
    if plain_rows:
        p_ours, p_cached, p_plain = (sum(row[k] for row in plain_rows) * 1000 for k in (1, 2, 3))
        print(
            f"first {arguments.plain_turns} turns ({len(plain_rows)} calls, up to {plain_rows[-1][0]} messages): this tool {p_ours:.0f} ms, "
            f"LangChain cached {p_cached:.0f} ms, LangChain plain {p_plain:.0f} ms ({p_ours / p_plain:.2f}x plain)"
        )
    small = [row[1] for row in rows if abs(row[0] - 100) <= 50]
    large = [row[1] for row in rows if abs(row[0] - 1000) <= 50]
    if small and large:  # a short run (--turns) reaches neither size
        print(f"per call at 1,000 messages / at 100: {statistics.median(large) / statistics.median(small):.2f}x")
    print(f"kept messages identical on {len(rows) - len(differ)} of {len(rows)} calls")
    for call, size, mine, other in differ[:10]:
        print(f"  call {call} ({size} messages): this tool keeps {mine}..., LangChain {other}...")


def _formats_table(rows: list[tuple], names: list[str], turns: int) -> None:
    """Each format's per-call time beside the chat format's, medians near 100, 500 and 1,000 chat
    messages, and the ratio of the totals (the same calls, the same run)."""
    load = " ".join(f"{value:.2f}" for value in __import__("os").getloadavg())
    print(f"{turns} turns, {len(rows)} model calls, {rows[-1][0]:,} chat messages at the end; times in ms (load average {load})")
    print(f"{'messages':>9} {'chat':>8} " + " ".join(f"{name:>22}" for name in names))
    for size in (100, 500, 1000):
        near = [row for row in rows if abs(row[0] - size) <= 50]
        if not near:
            continue
        chat_ms = statistics.median(row[1] for row in near) * 1000
        cells = []
        for column in range(len(names)):
            ms = statistics.median(row[2 + column] for row in near) * 1000
            cells.append(f"{ms:8.2f} ({ms / chat_ms:4.2f}x)")
        print(f"{size:>9,} {chat_ms:8.2f} " + " ".join(f"{cell:>22}" for cell in cells))
    chat_total = sum(row[1] for row in rows)
    cells = [
        f"{sum(row[2 + column] for row in rows) * 1000:8.0f} ({sum(row[2 + column] for row in rows) / chat_total:4.2f}x)"
        for column in range(len(names))
    ]
    print(f"{'total':>9} {chat_total * 1000:8.0f} " + " ".join(f"{cell:>22}" for cell in cells))
    print()


if __name__ == "__main__":
    main()
