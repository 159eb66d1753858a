"""The envelope shared by the CLI and the web page: JSON text in, ``{ok, error?, result?}`` out."""

from __future__ import annotations

import json

from ._base import strict_json as _strict_json
from ._evaluation.evaluate import evaluate
from ._evaluation.report import Report


def check_document(text: str) -> dict:
    """Parse ``text`` strictly and evaluate it; the envelope says whether the report passes."""
    try:
        document = _strict_json.loads(text)
    except _strict_json.JSONInputError as error:
        return unreadable(error)
    return envelope_of(evaluate(document))


def envelope_of(report: Report) -> dict:
    """The envelope of a report: ``ok`` when it passes, else the one-line ``error`` too."""
    if report["pass"]:
        return {"ok": True, "result": report}
    return {"ok": False, "error": failure_text(report), "result": report}


def unreadable(error: _strict_json.JSONInputError) -> dict:
    """The envelope for input that cannot be read: the error, with its line and column when known."""
    envelope: dict = {"ok": False, "error": str(error)}
    if error.line is not None:
        envelope["line"], envelope["column"] = error.line, error.column
    return envelope


def failure_text(report: Report) -> str:
    """Why a report does not pass, in one line: the summary, then the first located problem.

    For invalid input the summary is general ("Input needs ..."), so the first error's path
    and message follow it. A selection that fails by the rule (required items overflow:
    ``can_proceed`` false or a ``shortfall``) is located by its summary already; when a
    check fails on a selection that succeeded, the summary names the check and its detail follows.
    """
    if report.get("errors"):  # the check's detail: the first problem, and how many more there are in all
        return f"{report['summary']} {report['checks'][0]['detail']}"
    selected = report.get("can_proceed", True) and not report.get("shortfall")
    failed = next((check for check in report["checks"] if not check["pass"] and "detail" in check), None) if selected else None
    if failed is not None:
        return f"{report['summary']} {failed['name']}: {failed['detail']}"
    return report["summary"]


def to_json(value: object, indent: int | None = None, ascii_only: bool = False) -> str:
    """JSON text that is always valid UTF-8: non-ASCII kept readable unless a lone surrogate forces escapes."""
    # Reports are trees built afresh (no cycles), so the encoder's cycle check, which
    # records every container it enters, is skipped: a tenth of the time on a long trace.
    if not ascii_only:
        text = json.dumps(value, ensure_ascii=False, indent=indent, check_circular=False)
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    return json.dumps(value, ensure_ascii=True, indent=indent, check_circular=False)


def check_text(text: str) -> str:
    """The page's entry point: the envelope as JSON text (ASCII, so it crosses into JavaScript intact)."""
    return to_json(check_document(text), ascii_only=True)


def format_json(text: str, key: str | None = None) -> str:
    """The page's formatter: ``text`` (or its top-level ``key``) re-indented by Python.

    JavaScript's JSON.parse would round 2^53 + 1, turn 4.0 into 4 and -0.0 into 0, so the
    page leaves every rewrite of the user's JSON (the Format button, the examples, the
    report download) to Python, which keeps each number as written.
    """
    try:
        value = _strict_json.loads(text)
    except _strict_json.JSONInputError as error:
        return to_json(unreadable(error), ascii_only=True)
    if key is not None:
        if not isinstance(value, dict) or key not in value:
            return to_json({"ok": False, "error": f"no {key!r} in this JSON"}, ascii_only=True)
        value = value[key]
    return to_json({"ok": True, "text": to_json(value, indent=2)}, ascii_only=True)
