"""Reports as text a person reads in a terminal: ``check --format text`` and ``compose``.

``report_text`` reads only the report's documented keys, so it works for every mode: the
verdict and summary, the amounts, the checks, then the kept and the left-out candidates
from the trace, each with its cost, what was left before it and the reason code.
``packing_text`` is compose's view of a blocks report: the composed prompt, then how the
window's budget was spent.
"""

from __future__ import annotations


from .._base.values import plural
from .._evaluation.report import Report

# More rows than a terminal shows are cut, with a pointer to the JSON that has them all.
MAX_ROWS = 100

_REASON_WORDS = {
    "fits_remaining_budget": "",
    "exceeds_remaining_budget": "needs {cost}, {left} left",
    "required": "required, kept first",
    "required_items_exceed_budget": "required; the required items together exceed the budget",
    "not_considered_required_overflow": "not considered: the required items overflow the budget",
    "required_block_too_large_for_budget": "required, needs {cost}, {left} left: the run cannot proceed",
    "pinned": "system, developer or pinned: always kept",
    "live_turn": "the live turn (the newest user message on): always kept",
    "older_than_a_dropped_message": "older than a turn that did not fit: no holes",
    "history_must_start_with_user": "it fit, but the kept turns must start with a user message",
    "older_than_the_stable_cut": "older than the cut kept from the previous call (strategy stable)",
    "pinned_messages_exceed_limit": "the pinned messages, the live turn and the priming need more than the limit",
}


def envelope_text(envelope: dict, problem_total: int | None = None) -> str:
    """The ``check`` envelope as text: a JSON error alone, or the report. ``problem_total``: how
    many problems an invalid input has in all (its report lists at most 50)."""
    if "result" not in envelope:
        return f"FAIL  {_one_line(envelope['error'])}\n"
    return report_text(envelope["result"], problem_total)


def _one_line(text: str) -> str:
    """A line of the report with the line breaks of the values in it (an id, a text) shown as
    escapes: they must not start lines of their own, which could pass for the report's."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _joined(lines: list[str]) -> str:
    return "".join(_one_line(line) + "\n" for line in lines)


# A summary names every kept id: past this many characters the middle of its list is left
# out (the first ids, how many more, the last id and the rest of the sentence), as the page does.
SUMMARY_SHOWN = 320


def shortened(summary: str) -> str:
    if len(summary) <= SUMMARY_SHOWN:
        return summary
    head = summary.rfind(", ", 0, 202)  # starting at index 200 at the latest, as the page's lastIndexOf(", ", 200)
    tail = summary.rfind(", ")
    if head <= 0 or tail <= head or len(summary) - tail > 200:
        return f"{summary[:200]} … {summary[-100:]}"
    hidden = summary[head + 2 : tail].count(", ") + 1
    return f"{summary[:head]}, … {hidden:,} more …, {summary[tail + 2 :]}"


def report_text(report: dict, problem_total: int | None = None) -> str:
    lines = _claim_lines(report.get("claim"))
    lines.append(f"{'PASS' if report['pass'] else 'FAIL'}  {shortened(report['summary'])}")
    mode = report.get("mode")
    if "errors" in report:
        count = len(report["errors"])
        lines.append(
            f"mode {mode}: the input is not valid ({count} problem{'s' if count != 1 else ''} listed)" if mode else "the input is not valid"
        )
        lines += [f"  {error['path']}: {error['message']}" for error in report["errors"]]
        total = count if problem_total is None else problem_total
        if total > count:
            lines.append(f"  … and {total - count} more not listed ({total} in all)")
        return _joined(lines)
    amounts = _amounts(report)
    lines.append(f"mode {mode}: {amounts}" if amounts else f"mode {mode}")
    lines += ["", "checks"]
    lines += [
        f"  {'ok  ' if check['pass'] else 'FAIL'}  {check['name']}" + (f": {check['detail']}" if "detail" in check else "")
        for check in report["checks"]
    ]
    trace = report.get("trace")
    if isinstance(trace, list):
        unit = _unit(report)
        kept = [row for row in trace if row.get("kept")]
        left_out = [row for row in trace if not row.get("kept")]
        lines += ["", f"kept, in the order considered ({len(kept)})"]
        lines += _rows(kept, unit, report)
        lines += ["", f"left out ({len(left_out)})"]
        lines += _rows(left_out, unit, report)
    lines += _beyond(report)
    return _joined(lines)


def _claim_lines(claim: object) -> list[str]:
    """The claim's verdict, before the report: whether it holds, and each failure's check and detail."""
    if not isinstance(claim, dict):
        return []
    failures = claim["failures"]
    if claim["pass"]:
        return ["CLAIM HOLDS  it is the selection the rule makes", ""]
    lines = [f"CLAIM FAILS  {plural(len(failures), 'failure')}"]
    lines += [f"  {failure['check']}: {failure['detail']}" for failure in failures[:MAX_ROWS]]
    if len(failures) > MAX_ROWS:
        lines.append(f"  … and {len(failures) - MAX_ROWS} more (--format json lists them all)")
    return lines + [""]


def _unit(report: dict) -> str:
    """The report's unit, singular (``plural`` adds the s)."""
    if report.get("mode") == "passages":
        return "word" if report.get("counter") == "words" else "token"
    return "token"


def _amounts(report: dict) -> str:
    if "budget" in report and "used" in report:
        return f"used {report['used']} of a budget of {plural(report['budget'], 'token')}, {report['remaining']} left"
    if "available" in report and "used" in report:
        text = f"used {report['used']} of {plural(report['available'], 'token')} available, {report['remaining']} left"
        if "rendered_tokens" in report:
            text += f"; the composed prompt estimates {plural(report['rendered_tokens'], 'token')}"
        return text
    if "units" in report and "limit" in report:
        return f"the prompt counts {report['units']} of {plural(report['limit'], _unit(report))}"
    if "tokens" in report and "limit" in report:
        text = f"the prompt counts {report['tokens']} of {plural(report['limit'], 'token')}, {report.get('remaining', report['limit'] - report['tokens'])} left"
        if report.get("format"):  # mode messages in a named or detected request format
            text += f" ({report['format']} format{', detected' if report.get('format_detected') else ''})"
        return text
    return ""


def _label(row: dict) -> str:
    if "id" in row:
        return str(row["id"])
    if "index" in row:  # rows that are positions in a list rather than ids
        return f"#{row['index']}" + (f" {row['role']}" if "role" in row else "")
    return "?"


def _rows(rows: list, unit: str, report: dict) -> list[str]:
    if not rows:
        return ["  (none)"]
    shown = rows[:MAX_ROWS]
    width = min(24, max(len(_label(row)) for row in shown))
    lines = []
    for row in shown:
        cost = row.get("tokens", row.get("cost"))
        left = row.get("remaining_before")
        amount = plural(cost, unit) if cost is not None else ""
        if "given_tokens" in row:  # messages: a block or an item counted by the caller's "tokens"
            amount += f' ({row["given_tokens"]} of them given as "tokens")'
        if row.get("unit_tokens", cost) != cost:  # messages: a tool call and its results are decided as one unit
            cost = row["unit_tokens"]
            amount += f" (tool unit from #{row['unit']}: {cost})"
        if "units_with" in row:  # passages: the decision is about the whole prompt with this passage
            amount += f", prompt with it {row['units_with']} of {report.get('limit')}"
        elif left is not None:
            amount += f", {left} left before"
        reason = row.get("reason", "")
        words = _REASON_WORDS.get(reason, "").format(cost=cost, left=left)
        because = f"{reason} ({words})" if words else reason
        position = f"{row['position']}." if "position" in row else " "
        lines.append(f"  {position:>4} {_label(row):<{width}}  {amount}  {because}".rstrip())
    if len(rows) > MAX_ROWS:
        lines.append(f"  … and {len(rows) - MAX_ROWS} more (--format json lists them all)")
    return lines


def _sum(value: object) -> str:
    """A sum from the report; null when it is past the 64-bit float range (JSON has no Infinity)."""
    return "past the 64-bit float range" if value is None else str(value)


def _beyond(report: dict) -> list[str]:
    lines = []
    optimal = report.get("optimal")
    if isinstance(optimal, dict):
        score = "relevance" if report.get("mode") == "relevance" else "priority of the optional items"
        if optimal.get("exact"):
            best = ", ".join(optimal["selected"]) or "nothing"
            lines.append(f"best possible {score}: {_sum(optimal['value'])} ({best}); this selection: {_sum(optimal['greedy_value'])}")
        elif optimal.get("upper_bound") is None:  # no bound at all: say why
            lines.append(
                f"best possible {score}: unknown ({optimal.get('note', 'past the 64-bit float range')}); this selection: {_sum(optimal['greedy_value'])}"
            )
        else:
            lines.append(f"best possible {score}: at most {optimal['upper_bound']}; this selection: {_sum(optimal['greedy_value'])}")
    sensitivity = report.get("sensitivity")
    if isinstance(sensitivity, dict) and "margin" in sensitivity:
        flips = ", ".join(sensitivity.get("flips", [])) or "nothing"
        lines.append(f"if the estimated costs are off by {sensitivity['margin']:.0%}: {flips} would flip")
    lines += _reuse_lines(report)
    return [""] + lines if lines else []


def _reuse_lines(report: dict) -> list[str]:
    """Mode messages with strategy, previous or caching: the cut, and what the prompt reuses and costs."""
    reuse = report.get("reuse")
    if not isinstance(reuse, dict):
        return []
    came = {
        "previous": "the previous call's, kept",
        "low_watermark": f"cut again to the low watermark ({report.get('walk_limit')})",
        "limit": "the limit's",
    }.get(report.get("cut_from") or "", "none")  # (None: no cut)
    lines = [f"strategy {report.get('strategy')}: cut at message {report.get('cut')} ({came})"]
    if reuse.get("previous_tokens") is None:
        lines.append("no previous call given: nothing reused")
    else:
        lines.append(
            f"reused from the previous prompt: {reuse['prefix_tokens']} of {plural(report['tokens'], 'token')} "
            f"({plural(reuse['prefix_messages'], 'message')}); {reuse['new_tokens']} new"
        )
    if "provider" in reuse:
        written = f", {reuse['written_tokens']} written" if reuse["provider"] == "anthropic" else ""
        lines.append(f"{reuse['provider']} caching: {reuse['cached_tokens']} cached{written}, {reuse['input_tokens']} plain input")
    if "cost" in reuse:
        lines.append(f"cost ${reuse['cost']:.6f}, ${reuse['cost_without_caching']:.6f} without caching")
    return lines


def packing_text(report: Report, window: dict) -> str:
    """A blocks report as ``compose`` prints it: the prompt (when it can be composed), the packing, the checks."""
    lines = []
    if report["can_proceed"]:
        lines += ["=== Composed prompt ===", report["prompt"].rstrip("\n"), ""]
    lines += [
        "=== Packing report ===",
        f"available {report['available']} = context {window['context_tokens']} - reserved output "
        f"{window['reserved_output_tokens']} - fixed prompt {window['fixed_prompt_tokens']}",
        f"used {report['used']}, remaining {report['remaining']}",
        f"rendered prompt {'~' if report.get('tokenizer', 'estimate') == 'estimate' else ''}{report['rendered_tokens']} tokens"
        f" ({report['rendered_overhead']} of them system, task, headers and metadata) "
        f"of {window['context_tokens'] - window['reserved_output_tokens']} = context - reserved output",
        "included, in packing order:",
    ]
    lines += [f"  {entry['id']}  {entry['tokens']} tokens" for entry in report["included"]] or ["  (none)"]
    lines.append("excluded:")
    lines += [f"  {entry['id']}  {entry['tokens']} tokens  {entry['reason']}" for entry in report["excluded"]] or ["  (none)"]
    optimal, sensitivity = report.get("optimal"), report.get("sensitivity")
    if optimal and optimal["exact"]:
        lines.append(
            f"optional priority: greedy {optimal['greedy_value']}, best possible {optimal['value']} "
            f"({', '.join(optimal['selected']) or 'none'})"
        )
    if sensitivity:
        flips = ", ".join(sensitivity["flips"]) or "nothing"
        if "margin" in sensitivity:
            lines.append(
                f"if the estimates are off by {sensitivity['margin']:.0%}: {flips} would flip; required slack {sensitivity['required_slack']}"
            )
        else:  # counted exactly by a tokenizer: nothing is estimated, so nothing can flip
            lines.append(
                f"costs counted exactly ({sensitivity.get('tokenizer', 'tokenizer')}); required slack {sensitivity['required_slack']}"
            )
    lines.append("checks:")
    lines += [
        f"  {'ok  ' if check['pass'] else 'FAIL'} {check['name']}{' - ' + check['detail'] if not check['pass'] else ''}"
        for check in report["checks"]
    ]
    lines.append(report["summary"])
    return "\n".join(lines) + "\n"
