"""`fitproof mcp`: start-up to first answer, and per-call latency, against peers in the same run.

Start-up to first answer: from spawning `.venv/bin/fitproof mcp` to reading its answer to
`initialize` (the moment an MCP client can go on), the fastest and the median of ROUNDS
spawns. Beside it, in the same run and interleaved round by round, two peers: `python -c pass`
(the interpreter alone) and `fitproof --version` (the package and the command line
imported, then exit). Ratios against them are what stays comparable on a shared machine.

Per call: CALLS calls of each tool in one session, one at a time (send, wait for the answer),
after one warm-up call each (the first `count_tokens` loads the rank file): the median and the
95th percentile. The first call of a fresh process is timed too (rank file loading included).

(Not bench/mcp.py: pytest puts bench/ on sys.path, where that name would hide the `mcp` SDK the tests import.)

Loopback only (pipes to a child), bounded (ROUNDS spawns, 4 x CALLS calls).
Run: .venv/bin/python bench/mcp_stdio.py [--rounds N] [--calls N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "fitproof"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
CALLS = {
    "count_tokens": {"text": "Order ORD-884120 shipped 2026-03-09 and arrived four days late.", "tokenizer": "o200k_base"},
    "check": {
        "input": {
            "budget": 7,
            "items": [
                {"id": "A", "relevance": 9, "tokens": 4},
                {"id": "B", "relevance": 8, "tokens": 5},
                {"id": "C", "relevance": 7, "tokens": 3},
            ],
        }
    },
    "trim_messages": {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Where is my order?"},
            {"role": "assistant", "content": "It shipped on Friday."},
            {"role": "user", "content": "And the invoice?"},
        ],
        "limit": 25,
        "tokenizer": "gpt-4o",
    },
    "verify_claim": {
        "input": {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokens": 4}, {"id": "B", "relevance": 8, "tokens": 5}]},
        "claim": {"selected": ["B"]},
    },
}


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def spawn() -> subprocess.Popen:
    return subprocess.Popen([str(SCRIPT), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def first_answer() -> float:
    """Seconds from spawning the server to reading its initialize answer."""
    started = time.perf_counter()
    server = spawn()
    server.stdin.write(line(INITIALIZE))
    server.stdin.flush()
    answer = server.stdout.readline()
    elapsed = time.perf_counter() - started
    server.stdin.close()
    server.wait(timeout=60)
    assert json.loads(answer)["result"]["protocolVersion"] == "2025-11-25", answer
    return elapsed


def peer(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, timeout=60)
    return time.perf_counter() - started


def per_call(calls: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    server = spawn()
    server.stdin.write(line(INITIALIZE))
    server.stdin.flush()
    server.stdout.readline()
    times: dict[str, list[float]] = {name: [] for name in CALLS}
    first: dict[str, float] = {}
    request = 1
    for name, arguments in CALLS.items():
        for index in range(calls + 1):
            message = line({"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
            request += 1
            started = time.perf_counter()
            server.stdin.write(message)
            server.stdin.flush()
            answer = json.loads(server.stdout.readline())
            elapsed = time.perf_counter() - started
            assert "result" in answer and not answer["result"]["isError"], answer
            if index == 0:
                first[name] = elapsed
            else:
                times[name].append(elapsed)
    server.stdin.close()
    server.wait(timeout=60)
    return times, first


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=15)
    options.add_argument("--calls", type=int, default=300)
    arguments = options.parse_args()
    if not SCRIPT.exists():
        sys.exit(f"no {SCRIPT}: run this with the checkout's .venv/bin/python (scripts/setup)")
    results: dict[str, list[float]] = {"mcp: spawn to initialize answer": [], "python -c pass": [], "fitproof --version": []}
    for _ in range(arguments.rounds):  # interleaved: a busy moment of the machine weighs on all three alike
        results["mcp: spawn to initialize answer"].append(first_answer())
        results["python -c pass"].append(peer([sys.executable, "-c", "pass"]))
        results["fitproof --version"].append(peer([str(SCRIPT), "--version"]))
    print(f"start-up, {arguments.rounds} rounds (fastest, median)")
    for name, values in results.items():
        print(f"  {name:<34} {milliseconds(min(values))} {milliseconds(statistics.median(values))}")
    mcp = statistics.median(results["mcp: spawn to initialize answer"])
    for name in ("python -c pass", "fitproof --version"):
        print(f"  mcp / {name:<28} {mcp / statistics.median(results[name]):6.2f}x (medians)")
    times, first = per_call(arguments.calls)
    print(f"per call, {arguments.calls} calls each in one session (median, 95th percentile; first call of the process)")
    for name, values in times.items():
        values.sort()
        print(
            f"  {name:<14} {milliseconds(statistics.median(values))} {milliseconds(values[int(len(values) * 0.95) - 1])}"
            f"   first {milliseconds(first[name])}"
        )


if __name__ == "__main__":
    main()
