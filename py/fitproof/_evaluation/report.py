"""The report ``evaluate`` returns, as a type: every key any mode's report may have.

A report is one JSON object: ``pass``, ``summary``, ``checks`` and ``mode`` always; ``errors``
for an invalid input; then the mode's own keys (each mode's ``Result`` TypedDict in
``modes/``) and what ``evaluate`` adds (``counted``, ``optimal``, ``sensitivity``, ``claim``,
``tokenizer_file``). The type is the union of them all, each key but the first four optional,
so that a caller's type checker knows every key and rejects a misspelt one; which keys a given
report has is the mode's (docs/contract.md lists them). The modes share a key only with one
meaning and one type (``tests/package/evaluation/test_report_type.py`` holds every mode's ``Result`` and
every fixture's report to this declaration).
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

from .._shared.checks import Check
from .claims.verdicts import Verdict

# "pass" is a keyword, hence the call form. Rows of lists are JSON objects whose keys the mode's
# own types declare (relevance.Decision, blocks.Included, ...).
Report = TypedDict(
    "Report",
    {
        # every report
        "pass": Required[bool],
        "summary": Required[str],
        "checks": Required[list[Check]],
        "mode": Required[str | None],  # None: the input named no mode this package has, or the checker broke
        "errors": list[dict[str, Any]],  # an invalid input: {path, message, code, ...} each
        # relevance, required
        "budget": int,
        "selected": list[str],
        "omitted": list[str],
        "required_cost": int,
        "shortfall": int,  # also messages: what the pinned messages and the live turn are over the limit by
        # the cost of what was kept, and what is left
        "used": int,
        "remaining": int,
        # blocks
        "available": int,
        "included": list[dict[str, Any]],
        "excluded": list[dict[str, Any]],
        "can_proceed": bool,
        "rendered_tokens": int,
        "rendered_overhead": int,
        # passages
        "counter": str,
        "units": int,
        "chosen": list[str],
        "skipped": list[str],
        # blocks, passages: the composed prompt
        "prompt": str,
        # messages
        "format": str,
        "format_detected": bool,
        "model": str | None,
        "limit": int,  # also passages
        "tokens": int,
        "pinned_tokens": int,
        "live_turn": list[int],
        "live_tokens": int,
        "kept": list[int],
        "dropped": list[int],
        "messages": list[Any],
        "images": list[dict[str, Any]],
        "tools": list[dict[str, Any]],
        "tools_tokens": int,
        "system_tokens": int,
        "given_counts": list[dict[str, Any]],
        "template": str,
        "template_tokens": int,
        "strategy": str,
        "low_watermark": float,
        "walk_limit": int,
        "cut": int | None,
        "cut_from": str | None,
        "as_previous": dict[str, Any] | None,
        "reuse": dict[str, Any] | None,
        "cleared": list[dict[str, Any]],
        "clearing": dict[str, Any],
        "summary_span": dict[str, Any] | None,
        # the input's top-level tokenizer (blocks, messages; relevance and required when it counted content)
        "tokenizer": str,
        "counted": list[Any],
        "tokenizer_file": dict[str, Any],
        # beyond the rule, and a claim judged
        "optimal": dict[str, Any] | None,
        "sensitivity": dict[str, Any],
        "claim": Verdict,
        # every mode: a row per decision, in the order the rule considered them
        "trace": list[dict[str, Any]],
    },
    total=False,
)
