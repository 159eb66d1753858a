"""How each mode's cost grows with its item count: 1k, 10k and 100k items per mode
(relevance, required, blocks, passages, messages), each input parsed from JSON text as a
user's input is (bench/_inputs.py's as_parsed).

Prints time per item and, for each tenfold step, how much the total grew. Linear
work grows 10x per step and n log n a little more (about 13x from 10k to 100k);
quadratic work would grow about 100x. The first rows, "baseline", are one sort and
one pass over the relevance items in plain Python: they show how much of the growth
comes from the machine (caches and memory) rather than from the algorithm. Every run includes validation, the trace and
the checks (and, beyond the rule, the optimum or its bound).

Run: .venv/bin/python bench/modes.py [--runs N] [--largest N]
"""

import argparse
import gc
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import MAKERS, as_parsed, relevance_input  # noqa: E402
from _minimal import minimal  # noqa: E402
from fitproof import evaluate  # noqa: E402


def per_call(function, count: int) -> float:
    """Seconds per call of ``function``, calling it often enough to take about 0.1 s at
    this item count (a 1,000-item call is a few milliseconds: one call alone is noise)."""
    calls = max(1, 100_000 // count)
    started = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--largest", type=int, default=100_000)
    arguments = parser.parse_args()
    counts = [count for count in (1_000, 10_000, 100_000, 1_000_000) if count <= arguments.largest]
    print(f"every mode, fastest of {arguments.runs} rounds; each round times every size in turn, so that a busy")
    print("moment on this shared machine falls on all sizes (growth: the factor over the tenfold smaller count)")
    makers = {"baseline": relevance_input, **MAKERS}
    for mode, make in makers.items():
        inputs = {count: as_parsed(make(count)) for count in counts}
        if mode != "baseline":
            for count, data in inputs.items():
                report = evaluate(data)
                if not report["pass"]:
                    raise SystemExit(f"{mode}: the benchmark input did not pass: {report['summary'][-200:]}")
        # The baseline row is the least Python can do for the relevance rule (one sort, one
        # pass) on the same items: how much the machine alone adds as they outgrow its caches.
        call = (lambda data: lambda: minimal(data)) if mode == "baseline" else (lambda data: lambda: evaluate(data))
        best = dict.fromkeys(counts, float("inf"))
        for _ in range(arguments.runs):
            for count in counts:
                gc.collect()
                best[count] = min(best[count], per_call(call(inputs[count]), count))
        previous = None
        for count in counts:
            seconds = best[count]
            growth = f"   growth {seconds / previous:5.1f}x{'' if seconds / previous <= 15 else '  (over 15x)'}" if previous else ""
            print(f"  {mode:<10} {count:>9,} items {seconds * 1000:9.1f} ms = {seconds / count * 1e6:6.2f} us/item{growth}")
            previous = seconds


if __name__ == "__main__":
    main()
