"""The exact search behind `optimal` at its documented work bound.

Times the search for 200 items with a budget of 8,000 tokens (1.6 million cells, within
the 2,000,000-cell bound), and the whole evaluate() around it, in CPython.
Run: .venv/bin/python bench/optimal.py [--runs N]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from context_budget import evaluate  # noqa: E402
from context_budget._optimal import WORK_BOUND, best_subset  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    rng = random.Random(7)
    items = [{"id": f"doc-{index:03d}", "relevance": round(rng.uniform(0, 10), 2), "tokens": rng.randint(20, 400)} for index in range(200)]
    data = {"budget": 8000, "items": items}
    ids, costs, values = [item["id"] for item in items], [item["tokens"] for item in items], [item["relevance"] for item in items]
    searches, evaluations = [], []
    for _ in range(arguments.runs):
        started = time.perf_counter()
        result = best_subset(ids, costs, values, 8000)
        searches.append(time.perf_counter() - started)
        started = time.perf_counter()
        report = evaluate(data)
        evaluations.append(time.perf_counter() - started)
    assert result["exact"] and report["optimal"]["exact"]
    print(f"200 items, budget 8,000: {200 * 8001:,} cells (work bound {WORK_BOUND:,})")
    print(f"  exact search   median {statistics.median(searches) * 1000:7.1f} ms (max {max(searches) * 1000:.1f} ms)")
    print(f"  whole evaluate median {statistics.median(evaluations) * 1000:7.1f} ms")
    print(f"  greedy value {report['optimal']['greedy_value']}, best value {report['optimal']['value']}")


if __name__ == "__main__":
    main()
