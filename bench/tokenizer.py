"""The exact tokenizers against tiktoken (Rust) on the same text, in one run.

    .venv/bin/python bench/tokenizer.py

1. About 1 MB of mixed text (prose, code, multilingual, emoji): time per count and tokens per
   second, with the piece cache cold (a new process's first count) and warm (the same text again),
   against tiktoken's encode_ordinary. Targets: within 8x tiktoken's time, at least 0.5 M tokens/s.
2. "a" * n for n = 10k, 100k, 1M: growth per tenfold (target at most 15x: no quadratic piece).
3. Loading each rank file (read, SHA-256, parse): the first use's cost.
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "bench")]

import _text  # noqa: E402
from _timing import median_time  # noqa: E402

from context_budget import _tokenizer  # noqa: E402


def cold_count(name, text):
    encoding = _tokenizer.ENCODINGS[name]
    encoding._counts.clear()
    return encoding.count(text)


def main() -> None:
    text = _text.mixed_text(1_000_000)
    print(f"mixed text: {len(text):,} characters, {len(text.encode('utf-8')):,} bytes")
    for name in _tokenizer.EXACT:
        loaded = _tokenizer.Encoding(name)
        started = time.perf_counter()
        loaded.load()
        load_time = time.perf_counter() - started
        reference = _text.reference_encoding(name)
        ours_cold, count = median_time(lambda: cold_count(name, text), 5)
        ours_warm, _ = median_time(lambda: _tokenizer.ENCODINGS[name].count(text), 5)
        theirs, tokens = median_time(lambda: reference.encode_ordinary(text), 5)
        assert count == len(tokens), (count, len(tokens))
        print(f"\n{name}: {count:,} tokens; rank file loaded (read, SHA-256, parse) in {load_time * 1000:.0f} ms")
        print(f"  tiktoken encode_ordinary   {theirs * 1000:8.1f} ms  {count / theirs / 1e6:6.2f} M tokens/s")
        print(f"  count_tokens, cold cache   {ours_cold * 1000:8.1f} ms  {count / ours_cold / 1e6:6.2f} M tokens/s"
              f"  ratio {ours_cold / theirs:5.2f}x  (target <= 8x, >= 0.5 M tokens/s)")
        print(f"  count_tokens, warm cache   {ours_warm * 1000:8.1f} ms  {count / ours_warm / 1e6:6.2f} M tokens/s"
              f"  ratio {ours_warm / theirs:5.2f}x")
    print("\n'a' * n, o200k_base (one piece, merged through the heap):")
    previous = None
    for n in (10_000, 100_000, 1_000_000):
        seconds, count = median_time(lambda: cold_count("o200k_base", "a" * n), 3)
        growth = f"  growth {seconds / previous:5.1f}x per tenfold (target <= 15x)" if previous else ""
        print(f"  n = {n:>9,}: {seconds * 1000:9.1f} ms, {count:,} tokens{growth}")
        previous = seconds


if __name__ == "__main__":
    main()
