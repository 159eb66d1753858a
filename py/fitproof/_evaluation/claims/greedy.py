"""The judges of the greedy modes (relevance, required, blocks): the order of consideration
derived again from the input (or taken from a proven trace), the rule's walk replayed with the
remaining budget at each step, and the first decision the claim does not make explained.

A claim that scores more than the rule's choice is told so (a better combination, but not the
rule's); blocks' claimed prompt is compared with the one rendered here on its own.
"""

from __future__ import annotations

from itertools import compress, count, islice
from operator import eq, itemgetter, not_
from typing import Callable, Iterable

from ..._base.ordinal import ordinal_keys
from ..._base.values import plural
from ...modes import blocks, relevance, required as required_mode
from .reading import Claim
from .verdicts import (
    BUDGET,
    REQUIRED,
    RULE,
    USED,
    Failure,
    _capped,
    _failure,
    _flags,
    _names,
    _prompt_failures,
    _resolve,
    _shown,
    _tokens_left,
    _total,
)


def _greedy(
    ids: list[str],
    costs: list[int],
    order: list[int],
    budget: int,
    claim: Claim,
    required: list[bool] | None,
    values: list,
    start: str,
    overflow: int | None = None,
    render: Callable[[list[int]], str] | None = None,
    where: dict[str, int] | None = None,
    rule_kept: list[bool] | None = None,
) -> list[Failure]:
    """The judge of the greedy modes: ``order`` is the order of consideration (required first);
    ``start`` says what the budget is ("the budget is 7 tokens"); ``overflow``, the required
    items' cost when it exceeds the budget (the rule then selects nothing)."""
    positions, failures = _resolve(claim["ids"], ids, where)
    claimed = _flags(positions, len(ids))
    total = sum(map(costs.__getitem__, positions))
    if total > budget:
        listed = " + ".join(f"{ids[position]} {costs[position]}" for position in positions) if len(positions) <= 6 else ""
        failures.append(
            _failure(
                BUDGET,
                f"the claimed items cost {plural(total, 'token')}{f' ({listed})' if listed else ''}, "
                f"over the budget of {budget} by {total - budget}",
            )
        )
    claimed_in_order = list(map(claimed.__getitem__, order))
    if required is not None and overflow is None:
        # The required items come first: the rule keeps each that fits what the ones before it left.
        missing: list[str] = []
        left = budget
        for position in order:
            if not required[position]:
                break
            if costs[position] <= left:
                left -= costs[position]
                if not claimed[position]:
                    missing.append(ids[position])
        failures += _capped(
            [_failure(REQUIRED, f"{item_id} is required and kept by the rule, but not claimed", item_id) for item_id in missing],
            REQUIRED,
            "required items not claimed",
        )
    if overflow is not None:
        if positions:
            first = next(compress(order, claimed_in_order))
            failures.append(
                _failure(
                    RULE,
                    f"{ids[first]} is claimed, but the required items need {plural(overflow, 'token')}, over the "
                    f"budget of {budget}: the rule selects nothing",
                    ids[first],
                )
            )
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


def _better(
    values: list, claimed: list[int], rule_kept: list[int], total: int, budget: int, required: list[bool] | None, flags: bytearray
) -> str:
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
    return (
        f"; yet the claim, within the budget, totals {worth} {_shown(ours)} against the rule's {_shown(theirs)}: "
        "a better combination than the greedy rule's, but not the rule's"
    )


def _ranked(ids: list[str], keys: list, required: list[bool] | None = None) -> list[int]:
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


def _in_id_order(part: list[int], start: int, end: int, id_keys: Callable[[int], bytes]) -> None:
    if end == start + 1:  # most runs are a pair: one comparison
        first, second = part[start], part[end]
        if id_keys(second) < id_keys(first):
            part[start], part[end] = second, first
    else:
        part[start : end + 1] = sorted(part[start : end + 1], key=id_keys)


def _order(
    ids: list[str], where: dict[str, int], proven: list | None, rank: Callable[[], list[int]]
) -> tuple[list[int], list[bool] | None]:
    """The order of consideration and, from a proven trace, the rule's decisions in it."""
    if proven is None:
        return rank(), None
    return list(map(where.__getitem__, map(itemgetter("id"), proven))), list(map(itemgetter("kept"), proven))


def _judge_relevance(parsed: relevance.Parsed, claim: Claim, proven: list | None = None) -> list[Failure]:
    ids, budget, scores = parsed.ids, parsed.budget, parsed.scores
    where = parsed.positions  # the checks' id table (built once per parsed input)
    order, kept = _order(ids, where, proven, lambda: _ranked(ids, scores))
    return _greedy(
        ids,
        parsed.tokens,
        order,
        budget,
        claim,
        None,
        parsed.relevance,
        f"the budget is {plural(budget, 'token')}",
        where=where,
        rule_kept=kept,
    )


def _judge_required(parsed: required_mode.Parsed, claim: Claim, proven: list | None = None) -> list[Failure]:
    ids, costs, budget, required, priorities = parsed.ids, parsed.costs, parsed.budget, parsed.required, parsed.priorities
    where = parsed.positions
    order, kept = _order(ids, where, proven, lambda: _ranked(ids, priorities, required))
    required_cost = sum(compress(costs, required))
    overflow = required_cost if required_cost > budget else None
    return _greedy(
        ids,
        costs,
        order,
        budget,
        claim,
        required,
        parsed.priority,
        f"the budget is {plural(budget, 'token')}",
        overflow,
        where=where,
        rule_kept=kept,
    )


def _judge_blocks(parsed: blocks.Parsed, claim: Claim, proven: list | None = None) -> list[Failure]:
    records, available = parsed.blocks, parsed.available
    ids = [block.id for block in records]
    required = [block.required for block in records]
    where = dict(zip(ids, range(len(ids))))

    def rank() -> list[int]:
        # Priority, then the newest, as one integer: the priority above the instant's bits.
        instants = [block.observed.nanoseconds for block in records]
        oldest = min(instants, default=0)
        shift = (max(instants, default=0) - oldest).bit_length()
        return _ranked(ids, [(block.priority << shift) | (instant - oldest) for block, instant in zip(records, instants)], required)

    order, kept = _order(ids, where, proven, rank)

    def render(packed: list[int]) -> str:
        return _blocks_prompt(parsed.system, parsed.task, [records[position] for position in packed])

    return _greedy(
        ids,
        [block.cost for block in records],
        order,
        available,
        claim,
        required,
        [block.priority for block in records],
        f"the window leaves {plural(available, 'token')} for blocks",
        render=render,
        where=where,
        rule_kept=kept,
    )


def _blocks_prompt(system: str, task: str, packed: list[blocks.Block]) -> str:
    """The composed prompt as the contract states it, written here on its own."""
    lines = ["System:", system, "", "Task:", task, "", "Context Blocks:"]
    written: dict[int, str] = {}  # each distinct instant written once (the blocks of one document share it)
    for block_id, source, content, priority, observed, required, cost, _ in packed:
        utc = written.get(observed.nanoseconds)
        if utc is None:
            utc = written[observed.nanoseconds] = observed.utc_text()
        lines += [
            f"### Block {block_id}",
            f"Source: {source}",
            f"Priority: {priority}",
            f"ObservedAtUtc: {utc}",
            f"Required: {'True' if required else 'False'}",
            f"EstimatedTokens: {cost}",
            "Content:",
            content,
            "",
        ]
    return "\n".join(lines) + "\n"
