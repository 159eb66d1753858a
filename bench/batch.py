"""Many requests through `check --jsonl`, whole process, against Node on the same lines, in one run.

Writes the realistic workload (bench/_inputs.py: 10-200 items, budgets 1,000-8,000, costs
20-600) as a JSONL file, then times, as whole processes (start-up included):
- Node running seed 000's evaluate() on each line and writing each result as a JSON line
  (bench/seed000_lines.mjs), the baseline;
- `python -m fitproof check --jsonl FILE` with --jobs 1 and --jobs 2;
and prints each against the baseline. Also prints where a
line's time goes (parse, evaluate and its optimum, the envelope written), the start-up of
a `check` on a 3-item input and evaluate() on 3 items.

Run: .venv/bin/python bench/batch.py [--lines N] [--runs N]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "py"
sys.path.insert(0, str(PACKAGE))
sys.path.insert(0, str(HERE))

from _inputs import realistic_requests  # noqa: E402

SMALL = {
    "budget": 7,
    "items": [
        {"id": "A", "relevance": 0.9, "tokens": 4},
        {"id": "B", "relevance": 0.8, "tokens": 5},
        {"id": "C", "relevance": 0.5, "tokens": 3},
    ],
}


def process_seconds(command: list[str], stdin: bytes | None = None) -> tuple[float, bytes]:
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env={"PYTHONPATH": str(PACKAGE), "PATH": "/usr/bin:/bin"})
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1) or done.stderr:
        raise SystemExit(f"{command[:4]} failed: {done.stderr.decode()[-500:]}")
    return seconds, done.stdout


def fastest(command: list[str], runs: int, stdin: bytes | None = None) -> float:
    return min(process_seconds(command, stdin)[0] for _ in range(runs))


def per_line_steps(count: int) -> None:
    """Where a line's time goes, in this process: the strict parse, evaluate (with and without
    the optimum) and writing the envelope, each over the same lines, fastest of 3 passes."""
    from fitproof import evaluate
    from fitproof._base import strict_json as _strict_json
    from fitproof._envelope import to_json
    from fitproof.modes import relevance

    texts = [json.dumps(request) for request in realistic_requests(min(count, 2_000), seed=20)]
    documents = [_strict_json.loads(text) for text in texts]
    envelopes = [{"ok": True, "result": evaluate(document), "input_line": 1} for document in documents]

    def fastest_pass(step) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            step()
            best = min(best, time.perf_counter() - started)
        return best / len(texts) * 1e6

    with_optimum = relevance.beyond_the_rule
    parse = fastest_pass(lambda: [_strict_json.loads(text) for text in texts])
    full = fastest_pass(lambda: [evaluate(document) for document in documents])
    relevance.beyond_the_rule = lambda parsed, result: {}
    try:
        bare = fastest_pass(lambda: [evaluate(document) for document in documents])
    finally:
        relevance.beyond_the_rule = with_optimum
    write = fastest_pass(lambda: [to_json(envelope) for envelope in envelopes])
    print(
        f"  per line, in one process ({len(texts):,} lines): strict parse {parse:5.0f} us, evaluate {full:5.0f} us "
        f"({full - bare:.0f} us of it the optimum), envelope written {write:5.0f} us"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    node = shutil.which("node")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "requests.jsonl"
        with path.open("w") as handle:
            for request in realistic_requests(arguments.lines, seed=20):
                handle.write(json.dumps(request) + "\n")
        size = path.stat().st_size
        print(f"{arguments.lines:,} realistic requests ({size / 1e6:.1f} MB), whole processes, fastest of {arguments.runs} rounds")
        commands = {"baseline": [node, str(HERE / "seed000_lines.mjs"), str(path)]} if node else {}
        for jobs in (1, 2):
            commands[jobs] = [sys.executable, "-m", "fitproof", "check", "--jsonl", "--jobs", str(jobs), str(path)]
        times: dict = {name: [] for name in commands}
        for _ in range(arguments.runs):  # round after round, so that every command sees the same machine load
            for name, command in commands.items():
                seconds, out = process_seconds(command)
                times[name].append(seconds)
                lines = out.splitlines()
                assert len(lines) == arguments.lines and all(json.loads(line)["ok"] for line in lines[:50])
        baseline = min(times["baseline"]) if node else None
        if baseline:
            print(f"  Node, seed 000 per line (baseline)  {baseline:7.2f} s = {baseline / arguments.lines * 1e6:6.1f} us/line")
        for jobs in (1, 2):
            seconds = min(times[jobs])
            ratio = f"   {seconds / baseline:5.2f}x the baseline" if baseline else ""
            print(f"  check --jsonl --jobs {jobs}               {seconds:7.2f} s = {seconds / arguments.lines * 1e6:6.1f} us/line{ratio}")
    per_line_steps(arguments.lines)
    small = json.dumps(SMALL).encode()
    start_up = fastest([sys.executable, "-m", "fitproof", "check", "-"], max(5, arguments.runs), small)
    bare = fastest([sys.executable, "-c", "pass"], max(5, arguments.runs))
    print(f"  one `check` of 3 items, whole process {start_up * 1000:6.0f} ms (a bare `python -c pass`: {bare * 1000:.0f} ms)")
    from fitproof import evaluate

    best = float("inf")
    for _ in range(20):
        started = time.perf_counter()
        for _ in range(1000):
            evaluate(SMALL)
        best = min(best, (time.perf_counter() - started) / 1000)
    print(f"  evaluate on 3 items                   {best * 1e6:6.1f} us (fastest of 20 x 1,000 calls)")


if __name__ == "__main__":
    main()
