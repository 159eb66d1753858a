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
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable
from itertools import compress, count, islice, repeat
from operator import eq, itemgetter, not_

from .._base.ordinal import identity_key, ordinal_keys
from .._shared.shape import InvalidInput
from ..modes import MODES
from ..modes.protocol import Mode
from .._base.values import (
    JS_WHITESPACE,
    MAX_SAFE_INTEGER,
    MISSING_KEY,
    WRONG_TYPE,
    Invalid,
    Key,
    Problem,
    got,
    json_text,
    plural,
    problem_from,
    read_count,
    read_id,
    read_text,
    unknown_keys,
)

# Each mode's word for its kept list (the claim's key) and for what that list holds, as the mode declares them.
LIST_KEY = {name: mode.WORDS.kept for name, mode in MODES.items()}
WITH_PROMPT = ("blocks", "passages")
WHAT = {name: mode.WORDS.listed for name, mode in MODES.items()}
MAX_LISTED = 20  # failures of one kind listed one by one; past it, one failure says how many more

KNOWN, BUDGET, REQUIRED, RULE, HOLES, PAIRED, USER, PROMPT, USED = (
    "known ids", "within budget", "required kept", "follows the rule", "no holes", "tool calls paired",
    "starts with user", "prompt matches", "used adds up",
)


def claim_summary(mode: str) -> str:
    extra = '"prompt" and "used"' if mode in WITH_PROMPT else '"used"'
    return f"The claim needs {json_text(LIST_KEY[mode])}: an array of {WHAT[mode]} (and optionally {extra})."


# ---------------------------------------------------------------- the hook

def judging(mode: Mode, data: dict) -> tuple[Mode, dict]:
    """(the mode, wrapped to read and judge the claim; the input without ``claim``)."""
    rest = {key: value for key, value in data.items() if key != "claim"}
    return _Judging(mode, data["claim"]), rest


class _Judging:
    """A mode that also reads the claim (in ``parse``) and judges it (in ``verify``)."""

    def __init__(self, mode: Mode, raw_claim: object) -> None:
        self._mode = mode
        self._raw = raw_claim
        self._claim: dict | None = None
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

    def verify(self, data: dict, result: dict, parsed: Any = None) -> list[dict]:
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


def claimed_summary(verdict: dict, usual: str, succeeded: bool, failed_checks: list[str]) -> str:
    """"The claim holds: <usual>" or "The claim fails: <first failure> (and N more failures). <usual>"."""
    if verdict["pass"]:
        return f"The claim holds: {usual}"  # evaluate adds "But a check failed" itself
    failures = verdict["failures"]
    more = f" (and {plural(len(failures) - 1, 'more failure')})" if len(failures) > 1 else ""
    text = f"The claim fails: {failures[0]['detail']}{more}. {usual}"
    if succeeded and failed_checks:  # evaluate adds this itself only when the claim holds
        text += f" But a check failed: {', '.join(failed_checks)}."
    return text


# ---------------------------------------------------------------- reading the claim

def read_claim(value: object, mode: str) -> tuple[dict | None, list[Problem]]:
    """``({"ids", "used", "prompt"}, [])``, or ``(None, problems)`` with each problem's JSON path."""
    problems: list[Problem] = []
    at: tuple[Key, ...] = ("claim",)
    list_key = LIST_KEY[mode]
    known = (list_key, "used") + (("prompt",) if mode in WITH_PROMPT else ())
    if not isinstance(value, dict):
        words = f'{{"{list_key}": [{"indices" if mode == "messages" else "ids"}]}}'
        return None, [Problem(at, WRONG_TYPE, f"expected an object {words}, got {got(value)}")]
    for problem in unknown_keys(value, at, known):
        key = problem.about
        owners = [name for name, word in LIST_KEY.items() if word == key]
        if owners and isinstance(key, str) and key != list_key:  # (a key some mode names is a string)
            problem = problem._replace(message=f"unknown key {json_text(key)}: in mode {mode} a claim lists its {WHAT[mode]} in "
                                            f"{json_text(list_key)} ({json_text(key)} is the word of mode {owners[0]})")
        problems.append(problem)
    ids = None
    if list_key not in value:
        problems.append(Problem(at, MISSING_KEY, f"missing required key {json_text(list_key)}", list_key))
    else:
        ids = _read_list(value[list_key], (*at, list_key), mode == "messages", problems)
    used = prompt = None
    if "used" in value:
        try:
            used = read_count(value["used"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "used")))
    if "prompt" in value and mode in WITH_PROMPT:
        try:
            prompt = read_text(value["prompt"])
        except Invalid as error:
            problems.append(problem_from(error, (*at, "prompt")))
    if problems:
        return None, problems
    return {"ids": ids, "used": used, "prompt": prompt}, []


def _read_list(value: object, at: tuple[Key, ...], indices: bool, problems: list[Problem]) -> list | None:
    if not isinstance(value, list):
        problems.append(Problem(at, WRONG_TYPE, f"expected an array of {'message indices' if indices else 'ids'}, got {got(value)}"))
        return None
    types = set(map(type, value))
    reader: Callable[[object], object]
    if indices:  # the common case checked in C first; any doubt goes element by element
        if types <= {int} and (not value or (min(value) >= 0 and max(value) <= MAX_SAFE_INTEGER)):
            return value
        reader = _read_index
    else:
        if types <= {str} and all(map(str.strip, value, repeat(JS_WHITESPACE))):
            return value
        reader = read_id
    read, count_before = [], len(problems)
    for index, element in enumerate(value):
        try:
            read.append(reader(element))
        except Invalid as error:
            problems.append(problem_from(error, (*at, index)))
    return read if len(problems) == count_before else None


def _read_index(value: object) -> int:
    return read_count(value, what="a message index: an integer")


# ---------------------------------------------------------------- the verdict

def judge(mode: str, parsed: dict, claim: dict, proven: list | None = None) -> dict:
    """``{"pass", "failures"}`` for ``claim`` (as :func:`read_claim` gives it) on the parsed input.

    ``proven``: the report's trace when every check passed, so that its order and decisions are
    the rule's, proven from the input by code apart from the rule's (``_shared/checks``). The greedy
    modes then take the order from it (ranking again costs as much as the rule's own sort) and
    compare the claim with its decisions; any departure is still explained by a replay from
    the input. Without it, the judge ranks and replays on its own."""
    failures = _JUDGES[mode](parsed, claim, proven)
    return {"pass": not failures, "failures": failures}


def _failure(check: str, detail: str, item: object = None, key: str = "id") -> dict:
    failure: dict[str, object] = {"check": check, "detail": detail}
    if item is not None:
        failure[key] = item
    return failure


def _capped(failures: list[dict], check: str, what: str) -> list[dict]:
    """At most MAX_LISTED failures of one kind, then one that says how many more."""
    if len(failures) <= MAX_LISTED:
        return failures
    return failures[:MAX_LISTED] + [_failure(check, f"and {len(failures) - MAX_LISTED} more {what}")]


def _resolve(claimed: list[str], ids: list[str], where: dict | None = None) -> tuple[list[int], list[dict]]:
    """The input positions of the claimed ids, each once, in claim order, and the ``known ids``
    failures: ids the input does not have, ids given twice. Ids are compared by UTF-16 code
    units, as the contract compares them (a surrogate pair written as two escapes is the
    character it encodes). ``where``: the input's id -> position table, when already built."""
    if where is None:
        where = dict(zip(ids, range(len(ids))))
    found: list = list(map(where.get, claimed))  # ints past the None checks
    if None not in found and len(set(found)) == len(found):  # the common case, in C
        return found, []
    if None in found:
        by_identity = {identity_key(item_id): position for item_id, position in where.items()}
        found = [by_identity.get(identity_key(item_id)) if position is None else position for item_id, position in zip(claimed, found)]
    failures, seen, positions = [], bytearray(len(ids)), []
    unknown: set = set()
    for item_id, position in zip(claimed, found):
        if position is None:
            if item_id not in unknown:
                unknown.add(item_id)
                failures.append(_failure(KNOWN, f"{json_text(item_id)} is not an id of the input", item_id))
        elif seen[position]:
            if seen[position] == 1:
                failures.append(_failure(KNOWN, f"{ids[position]} is claimed twice", ids[position]))
            seen[position] = 2
        else:
            seen[position] = 1
            positions.append(position)
    return positions, _capped(failures, KNOWN, "ids that are unknown or claimed twice")


def _flags(positions: list[int], size: int) -> bytearray:
    flags = bytearray(size)
    for _ in map(flags.__setitem__, positions, repeat(1)):  # in C
        pass
    return flags


def _names(ids: list[str], positions: list[int]) -> str:
    """``A``, ``A and C``, ``A, C and D``, or ``the 41 items kept before it (the last: Z)``."""
    if len(positions) > 3:
        return f"the {len(positions)} kept before it (the last: {ids[positions[-1]]})"
    shown = [ids[position] for position in positions]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _shown(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _total(values: list, positions) -> float | int | None:
    """The exact sum of scores (integers as integers), or None past the float range."""
    chosen = list(map(values.__getitem__, positions))
    if all(type(value) is int for value in chosen):
        return sum(chosen)
    try:
        total = math.fsum(map(float, chosen))
    except OverflowError:
        return None
    return total if math.isfinite(total) else None


def _tokens_left(remaining: int, unit: str = "token") -> str:
    return f"{plural(remaining, unit)} {'remains' if remaining == 1 else 'remain'}"


# ---------------------------------------------------------------- relevance, required, blocks

def _greedy(ids: list, costs: list, order: list[int], budget: int, claim: dict, required: list | None, values: list,
            start: str, overflow: int | None = None, render=None, where: dict | None = None, rule_kept: list | None = None) -> list[dict]:
    """The judge of the greedy modes: ``order`` is the order of consideration (required first);
    ``start`` says what the budget is ("the budget is 7 tokens"); ``overflow``, the required
    items' cost when it exceeds the budget (the rule then selects nothing)."""
    positions, failures = _resolve(claim["ids"], ids, where)
    claimed = _flags(positions, len(ids))
    total = sum(map(costs.__getitem__, positions))
    if total > budget:
        listed = " + ".join(f"{ids[position]} {costs[position]}" for position in positions) if len(positions) <= 6 else ""
        failures.append(_failure(BUDGET, f"the claimed items cost {plural(total, 'token')}{f' ({listed})' if listed else ''}, "
                                         f"over the budget of {budget} by {total - budget}"))
    claimed_in_order = list(map(claimed.__getitem__, order))
    if required is not None and overflow is None:
        # The required items come first: the rule keeps each that fits what the ones before it left.
        missing, left = [], budget
        for position in order:
            if not required[position]:
                break
            if costs[position] <= left:
                left -= costs[position]
                if not claimed[position]:
                    missing.append(ids[position])
        failures += _capped([_failure(REQUIRED, f"{item_id} is required and kept by the rule, but not claimed", item_id) for item_id in missing],
                            REQUIRED, "required items not claimed")
    if overflow is not None:
        if positions:
            first = next(compress(order, claimed_in_order))
            failures.append(_failure(RULE, f"{ids[first]} is claimed, but the required items need {plural(overflow, 'token')}, over the "
                                           f"budget of {budget}: the rule selects nothing", ids[first]))
    else:
        # The rule's walk from the input, in its order, up to the first decision the claim does not make:
        # until then the claim and the rule agree, so what remains is the same for both.
        remaining, step = budget, None
        agrees = rule_kept is not None and claimed_in_order == rule_kept  # the proven decisions, compared in C
        for index, cost, is_claimed in zip(count(), map(costs.__getitem__, order), () if agrees else claimed_in_order):
            if cost <= remaining:
                if not is_claimed:
                    step = index
                    break
                remaining -= cost
            elif is_claimed:
                step = index
                break
        if step is not None and not (required is not None and required[order[step]] and not claimed_in_order[step]):
            position, left = order[step], remaining
            item_id, cost = ids[position], costs[position]
            kept_before = list(compress(order[:step], claimed_in_order[:step]))
            if claimed_in_order[step]:
                before = f"after {_names(ids, kept_before)} {_tokens_left(left)}" if kept_before else start
                detail = f"{item_id} is claimed, but {before} and {item_id} needs {cost}"
            else:
                detail = f"{item_id} fits the {plural(left, 'token')} that {'remains' if left == 1 else 'remain'} (it needs {cost}) but is not claimed"
            detail += _better(values, positions, _rule_kept(order, costs, budget), total, budget, required, claimed)
            failures.append(_failure(RULE, detail, item_id))
    if render is not None and claim["prompt"] is not None:
        in_packing_order = list(compress(order, claimed_in_order))
        failures += _prompt_failures(claim["prompt"], render(in_packing_order))
    if claim["used"] is not None and claim["used"] != total:
        failures.append(_failure(USED, f"the claim says used {claim['used']}, but the claimed costs add up to {total}"))
    return failures


def _rule_kept(order: list[int], costs: list, budget: int) -> list[int]:
    """The positions the rule keeps, walking ``order`` with nothing claimed in the way."""
    kept, remaining = [], budget
    for position in order:
        if costs[position] <= remaining:
            remaining -= costs[position]
            kept.append(position)
    return kept


def _better(values: list, claimed: list[int], rule_kept: list[int], total: int, budget: int, required: list | None, flags: bytearray) -> str:
    """When the claim is within the budget, keeps every required item and scores more than the
    rule's choice: the combination the greedy rule missed, said as such."""
    if total > budget:
        return ""
    if required is not None:
        if any(required[position] and not flags[position] for position in rule_kept):
            return ""
        claimed = [position for position in claimed if not required[position]]
        rule_kept = [position for position in rule_kept if not required[position]]
    ours, theirs = _total(values, claimed), _total(values, rule_kept)
    if ours is None or theirs is None or not ours > theirs:
        return ""
    worth = "priority" if required is not None else "relevance"
    return (f"; yet the claim, within the budget, totals {worth} {_shown(ours)} against the rule's {_shown(theirs)}: "
            "a better combination than the greedy rule's, but not the rule's")


def _ranked(ids: list[str], keys: list, required: list | None = None) -> list[int]:
    """Input positions in the contract's order of consideration: the required ones first (when
    ``required`` is given), each group by ``keys`` (highest first), equal keys in ordinal
    (UTF-16 code unit) id order. One sort by key, then each run of equal keys by id (sorting
    every id first costs more than both: ids share long prefixes, and most runs are short)."""
    groups: list[Iterable[int]]
    if required is None:
        groups = [range(len(ids))]
    else:
        groups = [compress(range(len(ids)), required), compress(range(len(ids)), map(not_, required))]
    id_keys = ordinal_keys(ids).__getitem__
    order: list[int] = []
    for group in groups:
        part = sorted(group, key=keys.__getitem__, reverse=True)
        ranked = list(map(keys.__getitem__, part))
        ties = list(compress(range(1, len(ranked)), map(eq, ranked, islice(ranked, 1, None))))  # i ties with i - 1
        if ties:
            start, end = ties[0] - 1, ties[0]
            for index in islice(ties, 1, None):
                if index != end + 1:  # a new run of ties begins: put the one that ended in id order
                    _in_id_order(part, start, end, id_keys)
                    start = index - 1
                end = index
            _in_id_order(part, start, end, id_keys)
        order += part
    return order


def _in_id_order(part: list[int], start: int, end: int, id_keys) -> None:
    if end == start + 1:  # most runs are a pair: one comparison
        first, second = part[start], part[end]
        if id_keys(second) < id_keys(first):
            part[start], part[end] = second, first
    else:
        part[start:end + 1] = sorted(part[start:end + 1], key=id_keys)


def _order(ids: list[str], where: dict, proven: list | None, rank) -> tuple[list[int], list | None]:
    """The order of consideration and, from a proven trace, the rule's decisions in it."""
    if proven is None:
        return rank(), None
    return list(map(where.__getitem__, map(itemgetter("id"), proven))), list(map(itemgetter("kept"), proven))


def _judge_relevance(parsed: dict, claim: dict, proven: list | None = None) -> list[dict]:
    ids, budget = parsed["ids"], parsed["budget"]
    where = parsed.get("positions") or dict(zip(ids, range(len(ids))))  # the checks' id table, when they built it
    order, kept = _order(ids, where, proven, lambda: _ranked(ids, parsed["scores"]))
    return _greedy(ids, parsed["tokens"], order, budget, claim, None, parsed["relevance"], f"the budget is {plural(budget, 'token')}",
                   where=where, rule_kept=kept)


def _judge_required(parsed: dict, claim: dict, proven: list | None = None) -> list[dict]:
    ids, costs, budget, required = parsed["ids"], parsed["costs"], parsed["budget"], parsed["required"]
    where = parsed.get("positions") or dict(zip(ids, range(len(ids))))
    order, kept = _order(ids, where, proven, lambda: _ranked(ids, parsed["priorities"], required))
    required_cost = sum(compress(costs, required))
    overflow = required_cost if required_cost > budget else None
    return _greedy(ids, costs, order, budget, claim, required, parsed["priority"], f"the budget is {plural(budget, 'token')}", overflow,
                   where=where, rule_kept=kept)


def _judge_blocks(parsed: dict, claim: dict, proven: list | None = None) -> list[dict]:
    blocks, available = parsed["blocks"], parsed["available"]
    ids = [block[0] for block in blocks]
    required = [block[5] for block in blocks]
    where = dict(zip(ids, range(len(ids))))

    def rank() -> list[int]:
        # Priority, then the newest, as one integer: the priority above the instant's bits.
        instants = [block[4].nanoseconds for block in blocks]
        oldest = min(instants, default=0)
        shift = (max(instants, default=0) - oldest).bit_length()
        return _ranked(ids, [(block[3] << shift) | (instant - oldest) for block, instant in zip(blocks, instants)], required)

    order, kept = _order(ids, where, proven, rank)

    def render(packed: list[int]) -> str:
        return _blocks_prompt(parsed["system"], parsed["task"], [blocks[position] for position in packed])

    return _greedy(ids, [block[6] for block in blocks], order, available, claim, required,
                   [block[3] for block in blocks], f"the window leaves {plural(available, 'token')} for blocks", render=render,
                   where=where, rule_kept=kept)


def _blocks_prompt(system: str, task: str, packed: list[tuple]) -> str:
    """The composed prompt as the contract states it, written here on its own."""
    lines = ["System:", system, "", "Task:", task, "", "Context Blocks:"]
    written: dict = {}  # each distinct instant written once (the blocks of one document share it)
    for block_id, source, content, priority, observed, required, cost, _ in packed:
        utc = written.get(observed.nanoseconds)
        if utc is None:
            utc = written[observed.nanoseconds] = observed.utc_text()
        lines += [f"### Block {block_id}", f"Source: {source}", f"Priority: {priority}", f"ObservedAtUtc: {utc}",
                  f"Required: {'True' if required else 'False'}", f"EstimatedTokens: {cost}", "Content:", content, ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- prompts

def _prompt_failures(claimed: str, rendered: str) -> list[dict]:
    """The first character where the claimed prompt differs from the one rendered from the claim's selection."""
    if claimed == rendered:
        return []
    at = next((index for index, (a, b) in enumerate(zip(claimed, rendered)) if a != b), min(len(claimed), len(rendered)))
    line = rendered.count("\n", 0, at) + 1
    column = at - rendered.rfind("\n", 0, at)
    where = f"at character {at + 1} (line {line}, column {column})"
    if at == len(claimed):
        what = f"the claimed prompt ends there, the rendered one goes on with {json_text(rendered[at:at + 24])}"
    elif at == len(rendered):
        what = f"the rendered prompt ends there, the claimed one goes on with {json_text(claimed[at:at + 24])}"
    else:
        what = f"the claim has {json_text(claimed[at:at + 24])}, the rendered prompt {json_text(rendered[at:at + 24])}"
    return [_failure(PROMPT, f"the claimed prompt differs from the one rendered from the claimed selection {where}: {what}")]


# ---------------------------------------------------------------- passages

def _judge_passages(parsed: dict, claim: dict, proven: list | None = None) -> list[dict]:
    from .._shared.checks import estimate_of_parts, estimate_parts  # the checks' estimator, apart from the rule's

    passages, limit, counter = parsed["passages"], parsed["limit"], parsed["counter"]
    ids = [passage_id for passage_id, _ in passages]
    stats = parsed["line_stats"]
    base: int | tuple[int, ...]  # the sums of the prompt without passages: an estimate's parts, else a count
    if counter == "estimate":
        base = tuple(map(sum, zip(estimate_parts("Question: " + parsed["question"] + "\nSources:\n"), estimate_parts("Answer:"))))

        def add(a, b):
            return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

        def total(sums) -> int:
            return estimate_of_parts(*sums)
    else:
        if counter == "words":
            def part(text: str) -> int:
                return len(text.split())
        else:
            from ..tokenizers import count_tokens

            def part(text: str) -> int:
                return count_tokens(text, counter)
        base = part("Question: " + parsed["question"] + "\nSources:\n") + part("Answer:")

        def add(a, b):
            return a + b

        def total(sums) -> int:
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
        failures.append(_failure(BUDGET, f"the prompt with the claimed passages counts {plural(units, unit)}, over the limit of {limit} by {units - limit}"))
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
                context = f"after {_names(ids, kept_before)} {_tokens_left(left, unit)}" if kept_before else \
                    f"the prompt without passages leaves {plural(left, unit)}"
                detail = f"{passage_id} is claimed, but {context} and {passage_id} adds {cost}"
            failures.append(_failure(RULE, detail, passage_id))
            break
        if fits:
            sums = with_it
            kept_before.append(position)
    if claim["prompt"] is not None:
        rendered = "\n".join(["Question: " + parsed["question"], "Sources:"] + [f"[{ids[p]}] {passages[p][1]}" for p in in_order] + ["Answer:"])
        failures += _prompt_failures(claim["prompt"], rendered)
    if claim["used"] is not None and claim["used"] != units:
        failures.append(_failure(USED, f"the claim says used {claim['used']}, but the prompt with the claimed passages counts {units}"))
    return failures


# ---------------------------------------------------------------- messages

def _judge_messages(parsed: dict, claim: dict, proven: list | None = None) -> list[dict]:
    limit, costs, roles, unit_of = parsed["limit"], parsed["costs"], parsed["roles"], parsed["unit_of"]
    unit = _message_unit(parsed)
    size = len(costs)
    failures, seen, positions = [], bytearray(size), []
    unknown: set = set()
    for index in claim["ids"]:
        if index >= size:
            if index not in unknown:
                unknown.add(index)
                failures.append(_failure(KNOWN, f"{index} is not a message index: the history has {plural(size, 'message')} (0-{size - 1})", index, "index"))
        elif seen[index]:
            if seen[index] == 1:
                failures.append(_failure(KNOWN, f"message {index} is claimed twice", index, "index"))
            seen[index] = 2
        else:
            seen[index] = 1
            positions.append(index)
    failures = _capped(failures, KNOWN, "indices that are unknown or claimed twice")
    claimed = _flags(positions, size)
    members: dict[int, list[int]] = {}
    for index, start in enumerate(unit_of):
        members.setdefault(start, []).append(index)
    pinned_unit = {start for index, start in enumerate(unit_of) if parsed["pinned"][index]}
    live_start = parsed["live_start"]  # the live turn (the newest user message on) is kept as if pinned
    pinned = [start in pinned_unit or index >= live_start for index, start in enumerate(unit_of)]
    fixed = 3 + parsed.get("system_tokens", 0) + parsed["tools_tokens"]  # (Anthropic's system prompt, Responses' instructions)
    pinned_tokens = fixed + sum(compress(costs, pinned))
    tokens = fixed + sum(map(costs.__getitem__, positions)) if positions else 0
    if tokens > limit:
        failures.append(_failure(BUDGET, f"the claimed messages and the reply priming count {plural(tokens, unit)}, over the limit of {limit} by {tokens - limit}"))
    overflow = pinned_tokens > limit
    if not overflow:
        missing = [index for index in range(size) if pinned[index] and not claimed[index]]
        failures += _capped([_failure(REQUIRED, f"message {index} ({roles[index]}) is {_why_kept(parsed, index, unit_of)} but not claimed",
                                      index, "index") for index in missing], REQUIRED, "pinned messages not claimed")
    # A tool call and its results: all claimed or none.
    for start, group in members.items():
        if len(group) > 1:
            flags = [claimed[index] for index in group]
            if any(flags) and not all(flags):
                if flags[0]:
                    absent = [index for index, flag in zip(group, flags) if not flag]
                    failures.append(_failure(PAIRED, f"message {start} calls tools, but its result{'s' if len(absent) > 1 else ''} "
                                                     f"{', '.join(map(str, absent))} {'are' if len(absent) > 1 else 'is'} not claimed", start, "index"))
                else:
                    answer = next(index for index, flag in zip(group, flags) if flag)
                    failures.append(_failure(PAIRED, f"message {answer} is a tool result, but message {start}, whose call it answers, is not claimed", answer, "index"))
    # No holes: once an unpinned message is left out, nothing older (and unpinned) is kept.
    hole = None
    for index in reversed(range(size)):
        if pinned[index]:
            continue
        if not claimed[index]:
            hole = index if hole is None else hole
        elif hole is not None:
            failures.append(_failure(HOLES, f"message {hole} is not claimed, but the older message {index} is: a hole in the history", hole, "index"))
            break
    conversation = [index for index in sorted(positions) if roles[index] not in ("system", "developer")]
    unpinned = [index for index in positions if not pinned[index]]
    if conversation and roles[conversation[0]] != "user" and not pinned[conversation[0]]:
        first = conversation[0]
        failures.append(_failure(USER, f"the claimed conversation starts at message {first} ({roles[first]}), not at a user turn", first, "index"))
    elif unpinned and roles[min(unpinned)] != "user" and not all(claimed[index] for index in range(min(unpinned))):
        first = min(unpinned)
        failures.append(_failure(USER, f"the claimed history resumes at message {first} ({roles[first]}) after a message left out, not at a user turn", first, "index"))
    walk_limit, floor, lowered = limit, 0, None
    if parsed.get("options") is not None and not overflow:  # strategy stable: the walk's limit and the cut it keeps
        from ..modes.messages.stable import decide
        lowered, floor, _ = decide(parsed)
        walk_limit = limit if lowered is None else lowered
    failures += _messages_rule(parsed, claimed, pinned, members, walk_limit - pinned_tokens, pinned_tokens, positions, floor, lowered)
    if claim["used"] is not None and claim["used"] != tokens:
        failures.append(_failure(USED, f"the claim says used {claim['used']}, but the claimed messages and the reply priming count {tokens}"))
    return failures


def _messages_rule(parsed: dict, claimed: bytearray, pinned: list, members: dict, remaining: int, pinned_tokens: int, positions: list,
                   floor: int = 0, lowered: int | None = None) -> list[dict]:
    """The walk from the newest unit to the oldest, then the start at a user turn; the first
    unit (newest first) that the claim keeps and the rule drops, or the other way round. ``floor``:
    strategy stable's cut kept from the previous call (the units before it are dropped);
    ``lowered``: strategy stable's new cut, the walk's limit at the low watermark."""
    roles, costs, limit = parsed["roles"], parsed["costs"], parsed["limit"]
    unit = _message_unit(parsed)
    pinned_units = {parsed["unit_of"][index] for index, flag in enumerate(parsed["pinned"]) if flag}

    def named(start: int) -> str:
        group = members[start]
        return f"message {start}" if len(group) == 1 else f"messages {start}-{group[-1]} (a tool call and its results)"

    if remaining < 0:
        if not positions:
            return []
        newest = max(positions)
        return [_failure(RULE, f"message {newest} is claimed, but the pinned messages, the live turn and the reply priming need {plural(pinned_tokens, unit)}, "
                               f"over the limit of {limit}: the rule keeps nothing", newest, "index")]
    starts = [start for start in reversed(list(members)) if not pinned[start]]
    walk: list[tuple[int, int, str, int]] = []  # (unit start, remaining before, decision, unit cost)
    stopped_at: tuple[int, int, int] | None = None
    for start in starts:
        cost = sum(map(costs.__getitem__, members[start]))
        if start < floor:
            walk.append((start, remaining, "before the cut", cost))
        elif stopped_at is not None:
            walk.append((start, remaining, "older", cost))
        elif cost <= remaining:
            walk.append((start, remaining, "fits", cost))
            remaining -= cost
        else:
            walk.append((start, remaining, "too large", cost))
            stopped_at = (start, remaining, cost)
    # The user start, replayed oldest first: a kept unit that is not a user turn goes while
    # nothing of the conversation comes before it, or a message before it is left out.
    fits = {start for start, _, decision, _ in walk if decision == "fits"}
    dropped_for_start: set[int] = set()
    started, all_before = False, True
    for start in members:
        if start in fits:
            if roles[start] != "user" and (not started or not all_before):
                dropped_for_start.add(start)
                all_before = False
                continue
            break
        if pinned[start]:
            started = started or roles[start] not in ("system", "developer")
        else:
            all_before = False
    first_user = min((start for start in fits - dropped_for_start), default=None)
    kept_newer: list[int] = [index for index in range(parsed["live_start"], len(costs)) if not parsed["pinned"][index] and parsed["unit_of"][index] not in pinned_units]
    for start, left, decision, cost in walk:
        rule_keeps = decision == "fits" and start not in dropped_for_start
        is_claimed = any(claimed[index] for index in members[start])
        if rule_keeps == is_claimed:
            if rule_keeps:
                kept_newer += members[start]
            continue
        subject = named(start)
        if not is_claimed:
            detail = f"{subject} fit{'s' if len(members[start]) == 1 else ''} the {plural(left, unit)} that {'remains' if left == 1 else 'remain'} ({'it needs' if len(members[start]) == 1 else 'they need'} {cost}) but {'is' if len(members[start]) == 1 else 'are'} not claimed"
        elif decision == "too large":
            after = f"after the newer {_ranges(kept_newer)}, " if kept_newer else "after the pinned messages and the reply priming, "
            detail = f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but {after}{_tokens_left(left, unit)} and it needs {cost}"
            if lowered is not None:
                detail += (f" (strategy stable cuts the history down to its low watermark, {plural(lowered, unit)} of the limit's {limit}, "
                           "and keeps that cut on the next calls)")
        elif decision == "before the cut":
            detail = (f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but strategy stable keeps the previous call's cut "
                      f"(message {floor}): nothing older than it is sent")
        elif decision == "older":
            assert stopped_at is not None  # an "older" row comes only after the walk stopped
            stop, stop_left, stop_cost = stopped_at
            detail = (f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but the walk stopped at the newer message {stop}, "
                      f"which needs {stop_cost} of the {stop_left} left: nothing older is kept")
        else:
            because = (f"message {first_user}, where the kept history resumes at a user turn" if first_user is not None
                       else f"the live turn (message {parsed['live_start']}, the newest user message)")
            detail = (f"{subject} {'is' if len(members[start]) == 1 else 'are'} claimed, but it comes before {because}: the conversation sent "
                      "starts at a user turn and never with a reply to a message left out")
        return [_failure(RULE, detail, start, "index")]
    return []


def _why_kept(parsed: dict, index: int, unit_of: list) -> str:
    if parsed["pinned"][index]:
        return "pinned"
    if index >= parsed["live_start"]:
        return "in the live turn (the newest user message and what follows it)"
    return "pinned with its tool unit"


def _message_unit(parsed: dict) -> str:
    return "estimated token" if parsed["tokenizer"] == "estimate" else "token"


def _ranges(indices: list[int]) -> str:
    """Newest first ``[7, 6, 5, 3]`` -> ``messages 5-7, 3``."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    shown = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs[:4]) + (", …" if len(runs) > 4 else "")
    return f"message{'s' if len(indices) > 1 else ''} {shown}"


_JUDGES = {"relevance": _judge_relevance, "required": _judge_required, "blocks": _judge_blocks, "passages": _judge_passages,
           "messages": _judge_messages}
