"""``select``: the typed way in for Python callers, beside ``evaluate``'s never-raise dicts.

``evaluate`` must never raise (the CLI and the page show whatever it returns), so an
invalid input comes back as a report without results, and ``report["selected"]`` is a
``KeyError`` far from the cause. ``select`` raises :class:`InvalidInputError` at the call
instead, listing every problem, and returns frozen dataclasses that a type checker knows.
Both read the same report: ``Selection.report`` is exactly what ``evaluate`` returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._base.errors import InvalidInputError, input_problems
from ._evaluation.evaluate import evaluate_with_problems, problems_detail
from ._evaluation.report import Report
from ._base.values import MAX_PROBLEMS, Problem
from .modes import MODES


def invalid_input_error(summary: str, problems: list[Problem], report: Report) -> InvalidInputError:
    """The error for an invalid input: the summary, then the report's check detail (the first
    problem and how many more there are in all) saying where the first 50 are: in ``.problems``."""
    return InvalidInputError(
        f"{summary} {problems_detail(problems, '.problems')}", input_problems(problems[:MAX_PROBLEMS]), summary, report
    )


@dataclass(frozen=True)
class Check:
    """An independent verification of the result; ``detail`` says what failed."""

    name: str
    passed: bool
    detail: str | None = None


@dataclass(frozen=True)
class Decision:
    """One candidate in the order the rule considered it (a row of the report's ``trace``).

    ``id`` is the candidate's id, or in mode ``messages`` the message's index in the input.
    ``unit_cost``, in mode ``messages`` only, is what the decision weighed: the cost of the
    message's whole unit (an assistant message with tool calls and their results are kept
    or dropped together), which may exceed ``cost``, the message's own.
    """

    position: int
    id: str | int
    cost: int
    remaining_before: int
    kept: bool
    reason: str
    unit_cost: int | None = None


@dataclass(frozen=True)
class Selection:
    """What was kept and left out, the amounts, the checks and every decision.

    ``kept`` and ``left_out`` hold ids, or in mode ``messages`` message indices (input order).
    ``used`` and ``limit`` are in the mode's unit: tokens (``relevance``, ``required``,
    ``blocks``, whose limit is the available context; ``messages``, where ``used`` is the
    whole prompt's count) or the counter's unit (``passages``, the whole prompt's count). ``passed`` is false when the rule could not
    succeed (required items that do not fit) or a check failed; the input was valid either way.
    """

    mode: str
    passed: bool
    summary: str
    kept: tuple[str | int, ...]
    left_out: tuple[str | int, ...]
    used: int
    limit: int
    remaining: int
    checks: tuple[Check, ...]
    decisions: tuple[Decision, ...]
    prompt: str | None
    report: Report


# Where each mode's report keeps what the typed result needs: (kept, left out, used, limit).
def select(input: Mapping[str, Any]) -> Selection:
    """Choose as ``evaluate`` does; raise :class:`InvalidInputError` when the input is invalid.

    Never changes ``input``. Raises ``RuntimeError`` only if the checker itself broke.
    """
    report, invalid = evaluate_with_problems(dict(input) if isinstance(input, Mapping) and not isinstance(input, dict) else input)
    if invalid is not None:
        raise invalid_input_error(report["summary"], invalid, report)
    if report["mode"] not in MODES:  # the "internal error" report: evaluate caught a bug
        raise RuntimeError(f"{report['summary']} {report['checks'][0].get('detail', '')}".strip())
    words = MODES[report["mode"]].WORDS
    by_name: Mapping[str, Any] = report  # read by the mode's own words, which no literal key can name
    used, limit = by_name[words.used], by_name[words.limit]
    return Selection(
        mode=report["mode"],
        passed=report["pass"],
        summary=report["summary"],
        kept=tuple(_ids(by_name[words.kept])),
        left_out=tuple(_ids(by_name[words.left_out])),
        used=used,
        limit=limit,
        remaining=report.get("remaining", limit - used),
        checks=tuple(Check(check["name"], check["pass"], check.get("detail")) for check in report["checks"]),
        decisions=tuple(
            Decision(
                row.get("position", position),
                row["id"] if "id" in row else row["index"],
                row["tokens"] if "tokens" in row else row["cost"],
                row["remaining_before"],
                row["kept"],
                row["reason"],
                row.get("unit_tokens"),
            )
            for position, row in enumerate(report["trace"], 1)
        ),
        prompt=report.get("prompt"),
        report=report,
    )


def _ids(entries: list) -> list[str | int]:
    """Ids from a list of ids or of ``{id, ...}`` objects (``blocks``' included and excluded)."""
    return [entry["id"] if isinstance(entry, dict) else entry for entry in entries]
