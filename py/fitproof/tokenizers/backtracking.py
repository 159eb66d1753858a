"""The rule that keeps a file's split pattern from backtracking without bound in ``re``: nested
repeats and piled-up unbounded repeats are found in the parsed pattern and named (``regex.py``
refuses the pattern with that name)."""

from __future__ import annotations

import re

from .._base.errors import FitproofError

_OPENERS = ("(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>")
_COUNT = re.compile(r"\{(\d+)(,(\d*))?\}")
MANY = 3  # a counted repeat of more than this many counts as unbounded in a sequence (\p{N}{1,3} does not)


class _Alternative:
    """What the backtracking rule keeps of the alternative being read in one group."""

    def __init__(self, base: int) -> None:
        self.base = base  # the unbounded repeats before the group, in the alternative around it
        self.unbounded = base  # so far in this alternative, those before the group included
        self.worst = base  # the group's worst alternative so far
        self.complex = False  # a quantifier or an alternation anywhere inside
        self.pending: int | None = None  # the last item's count before it, until its quantifier is known


class _Refused(FitproofError):
    """(Inside ``unbounded_backtracking`` only: what it returns.)"""


def _repeat(quantifier: str) -> tuple[int, int | None]:
    """(fewest, most) times a quantifier repeats (most None: no bound)."""
    if quantifier == "?":
        return 0, 1
    if quantifier in "*+":
        return (0 if quantifier == "*" else 1), None
    match = _COUNT.fullmatch(quantifier)
    assert match is not None  # (the parser only writes these)
    fewest = int(match.group(1))
    if match.group(2) is None:
        return fewest, fewest
    return fewest, (int(match.group(3)) if match.group(3) else None)


def unbounded_backtracking(parts: list) -> str | None:
    """What makes a parsed pattern (``regex._Parser``'s parts) backtrack without bound, or None
    (``docs/contract.md``, "Split patterns"). Refused:

    1. a repeat (``*``, ``+``, ``{m,}``, ``{m,n}`` with n > 1) of a group that holds a quantifier or an
       alternation: ``(a+)+``, ``(a*)*``, ``(a|a)*``, ``(?:ab?){2,}`` (such a group may only be optional: ``(?:...)?``);
    2. in one alternative (groups looked into), more than two unbounded repeats (``*``, ``+``, ``{m,}``,
       a count past 3), or a part that is not optional after the second: ``a*a*a*``, ``a*a*b``.

    So a match tried at one place costs at most the square of the text after it, as with one
    quantifier, never an exponential or a higher power; every model's own pattern passes."""

    def fail(what: str) -> _Refused:
        return _Refused(what)

    def settle(frame: _Alternative, optional: bool) -> None:
        # (in a group opened after the second, the group is the part: its own quantifier says if it is optional)
        if frame.pending is not None and frame.pending >= 2 and frame.base < 2 and not optional:
            raise fail("a part that is not optional after two unbounded repeats in one alternative")
        frame.pending = None

    def count(frame: _Alternative, more: int) -> None:
        frame.unbounded += more
        if frame.unbounded > 2:
            raise fail("more than two unbounded repeats in one alternative")

    try:
        _walk(parts, settle, count, fail)
    except _Refused as refused:
        return str(refused)
    return None


def _walk(parts: list, settle, count, fail) -> None:
    stack = [_Alternative(0)]
    last: _Alternative | str | None = None  # what a quantifier applies to: a closed group, "atom", or nothing
    after_quantifier = False
    for part in parts:
        if isinstance(part, str) and after_quantifier and part in ("?", "+"):  # lazy or possessive: as greedy here
            after_quantifier = False
            continue
        after_quantifier = False
        top = stack[-1]
        if part in _OPENERS:
            settle(top, False)
            top.pending = top.unbounded
            stack.append(_Alternative(top.unbounded))
            last = None
        elif part == ")":
            group = stack.pop()
            settle(group, False)
            group.worst = max(group.worst, group.unbounded)
            top = stack[-1]
            top.complex = top.complex or group.complex
            count(top, group.worst - top.unbounded)
            last = group
        elif part == "|":
            settle(top, False)
            top.worst = max(top.worst, top.unbounded)
            top.unbounded = top.base
            top.complex = True
            last = None
        elif isinstance(part, str) and (part in ("?", "*", "+") or part.startswith("{")):
            fewest, most = _repeat(part)
            top.complex = True
            after_quantifier = True
            if isinstance(last, _Alternative) and last.complex and (most is None or most > 1):
                raise fail(f"a repeat {part!r} of a group that holds a quantifier or an alternation (nested quantifiers)")
            settle(top, fewest == 0)
            if most is None or most > MANY:
                count(top, 1)
            last = None
        else:  # an atom, an anchor
            settle(top, False)
            top.pending = top.unbounded
            last = "atom"
    settle(stack[-1], False)
