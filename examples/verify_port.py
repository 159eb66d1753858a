"""Verify another implementation of mode relevance against this one, with claims.

    .venv/bin/python examples/verify_port.py [--cases N] [--seed S] -- COMMAND [ARG...]

COMMAND reads one JSON input per line on standard input and writes, for each, one line with
its selection as a claim: {"selected": [ids], "used"?: n}. The script generates N inputs (ties,
items that do not fit, empty budgets), runs COMMAND once on all of them, and judges every
answer with ``verify_claim``. It prints the first disagreement with the claim's failures and
exits 1, or says that every answer holds and exits 0; a port that cannot be run is exit 2.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys

from fitproof import evaluate, verify_claim


def inputs(cases: int, seed: int) -> list[dict]:
    """Small relevance inputs: few relevance values (so ties are common), costs that often do not fit."""
    rng = random.Random(seed)
    made = []
    for _ in range(cases):
        count = rng.randint(0, 7)
        items = [{"id": f"doc-{number}", "relevance": rng.randint(1, 4), "tokens": rng.randint(0, 9)}
                 for number in rng.sample(range(1, 20), count)]
        made.append({"budget": rng.randint(0, 20), "items": items})
    return made


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]: the port to run")
    arguments = parser.parse_args(argv)
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("give the port's command after --")
    cases = inputs(arguments.cases, arguments.seed)
    feed = "".join(json.dumps(case) + "\n" for case in cases)
    try:
        ran = subprocess.run(command, input=feed, capture_output=True, text=True, check=False)
    except OSError as error:
        print(f"cannot run {command[0]}: {error.strerror or error}", file=sys.stderr)
        return 2
    if ran.returncode != 0:
        print(f"the port exited {ran.returncode}: {ran.stderr.strip()[-500:]}", file=sys.stderr)
        return 2
    answers = ran.stdout.splitlines()
    if len(answers) != len(cases):
        print(f"the port answered {len(answers)} lines for {len(cases)} inputs", file=sys.stderr)
        return 1
    for number, (case, answer) in enumerate(zip(cases, answers), 1):
        try:
            verdict = verify_claim(case, json.loads(answer))
        except ValueError as error:  # not JSON, or not a claim (InvalidInputError is a ValueError)
            failures = [f"not a claim: {error}"]
        else:
            if verdict.holds:
                continue
            failures = [f"{failure.check}: {failure.detail}" for failure in verdict.failures]
        print(f"input {number} of {len(cases)} (seed {arguments.seed}): the port disagrees with the rule")
        print(f"  input:  {json.dumps(case)}")
        print(f"  port:   {answer}")
        print(f"  rule:   {json.dumps({'selected': evaluate(case)['selected']})}")
        print("\n".join(f"  {failure}" for failure in failures))
        return 1
    print(f"{len(cases)} inputs (seed {arguments.seed}): every answer of the port holds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
