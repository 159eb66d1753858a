"""Mode ``passages``: whole passages, in retrieval order, against the rendered prompt, after seed 004,
the retrieval example this mode adapts (docs/contract.md, "Where the modes come from").

The retrieval example re-renders and re-counts the complete prompt for every passage, which is
quadratic. With the built-in counters the count of a prompt is a function of sums over
its parts, because every part of the rendering ends in a newline and the next one starts
with a non-space character, so no word runs across two parts and trimming changes
nothing. Each passage's line is therefore counted once and the result is identical to
re-counting every candidate (``tests/package/modes/test_passages.py`` proves it against the example's method).
The exact tokenizers add up over the parts too, counted in context (see ``ExactCount``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, TypedDict

from .._shared import checks as _checks
from ..tokenizers.estimate import estimate_from_stats, utf16_length, word_count
from .._shared.shape import Field, InputShape, read_input
from ..tokenizers import EXACT, count_tokens, read_tokenizer, resolve
from .._base.values import DEFAULT_MARGIN, OVER_LIMIT, Problem, read_count, read_id, read_margin, read_text
from .protocol import Words

NAME = "passages"
WORDS = Words(kept="chosen", left_out="skipped", used="units", limit="limit", listed="passage ids")

ANSWER_CUE = "Answer:"
# A passage, as the passages mode reads it and pack_passages too.
PASSAGE_FIELDS = (Field("id", read_id), Field("text", read_text))


def prompt_prefix(question: str) -> str:
    return "Question: " + question + "\nSources:\n"


def passage_line(passage_id: str, text: str) -> str:
    return f"[{passage_id}] {text}\n"


def render(question: str, passages: Sequence[tuple[str, str]]) -> str:
    """The retrieval example's prompt: the question, a ``[id] text`` line per passage, then the answer cue."""
    return prompt_prefix(question) + "".join(passage_line(key, text) for key, text in passages) + ANSWER_CUE


COUNTED_COST = None
DEFAULT_TOKENIZER = None
COUNTERS = ("words", "estimate") + EXACT
UNIT_NAMES = {"words": "words", "estimate": "estimated tokens", **{name: "tokens" for name in EXACT}}
INPUT_SUMMARY = (
    "Input needs a question, a limit the empty prompt fits, a counter (words, estimate, o200k_base or cl100k_base) and a passages array."
)
PASSAGE_SUMMARY = "Each passage needs a unique non-empty id and a text string."


def read_counter(value: object) -> str:
    # An exact tokenizer's rank file is loaded here, or the path says why not. A model's own tokenizer
    # is refused: the prompt's count is a sum of its parts' counts only for these counters (ExactCount).
    return read_tokenizer(value, COUNTERS, not_for="count passages")


_TOP = (
    Field("mode", read_text),
    Field("question", read_text),
    Field("limit", read_count),
    Field("counter", read_counter),
    Field("passages", lambda value: value),
    Field("margin", read_margin, optional=True, default=DEFAULT_MARGIN),
)
_PASSAGE = PASSAGE_FIELDS
SHAPE = InputShape(_TOP, "passages", _PASSAGE, INPUT_SUMMARY, "passage shape", PASSAGE_SUMMARY)


class WordCount:
    """The retrieval example's fixture counter (seed 004), ``len(text.split())``, as a sum over the prompt's parts."""

    def __init__(self) -> None:
        self.total = 0

    @staticmethod
    def stats(text: str) -> int:
        return len(text.split())

    def add(self, stats: int) -> None:
        self.total += stats

    def units_with(self, stats: int) -> int:
        return self.total + stats


class EstimateCount:
    """The ``blocks`` estimator over the whole prompt, from summed code units, words and newlines."""

    def __init__(self) -> None:
        self.units = self.words = self.newlines = 0

    @staticmethod
    def stats(text: str) -> tuple[int, int, int]:
        return utf16_length(text), word_count(text), text.count("\n")

    def add(self, stats: tuple[int, int, int]) -> None:
        self.units += stats[0]
        self.words += stats[1]
        self.newlines += stats[2]

    def units_with(self, stats: tuple[int, int, int]) -> int:
        return estimate_from_stats(self.units + stats[0], self.words + stats[1], self.newlines + stats[2])

    @property
    def total(self) -> int:
        return estimate_from_stats(self.units, self.words, self.newlines)


class ExactCount:
    """An exact tokenizer's count of the whole prompt, as the sum of its parts' counts.

    Why counting each part alone is exact: byte-pair merges never cross the pre-tokenizer's
    pieces, so a prompt's count is the sum of its pieces' counts, and the parts' pieces are the
    prompt's pieces. Every part but the last ends in a newline and the next starts with ``[`` or
    ``A`` (``Answer:``); no alternative of either pattern runs from a newline into such a
    character, so each part starts a piece. Within a part, the patterns look past its end only for
    its trailing white space (o200k_base's ``\\s+(?!\\S)``; cl100k_base's ``\\s++$`` and
    ``\\s+(?!\\S)``), and that run ends in the part's newline: o200k_base's ``\\s*[\\r\\n]+``
    takes it whole before the look-ahead is tried, and cl100k_base takes it whole alone (``\\s++$``)
    as in the prompt (``\\s*[\\r\\n]``). tests/package/modes/test_passages.py proves the sum equal to tiktoken's
    count of every complete candidate prompt.
    """

    def __init__(self, tokenizer: str) -> None:
        self.tokenizer = tokenizer
        self.total = 0

    def stats(self, text: str) -> int:
        return count_tokens(text, self.tokenizer)

    def add(self, stats: int) -> None:
        self.total += stats

    def units_with(self, stats: int) -> int:
        return self.total + stats


class Tally(Protocol):
    """A running count of the prompt, kept as the counter's own sums (``stats`` of each part)."""

    @property
    def total(self) -> int: ...

    def stats(self, text: str) -> Any: ...

    def add(self, stats: Any) -> None: ...

    def units_with(self, stats: Any) -> int: ...


def _tally_for(counter: str) -> Tally:
    if counter == "words":
        return WordCount()
    if counter == "estimate":
        return EstimateCount()
    return ExactCount(counter)


@dataclass(frozen=True)
class Parsed:
    """The validated input: the passages in retrieval order, each line's sums counted once."""

    question: str
    limit: int
    counter: str  # words, estimate, or an exact tokenizer's name (a model name read as its encoding)
    margin: float
    passages: list[tuple[str, str]]  # (id, text)
    line_stats: list[Any]  # each passage's line as the counter's Tally sums it: a count, or the estimate's parts


class Decision(TypedDict):
    """A row of the trace: one passage, in retrieval order."""

    position: int
    id: str
    cost: int
    remaining_before: int
    units_with: int
    kept: bool
    reason: str


class Result(TypedDict):
    """The report's keys of this mode."""

    counter: str
    limit: int
    units: int
    chosen: list[str]
    skipped: list[str]
    prompt: str
    trace: list[Decision]


def parse(data: object) -> Parsed:
    def base_prompt_fits(top: list, problems: list[Problem]) -> None:
        _, question, limit, counter, _, _ = top
        if question is not None and limit is not None and counter is not None:
            total = _fresh_tally(question, counter).total
            if total > limit:
                problems.append(
                    Problem(
                        ("limit",),
                        OVER_LIMIT,
                        f"the prompt without passages counts {total} {UNIT_NAMES[counter]}, over the limit of {limit}",
                    )
                )

    (_, question, limit, counter, _, margin), (ids, texts) = read_input(data, SHAPE, base_prompt_fits)
    passages = list(zip(ids, texts))
    line_stats = _tally_for(counter).stats
    return Parsed(
        question=question,
        limit=limit,
        counter=counter,
        margin=margin,
        passages=passages,
        line_stats=[line_stats(passage_line(passage_id, text)) for passage_id, text in passages],
    )


def _fresh_tally(question: str, counter: str) -> Tally:
    """The counter's tally of the prompt without passages."""
    tally = _tally_for(counter)
    tally.add(tally.stats(prompt_prefix(question)))
    tally.add(tally.stats(ANSWER_CUE))
    return tally


def select(parsed: Parsed) -> Result:
    limit, tally = parsed.limit, _fresh_tally(parsed.question, parsed.counter)
    chosen: list[tuple[str, str]] = []
    skipped: list[str] = []
    trace: list[Decision] = []
    for position, ((passage_id, text), stats) in enumerate(zip(parsed.passages, parsed.line_stats), 1):
        before = tally.total
        with_it = tally.units_with(stats)
        kept = with_it <= limit
        trace.append(
            {
                "position": position,
                "id": passage_id,
                "cost": with_it - before,
                "remaining_before": limit - before,
                "units_with": with_it,
                "kept": kept,
                "reason": "fits_remaining_budget" if kept else "exceeds_remaining_budget",
            }
        )
        if kept:
            tally.add(stats)
            chosen.append((passage_id, text))
        else:
            skipped.append(passage_id)
    return {
        "counter": parsed.counter,
        "limit": limit,
        "units": tally.total,
        "chosen": [passage_id for passage_id, _ in chosen],
        "skipped": skipped,
        "prompt": render(parsed.question, chosen),
        "trace": trace,
    }


def beyond_the_rule(parsed: Parsed, result: Result) -> dict[str, object]:
    """With the estimate counter, how the choice moves when every count is off by the margin."""
    if parsed.counter != "estimate":
        return {}
    margin, limit, question, counter = parsed.margin, parsed.limit, parsed.question, parsed.counter
    base = set(result["chosen"])
    scenarios: dict[str, dict[str, object]] = {}
    flipped: set[str] = set()
    scales: tuple[tuple[str, Callable[[int], int]], ...] = (
        ("larger", lambda units: math.ceil(units * (1 + margin))),
        ("smaller", lambda units: math.floor(units * (1 - margin))),
    )
    for name, scale in scales:
        tally, chosen = _fresh_tally(question, counter), []
        if scale(tally.total) <= limit:
            for (passage_id, _), stats in zip(parsed.passages, parsed.line_stats):
                if scale(tally.units_with(stats)) <= limit:
                    tally.add(stats)
                    chosen.append(passage_id)
        kept = set(chosen)
        flips = [passage_id for passage_id, _ in parsed.passages if (passage_id in kept) != (passage_id in base)]
        flipped.update(flips)
        scenarios[name] = {
            "flips": flips,
            "units": scale(tally.total),
            "base_fits": scale(_fresh_tally(question, counter).total) <= limit,
        }
    return {
        "sensitivity": {
            "margin": margin,
            "flips": [passage_id for passage_id, _ in parsed.passages if passage_id in flipped],
            "slack": limit - result["units"],
            **scenarios,
        }
    }


def run(data: object) -> Result:
    return select(parse(data))


def succeeded(result: Result) -> bool:
    return True


def summarize(result: Result) -> str:
    chosen = ", ".join(result["chosen"]) or "no passages"
    skipped = f"; skipped {', '.join(result['skipped'])}" if result["skipped"] else ""
    unit = UNIT_NAMES[result["counter"]]
    unit = unit.removesuffix("s") if result["limit"] == 1 else unit  # every unit name is a plural in -s
    return f"Chose {chosen}{skipped}: the prompt counts {result['units']} of {result['limit']} {unit}."


# ---------------------------------------------------------------- independent checks


def _fresh_render(question: str, passages: list[tuple[str, str]]) -> str:
    lines = ["Question: " + question, "Sources:"] + [f"[{key}] {text}" for key, text in passages] + ["Answer:"]
    return "\n".join(lines)


def verify(data: object, result: Result, parsed: Parsed | None = None) -> list[_checks.Check]:
    """The checks, on the raw input (read again here, not from ``parsed``) and the checks' own counting."""
    assert isinstance(data, dict)  # evaluate verifies only an input its parse read as an object
    limit = _checks.raw_number(data["limit"])
    counter = resolve(data["counter"])  # a model name (gpt-4o) is its encoding
    passages = [(passage["id"], passage["text"]) for passage in data["passages"]]
    text_of = dict(passages)
    chosen, skipped = result["chosen"], result["skipped"]

    # a text's parts and their total: a count and itself, or the estimate's (units, words, newlines)
    parts: Callable[[str], Any]
    total: Callable[[Any], int]
    if counter == "words":

        def recount(text: str) -> int:
            return len(text.split())

        parts = recount

        def total(sums: int) -> int:
            return sums
    elif counter in EXACT:

        def recount(text: str) -> int:
            return count_tokens(text, counter)

        parts = recount

        def total(sums: int) -> int:
            return sums
    else:
        recount = _checks.recount_estimate
        parts = _checks.estimate_parts

        def total(sums: tuple) -> int:
            return _checks.estimate_of_parts(*sums)

    def add(a: Any, b: Any) -> Any:
        return a + b if counter != "estimate" else tuple(x + y for x, y in zip(a, b))

    def within_limit() -> Iterator[str]:
        units = recount(result["prompt"])
        if units != result["units"]:
            yield f"the prompt re-counts to {units}, the report says {result['units']}"
        if units > limit:
            yield f"the prompt re-counts to {units}, over the limit of {limit}"

    def fresh_render() -> Iterator[str]:
        if any(passage_id not in text_of for passage_id in chosen):
            yield "a chosen id is not an input passage"
        elif result["prompt"] != _fresh_render(data["question"], [(key, text_of[key]) for key in chosen]):
            yield "the prompt differs from a fresh render of the chosen passages"

    def retrieval_order() -> Iterator[str]:
        kept = set(chosen)
        if len(kept) != len(chosen) or kept & set(skipped) or sorted(chosen + skipped) != sorted(text_of):
            yield "chosen and skipped do not split the passages into two"
            return
        if chosen != [key for key, _ in passages if key in kept]:
            yield "the chosen passages are not in retrieval order"

    def did_not_fit() -> Iterator[str]:
        # Replay with the check's own counting; every part of the rendering ends in a
        # newline and the next starts with a non-space, so counts of the parts add up.
        sums = add(parts("Question: " + data["question"] + "\nSources:\n"), parts("Answer:"))
        kept = set(chosen)
        for key, text in passages:
            with_it = add(sums, parts(f"[{key}] {text}\n"))
            fits = total(with_it) <= limit
            if key in kept:
                if not fits:
                    yield f"chosen passage {key!r} makes the prompt count {total(with_it)}, over {limit}"
                    return
                sums = with_it
            elif fits:
                yield f"skipped passage {key!r} would have fit: the prompt would count {total(with_it)} of {limit}"
                return

    return [
        _checks.verdict("prompt within limit", within_limit()),
        _checks.verdict("prompt is a fresh render", fresh_render()),
        _checks.verdict("retrieval order kept", retrieval_order()),
        _checks.verdict("skipped passages did not fit", did_not_fit()),
    ]
