"""What the exact `optimal` adds to evaluate() on requests as users send them.

Generates the realistic workload (bench/_inputs.py: 10-200 items, budgets 1,000-8,000,
costs 20-600, retriever-like scores), then in one run times evaluate() with the optimum
and with it switched off (the baseline), request by request, and prints the share the optimum
adds, how many requests it solved exactly, and the search's time per request
(median, 99th percentile, worst).
Run: .venv/bin/python bench/optimal.py [--requests N] [--runs N]
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import realistic_requests  # noqa: E402
from _timing import fastest  # noqa: E402
from fitproof import evaluate  # noqa: E402
from fitproof._shared.optimal import WORK_BOUND, _fractional_bound, best_subset  # noqa: E402
from fitproof.modes import relevance  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    requests = realistic_requests(arguments.requests, seed=13)
    with_optimum, without = relevance.beyond_the_rule, (lambda parsed, result: {})
    on = off = 0.0
    exact, searches, bounds = 0, [], 0.0
    for request in requests:  # each request timed with and without, so both see the same load
        relevance.beyond_the_rule = with_optimum
        on += fastest(lambda: evaluate(request), arguments.runs)
        relevance.beyond_the_rule = without
        off += fastest(lambda: evaluate(request), arguments.runs)
        items = request["items"]
        columns = [item["id"] for item in items], [item["tokens"] for item in items], [float(item["relevance"]) for item in items]
        searches.append(fastest(lambda: best_subset(*columns, request["budget"]), arguments.runs))
        # The first step alone: the fractional bound (ratios, their sort, the fill).
        ids, costs, values = columns
        bounds += fastest(lambda: _fractional_bound(values, costs, request["budget"]), arguments.runs)
        exact += best_subset(*columns, request["budget"])["exact"]
    relevance.beyond_the_rule = with_optimum
    searches.sort()
    count = len(requests)
    print(f"{count:,} realistic requests (10-200 items, budgets 1,000-8,000, costs 20-600); search bound {WORK_BOUND:,} nodes")
    print(f"  evaluate without the optimum (baseline) {off / count * 1e6:7.1f} us per request (fastest of {arguments.runs} per request)")
    print(f"  evaluate with the optimum               {on / count * 1e6:7.1f} us per request")
    print(f"  the optimum adds {(on - off) / off * 100:.1f} % to evaluate")
    print(f"  exact on {exact:,} of {count:,} ({exact / count * 100:.2f} %)")
    print(f"  the fractional bound alone (ratios, sort, fill): {bounds / count * 1e6:.1f} us = {bounds / off * 100:.1f} % of the baseline")
    print(
        f"  search alone: mean {sum(searches) / count * 1e6:.0f} us, median {searches[count // 2] * 1e6:.0f} us, "
        f"99th percentile {searches[int(count * 0.99)] * 1e6:.0f} us, worst {searches[-1] * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
