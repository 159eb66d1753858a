"""Relevance benchmark at 100,000 items, in one run:

- the project's evaluate() in CPython (validation, trace and checks all on), on the input
  parsed from the JSON text Node reads (bench/_inputs.py's as_parsed says why);
- seed 000's rule in JavaScript under Node (bench/seed000.mjs; Node is needed only here);
- the least Python can do: one sort and one pass, no validation;

printing medians, ratios and peak memory, where evaluate's time goes, and what the
contract alone (ranking plus one trace row per item) costs in CPython; then time per
item at 1k, 10k, 100k and 1M to show how the cost grows. The ratio to the JavaScript time
(rounds alternate the two, the ratio is their median, given with a bootstrap interval); peak
memory during evaluate against the memory of the parsed input.

Run: .venv/bin/python bench/relevance.py [--runs N] [--rounds N] [--items N] [--no-scaling]
"""

import argparse
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import tracemalloc
from itertools import count as counting
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import as_parsed, relevance_input  # noqa: E402
from _minimal import minimal  # noqa: E402
from _timing import median_interval, median_time  # noqa: E402
from fitproof import evaluate  # noqa: E402
from fitproof._base.ordinal import ranked_order  # noqa: E402
from fitproof.modes import relevance  # noqa: E402


def traced_peak(function) -> int:
    gc.collect()
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def input_size(make) -> int:
    gc.collect()
    tracemalloc.start()
    data = make()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del data
    return size


def run_node(data: dict, runs: int) -> dict | None:
    node = shutil.which("node")
    if node is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(data, handle)
    try:
        out = subprocess.run([node, str(HERE / "seed000.mjs"), handle.name, str(runs)], capture_output=True, text=True, check=True)
    finally:
        Path(handle.name).unlink()
    return json.loads(out.stdout)


def stages(data: dict, runs: int) -> list[tuple[str, float]]:
    """Where evaluate's time goes: the mode's steps timed one by one (median of ``runs``)."""
    parsed = relevance.parse(data)
    result = relevance.select(parsed)
    steps = [
        ("validate (parse)", lambda: relevance.parse(data)),
        ("select: rule (sort and pass)", lambda: relevance.rule(parsed)),
        ("select: rule and trace rows", lambda: relevance.select(parsed)),
        ("checks (linear, no re-run)", lambda: relevance.verify(data, result, parsed)),
        ("beyond the rule (exact optimum)", lambda: relevance.beyond_the_rule(parsed, result)),
    ]
    return [(label, median_time(step, runs)[0]) for label, step in steps]


def contract_floor(data: dict, runs: int) -> tuple[float, float]:
    """What the contract alone costs in CPython, with nothing else: ranking the items
    (descending relevance, ties by ordinal id) and building one trace row per item."""
    parsed = relevance.parse(data)
    ranking, _ = median_time(lambda: ranked_order(parsed.ids, parsed.scores, descending=True), runs)
    order, kept, before = relevance.rule(parsed)
    columns = [list(map(column.__getitem__, order)) for column in (parsed.ids, parsed.relevance, parsed.tokens)]
    reasons = list(map(relevance.REASONS.__getitem__, kept))

    def rows():
        return [
            {"position": p, "id": i, "relevance": r, "tokens": t, "remaining_before": b, "kept": k, "reason": w}
            for p, i, r, t, b, k, w in zip(counting(1), *columns, before, kept, reasons)
        ]

    building, built = median_time(rows, runs)
    assert built == relevance.select(parsed)["trace"], "the timed rows must be the report's trace rows"
    return ranking, building


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-scaling", action="store_true")
    arguments = parser.parse_args()

    data = as_parsed(relevance_input(arguments.items))  # as Node's baseline gets it: parsed from JSON text
    print(f"relevance, {arguments.items:,} items, median of {arguments.runs} runs, {arguments.rounds} rounds alternating Node and CPython")
    # Rounds alternate the two sides, so that a neighbour's load on this shared machine
    # falls on both; the ratio is the median of the rounds' ratios.
    ratios, times, js_times, node = [], [], [], None
    for _ in range(arguments.rounds):
        node = run_node(data, arguments.runs)
        ours, report = median_time(lambda: evaluate(data), arguments.runs)
        times.append(ours)
        if node is not None:
            js_times.append(statistics.median(node["times_ms"]) / 1000)
            ratios.append(ours / js_times[-1])
    ours = statistics.median(times)
    floor, floor_selected = median_time(lambda: minimal(data), arguments.runs)
    assert report["pass"] and report["selected"] == floor_selected
    if node is not None:
        assert node["selected"] == len(report["selected"]) and node["first"] == report["selected"][:5]
        js = statistics.median(js_times)
        version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
        print(
            f"  JavaScript (Node {version})     {js * 1000:8.1f} ms   first (cold) run {node['times_ms'][0]:.1f} ms;"
            f" peak RSS {node['peak_rss_mb']:.0f} MB (whole process)"
        )
    print(f"  evaluate (CPython)        {ours * 1000:8.1f} ms   (rounds: {', '.join(f'{t * 1000:.0f}' for t in times)} ms)")
    print(f"  minimal Python (no checks) {floor * 1000:7.1f} ms")
    if node is not None:
        print(f"  ratio evaluate / JavaScript   {statistics.median(ratios):5.2f}x  (rounds: {', '.join(f'{r:.2f}' for r in ratios)})")
        if len(ratios) > 2:  # the rounds' spread is this machine's noise: how far their median could move on it
            low, high = median_interval(ratios)
            print(f"                                (90 % bootstrap interval of that median: {low:.2f}x to {high:.2f}x)")
    print(f"  ratio evaluate / minimal      {ours / floor:5.2f}x")
    size = input_size(lambda: as_parsed(relevance_input(arguments.items)))
    peak = traced_peak(lambda: evaluate(data))
    print(f"  memory: parsed input {size / 1e6:.1f} MB, peak during evaluate {peak / 1e6:.1f} MB, ratio {peak / size:.2f}x")
    print("where evaluate's time goes (each step alone):")
    for label, seconds in stages(data, arguments.runs):
        print(f"  {label:<34} {seconds * 1000:8.1f} ms")
    ranking, building = contract_floor(data, arguments.runs)
    print("what the contract alone costs in CPython (no validation, no checks):")
    print(f"  rank by relevance, ties by id    {ranking * 1000:8.1f} ms")
    print(f"  one trace row per item           {building * 1000:8.1f} ms")
    if node is not None:
        print(
            f"  together                         {(ranking + building) * 1000:8.1f} ms = {(ranking + building) / js:4.2f}x the JavaScript run"
        )

    if arguments.no_scaling:
        return
    print("scaling: time per item (n log n shows as slow growth; the minimal loop shows what memory alone costs):")
    for count in (1_000, 10_000, 100_000, 1_000_000):
        sample = as_parsed(relevance_input(count))
        runs = max(1, min(arguments.runs, 2_000_000 // count))
        seconds, _ = median_time(lambda: evaluate(sample), runs)
        floor, _ = median_time(lambda: minimal(sample), runs)
        print(
            f"  {count:>9,} items  evaluate {seconds * 1000:9.1f} ms = {seconds / count * 1e6:6.2f} us/item"
            f"   minimal {floor / count * 1e6:5.2f} us/item   ratio {seconds / floor:4.1f}x"
        )


if __name__ == "__main__":
    main()
