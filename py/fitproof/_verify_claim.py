"""``verify_claim``: the typed way to judge a claim, beside ``evaluate``'s report.

A way in, as ``select`` is, not a part of ``_evaluation/claims``: it reads ``evaluate``'s report
and raises ``select``'s ``InvalidInputError`` (``_selection.invalid_input_error``), and
``_evaluation/claims``, which ``evaluate`` imports when an input has a claim, may import neither
(imports run downwards: docs/design.md, "Layers").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._evaluation.evaluate import evaluate_with_problems
from ._selection import invalid_input_error


@dataclass(frozen=True)
class ClaimFailure:
    """One promise the claim breaks: the ``check`` (``known ids``, ``token budget``, ``required
    kept``, ``follows the rule``, ``no holes``, ``tool calls paired``, ``starts with user``,
    ``prompt matches``, ``used adds up``), what was found, and the item it is about: ``id``, or
    in mode ``messages`` the message's ``index`` (both None when it is about no one item)."""

    check: str
    detail: str
    id: str | None = None
    index: int | None = None


@dataclass(frozen=True)
class ClaimVerdict:
    """Whether the claim is the selection the mode's rule makes, and every failure if not."""

    holds: bool
    failures: tuple[ClaimFailure, ...]


def verify_claim(input: Mapping[str, Any], claim: object) -> ClaimVerdict:
    """Judge ``claim`` (``{"selected": [ids]}`` in relevance and required, ``{"included": [ids],
    "prompt"?}`` in blocks, ``{"chosen": [ids], "prompt"?}`` in passages, ``{"kept": [indices]}``
    in messages; ``used`` optional in each) against ``input`` (any mode's input; a ``claim`` it
    has is replaced by this one).

    The verdict holds or not whatever the rule's own outcome (a claim that the rule selects
    nothing holds when required items overflow). Raises :class:`InvalidInputError` (a
    ``ValueError``) for an invalid input or claim, every problem with its path
    (``$.claim.selected[1]``), and ``RuntimeError`` if the checker itself breaks.
    """
    data = {**input, "claim": claim} if isinstance(input, Mapping) else input
    report, invalid = evaluate_with_problems(data)
    if invalid is not None:
        raise invalid_input_error(report["summary"], invalid, report)
    if "claim" not in report:
        raise RuntimeError(f"{report['summary']} {report['checks'][0].get('detail', '')}".strip())
    failures = tuple(
        ClaimFailure(failure["check"], failure["detail"], failure.get("id"), failure.get("index"))
        for failure in report["claim"]["failures"]
    )
    return ClaimVerdict(report["claim"]["pass"], failures)
