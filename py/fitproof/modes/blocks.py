"""Mode ``blocks``: typed evidence blocks packed into the context window, after seed 001, the C#
refund-assistant pipeline this mode adapts (docs/contract.md, "Where the modes come from").

Available context = context - reserved output - fixed prompt. Blocks are considered
required first, then by priority, then newest first (as instants), then by ordinal id;
each is included when its cost fits. A required block left out means the run cannot
proceed. The composed prompt lists the included blocks in packing order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from typing import Callable, Iterator, NamedTuple, NotRequired, TypedDict

from .._shared import checks as _checks
from ..tokenizers.estimate import estimate_tokens
from ..tokenizers import EXACT, count_tokens, counter, read_tokenizer
from .._base.instant import Instant, read_instant
from .._shared.optimal import report_optimal
from .._base.ordinal import ordinal_keys
from .._shared.shape import Field, InputShape, read_input, read_object
from .._base.values import (
    DEFAULT_MARGIN,
    OVER_LIMIT,
    Invalid,
    Problem,
    plural,
    preview,
    read_bool,
    read_count,
    read_id,
    read_margin,
    read_text,
)
from .protocol import Words
from .sensitivity import sensitivity

NAME = "blocks"
WORDS = Words(kept="included", left_out="excluded", used="used", limit="available", listed="block ids")
COUNTED_COST = None
DEFAULT_TOKENIZER = None
INPUT_SUMMARY = "Input needs a window with a positive context budget and a blocks array."
BLOCK_SUMMARY = "Each block needs id, source, content, priority 0..100 and observed_at with an offset."

TOO_LARGE = "exceeds_remaining_budget"
REQUIRED_TOO_LARGE = "required_block_too_large_for_budget"


def read_priority(value: object) -> int:
    try:
        priority = read_count(value)
    except Invalid:
        priority = None
    if priority is None or priority > 100:
        raise Invalid(f"expected an integer from 0 to 100, got {preview(value)}")
    return priority


def priority_column(values: list) -> list | None:
    """The fast path's priorities: integers 0..100 (anything else goes to ``read_priority``)."""
    if values and not (set(map(type, values)) <= {int} and min(values) >= 0 and max(values) <= 100):
        return None
    return values


def instant_column(values: list) -> list | None:
    """Each ``observed_at`` read once, as an instant; None sends the blocks to the item-by-item reader.

    Each distinct text is read once: chunks of one document usually share its time."""
    if not set(map(type, values)) <= {str}:
        return None
    try:
        instants = {text: read_instant(text) for text in dict.fromkeys(values)}
    except Invalid:
        return None
    return list(map(instants.__getitem__, values))


_WINDOW = (
    Field("context_tokens", read_count),
    Field("reserved_output_tokens", read_count),
    Field("fixed_prompt_tokens", read_count),
)
_TOP = (
    Field("mode", read_text),
    Field("window", lambda value: value),
    Field("system", read_text, optional=True, default=""),
    Field("task", read_text, optional=True, default=""),
    Field("blocks", lambda value: value),
    Field("margin", read_margin, optional=True, default=DEFAULT_MARGIN),
    Field("tokenizer", read_tokenizer, optional=True),  # absent: the C# pipeline's estimate, and no echo in the report
)
_BLOCK = (
    Field("id", read_id),
    Field("source", read_text),
    Field("content", read_text),
    Field("priority", read_priority, column=priority_column),
    Field("observed_at", read_instant, column=instant_column),
    Field("required", read_bool, optional=True, default=False),
    Field("tokens", read_count, optional=True),
)
SHAPE = InputShape(_TOP, "blocks", _BLOCK, INPUT_SUMMARY, "block shape", BLOCK_SUMMARY)


class Block(NamedTuple):
    """One validated block, with its cost counted (or as given)."""

    id: str
    source: str
    content: str
    priority: int
    observed: Instant
    required: bool
    cost: int
    estimated: bool  # counted by the C# pipeline's estimate, not given and not an exact count


@dataclass(frozen=True)
class Parsed:
    """The validated input: the window, the texts around the blocks, and the blocks in input order."""

    window: list[int]  # context_tokens, reserved_output_tokens, fixed_prompt_tokens
    available: int  # what the window leaves for blocks
    system: str
    task: str
    blocks: list[Block]
    margin: float
    tokenizer: str  # "estimate" when the input names none
    tokenizer_named: bool


class Decision(TypedDict):
    """A row of the trace: one block, in the order the rule considered it."""

    position: int
    id: str
    required: bool
    priority: int
    observed_at: str
    tokens: int
    estimated: bool
    remaining_before: int
    kept: bool
    reason: str


class Included(TypedDict):
    id: str
    tokens: int


class Excluded(TypedDict):
    id: str
    tokens: int
    reason: str


class Result(TypedDict):
    """The report's keys of this mode."""

    tokenizer: NotRequired[str]  # only when the input names one
    available: int
    used: int
    remaining: int
    included: list[Included]
    excluded: list[Excluded]
    can_proceed: bool
    prompt: str
    rendered_tokens: int
    rendered_overhead: int
    trace: list[Decision]


def parse(data: object) -> Parsed:
    window: list = []

    def window_leaves_a_budget(top: list, problems: list[Problem]) -> None:
        assert isinstance(data, dict)  # read_input calls this only once it read data as an object
        if "window" not in data:
            return
        values = read_object(top[1], ("window",), _WINDOW, problems)
        if values is None or None in values:
            return
        window.extend(values)
        context, reserved, fixed = values
        if context - reserved - fixed <= 0:
            problems.append(
                Problem(
                    ("window",),
                    OVER_LIMIT,
                    f"no context budget: context_tokens {context} - reserved_output_tokens {reserved} - "
                    f"fixed_prompt_tokens {fixed} = {context - reserved - fixed}; raise context_tokens or lower "
                    "reserved_output_tokens or fixed_prompt_tokens",
                )
            )

    (_, _, system, task, _, margin, tokenizer), columns = read_input(data, SHAPE, window_leaves_a_budget)
    context, reserved, fixed = window
    available = context - reserved - fixed
    records = zip(*columns)
    named = tokenizer is not None
    tokenizer = tokenizer or "estimate"
    count = _counter(tokenizer)
    blocks = []
    for block_id, source, content, priority, observed, required, tokens in records:
        # Only the C# pipeline's heuristic (estimate) is an estimate; an exact tokenizer's count is the model's own.
        estimated = tokens is None and tokenizer == "estimate"
        cost = count(content) if tokens is None else tokens
        blocks.append(Block(block_id, source, content, priority, observed, required, cost, estimated))
    return Parsed(
        window=window,
        available=available,
        system=system,
        task=task,
        blocks=blocks,
        margin=margin,
        tokenizer=tokenizer,
        tokenizer_named=named,
    )


def _counter(tokenizer: str) -> Callable[[str], int]:
    # This module's estimate_tokens, not the tokenizer's: tests/package/shared/test_checks.py swaps it to prove the
    # check re-counts on its own.
    return estimate_tokens if tokenizer == "estimate" else counter(tokenizer)


def _packing_order(blocks: list[Block]) -> list[int]:
    """Positions by the rule's order: required first, then priority (highest first), then the
    newest, then ordinal id. One stable sort per key, the last key first (sorting by the
    (required, priority, time) tuples compared a tuple per step, twice as slow)."""
    order = sorted(range(len(blocks)), key=ordinal_keys([block.id for block in blocks]).__getitem__)
    columns: tuple[list[int] | list[bool], ...] = (
        [block.observed.nanoseconds for block in blocks],
        [block.priority for block in blocks],
        [block.required for block in blocks],
    )
    for values in columns:  # reverse=True keeps a stable sort stable
        order.sort(key=values.__getitem__, reverse=True)
    return order


def select(parsed: Parsed) -> Result:
    available = parsed.available
    blocks = parsed.blocks
    order = list(map(blocks.__getitem__, _packing_order(blocks)))
    remaining = available
    included: list[Included] = []
    excluded: list[Excluded] = []
    trace: list[Decision] = []
    packed: list[Block] = []
    for position, block in enumerate(order, 1):
        block_id, _, _, priority, observed, required, cost, estimated = block
        kept = cost <= remaining
        reason = "fits_remaining_budget" if kept else REQUIRED_TOO_LARGE if required else TOO_LARGE
        trace.append(
            {
                "position": position,
                "id": block_id,
                "required": required,
                "priority": priority,
                "observed_at": observed.text,
                "tokens": cost,
                "estimated": estimated,
                "remaining_before": remaining,
                "kept": kept,
                "reason": reason,
            }
        )
        if kept:
            included.append({"id": block_id, "tokens": cost})
            packed.append(block)
            remaining -= cost
        else:
            excluded.append({"id": block_id, "tokens": cost, "reason": reason})
    prompt = compose(parsed.system, parsed.task, packed)
    rendered = _counter(parsed.tokenizer)(prompt)
    result: Result = {
        "available": available,
        "used": available - remaining,
        "remaining": remaining,
        "included": included,
        "excluded": excluded,
        "can_proceed": not any(entry["reason"] == REQUIRED_TOO_LARGE for entry in excluded),
        "prompt": prompt,
        "rendered_tokens": rendered,
        "rendered_overhead": rendered - (available - remaining),
        "trace": trace,
    }
    if parsed.tokenizer_named:  # first among the keys, as the report lists them
        return {"tokenizer": parsed.tokenizer, **result}  # type: ignore[typeddict-item]
    return result


def compose(system: str, task: str, packed: list[Block]) -> str:
    """System instructions, the task, then each included block with its metadata, in packing order."""
    parts = [f"System:\n{system}\n\nTask:\n{task}\n\nContext Blocks:\n"]
    utc = _utc_texts()
    for block_id, source, content, priority, observed, required, cost, _ in packed:
        parts.append(
            f"### Block {block_id}\nSource: {source}\nPriority: {priority}\n"
            f"ObservedAtUtc: {utc(observed)}\nRequired: {required}\n"
            f"EstimatedTokens: {cost}\nContent:\n{content}\n\n"
        )
    return "".join(parts)


def _utc_texts() -> Callable[[Instant], str]:
    """``instant.utc_text()``, each distinct instant written once (blocks of one document share it)."""
    written: dict[int, str] = {}

    def utc(instant: Instant) -> str:
        text = written.get(instant.nanoseconds)
        if text is None:
            text = written[instant.nanoseconds] = instant.utc_text()
        return text

    return utc


def beyond_the_rule(parsed: Parsed, result: Result) -> dict[str, object]:
    """The best priority sum of optional blocks with the required ones fixed, and how the
    packing moves when the estimated costs are off by the margin."""
    blocks, available = parsed.blocks, parsed.available
    required_cost = sum(block.cost for block in blocks if block.required)
    extra: dict[str, object] = {"optimal": None}
    if required_cost <= available:
        ids = [block.id for block in blocks]
        where = _checks.positions_of(ids)
        kept = _checks.greedy_positions(where, [entry["id"] for entry in result["included"]])
        extra["optimal"] = report_optimal(
            ids,
            [block.cost for block in blocks],
            [float(block.priority) for block in blocks],
            available - required_cost,
            [index for index in kept if not blocks[index].required],
            [index for index, block in enumerate(blocks) if not block.required],
            where,
        )
    if any(block.estimated for block in blocks):
        by_id = {block.id: block for block in blocks}
        order = [by_id[row["id"]] for row in result["trace"]]  # costs do not enter the order
        extra["sensitivity"] = sensitivity(order, [row["kept"] for row in result["trace"]], parsed.margin, available)
    elif parsed.tokenizer in EXACT:
        # Counted by the model's own tokenizer: there is no estimate whose error could flip a block.
        extra["sensitivity"] = {
            "exact": True,
            "tokenizer": parsed.tokenizer,
            "flips": [],
            "required_slack": available - required_cost,
        }
    return extra


def run(data: object) -> Result:
    return select(parse(data))


def succeeded(result: Result) -> bool:
    return result["can_proceed"]


def summarize(result: Result) -> str:
    blocked = [entry for entry in result["excluded"] if entry["reason"] == REQUIRED_TOO_LARGE]
    if blocked:
        first = blocked[0]
        remaining = next(row["remaining_before"] for row in result["trace"] if row["id"] == first["id"])
        others = f" (and {plural(len(blocked) - 1, 'other required block')})" if len(blocked) > 1 else ""
        return f"Cannot proceed: required block {first['id']} needs {plural(first['tokens'], 'token')} but only {remaining} remain{others}."
    ids = ", ".join(entry["id"] for entry in result["included"]) or "no blocks"
    return f"Packed {ids}: {result['used']} of {plural(result['available'], 'available token')} used."


# ---------------------------------------------------------------- independent checks


def _render(parsed: Parsed, included: list[str], costs: dict[str, int]) -> str:
    """The prompt written again from the validated blocks, line by line (the selector joins parts)."""
    by_id = {record.id: record for record in parsed.blocks}
    lines = ["System:", parsed.system, "", "Task:", parsed.task, "", "Context Blocks:"]
    utc = _utc_texts()
    for block_id in included:
        _, source, content, priority, observed, required, _, _ = by_id[block_id]
        lines += [
            f"### Block {block_id}",
            f"Source: {source}",
            f"Priority: {priority}",
            f"ObservedAtUtc: {utc(observed)}",
            f"Required: {'True' if required else 'False'}",
            f"EstimatedTokens: {costs[block_id]}",
            "Content:",
            content,
            "",
        ]
    return "\n".join(lines) + "\n"


def verify(data: object, result: Result, parsed: Parsed | None = None) -> list[_checks.Check]:
    """The checks, on the validated columns and instants (parsed once); estimated costs are
    re-counted by the checks' own estimator. The order is proved in linear time (each block
    once, adjacent pairs strictly ordered), which no permutation of the input can change."""
    if parsed is None:
        parsed = parse(data)
    assert isinstance(data, dict)  # parse read it as an object
    window = parsed.window
    available = window[0] - window[1] - window[2]
    records = parsed.blocks
    ids = [record.id for record in records]
    where = _checks.positions_of(ids)
    tokenizer = data.get("tokenizer", "estimate")
    recount: Callable[[str], int] = _checks.recount_estimate if tokenizer == "estimate" else lambda text: count_tokens(text, tokenizer)
    # A count given in the input is the validated one; any other is counted again here.
    costs = [record.cost if "tokens" in block else recount(record.content) for record, block in zip(records, data["blocks"])]
    cost_of = dict(zip(ids, costs))
    required = [record.required for record in records]
    included = [entry["id"] for entry in result["included"]]
    excluded = [entry["id"] for entry in result["excluded"]]
    trace = _checks.Trace(result["trace"], where)

    def budget() -> Iterator[str]:
        if result["available"] != available:
            yield f"reported available {result['available']}, but the window gives {available}"
        for entry in result["included"] + result["excluded"]:
            if entry["tokens"] != cost_of.get(entry["id"]):
                yield f"block {entry['id']!r} is reported at {entry['tokens']} tokens, its count is {cost_of.get(entry['id'])}"
                return
        yield from _checks.budget_problems(where, costs, included, available, result["used"], result["remaining"])

    def required_included() -> Iterator[str]:
        chosen = set(included)
        unplaced = [position for position in compress(range(len(ids)), required) if ids[position] not in chosen]
        # Named in the rule's order (priority, newest, ordinal id), as the summary names the first.
        keys = ordinal_keys([ids[position] for position in unplaced])
        ranked = sorted(
            range(len(unplaced)), key=lambda k: (-records[unplaced[k]].priority, -records[unplaced[k]].observed.nanoseconds, keys[k])
        )
        missing = [ids[unplaced[k]] for k in ranked]
        if missing:
            verb = "blocks {} are" if len(missing) > 1 else "block {} is"
            yield f"required {verb.format(', '.join(missing))} not included"
        if result["can_proceed"] != (not missing):
            yield f"can_proceed is {result['can_proceed']} although {len(missing)} required blocks are missing"

    def order() -> Iterator[str]:
        # The rank (required first, then priority, then the newest) as one integer: each part
        # in its own bits, so integers compare as the (not required, -priority, -time) tuples
        # would, at a third of the cost.
        instants = [record.observed.nanoseconds for record in records]
        newest, top = max(instants, default=0), max((record.priority for record in records), default=0)
        span, width = (newest - min(instants, default=0)).bit_length(), top.bit_length()
        ranks = [
            ((((not record.required) << width) | (top - record.priority)) << span) | (newest - instant)
            for record, instant in zip(records, instants)
        ]
        yield from _checks.order_problems(trace, ranks)
        yield from _checks.decision_problems(trace, available, costs)
        yield from _checks.listing_problems(trace, included, excluded)

    def prompt() -> Iterator[str]:
        expected = _render(parsed, included, cost_of)
        if result["prompt"] != expected:
            got, want = result["prompt"].split("\n"), expected.split("\n")
            line = next((index for index, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            yield f"the prompt differs from a fresh render of the included blocks at line {line + 1}"

    def rendered_fits() -> Iterator[str]:
        # Per-block headers and metadata cost tokens no block's estimate counts: measure
        # the whole prompt against what the window leaves after the reserved output.
        window_room = window[0] - window[1]
        rendered = recount(result["prompt"])
        if rendered != result["rendered_tokens"] or result["rendered_overhead"] != rendered - result["used"]:
            yield f"the prompt re-counts to {rendered} tokens, the report says {result['rendered_tokens']} (overhead {result['rendered_overhead']})"
        if rendered > window_room:
            yield (
                f"the composed prompt {'estimates' if tokenizer == 'estimate' else 'counts'} {rendered} tokens "
                f"({rendered - result['used']} of them headers, "
                f"metadata, system and task), over context - reserved output = {window_room}"
            )

    return [
        _checks.verdict("context budget", budget()),
        _checks.verdict("required blocks included", required_included()),
        _checks.verdict("deterministic packing order", order()),
        _checks.verdict("prompt lists included blocks in order", prompt()),
        _checks.verdict("rendered prompt fits window", rendered_fits()),
    ]
