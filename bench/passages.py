"""Passages benchmark: the `passages` mode (linear) against the seed's naive method
(re-render and re-count every complete candidate prompt), in one run, same output.

Compares the time with the naive method's.
Run: .venv/bin/python bench/passages.py [--passages N] [--runs N]
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))
sys.path.insert(0, str(HERE))

from _inputs import passages_input  # noqa: E402
from _timing import median_time  # noqa: E402
from fitproof import evaluate  # noqa: E402
from fitproof.tokenizers.estimate import estimate_tokens  # noqa: E402


def naive(data: dict, count) -> tuple:
    def render(parts):
        return "Question: " + data["question"] + "\nSources:\n" + "".join(f"[{key}] {text}\n" for key, text in parts) + "Answer:"

    chosen, skipped = [], []
    for passage in data["passages"]:
        pair = (passage["id"], passage["text"])
        if count(render(chosen + [pair])) <= data["limit"]:
            chosen.append(pair)
        else:
            skipped.append(pair[0])
    prompt = render(chosen)
    return [key for key, _ in chosen], skipped, prompt, count(prompt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    counters = {"words": lambda text: len(text.split()), "estimate": estimate_tokens}
    print(f"{arguments.passages} passages of 20-120 words, median of {arguments.runs} runs")
    for name, count in counters.items():
        data = passages_input(arguments.passages, counter=name)
        fast, report = median_time(lambda: evaluate(data), arguments.runs)
        slow, expected = median_time(lambda: naive(data, count), arguments.runs)
        same = (report["chosen"], report["skipped"], report["prompt"], report["units"]) == expected
        print(
            f"  counter {name:8}  mode {fast * 1000:8.1f} ms (validation, trace and checks included)   "
            f"naive {slow * 1000:9.1f} ms   ratio {slow / fast:6.0f}x   same output: {same}   "
            f"chosen {len(report['chosen'])}, skipped {len(report['skipped'])}"
        )


if __name__ == "__main__":
    main()
