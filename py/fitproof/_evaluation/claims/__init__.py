"""Claims: judging a selection someone says a mode's rule makes (an agent's choice of context,
another implementation's output, a learner's prediction).

An input may carry ``claim``, in the mode's own words: ``{"selected": [ids]}`` (relevance,
required), ``{"included": [ids], "prompt"?}`` (blocks), ``{"chosen": [ids], "prompt"?}``
(passages), ``{"kept": [indices]}`` (messages), each optionally with ``used``. The order of
the list is not judged. The verdict, ``{"pass", "failures": [{check, detail, id | index}]}``,
is worked out here from the validated input alone: the order of consideration is derived
again (not read from the report), and the decisions are replayed with the remaining budget
at each step, so a report whose selection was tampered with cannot make a claim hold.

The hook (:func:`judging`) is the only contact with the rest of the package: ``evaluate``
hands it the mode and the input when the input has a ``claim``, and gets back the input
without it (the mode never sees the key, so every message about the mode's own keys stays
as it is) and the same mode, wrapped so that its parse also reads the claim and its checks
also judge it (the mode protocol of ``modes/__init__.py``).

The package, by job: ``reading`` reads the claim's shape, ``verdicts`` holds what every judge
shares (the checks' names, a failure and its cap, ids resolved to positions), ``greedy``,
``passages`` and ``messages`` are the judges, and this module is the hook and :func:`judge`,
which picks the judge by mode.
"""

from __future__ import annotations

from typing import Any, Callable

from ..._shared.checks import Check
from ..._shared.shape import InvalidInput
from ...modes.protocol import Mode
from ..._base.values import and_more
from .greedy import _judge_blocks, _judge_relevance, _judge_required
from .messages import _judge_messages
from .passages import _judge_passages
from .reading import LIST_KEY, WHAT, WITH_PROMPT, Claim, claim_summary, read_claim
from .verdicts import MAX_LISTED, Failure, Verdict

__all__ = ["LIST_KEY", "MAX_LISTED", "WHAT", "WITH_PROMPT", "claim_summary", "claimed_summary", "judge", "judging", "read_claim"]


# ---------------------------------------------------------------- the hook


def judging(mode: Mode[Any, Any], data: dict) -> tuple[Mode[Any, Any], dict]:
    """(the mode, wrapped to read and judge the claim; the input without ``claim``)."""
    rest = {key: value for key, value in data.items() if key != "claim"}
    return _Judging(mode, data["claim"]), rest


class _Judging:
    """A mode that also reads the claim (in ``parse``) and judges it (in ``verify``)."""

    def __init__(self, mode: Mode[Any, Any], raw_claim: object) -> None:
        self._mode = mode
        self._raw = raw_claim
        self._claim: Claim | None = None
        self._failed_checks: list[str] = []
        # What the claim changes nothing about is the mode's own.
        self.NAME = mode.NAME
        self.WORDS = mode.WORDS
        self.INPUT_SUMMARY = mode.INPUT_SUMMARY
        self.SHAPE = mode.SHAPE
        self.COUNTED_COST = mode.COUNTED_COST
        self.DEFAULT_TOKENIZER = mode.DEFAULT_TOKENIZER
        self.select = mode.select
        self.beyond_the_rule = mode.beyond_the_rule

    def run(self, data: object) -> dict:
        return self.select(self.parse(data))

    def parse(self, data: object) -> object:
        name = self._mode.NAME
        claim, problems = read_claim(self._raw, name)
        try:
            parsed = self._mode.parse(data)
        except InvalidInput as invalid:
            if problems:  # every problem at once, the claim's after the input's
                raise InvalidInput([*invalid.problems, *problems], "input shape", self._mode.INPUT_SUMMARY) from None
            raise
        if problems:
            raise InvalidInput(problems, "claim shape", claim_summary(name))
        self._claim = claim
        return parsed

    def verify(self, data: object, result: dict, parsed: Any = None) -> list[Check]:
        checks = self._mode.verify(data, result, parsed)
        assert self._claim is not None  # verify follows a parse that passed, and that parse read the claim
        self._failed_checks = [check["name"] for check in checks if not check["pass"]]
        # A trace the checks all passed is the rule's order and decisions, proven from the input:
        # the judge may take them as they are; otherwise it derives both again itself.
        verdict = judge(self._mode.NAME, parsed, self._claim, result["trace"] if not self._failed_checks else None)
        # The verdict first among the results, right after the report's own keys.
        rest = list(result.items())
        result.clear()
        result["claim"] = verdict
        result.update(rest)
        return checks

    def succeeded(self, result: dict) -> bool:
        return self._mode.succeeded(result) and result["claim"]["pass"]

    def summarize(self, result: dict) -> str:
        return claimed_summary(result["claim"], self._mode.summarize(result), self._mode.succeeded(result), self._failed_checks)


def claimed_summary(verdict: Verdict, usual: str, succeeded: bool, failed_checks: list[str]) -> str:
    """ "The claim holds: <usual>" or "The claim fails: <first failure> (and N more failures). <usual>"."""
    if verdict["pass"]:
        return f"The claim holds: {usual}"  # evaluate adds "But a check failed" itself
    failures = verdict["failures"]
    text = f"The claim fails: {failures[0]['detail']}{and_more(len(failures) - 1, 'more failure')}. {usual}"
    if succeeded and failed_checks:  # evaluate adds this itself only when the claim holds
        text += f" But a check failed: {', '.join(failed_checks)}."
    return text


# ---------------------------------------------------------------- the verdict


def judge(mode: str, parsed: object, claim: Claim, proven: list | None = None) -> Verdict:
    """``{"pass", "failures"}`` for ``claim`` (as :func:`read_claim` gives it) on the parsed input.

    ``proven``: the report's trace when every check passed, so that its order and decisions are
    the rule's, proven from the input by code apart from the rule's (``_shared/checks``). The greedy
    modes then take the order from it (ranking again costs as much as the rule's own sort) and
    compare the claim with its decisions; any departure is still explained by a replay from
    the input. Without it, the judge ranks and replays on its own."""
    failures = _JUDGES[mode](parsed, claim, proven)
    return {"pass": not failures, "failures": failures}


# Each judge reads its own mode's parsed input (the type its first parameter names).
_JUDGES: dict[str, Callable[[Any, Claim, list | None], list[Failure]]] = {
    "relevance": _judge_relevance,
    "required": _judge_required,
    "blocks": _judge_blocks,
    "passages": _judge_passages,
    "messages": _judge_messages,
}
