"""Claims benchmark: evaluate with a claim to judge against evaluate without one, in one run.

- realistic requests: many relevance requests of 10-200 items (bench/_inputs.py's
  realistic_requests), each with the claim another implementation would send back: the
  rule's own selection, shuffled, and its used figure;
- 100,000 items in each mode (relevance and required by default; --modes for the others),
  with the same kind of claim (blocks and passages with their prompt too).

The claim is made before the timing (from a run without it), so what is timed is
evaluate reading and judging it. Times are CPU time (process_time), each side's fastest of
alternated runs in a round, so that a neighbour's load on this shared machine falls on both;
the ratio is the median of the rounds' ratios.
Run: .venv/bin/python bench/claims.py [--runs N] [--rounds N] [--requests N] [--items N] [--modes relevance,required,...]
"""

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import MAKERS, as_parsed, realistic_requests  # noqa: E402
from _timing import median_interval  # noqa: E402
from fitproof import evaluate  # noqa: E402


def claim_for(data: dict, rng: random.Random) -> dict:
    """The claim a correct implementation would make: the rule's selection in another order, with used."""
    report = evaluate(data)
    mode = report["mode"]
    if mode in ("relevance", "required"):
        claim = {"selected": list(report["selected"]), "used": report["used"]}
        key = "selected"
    elif mode == "blocks":
        claim = {"included": [entry["id"] for entry in report["included"]], "used": report["used"], "prompt": report["prompt"]}
        key = "included"
    elif mode == "passages":
        claim = {"chosen": list(report["chosen"]), "used": report["units"], "prompt": report["prompt"]}
        key = "chosen"
    else:
        claim = {"kept": list(report["kept"]), "used": report["tokens"]}
        key = "kept"
    rng.shuffle(claim[key])
    return claim


def cpu_time(function) -> float:
    """CPU seconds of one call, after a full collection: on a shared machine a neighbour's load
    stretches wall time (this one's load average often passes its core count) far more than CPU time."""
    gc.collect()
    started = time.process_time()
    function()
    return time.process_time() - started


def compare(label: str, without, with_claim, runs: int, rounds: int) -> float:
    """Each round times the two sides alternately, ``runs`` times each, and keeps each side's
    fastest; prints the medians over the rounds and returns the median of the rounds' ratios."""
    ratios, plain_times, claim_times = [], [], []
    for _ in range(rounds):
        plain, judged = float("inf"), float("inf")
        for _ in range(runs):
            plain = min(plain, cpu_time(without))
            judged = min(judged, cpu_time(with_claim))
        plain_times.append(plain)
        claim_times.append(judged)
        ratios.append(judged / plain)
    ratio = statistics.median(ratios)
    low, high = median_interval(ratios) if len(ratios) > 2 else (min(ratios), max(ratios))
    print(
        f"  {label:<14} without {statistics.median(plain_times) * 1000:9.1f} ms   with claim {statistics.median(claim_times) * 1000:9.1f} ms"
        f"   ratio {ratio:4.2f}x (90 % interval {low:.2f}-{high:.2f})"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument(
        "--modes",
        default="relevance,required",
        help="comma-separated modes at --items items (all: relevance,required,blocks,passages,messages)",
    )
    arguments = parser.parse_args()
    rng = random.Random(0)

    print(
        f"claims: evaluate with a claim (the rule's selection, shuffled, with used) / evaluate without; "
        f"CPU time, fastest of {arguments.runs} alternated runs, {arguments.rounds} rounds"
    )
    requests = [as_parsed(data) for data in realistic_requests(arguments.requests)]
    claimed = [{**data, "claim": claim_for(data, rng)} for data in requests]
    assert all(evaluate(data)["claim"]["pass"] for data in claimed)
    size = statistics.median(len(data["items"]) for data in requests)
    print(f"realistic requests: {arguments.requests:,} relevance requests of 10-200 items (median {size:.0f}), all evaluated per run")
    ratios = [
        compare(
            "all requests",
            lambda: [evaluate(data) for data in requests],
            lambda: [evaluate(data) for data in claimed],
            arguments.runs,
            arguments.rounds,
        )
    ]

    print(f"{arguments.items:,} items, one input per mode:")
    for mode in arguments.modes.split(","):
        data = as_parsed(MAKERS[mode](arguments.items))
        with_claim = {**data, "claim": claim_for(data, rng)}
        started = time.perf_counter()
        report = evaluate(with_claim)
        assert report["claim"]["pass"], report["claim"]["failures"][:3]
        runs = arguments.runs if time.perf_counter() - started < 2 else max(1, arguments.runs // 2)
        ratios.append(compare(mode, lambda: evaluate(data), lambda: evaluate(with_claim), runs, arguments.rounds))
    print(f"worst ratio {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
