"""The judge of mode passages: the prompt with the claimed passages counted by the checks'
own estimator (or the named counter), the rule's walk in retrieval order replayed up to the
first passage where the claim departs from it, and the claimed prompt compared with the one
rendered from the claim's selection.
"""

from __future__ import annotations

from typing import Any

from ..._base.values import plural
from ...modes import passages as passages_mode
from .reading import Claim
from .verdicts import BUDGET, RULE, USED, Failure, _failure, _flags, _names, _prompt_failures, _resolve, _tokens_left


def _judge_passages(parsed: passages_mode.Parsed, claim: Claim, proven: list | None = None) -> list[Failure]:
    from ..._shared.checks import estimate_of_parts, estimate_parts  # the checks' estimator, apart from the rule's

    passages, limit, counter, question = parsed.passages, parsed.limit, parsed.counter, parsed.question
    ids = [passage_id for passage_id, _ in passages]
    stats = parsed.line_stats
    base: int | tuple[int, ...]  # the sums of the prompt without passages: an estimate's parts, else a count
    if counter == "estimate":
        base = tuple(map(sum, zip(estimate_parts("Question: " + question + "\nSources:\n"), estimate_parts("Answer:"))))

        def add(a: Any, b: Any) -> Any:
            return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

        def total(sums: Any) -> int:
            return estimate_of_parts(*sums)
    else:
        if counter == "words":

            def part(text: str) -> int:
                return len(text.split())
        else:
            from ...tokenizers import count_tokens

            def part(text: str) -> int:
                return count_tokens(text, counter)

        base = part("Question: " + question + "\nSources:\n") + part("Answer:")

        def add(a: Any, b: Any) -> Any:
            return a + b

        def total(sums: Any) -> int:
            return sums

    unit = {"words": "word", "estimate": "estimated token"}.get(counter, "token")
    positions, failures = _resolve(claim["ids"], ids)
    claimed = _flags(positions, len(ids))
    in_order = sorted(positions)  # retrieval order
    sums = base
    for position in in_order:
        sums = add(sums, stats[position])
    units = total(sums)
    if units > limit:
        failures.append(
            _failure(
                BUDGET, f"the prompt with the claimed passages counts {plural(units, unit)}, over the limit of {limit} by {units - limit}"
            )
        )
    # The rule's walk, in retrieval order, up to the first passage where the claim departs from it.
    kept_before: list[int]
    sums, kept_before = base, []
    for position, line in enumerate(stats):
        before = total(sums)
        with_it = add(sums, line)
        fits = total(with_it) <= limit
        if fits != bool(claimed[position]):
            passage_id, left, cost = ids[position], limit - before, total(with_it) - before
            if fits:
                detail = f"{passage_id} fits the {plural(left, unit)} that {'remains' if left == 1 else 'remain'} (it adds {cost}) but is not claimed"
            else:
                context = (
                    f"after {_names(ids, kept_before)} {_tokens_left(left, unit)}"
                    if kept_before
                    else f"the prompt without passages leaves {plural(left, unit)}"
                )
                detail = f"{passage_id} is claimed, but {context} and {passage_id} adds {cost}"
            failures.append(_failure(RULE, detail, passage_id))
            break
        if fits:
            sums = with_it
            kept_before.append(position)
    if claim["prompt"] is not None:
        rendered = "\n".join(["Question: " + question, "Sources:"] + [f"[{ids[p]}] {passages[p][1]}" for p in in_order] + ["Answer:"])
        failures += _prompt_failures(claim["prompt"], rendered)
    if claim["used"] is not None and claim["used"] != units:
        failures.append(_failure(USED, f"the claim says used {claim['used']}, but the prompt with the claimed passages counts {units}"))
    return failures
