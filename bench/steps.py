"""Where evaluate's time goes, step by step, and each step's share of the total.

Steps: validate (parse), select (the rule and its trace rows), checks (verify), optimum
(beyond the rule: `optimal`, and `sensitivity` where costs are estimated). Measured on
the realistic workload (many small requests: bench/_inputs.py) and on relevance, required
and blocks at 100,000 items. Each step alone, fastest of --runs (small requests) or
median (large inputs). Run it on an older checkout to compare (--package DIR).

Run: .venv/bin/python bench/steps.py [--runs N] [--requests N] [--items N] [--package DIR]
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def step_times(mode, data: dict, runs: int, measure) -> dict:
    parsed = mode.parse(data)
    result = mode.select(parsed)
    times = {
        "validate": measure(lambda: mode.parse(data), runs),
        "select": measure(lambda: mode.select(parsed), runs),
        "checks": measure(lambda: mode.verify(data, result, parsed), runs),
    }
    beyond = getattr(mode, "beyond_the_rule", None)
    times["optimum"] = measure(lambda: beyond(parsed, result), runs) if beyond else 0.0
    return times


def show(label: str, times: dict, per: int = 1, unit: str = "ms", scale: float = 1e3) -> None:
    total = sum(times.values())
    shares = "  ".join(f"{name} {seconds / per * scale:7.1f} {unit} ({seconds / total * 100:4.1f} %)" for name, seconds in times.items())
    print(f"  {label:<28} total {total / per * scale:8.1f} {unit}:  {shares}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--package", default=str(HERE.parent / "py"), help="the py/ directory to measure")
    arguments = parser.parse_args()
    sys.path.insert(0, arguments.package)
    sys.path.insert(0, str(HERE))
    from _inputs import MAKERS, as_parsed, realistic_requests
    from _timing import fastest, median_time
    from fitproof.modes import blocks, relevance, required

    print(f"package {arguments.package}")
    totals: dict = {}
    for request in realistic_requests(arguments.requests, seed=13):
        for name, seconds in step_times(relevance, request, arguments.runs, fastest).items():
            totals[name] = totals.get(name, 0.0) + seconds
    show(f"{arguments.requests} realistic requests", totals, per=arguments.requests, unit="us", scale=1e6)
    for mode in (relevance, required, blocks):
        data = as_parsed(MAKERS[mode.NAME](arguments.items))
        show(
            f"{mode.NAME} {arguments.items:,} items", step_times(mode, data, max(1, arguments.runs // 2), lambda f, r: median_time(f, r)[0])
        )


if __name__ == "__main__":
    main()
