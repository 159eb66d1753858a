"""How each mode's cost grows with its item count: 1k, 10k and 100k items per mode
(relevance, required, blocks, passages, messages), each input parsed from JSON text as a
user's input is (bench/_inputs.py's as_parsed). Target (issue 13): each tenfold step <= 15x.

Prints time per item and, for each tenfold step, how much the total grew. Linear
work grows 10x per step and n log n a little more (about 13x from 10k to 100k);
quadratic work would grow about 100x. The first rows, "baseline", are one sort and
one pass over the relevance items in plain Python: they show how much of the growth
comes from the machine (caches and memory) rather than from the algorithm. Every run includes validation, the trace and
the checks (and, beyond the rule, the optimum or its bound).

Run: .venv/bin/python bench/modes.py [--runs N] [--largest N]
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import MAKERS, as_parsed, relevance_input  # noqa: E402
from _minimal import minimal  # noqa: E402
from _timing import median_time  # noqa: E402
from context_budget import evaluate  # noqa: E402


def evaluate_seconds(data: dict, runs: int) -> float:
    seconds, report = median_time(lambda: evaluate(data), runs)
    if not report["pass"]:
        raise SystemExit(f"{data.get('mode', 'relevance')}: the benchmark input did not pass: {report['summary'][-200:]}")
    return seconds


def baseline_seconds(count: int, runs: int) -> float:
    """The least Python can do for the relevance rule (one sort, one pass) on the same
    shuffled item objects: how much the machine alone adds as the items outgrow its caches."""
    data = as_parsed(relevance_input(count))
    return median_time(lambda: minimal(data), runs)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--largest", type=int, default=100_000)
    arguments = parser.parse_args()
    counts = [count for count in (1_000, 10_000, 100_000, 1_000_000) if count <= arguments.largest]
    print(f"every mode, median of {arguments.runs} runs (growth: the total's factor over the previous, tenfold smaller count)")
    rows = {"baseline": lambda count: baseline_seconds(count, arguments.runs)}
    rows.update({mode: (lambda count, make=make: evaluate_seconds(as_parsed(make(count)), arguments.runs)) for mode, make in MAKERS.items()})
    for mode, measure in rows.items():
        previous = None
        for count in counts:
            seconds = measure(count)
            growth = f"   growth {seconds / previous:5.1f}x{'' if seconds / previous <= 15 else '  (over 15x)'}" if previous else ""
            print(f"  {mode:<10} {count:>9,} items {seconds * 1000:9.1f} ms = {seconds / count * 1e6:6.2f} us/item{growth}")
            previous = seconds


if __name__ == "__main__":
    main()
