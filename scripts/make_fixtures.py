"""Write the fixture cases: each states its key facts by hand (selected ids, summaries,
error paths, values); the full report is written as `expected` only after evaluate()
agrees with every one of those facts, and the script stops at the first disagreement.

Run it after a deliberate change to the report's shape, then read the diff of fixtures/:
`python3 scripts/make_fixtures.py && git diff --stat fixtures`.
"""

import json
import sys
import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "py"))
from fitproof import evaluate

ROOT = REPO / "fixtures"


def item(i, r, t, **kw):
    return {"id": i, "relevance": r, "tokens": t, **kw}


def req(i, c, p, r=None, **kw):
    d = {"id": i, "cost": c, "priority": p}
    if r is not None:
        d["required"] = r
    d.update(kw)
    return d


def case(mode, name, description, input, **facts):
    report = evaluate(input)
    for key, want in facts.items():
        if key == "error_paths":
            got = [e["path"] for e in report.get("errors", [])]
        elif key == "first_error":
            got = report["errors"][0]["message"]
        elif key == "check":
            got = [c["name"] for c in report["checks"] if not c["pass"]]
        elif key == "claim_failures":  # (check, id or index) of each failure of the claim
            got = [(f["check"], f.get("id", f.get("index"))) for f in report["claim"]["failures"]]
        else:
            got = report.get(key)
        assert got == want, (name, key, want, got, report)
    path = ROOT / mode / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"description": description, "input": input, "expected": report}, indent=2, ensure_ascii=False) + "\n")


R = "relevance"
SEED = {"budget": 7, "items": [item("A", 9, 4), item("B", 8, 5), item("C", 7, 3)]}
case(
    R,
    "seed-000-example",
    "The relevance teaching note's example: A (9, 4 tokens) then B does not fit in the 3 left, C (3) fits exactly.",
    SEED,
    **{
        "pass": True,
        "summary": "Selected A, C within 7 tokens.",
        "selected": ["A", "C"],
        "omitted": ["B"],
        "used": 7,
        "remaining": 0,
        "checks": [{"name": "token budget", "pass": True}, {"name": "deterministic relevance order", "pass": True}],
    },
)
case(
    R,
    "seed-000-negative-budget",
    "The relevance teaching note's shape counterexample: a negative budget fails validation.",
    {"budget": -1, "items": []},
    **{
        "pass": False,
        "summary": "Input needs a non-negative integer budget and items array.",
        "check": ["input shape"],
        "error_paths": ["$.budget"],
    },
)
case(
    R,
    "exact-fit",
    "A four-token item fits a four-token budget: the boundary is inclusive.",
    {"budget": 4, "items": [item("only", 1, 4)]},
    **{"pass": True, "selected": ["only"], "used": 4, "remaining": 0},
)
case(
    R,
    "zero-budget",
    "With a zero budget only zero-cost items fit.",
    {"budget": 0, "items": [item("costly", 5, 1), item("free", 1, 0)]},
    **{"pass": True, "selected": ["free"], "omitted": ["costly"], "summary": "Selected free within 0 tokens."},
)
case(
    R,
    "zero-cost-items-after-budget-is-spent",
    "Zero-cost items still fit after the budget is used up.",
    {"budget": 3, "items": [item("big", 9, 3), item("note", 1, 0), item("other", 2, 1)]},
    **{"selected": ["big", "note"], "omitted": ["other"], "used": 3},
)
case(
    R,
    "empty-items",
    "An empty candidate list is accepted: nothing is selected.",
    {"budget": 0, "items": []},
    **{"pass": True, "summary": "Selected nothing within 0 tokens.", "selected": [], "trace": []},
)
case(
    R,
    "tie-broken-by-ordinal-id",
    "Equal relevance: ids in ordinal (code unit) order, so uppercase B before lowercase a and b.",
    {"budget": 2, "items": [item("b", 5, 1), item("a", 5, 1), item("B", 5, 1)]},
    **{"selected": ["B", "a"], "omitted": ["b"]},
)
case(
    R,
    "tie-broken-by-utf16-astral-id",
    "U+1F600 is D83D DE00 in UTF-16 and sorts before U+FF5E, although its code point is larger; a JavaScript or .NET port picks the emoji too.",
    {"budget": 1, "items": [item("\uff5e", 3, 1), item("\U0001f600", 3, 1)]},
    **{"selected": ["\U0001f600"], "omitted": ["\uff5e"]},
)
case(
    R,
    "float-token-count",
    "4.0 is the integer 4: it fits a budget of 4 and is reported as 4.",
    {"budget": 4, "items": [item("x", 1, 4.0)]},
    **{"selected": ["x"], "used": 4},
)
case(
    R,
    "scores-equal-as-doubles",
    "2^53+1 and 2^53 are the same double, so they tie and the id decides.",
    {"budget": 1, "items": [item("b", 9007199254740993, 1), item("a", 9007199254740992, 1)]},
    **{"selected": ["a"], "omitted": ["b"]},
)
case(
    R,
    "later-small-item-still-fits",
    "A large item that does not fit does not stop a later, smaller one.",
    {"budget": 5, "items": [item("big", 3, 9), item("small", 1, 5), item("top", 4, 0, content="free text")]},
    **{"selected": ["top", "small"], "omitted": ["big"]},
)
case(
    R,
    "duplicate-ids",
    "Ids must be unique: the second 'A' is reported with the first one's path.",
    {"budget": 7, "items": [item("A", 9, 4), item("A", 8, 1)]},
    **{
        "pass": False,
        "summary": "Each item needs id, numeric relevance, and non-negative integer tokens.",
        "check": ["item shape"],
        "error_paths": ["$.items[1].id"],
    },
)
case(
    R,
    "unknown-item-key",
    "A misspelt key is rejected with its path instead of being ignored.",
    {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokenz": 4}]},
    **{
        "pass": False,
        "check": ["item shape"],
        "error_paths": ["$.items[0].tokenz", "$.items[0]"],
        "first_error": 'unknown key "tokenz" (did you mean "tokens"? expected id, relevance, tokens, content)',
    },
)
case(
    R,
    "unknown-top-level-key",
    "An undeclared top-level key is an input shape error.",
    {"budget": 7, "items": [], "limit": 3},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.limit"]},
)
case(
    R,
    "non-integer-tokens",
    "2.5 tokens is not a token count.",
    {"budget": 7, "items": [item("A", 9, 2.5)]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[0].tokens"]},
)
case(
    R,
    "every-item-problem-listed",
    "Every bad field is listed, not just the first: blank id (ideographic space), boolean relevance, negative tokens, non-object item.",
    {"budget": 7, "items": [item("\u3000", True, -1), 5, {"id": "ok", "relevance": "high", "tokens": 1}]},
    **{
        "pass": False,
        "check": ["item shape"],
        "error_paths": ["$.items[0].id", "$.items[0].relevance", "$.items[0].tokens", "$.items[1]", "$.items[2].relevance"],
    },
)
case(
    R,
    "next-line-is-not-whitespace",
    "U+0085 is not whitespace for JavaScript's trim, so it is a valid id (Python's strip would remove it).",
    {"budget": 1, "items": [item("\u0085", 1, 1)]},
    **{"pass": True, "selected": ["\u0085"]},
)
case(
    R,
    "budget-above-2-53",
    "Budgets stop at 2^53-1, the largest integer a double holds exactly.",
    {"budget": 9007199254740992, "items": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.budget"]},
)
case(R, "not-an-object", "The input must be an object.", [1, 2], **{"pass": False, "check": ["input shape"], "error_paths": ["$"]})
case(
    R,
    "unknown-mode",
    "An unknown mode is rejected and the error lists the four modes.",
    {"mode": "knapsack", "budget": 1, "items": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.mode"]},
)
case(
    R,
    "misspelt-mode",
    "A mode name close to a known one gets a suggestion.",
    {"mode": "relevnce", "budget": 1, "items": []},
    **{
        "pass": False,
        "check": ["input shape"],
        "error_paths": ["$.mode"],
        "first_error": 'expected one of relevance, required, blocks, passages, messages, got "relevnce"; did you mean "relevance"?',
    },
)
case(
    R,
    "blocks-input-without-mode",
    "A blocks input with no mode is read as relevance; the first error says to add the mode.",
    {
        "window": {"context_tokens": 100, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0},
        "blocks": [{"id": "a", "source": "s", "content": "c", "priority": 1, "observed_at": "2026-01-01T00:00:00Z"}],
    },
    **{
        "pass": False,
        "check": ["input shape"],
        "error_paths": ["$", "$.window", "$.blocks", "$", "$"],
        "first_error": 'this input is valid in mode "blocks"; without a "mode" key it is read as "relevance": add "mode": "blocks"',
    },
)

Q = "required"
SEED3 = {
    "mode": "required",
    "budget": 8,
    "items": [
        req("contract", 3, 0, True, content="Requested outcome"),
        req("recent", 4, 9, False, content="Recent result"),
        req("older", 3, 2, False, content="Old result"),
    ],
}
case(
    Q,
    "seed-003-example",
    "The required-items reference selector's example: the required contract first, then recent (priority 9); older no longer fits.",
    SEED3,
    **{"pass": True, "selected": ["contract", "recent"], "omitted": ["older"], "used": 7},
)
case(
    Q,
    "required-overflow",
    "Required items alone need 7 tokens with a budget of 5: the selection fails, 2 tokens short.",
    {"mode": "required", "budget": 5, "items": [req("policy", 3, 1, True), req("ticket", 4, 5, True), req("extra", 1, 9)]},
    **{
        "pass": False,
        "shortfall": 2,
        "selected": [],
        "required_cost": 7,
        "summary": "Required items ticket, policy need 7 tokens but the budget is 5: 2 tokens short.",
        "check": ["required items selected"],
    },
)
case(
    Q,
    "exact-fit",
    "Required and optional items fill the budget exactly.",
    {"mode": "required", "budget": 6, "items": [req("must", 2, 0, True), req("nice", 4, 1)]},
    **{"selected": ["must", "nice"], "remaining": 0},
)
case(
    Q,
    "zero-budget-zero-cost-required",
    "A zero-cost required item fits a zero budget.",
    {"mode": "required", "budget": 0, "items": [req("free", 0, 0, True), req("paid", 1, 5)]},
    **{"pass": True, "selected": ["free"], "omitted": ["paid"]},
)
case(
    Q,
    "zero-budget-required-overflow",
    "A one-token required item does not fit a zero budget: 1 token short.",
    {"mode": "required", "budget": 0, "items": [req("must", 1, 0, True)]},
    **{"pass": False, "shortfall": 1, "summary": "Required item must needs 1 token but the budget is 0: 1 token short."},
)
case(
    Q,
    "priority-tie-astral-id",
    "Equal priority: the astral-plane id comes first in UTF-16 order.",
    {"mode": "required", "budget": 1, "items": [req("\uff5e", 1, 2), req("\U0001f600", 1, 2)]},
    **{"selected": ["\U0001f600"]},
)
case(
    Q,
    "float-cost",
    "4.0 is the integer 4.",
    {"mode": "required", "budget": 4, "items": [req("x", 4.0, 1, True)]},
    **{"selected": ["x"], "used": 4},
)
case(
    Q,
    "selected-in-input-order",
    "Selected and omitted keep the input order, whatever order the items were considered in.",
    {"mode": "required", "budget": 5, "items": [req("low", 2, 1), req("mid", 9, 5), req("high", 3, 9), req("core", 0, 0, True)]},
    **{"selected": ["low", "high", "core"], "omitted": ["mid"]},
)
case(
    Q,
    "no-required-items",
    "Without required items the rule is greedy by priority.",
    {"mode": "required", "budget": 3, "items": [req("a", 2, 1.5), req("b", 2, 2.5), req("c", 1, -1)]},
    **{"selected": ["b", "c"], "omitted": ["a"]},
)
case(
    Q,
    "empty-items",
    "No items: nothing selected, nothing required.",
    {"mode": "required", "budget": 3, "items": []},
    **{"pass": True, "selected": [], "summary": "Selected nothing using 0 of 3 tokens."},
)
case(
    Q,
    "duplicate-ids",
    "Ids must be unique.",
    {"mode": "required", "budget": 3, "items": [req("a", 1, 1), req("a", 1, 1)]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[1].id"]},
)
case(
    Q,
    "unknown-key",
    "A misspelt key ('requried') is rejected, not taken as optional.",
    {"mode": "required", "budget": 3, "items": [{"id": "a", "cost": 1, "priority": 1, "requried": True}]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[0].requried"]},
)
case(
    Q,
    "relevance-shaped-items",
    "Items with relevance and tokens under mode required: the first error says the input fits mode relevance.",
    {"mode": "required", "budget": 7, "items": [item("A", 9, 4)]},
    **{
        "pass": False,
        "check": ["item shape"],
        "error_paths": ["$.mode", "$.items[0].relevance", "$.items[0].tokens", "$.items[0]", "$.items[0]"],
        "first_error": 'this input is valid in mode "relevance", not "required": set "mode": "relevance"',
    },
)
case(
    Q,
    "non-integer-cost",
    "The required-items reference selector rejects a non-integer cost.",
    {"mode": "required", "budget": 3, "items": [req("a", 1.5, 1)]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[0].cost"]},
)
case(
    Q,
    "negative-budget",
    "The required-items reference selector rejects a negative budget.",
    {"mode": "required", "budget": -2, "items": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.budget"]},
)
case(
    Q,
    "required-not-boolean",
    "required must be true or false, not a string.",
    {"mode": "required", "budget": 3, "items": [req("a", 1, 1, "yes")]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[0].required"]},
)
case(
    Q,
    "missing-priority",
    "priority is required.",
    {"mode": "required", "budget": 3, "items": [{"id": "a", "cost": 1}]},
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[0]"]},
)
case(
    Q,
    "items-not-array",
    "items must be an array.",
    {"mode": "required", "budget": 3, "items": {"a": 1}},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.items"]},
)

B = "blocks"
import copy as _copy

REFUND = json.load(open(REPO / "examples" / "refund-case.json"))


def refund(fixed, context=850):
    d = _copy.deepcopy(REFUND)
    d["window"]["fixed_prompt_tokens"] = fixed
    d["window"]["context_tokens"] = context
    return d


def blk(i, content="evidence", p=50, at="2026-03-13T12:00:00Z", **kw):
    return {"id": i, "source": "test", "content": content, "priority": p, "observed_at": at, **kw}


def win(c, r=0, f=400):
    return {"context_tokens": c + r + f, "reserved_output_tokens": r, "fixed_prompt_tokens": f}


ALL = ["CUSTOMER_MESSAGE", "REFUND_POLICY", "ORDER_DATA", "CUSTOMER_HISTORY", "OPERATIONS_PLAYBOOK"]
case(
    B,
    "refund-everything-fits",
    "The C# pipeline's refund case with a 1200-token window (1200 - 300 - 220 = 680): all five blocks fit in 255 tokens and the composed prompt (598) fits 1200 - 300.",
    refund(220, 1200),
    **{"pass": True, "available": 680, "used": 255, "can_proceed": True, "excluded": []},
)
case(
    B,
    "refund-optional-excluded",
    "A fixed prompt of 400 leaves 150 tokens: the required blocks take 104; ORDER_DATA (48) no longer fits, CUSTOMER_HISTORY (26) still does, OPERATIONS_PLAYBOOK (77) does not.",
    refund(400),
    **{
        "pass": True,
        "available": 150,
        "used": 130,
        "can_proceed": True,
        "excluded": [
            {"id": "ORDER_DATA", "tokens": 48, "reason": "exceeds_remaining_budget"},
            {"id": "OPERATIONS_PLAYBOOK", "tokens": 77, "reason": "exceeds_remaining_budget"},
        ],
    },
)
case(
    B,
    "refund-required-overflow",
    "A fixed prompt of 470 leaves 80 tokens: REFUND_POLICY (60, required) does not fit after CUSTOMER_MESSAGE (44): the run cannot proceed.",
    refund(470),
    **{
        "pass": False,
        "can_proceed": False,
        "summary": "Cannot proceed: required block REFUND_POLICY needs 60 tokens but only 36 remain.",
        "check": ["required blocks included"],
    },
)
case(
    B,
    "exact-fit",
    "A block whose estimate equals the available budget fits (one-word content estimates 2 tokens).",
    {"mode": "blocks", "window": win(2), "blocks": [blk("only", "word")]},
    **{"pass": True, "used": 2, "remaining": 0},
)
case(
    B,
    "blank-content-costs-zero",
    "Blank content (JavaScript whitespace only) estimates 0 tokens and fits even when nothing remains.",
    {"mode": "blocks", "window": win(2), "blocks": [blk("full", "word", p=90), blk("blank", " \n\t\u3000 ", p=10)]},
    **{"included": [{"id": "full", "tokens": 2}, {"id": "blank", "tokens": 0}]},
)
case(
    B,
    "tie-broken-by-id",
    "Equal priority and equal instant: ordinal id order decides, uppercase first.",
    {"mode": "blocks", "window": win(4), "blocks": [blk("b"), blk("a"), blk("B")]},
    **{
        "included": [{"id": "B", "tokens": 2}, {"id": "a", "tokens": 2}],
        "excluded": [{"id": "b", "tokens": 2, "reason": "exceeds_remaining_budget"}],
    },
)
case(
    B,
    "offsets-compare-as-instants",
    "15:00+05:00 is 10:00Z, earlier than 12:00Z although its wall-clock time is later: the 12:00Z block is newer and goes first.",
    {"mode": "blocks", "window": win(2), "blocks": [blk("east", at="2026-03-13T15:00:00+05:00"), blk("utc", at="2026-03-13T12:00:00Z")]},
    **{"included": [{"id": "utc", "tokens": 2}], "excluded": [{"id": "east", "tokens": 2, "reason": "exceeds_remaining_budget"}]},
)
case(
    B,
    "astral-characters-count-two",
    "Ten U+1F600 characters are 20 UTF-16 code units: ceil(20 / 4) = 5 tokens (counting code points would give 3).",
    {"mode": "blocks", "window": win(5), "blocks": [blk("emoji", "\U0001f600" * 10)]},
    **{"included": [{"id": "emoji", "tokens": 5}], "remaining": 0},
)
case(
    B,
    "explicit-tokens-override-estimate",
    "A block with tokens uses that count instead of the estimate.",
    {"mode": "blocks", "window": win(10), "blocks": [blk("counted", "a long text that would estimate more than three", tokens=3)]},
    **{"included": [{"id": "counted", "tokens": 3}], "used": 3},
)
case(
    B,
    "required-first-then-priority",
    "Required blocks go first whatever their priority; then priority, then newest.",
    {
        "mode": "blocks",
        "window": win(6),
        "blocks": [
            blk("A", p=10, required=True),
            blk("B", p=90, at="2026-03-01T00:00:00Z"),
            blk("C", p=90, at="2026-03-02T00:00:00Z"),
            blk("D", p=50),
        ],
    },
    **{
        "included": [{"id": "A", "tokens": 2}, {"id": "C", "tokens": 2}, {"id": "B", "tokens": 2}],
        "excluded": [{"id": "D", "tokens": 2, "reason": "exceeds_remaining_budget"}],
    },
)
case(
    B,
    "no-blocks",
    "No blocks: the prompt holds the system text and the task only.",
    {"mode": "blocks", "window": win(10), "system": "Be brief.", "task": "Say hi.", "blocks": []},
    **{"pass": True, "prompt": "System:\nBe brief.\n\nTask:\nSay hi.\n\nContext Blocks:\n", "used": 0},
)
case(
    B,
    "window-without-budget",
    "Reserved output plus fixed prompt use the whole window: no context budget, and the error names the three numbers.",
    {"mode": "blocks", "window": {"context_tokens": 850, "reserved_output_tokens": 600, "fixed_prompt_tokens": 250}, "blocks": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.window"]},
)
case(
    B,
    "invalid-block-fields",
    "Priority above 100, a date-time without offset, and a misspelt key are each reported.",
    {
        "mode": "blocks",
        "window": win(10),
        "blocks": [{"id": "x", "source": "s", "content": "c", "priority": 101, "observed_at": "2026-03-13T12:00:00", "requird": True}],
    },
    **{"pass": False, "check": ["block shape"], "error_paths": ["$.blocks[0].requird", "$.blocks[0].priority", "$.blocks[0].observed_at"]},
)
case(
    B,
    "duplicate-ids",
    "Block ids must be unique.",
    {"mode": "blocks", "window": win(10), "blocks": [blk("x"), blk("x")]},
    **{"pass": False, "check": ["block shape"], "error_paths": ["$.blocks[1].id"]},
)
case(
    B,
    "missing-window",
    "The window is required.",
    {"mode": "blocks", "blocks": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$"]},
)

P = "passages"


def pas(*pairs):
    return [{"id": i, "text": t} for i, t in pairs]


def pin(limit, passages, counter="words", question="why"):
    return {"mode": "passages", "question": question, "limit": limit, "counter": counter, "passages": passages}


case(
    P,
    "seed-004-example",
    "The retrieval example's fixture: the empty prompt is 4 words, a adds 3, b would add 6, c adds 2; with a limit of 9, a and c fit exactly.",
    pin(9, pas(("a", "one two"), ("b", "one two three four five"), ("c", "six"))),
    **{
        "pass": True,
        "chosen": ["a", "c"],
        "skipped": ["b"],
        "units": 9,
        "prompt": "Question: why\nSources:\n[a] one two\n[c] six\nAnswer:",
    },
)
case(
    P,
    "empty-passage-list",
    "No passages: the base prompt alone, 4 words within 4.",
    pin(4, []),
    **{"pass": True, "chosen": [], "units": 4, "prompt": "Question: why\nSources:\nAnswer:"},
)
case(
    P,
    "base-overflow",
    "The prompt without passages (4 words) already exceeds a limit of 3: invalid, as in the seed.",
    pin(3, []),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.limit"]},
)
case(
    P,
    "exact-fit",
    "A passage that brings the prompt to exactly the limit is kept.",
    pin(7, pas(("a", "one two"))),
    **{"chosen": ["a"], "units": 7},
)
case(
    P,
    "long-skipped-later-short-kept",
    "A long passage that does not fit does not stop a later short one.",
    pin(8, pas(("long", "w " * 20), ("short", "ok"), ("also", "no room"))),
    **{"chosen": ["short"], "skipped": ["long", "also"], "units": 6},
)
case(
    P,
    "empty-and-blank-text",
    "Empty and whitespace-only passages cost only their label: one word each.",
    pin(6, pas(("e", ""), ("w", " \t "), ("x", "more"))),
    **{"chosen": ["e", "w"], "skipped": ["x"], "units": 6},
)
case(
    P,
    "unicode-whitespace-words",
    "The words counter splits like Python's str.split: U+3000 and U+0085 separate words, U+200B does not.",
    pin(8, pas(("a", "one\u3000two\u0085three"), ("b", "x\u200by"))),
    **{"chosen": ["a"], "skipped": ["b"], "units": 8},
)
case(
    P,
    "estimate-counter",
    "The estimate counter measures the whole prompt with the blocks estimator: the base prompt is 30 code units, 4 words, 2 newlines: 8 + 2 = 10; with a it is 51 units, 8 words, 3 newlines: 13 + 3 = 16; b would make it 61 units: 16 + 4 = 20.",
    pin(16, pas(("a", "alpha beta gamma"), ("b", "delta")), counter="estimate"),
    **{"pass": True, "chosen": ["a"], "skipped": ["b"], "units": 16},
)
case(
    P,
    "estimate-counter-astral",
    "Twelve U+1F600 count 24 code units: the prompt is 59 units, ceil(59 / 4) + 3 newlines = 18 (counting code points would give 15).",
    pin(18, pas(("e", "\U0001f600" * 12)), counter="estimate"),
    **{"chosen": ["e"], "units": 18},
)
case(
    P,
    "ids-with-spaces",
    "Labels are part of the measured prompt: an id with a space adds a word.",
    pin(6, pas(("a b", "x"))),
    **{"chosen": [], "skipped": ["a b"], "units": 4},
)
case(
    P,
    "duplicate-ids",
    "Duplicate passage ids are rejected, as in the seed.",
    pin(20, pas(("a", "x"), ("a", "y"))),
    **{"pass": False, "check": ["passage shape"], "error_paths": ["$.passages[1].id"]},
)
case(
    P,
    "empty-id",
    "An empty passage id is rejected.",
    pin(20, pas(("", "x"))),
    **{"pass": False, "check": ["passage shape"], "error_paths": ["$.passages[0].id"]},
)
case(
    P,
    "unknown-counter",
    "The counter must be words, estimate, o200k_base or cl100k_base.",
    pin(20, [], counter="tiktoken"),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.counter"]},
)
case(
    P,
    "non-integer-limit",
    "The limit must be a non-negative integer.",
    pin(9.5, []),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.limit"]},
)
case(
    P,
    "multiline-text",
    "Newlines inside a passage are kept in the prompt exactly as given.",
    pin(10, pas(("a", "line one\nline two"))),
    **{"chosen": ["a"], "units": 9, "prompt": "Question: why\nSources:\n[a] line one\nline two\nAnswer:"},
)

# ---------------------------------------------------------------- beyond the rule
case(
    R,
    "greedy-counterexample",
    "Greedy takes A (relevance 10, 6 tokens) and then neither B nor C (9 each, 5 tokens) fits; B and C together would give 18.",
    {"budget": 10, "items": [item("A", 10, 6), item("B", 9, 5), item("C", 9, 5)]},
    **{
        "selected": ["A"],
        "omitted": ["B", "C"],
        "used": 6,
        "optimal": {"exact": True, "value": 18, "selected": ["B", "C"], "cost": 10, "greedy_value": 10, "verified": True},
    },
)
case(
    R,
    "optimal-skips-non-positive-items",
    "Items worth nothing or less never enter the best subset, though greedy takes them when they fit.",
    {"budget": 3, "items": [item("good", 2, 1), item("zero", 0, 1), item("bad", -5, 1)]},
    **{
        "selected": ["good", "zero", "bad"],
        "optimal": {"exact": True, "value": 2, "selected": ["good"], "cost": 1, "greedy_value": -3, "verified": True},
    },
)
case(
    R,
    "optimal-tie-prefers-ordinal-order",
    "Two best subsets worth 5: the one first in ordinal id order (a) is reported.",
    {"budget": 1, "items": [item("b", 5, 1), item("a", 5, 1)]},
    **{"optimal": {"exact": True, "value": 5, "selected": ["a"], "cost": 1, "greedy_value": 5, "verified": True}},
)
case(
    Q,
    "optimal-with-required-fixed",
    "Required items are fixed; the best optional priority sum in the 5 tokens left is 8 (b, c), greedy takes a for 7.",
    {"mode": "required", "budget": 8, "items": [req("must", 3, 0, True), req("a", 3, 7), req("b", 2, 4), req("c", 3, 4)]},
    **{
        "selected": ["must", "a", "b"],
        "optimal": {"exact": True, "value": 11, "selected": ["a", "b"], "cost": 5, "greedy_value": 11, "verified": True},
    },
)
case(
    Q,
    "optimal-beats-greedy",
    "Priority 10 costs 6; two priority-9 items costing 5 each would give 18 in the 10 tokens left after the required item.",
    {"mode": "required", "budget": 12, "items": [req("core", 2, 0, True), req("A", 6, 10), req("B", 5, 9), req("C", 5, 9)]},
    **{
        "selected": ["core", "A"],
        "optimal": {"exact": True, "value": 18, "selected": ["B", "C"], "cost": 10, "greedy_value": 10, "verified": True},
    },
)
case(
    B,
    "refund-seed-window-rendered-too-large",
    "The C# pipeline's own window (850 - 300 - 220 = 330) packs all five blocks in 255 tokens, but the composed prompt with its headers and metadata estimates 598 tokens, over 850 - 300 = 550: the packing is right and the check says the prompt does not fit.",
    refund(220, 850),
    **{
        "pass": False,
        "can_proceed": True,
        "used": 255,
        "rendered_tokens": 598,
        "rendered_overhead": 343,
        "check": ["rendered prompt fits window"],
    },
)
case(
    B,
    "sensitivity-margin",
    "With a margin of 0.5 the estimated costs range from half to one and a half times: 'long' flips in when they shrink.",
    {"mode": "blocks", "window": win(5), "margin": 0.5, "blocks": [blk("short", "one two", p=90), blk("long", "three four five", p=10)]},
    **{
        "included": [{"id": "short", "tokens": 3}],
        "sensitivity": {
            "margin": 0.5,
            "flips": ["long"],
            "required_slack": 5,
            "larger": {"flips": [], "can_proceed": True, "required_slack": 5},
            "smaller": {"flips": ["long"], "can_proceed": True, "required_slack": 5},
        },
    },
)
case(
    P,
    "estimate-sensitivity",
    "With the estimate counter, a 15% error either way would change the choice: a drops out and b comes in if counts are larger.",
    pin(16, pas(("a", "alpha beta gamma"), ("b", "delta")), counter="estimate"),
    **{
        "sensitivity": {
            "margin": 0.15,
            "flips": ["a", "b"],
            "slack": 0,
            "larger": {"flips": ["a", "b"], "units": 15, "base_fits": True},
            "smaller": {"flips": [], "units": 13, "base_fits": True},
        }
    },
)
case(
    P,
    "bad-margin",
    "The margin must be at least 0 and below 1.",
    dict(pin(16, [], counter="estimate"), margin=1.5),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.margin"]},
)

# ---------------------------------------------------------------- messages
M = "messages"


def chat(limit, messages, tokenizer="estimate"):
    return {"mode": "messages", "limit": limit, "tokenizer": tokenizer, "messages": messages}


def msg(role, content, **kw):
    return {"role": role, "content": content, **kw}


def calls(*ids):
    return [{"id": i, "type": "function", "function": {"name": "lookup", "arguments": '{"order":"A-1042"}'}} for i in ids]


def costs(messages, tokenizer="estimate"):
    """Each message's cost, to set limits at the boundaries the cases are about."""
    from fitproof.modes import messages as mode

    return mode.parse(chat(0, messages, tokenizer))["costs"]


CAPITALS = [
    msg("system", "You answer in one sentence."),
    msg("user", "Hi there"),
    msg("assistant", "Hello! How can I help?"),
    msg("user", "What is the capital of France?"),
    msg("assistant", "Paris."),
    msg("user", "And of Spain?"),
]
FULL = 3 + sum(costs(CAPITALS))
case(
    M,
    "everything-fits",
    "A short chat well within the limit: every message is kept, in input order, ready to send.",
    chat(200, CAPITALS),
    **{"pass": True, "kept": [0, 1, 2, 3, 4, 5], "dropped": [], "tokens": FULL},
)
case(
    M,
    "exact-fit",
    "The limit equals the prompt's count (3 per message + role + content, + 3 priming): everything fits, nothing remains.",
    chat(FULL, CAPITALS),
    **{"pass": True, "kept": [0, 1, 2, 3, 4, 5], "tokens": FULL, "remaining": 0},
)
case(
    M,
    "one-token-short-drops-the-oldest-pair",
    "One token short: the oldest user turn no longer fits, and the assistant turn after it goes too, because the history must start with a user message.",
    chat(FULL - 1, CAPITALS),
    **{"pass": True, "kept": [0, 3, 4, 5], "dropped": [1, 2]},
)
CC = costs(CAPITALS)
case(
    M,
    "pinned-overflow",
    "The system message, the live turn (the newest user message) and the reply priming need more than the limit: the selection fails with the shortfall and nothing is kept.",
    chat(10, CAPITALS),
    **{
        "pass": False,
        "kept": [],
        "shortfall": 3 + CC[0] + CC[5] - 10,
        "live_turn": [5],
        "summary": f"The live turn (message 5, from the newest user message on), the pinned message (#0) and the reply priming need {3 + CC[0] + CC[5]} estimated tokens, {3 + CC[0] + CC[5] - 10} over the limit of 10.",
    },
)
PASTE = [
    msg("user", "Hi"),
    msg("assistant", "Hello."),
    msg("user", "Here is the log: " + "ERROR disk full at /var/lib " * 40),
    msg("assistant", "The disk is full."),
    msg("user", "How do I fix it?"),
]
case(
    M,
    "long-old-turn-stops-the-walk",
    "The long pasted log (message 2) does not fit, so the walk stops there: the short greeting before it would fit but is older than a dropped message (no holes).",
    chat(60, PASTE),
    **{"pass": True, "kept": [4], "dropped": [0, 1, 2, 3]},
)
TOOLS = [
    msg("system", "You are a support agent."),
    msg("user", "Where is my order A-1042?"),
    {"role": "assistant", "content": None, "tool_calls": calls("call_1", "call_2")},
    {"role": "tool", "tool_call_id": "call_1", "content": "A-1042: shipped 2026-11-20"},
    {"role": "tool", "tool_call_id": "call_2", "content": "carrier: DHL, arriving Tuesday"},
    msg("assistant", "It shipped on the 20th and arrives Tuesday with DHL."),
    msg("user", "Thanks!"),
]
TC = costs(TOOLS)
case(
    M,
    "tool-unit-kept-whole",
    "The assistant message that calls two tools and both results are one unit: with room for it, all three are kept together.",
    chat(3 + sum(TC), TOOLS),
    **{"pass": True, "kept": [0, 1, 2, 3, 4, 5, 6]},
)
case(
    M,
    "tool-unit-dropped-whole",
    "One token short of the tool unit: the call and both results are dropped together (never an orphaned tool result), and the user turn before them as older.",
    chat(3 + TC[0] + sum(TC[5:]) + sum(TC[2:5]) - 1, TOOLS),
    **{"pass": True, "kept": [0, 6], "dropped": [1, 2, 3, 4, 5]},
)
GREETING = [
    msg("assistant", "Hi! I am the booking assistant."),
    msg("assistant", "Ask me about flights."),
    msg("user", "Flights to Oslo?"),
    msg("assistant", "Three a day."),
]
case(
    M,
    "leading-assistant-turns-dropped",
    "Plenty of room, but the conversation sent must start with a user turn: the two assistant greetings are dropped.",
    chat(500, GREETING),
    **{"pass": True, "kept": [2, 3], "dropped": [0, 1]},
)
DEV = [
    msg("user", "Summarise our chat so far, please, in great detail " * 3),
    msg("assistant", "Sure."),
    msg("developer", "Answer in French."),
    msg("user", "Bonjour?"),
    msg("assistant", "Bonjour !"),
]
DC = costs(DEV)
case(
    M,
    "developer-message-is-pinned",
    "A developer message is kept wherever it is, like a system message; the long old user turn does not fit and the turn after it goes for the user start.",
    chat(3 + sum(DC[2:]) + DC[1], DEV),
    **{"pass": True, "kept": [2, 3, 4], "dropped": [0, 1]},
)
NAMED = [msg("user", "Hello", name="ana"), msg("user", "Hello")]
case(
    M,
    "named-messages",
    "A name costs its tokens plus 1: the named message costs more than the same text without a name.",
    chat(100, NAMED),
    **{"pass": True, "kept": [0, 1], "tokens": 3 + costs(NAMED)[0] + costs(NAMED)[1]},
)
PARTS = [
    msg(
        "user",
        [
            {"type": "text", "text": "Compare these two:"},
            {"type": "text", "text": "first option"},
            {"type": "text", "text": "second option"},
        ],
    ),
    msg("assistant", "The second one."),
]
case(
    M,
    "text-part-content",
    "Content given as text parts counts each part's text: the three parts are summed.",
    chat(100, PARTS),
    **{"pass": True, "kept": [0, 1]},
)
PIN = [
    msg("user", "My account id is 7731, remember it.", pinned=True),
    msg("assistant", "Noted."),
    msg("user", "x " * 80),
    msg("assistant", "That is a lot of x."),
    msg("user", "What is my account id?"),
]
PC = costs(PIN)
case(
    M,
    "pinned-user-turn-kept",
    "A user message marked pinned is kept although the turns after it were dropped; pinned is not sent to the API.",
    chat(3 + PC[0] + PC[3] + PC[4], PIN),
    **{"pass": True, "kept": [0, 4], "dropped": [1, 2, 3]},
)
# The live turn: the newest user message and every message after it, kept as if pinned.
QUESTION = [
    msg("system", "You answer in one sentence."),
    msg("user", "Hi"),
    msg("assistant", "Hello!"),
    msg(
        "user",
        "Please review this contract clause by clause: "
        + "The party of the first part shall indemnify the party of the second part. " * 12,
    ),
]
QC = costs(QUESTION)
case(
    M,
    "live-turn-too-large",
    "The newest user message alone is over what the system message leaves: nothing is sent (an answer to an older question would be wrong), and the selection fails with the shortfall.",
    chat(60, QUESTION),
    **{
        "pass": False,
        "kept": [],
        "live_turn": [3],
        "live_tokens": QC[3],
        "shortfall": 3 + QC[0] + QC[3] - 60,
        "summary": f"The live turn (message 3, from the newest user message on), the pinned message (#0) and the reply priming need {3 + QC[0] + QC[3]} estimated tokens, {3 + QC[0] + QC[3] - 60} over the limit of 60.",
    },
)
ROUND = [
    msg("system", "You are a support agent."),
    msg("user", "Hi"),
    msg("assistant", "Hello, how can I help?"),
    msg("user", "Show me the log of order A-1042."),
    {"role": "assistant", "content": None, "tool_calls": calls("call_1")},
    {"role": "tool", "tool_call_id": "call_1", "content": "2026-11-20 08:00 scanned at depot\n" * 30},
]
RC = costs(ROUND)
case(
    M,
    "live-tool-round-too-large",
    "The current step's tool result is part of the live turn (the user message 3 and the tool round after it): it does not fit, so the selection fails rather than send the question without its result.",
    chat(120, ROUND),
    **{"pass": False, "kept": [], "live_turn": [3, 4, 5], "shortfall": 3 + RC[0] + sum(RC[3:]) - 120},
)
case(
    M,
    "no-user-message",
    "A history without a user message has no turn to answer: invalid, with the reason.",
    chat(100, [msg("system", "You are helpful."), msg("assistant", "Hello! Ask me anything.")]),
    **{
        "pass": False,
        "check": ["message shape"],
        "error_paths": ["$.messages"],
        "summary": "The history has no user message: there is no turn to answer.",
        "first_error": 'no message has the role "user" (its roles: system, assistant): a conversation sent to a model needs a user turn to answer',
    },
)
# The user start with pinned messages: the reply to a pinned user message stays when it fits.
PINREPLY = [
    msg("system", "You are a booking assistant."),
    msg("user", "My booking reference is QX7-22; keep it in mind.", pinned=True),
    msg("assistant", "Noted: QX7-22."),
    msg("user", "Which gate does my flight leave from?"),
    msg("assistant", "Gate B12, boarding at 9:40."),
    msg("user", "And is there a lounge near it?"),
]
PR = costs(PINREPLY)
case(
    M,
    "pinned-user-reply-kept",
    "Room for everything: the assistant's reply right after the pinned user message is kept, and nothing is dropped.",
    chat(3 + sum(PR), PINREPLY),
    **{"pass": True, "kept": [0, 1, 2, 3, 4, 5], "dropped": [], "remaining": 0},
)
case(
    M,
    "pinned-user-reply-without-room",
    "One token short of the reply to the pinned user message: it is dropped (it does not fit), and the newer turns stay.",
    chat(3 + sum(PR) - 1, PINREPLY),
    **{"pass": True, "kept": [0, 1, 3, 4, 5], "dropped": [2]},
)
case(
    M,
    "pinned-user-reply-after-a-drop",
    "The walk stops at the user turn 3 (it does not fit): the reply 2 after the pinned user message is older than a dropped message, and the reply 4 to the dropped 3 goes for the user start; the pinned message and the live turn stay.",
    chat(3 + PR[0] + PR[1] + PR[4] + PR[5] + PR[2], PINREPLY),
    **{"pass": True, "kept": [0, 1, 5], "dropped": [2, 3, 4]},
)
# Images by OpenAI's tile rule, sizes from a data: URL's header or the part's own size.
import base64
import struct
import zlib


def png(width, height):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(data).decode()


PICTURES = [
    msg(
        "user",
        [
            {"type": "text", "text": "Which of these is damaged?"},
            {"type": "image_url", "image_url": {"url": png(1024, 1024)}},
            {"type": "image_url", "image_url": {"url": "https://example.invalid/box.jpg", "detail": "high"}, "size": [2048, 4096]},
            {"type": "image_url", "image_url": {"url": "https://example.invalid/label.jpg", "detail": "low"}},
            {"type": "image_url", "image_url": {"url": "https://example.invalid/receipt.jpg"}},
        ],
    )
]
case(
    M,
    "images-counted-by-tiles",
    "Four images: a 1024x1024 PNG (its size read from the data: URL) costs 765, a 2048x4096 photo (its size given) 1105, a low-detail one 85, and a remote one of unknown size the most, 1445; the report lists it as counted at the most, and the size key is not sent.",
    chat(5000, PICTURES, "o200k_base"),
    **{
        "pass": True,
        "kept": [0],
        "images": [
            {"index": 0, "part": 1, "tokens": 765, "detail": "auto", "size": [1024, 1024], "at_most": False},
            {"index": 0, "part": 2, "tokens": 1105, "detail": "high", "size": [2048, 4096], "at_most": False},
            {"index": 0, "part": 3, "tokens": 85, "detail": "low", "size": None, "at_most": False},
            {"index": 0, "part": 4, "tokens": 1445, "detail": "auto", "size": None, "at_most": True},
        ],
    },
)
case(
    M,
    "audio-part-refused",
    "An audio part is not counted by this mode: invalid, and the message says so.",
    chat(100, [msg("user", [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}])]),
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.messages[0].content[0].type"]},
)
# What the OpenAI SDK returns: choices[0].message.model_dump(), nulls and annotations included.
SDK_REPLY = {
    "content": None,
    "refusal": None,
    "role": "assistant",
    "annotations": [],
    "audio": None,
    "function_call": None,
    "tool_calls": [
        {"id": "call_1", "function": {"arguments": '{"order":"A-1042"}', "name": "lookup"}, "type": "function"},
        {"id": "call_2", "custom": {"input": "SELECT status FROM orders", "name": "sql"}, "type": "custom"},
    ],
}
SDK_CHAT = [
    msg("user", "Where is my order A-1042?"),
    SDK_REPLY,
    {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
    {"role": "tool", "tool_call_id": "call_2", "content": "in transit"},
    {
        "content": "It shipped and is in transit.",
        "refusal": None,
        "role": "assistant",
        "annotations": [],
        "audio": None,
        "function_call": None,
        "tool_calls": None,
    },
]
case(
    M,
    "sdk-reply-model-dump",
    "Replies appended as the OpenAI SDK's model_dump() gives them (null fields, annotations, a custom tool call): accepted; the messages to send leave out the nulls and the annotations.",
    chat(500, SDK_CHAT, "o200k_base"),
    **{
        "pass": True,
        "kept": [0, 1, 2, 3, 4],
        "messages": [
            SDK_CHAT[0],
            {"content": None, "role": "assistant", "tool_calls": SDK_REPLY["tool_calls"]},
            SDK_CHAT[2],
            SDK_CHAT[3],
            {"content": "It shipped and is in transit.", "role": "assistant"},
        ],
    },
)
case(
    M,
    "orphaned-tool-result",
    "A tool message whose call is in no earlier assistant message is invalid (the API would refuse it).",
    chat(100, [msg("user", "hi"), {"role": "tool", "tool_call_id": "call_9", "content": "42"}]),
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.messages[1].tool_call_id"]},
)
case(
    M,
    "unanswered-tool-call",
    "A tool call with no tool message answering it is invalid.",
    chat(100, [msg("user", "hi"), {"role": "assistant", "content": None, "tool_calls": calls("call_1")}, msg("user", "well?")]),
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.messages[1].tool_calls[0].id"]},
)
case(
    M,
    "empty-history",
    "An empty history has nothing to trim: invalid.",
    chat(100, []),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.messages"]},
)
case(
    M,
    "unknown-role-and-key",
    "Every problem is listed with its path: an unknown role, and a misspelt key.",
    chat(100, [{"role": "bot", "content": "hi"}, {"role": "user", "contents": "hello"}]),
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.messages[0].role", "$.messages[1].contents", "$.messages[1]"]},
)


# The same history in Anthropic's Messages format and in OpenAI's Responses format.
def fmt(format, limit, messages, **kw):
    return {"mode": "messages", "format": format, "limit": limit, "messages": messages, **kw}


CLAUDE = [
    msg("user", "Hi, I ordered a lamp last week. " * 6),
    msg("assistant", "Happy to help. What is the order number? " * 4),
    msg("user", "Where is my order A-1042?"),
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should look the order up.", "signature": "c2lnbmF0dXJl"},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "A-1042"}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped 2026-11-20, arriving Tuesday"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "It shipped on the 20th and arrives Tuesday."}]},
    {"role": "user", "content": [{"type": "text", "text": "Thanks!", "cache_control": {"type": "ephemeral"}}]},
]
case(
    M,
    "anthropic-tool-use-with-its-result",
    "Anthropic's Messages: the system prompt apart, a tool_use (after its thinking) and the user message of its tool_result one unit; the oldest turns do not fit; the items sent are the caller's own, cache_control as given. Counted by the estimate.",
    fmt("anthropic", 110, CLAUDE, system="You are a support agent."),
    **{"pass": True, "format": "anthropic", "kept": [2, 3, 4, 5, 6], "dropped": [0, 1], "messages": CLAUDE[2:]},
)
case(
    M,
    "anthropic-detected-by-its-system-prompt",
    "No format named: a system prompt apart from the messages is Anthropic's, and the report says it was detected.",
    {"mode": "messages", "limit": 500, "system": "Be brief.", "messages": CLAUDE},
    **{"pass": True, "format": "anthropic", "format_detected": True, "kept": [0, 1, 2, 3, 4, 5, 6]},
)
case(
    M,
    "anthropic-image-by-its-rule",
    "An image in an Anthropic message costs width x height / 750 after Anthropic's resize: 1092 x 1092 is 1,590 tokens; a URL image of unknown size the most, 1,600.",
    fmt(
        "anthropic",
        5000,
        [
            msg(
                "user",
                [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(1092, 1092).split(",", 1)[1]}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.invalid/lamp.jpg"}},
                    {"type": "text", "text": "Is it damaged?"},
                ],
            )
        ],
    ),
    **{
        "pass": True,
        "images": [
            {"index": 0, "part": 0, "tokens": 1590, "size": [1092, 1092], "at_most": False, "detail": None},
            {"index": 0, "part": 1, "tokens": 1600, "size": None, "at_most": True, "detail": None},
        ],
    },
)
case(
    M,
    "anthropic-orphaned-tool-result",
    "A tool_result no tool_use is answered by: an input error at its tool_use_id, in the chat format's words.",
    fmt(
        "anthropic",
        100,
        [msg("user", "hi"), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "42"}]}],
    ),
    **{
        "pass": False,
        "check": ["message shape"],
        "error_paths": ["$.messages[1].content[0].tool_use_id"],
        "errors": [{"path": "$.messages[1].content[0].tool_use_id", "message": 'no assistant message made a tool call with id "toolu_9"'}],
    },
)
case(
    M,
    "anthropic-unknown-block-type",
    "A block type Anthropic's Messages do not have (the chat format's image_url): an input error at its type.",
    fmt("anthropic", 100, [msg("user", [{"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}}])]),
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.messages[0].content[0].type"]},
)
RESPONSES = [
    msg("user", "Hi, I ordered a lamp last week. " * 6),
    msg("assistant", "Happy to help. What is the order number? " * 4),
    msg("user", [{"type": "input_text", "text": "Where is my order A-1042?"}]),
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look the order up."}]},
    {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": '{"order":"A-1042"}'},
    {"type": "function_call_output", "call_id": "call_1", "output": "shipped 2026-11-20, arriving Tuesday"},
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It shipped on the 20th and arrives Tuesday.", "annotations": []}],
    },
    msg("user", "Thanks!"),
]
case(
    M,
    "responses-reasoning-with-its-call",
    "OpenAI Responses input items: the instructions apart, a reasoning item, its function_call and the output one unit; the oldest turns do not fit. Counted exactly by o200k_base, item by item.",
    {"mode": "messages", "limit": 110, "instructions": "You are a support agent.", "input": RESPONSES},
    **{
        "pass": True,
        "format": "responses",
        "format_detected": True,
        "kept": [2, 3, 4, 5, 6, 7],
        "dropped": [0, 1],
        "messages": RESPONSES[2:],
    },
)
case(
    M,
    "responses-unanswered-call",
    "A function_call no function_call_output answers before the next turn: an input error at its call_id.",
    {
        "mode": "messages",
        "format": "responses",
        "limit": 100,
        "input": [
            msg("user", "hi"),
            {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{}"},
            msg("user", "well?"),
        ],
    },
    **{"pass": False, "check": ["message shape"], "error_paths": ["$.input[1].call_id"]},
)

# Exact counts, stated by tiktoken itself (the test extra) with OpenAI's cookbook loop.
sys.path.insert(0, str(REPO / "bench"))
import _text


def cookbook(messages, tokenizer):
    encoding = _text.reference_encoding(tokenizer)
    total = 3
    for message in messages:
        total += 3
        for key, value in message.items():
            if value is None:  # an assistant message that only calls tools
                continue
            if key == "tool_calls":
                value = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
            total += len(encoding.encode_ordinary(value)) + (key == "name")
    return total


NAMED_CAPITALS = CAPITALS[:3] + [msg("user", "What is the capital of France?", name="ana")] + CAPITALS[4:]
O200K = cookbook(NAMED_CAPITALS, "o200k_base")
default_input = chat(O200K, NAMED_CAPITALS)
del default_input["tokenizer"]
case(
    M,
    "exact-o200k-by-default",
    f"Without a tokenizer key the counts are o200k_base's, exactly as OpenAI's cookbook computes them with tiktoken: {O200K} tokens, which is the limit.",
    default_input,
    **{"pass": True, "tokenizer": "o200k_base", "tokens": O200K, "remaining": 0, "kept": [0, 1, 2, 3, 4, 5]},
)
case(
    M,
    "exact-o200k-one-short",
    "One o200k_base token short: the oldest pair goes.",
    dict(default_input, limit=O200K - 1),
    **{"pass": True, "kept": [0, 3, 4, 5], "tokens": cookbook([NAMED_CAPITALS[i] for i in (0, 3, 4, 5)], "o200k_base")},
)
CL100K = cookbook(NAMED_CAPITALS, "cl100k_base")
case(
    M,
    "exact-cl100k",
    f"The same chat counted with cl100k_base (GPT-4, GPT-3.5-turbo): {CL100K} tokens.",
    chat(1000, NAMED_CAPITALS, "cl100k_base"),
    **{"pass": True, "tokenizer": "cl100k_base", "tokens": CL100K},
)
case(
    M,
    "exact-tool-calls-as-compact-json",
    "A tool_calls list counts as its compact JSON text (an approximation), here with o200k_base.",
    chat(1000, TOOLS, "o200k_base"),
    **{"pass": True, "tokens": cookbook(TOOLS, "o200k_base"), "kept": list(range(7))},
)
SUPPORT = [
    msg("system", "You are a support agent for a home-goods shop. Be brief."),
    msg("user", "Hi! I ordered a lamp and a blender last week."),
    msg("assistant", "Happy to help. What would you like to know?"),
    msg(
        "user",
        "Here is the email I got: Your order A-1042 (lamp, blender) has been received. We will send tracking details when it ships. Items: 1x Arc floor lamp, 1x Pro blender 900W. Total 189.00 EUR, paid by card ending 4421.",
    ),
    msg("assistant", "Thanks, I can see order A-1042."),
    msg("user", "Where is it now?", name="ana"),
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "track_order", "arguments": '{"order":"A-1042"}'}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "A-1042: shipped 2026-11-20 with DHL, arriving Tuesday"},
    msg("assistant", "It shipped on the 20th with DHL and arrives on Tuesday."),
    msg("user", "Please always answer in English.", pinned=True),
    msg("assistant", "Of course."),
    msg("user", "Can I still change the delivery address?"),
]
support = {"mode": "messages", "limit": 160, "messages": SUPPORT}
case(
    M,
    "support-chat",
    "A support chat within 160 o200k_base tokens: the system message and the pinned request are kept; the newest turns and the tool call with its result fit; the pasted email does not, so the walk stops there; the assistant turn after it goes because the kept history must start with a user message.",
    support,
    **{"pass": True, "kept": [0, 5, 6, 7, 8, 9, 10, 11], "dropped": [1, 2, 3, 4]},
)

# Exact tokenizers (counts are tiktoken's: tests/package/tokenizers/test_tokenizer.py proves the tokenizer against it).
POLICY = "The refund policy covers items damaged in transit."  # o200k_base 9, cl100k_base 9, estimate 13
ORDER = "Order ORD-884120 shipped 2026-03-09 and arrived four days late."  # 19 in both
JAPANESE = "日本語のテキストです。"  # o200k_base 8, cl100k_base 10
case(
    R,
    "tokenizer-counts-content",
    "With a top-level tokenizer an item may give content instead of tokens: policy counts 9 o200k_base tokens, order 19; with a budget of 20 policy (relevance 3) fits, order does not, the 5-token note does.",
    {
        "budget": 20,
        "tokenizer": "o200k_base",
        "items": [
            {"id": "policy", "relevance": 3, "content": POLICY},
            {"id": "order", "relevance": 2, "content": ORDER},
            item("note", 1, 5),
        ],
    },
    **{
        "pass": True,
        "selected": ["policy", "note"],
        "omitted": ["order"],
        "used": 14,
        "tokenizer": "o200k_base",
        "counted": ["policy", "order"],
    },
)
case(
    R,
    "tokenizer-explicit-count-wins",
    "An explicit token count wins over the tokenizer's count of the content (9): the item costs the 30 it states and does not fit 20.",
    {"budget": 20, "tokenizer": "o200k_base", "items": [{"id": "policy", "relevance": 3, "tokens": 30, "content": POLICY}]},
    **{"pass": True, "selected": [], "omitted": ["policy"], "counted": []},
)
case(
    R,
    "tokenizer-cl100k-counts-differently",
    "cl100k_base splits the Japanese sentence into 10 tokens where o200k_base needs 8: with a budget of 9 it no longer fits.",
    {"budget": 9, "tokenizer": "cl100k_base", "items": [{"id": "ja", "relevance": 1, "content": JAPANESE}]},
    **{"pass": True, "selected": [], "omitted": ["ja"], "used": 0},
)
case(
    R,
    "tokenizer-unknown-name",
    "An unknown tokenizer is an input error at $.tokenizer that lists the known names.",
    {"budget": 9, "tokenizer": "gpt2", "items": []},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.tokenizer"]},
)
case(
    R,
    "content-without-tokens-or-tokenizer",
    "An item with content but no tokens and no top-level tokenizer: the error says a tokenizer would count the content.",
    {"budget": 9, "items": [{"id": "policy", "relevance": 3, "content": POLICY}]},
    **{
        "pass": False,
        "check": ["item shape"],
        "error_paths": ["$.items[0]"],
        "first_error": 'missing required key "tokens" (the item has "content": a top-level "tokenizer" ("o200k_base", "cl100k_base", "estimate") counts it instead)',
    },
)
case(
    Q,
    "tokenizer-counts-content",
    "A tokenizer counts the cost of items that give content: the required policy costs 9 o200k_base tokens, the order 19, and both fit 30 with the 2-token note left out.",
    {
        "mode": "required",
        "budget": 30,
        "tokenizer": "o200k_base",
        "items": [
            {"id": "policy", "priority": 1, "required": True, "content": POLICY},
            {"id": "order", "priority": 5, "content": ORDER},
            req("note", 3, 1),
        ],
    },
    **{"pass": True, "selected": ["policy", "order"], "omitted": ["note"], "used": 28, "counted": ["policy", "order"]},
)
case(
    Q,
    "tokenizer-required-overflow",
    "Counted exactly, the required items need 9 + 19 = 28 tokens of a budget of 20: the selection fails, 8 tokens short.",
    {
        "mode": "required",
        "budget": 20,
        "tokenizer": "o200k_base",
        "items": [
            {"id": "policy", "priority": 1, "required": True, "content": POLICY},
            {"id": "order", "priority": 5, "required": True, "content": ORDER},
        ],
    },
    **{"pass": False, "selected": [], "used": 0},
)
case(
    Q,
    "tokenizer-item-without-cost-or-content",
    "An item with neither cost nor content has nothing to count: its cost is reported missing.",
    {
        "mode": "required",
        "budget": 20,
        "tokenizer": "cl100k_base",
        "items": [{"id": "policy", "priority": 1, "content": POLICY}, {"id": "empty", "priority": 1}],
    },
    **{"pass": False, "check": ["item shape"], "error_paths": ["$.items[1]"]},
)
REFUND_EXACT = dict(refund(400), tokenizer="o200k_base")
case(
    B,
    "tokenizer-refund-counted-exactly",
    "The refund case with a fixed prompt of 400 (150 available), counted by o200k_base: the required blocks take 35 + 48 = 83, ORDER_DATA counts 61 (the estimate said 48) and now fits, CUSTOMER_HISTORY (26) no longer does; the estimate packed the opposite. Exact counts list no sensitivity flips.",
    REFUND_EXACT,
    **{
        "pass": True,
        "used": 144,
        "remaining": 6,
        "tokenizer": "o200k_base",
        "rendered_tokens": 385,
        "included": [{"id": "CUSTOMER_MESSAGE", "tokens": 35}, {"id": "REFUND_POLICY", "tokens": 48}, {"id": "ORDER_DATA", "tokens": 61}],
        "sensitivity": {"exact": True, "tokenizer": "o200k_base", "flips": [], "required_slack": 67},
    },
)
case(
    B,
    "tokenizer-cl100k-seed-window",
    "The C# pipeline's own window counted by cl100k_base: all five blocks fit in 229 tokens, and the composed prompt counts 586 tokens, over 850 - 300 = 550.",
    dict(refund(220), tokenizer="cl100k_base"),
    **{"pass": False, "used": 229, "rendered_tokens": 586, "check": ["rendered prompt fits window"]},
)
case(
    B,
    "tokenizer-unknown-name",
    "The tokenizer must be o200k_base, cl100k_base or estimate.",
    dict(refund(220), tokenizer="o200k"),
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.tokenizer"]},
)
PASS3 = pas(("policy", POLICY), ("order", ORDER), ("ja", JAPANESE))
case(
    P,
    "o200k-counter",
    "Counted by o200k_base: the base prompt is 10 tokens, policy brings it to 22, order would make it 42 > 40, the Japanese line brings it to 33.",
    pin(40, PASS3, counter="o200k_base", question="Which refund applies?"),
    **{"pass": True, "chosen": ["policy", "ja"], "skipped": ["order"], "units": 33},
)
case(
    P,
    "cl100k-counter",
    "The same passages counted by cl100k_base: the Japanese line costs 13 here (11 with o200k_base), so the prompt counts 35.",
    pin(40, PASS3, counter="cl100k_base", question="Which refund applies?"),
    **{"pass": True, "chosen": ["policy", "ja"], "units": 35},
)
case(
    P,
    "o200k-counter-exact-fit",
    "A passage that brings the exact count to the limit is kept: 22 of 22.",
    pin(22, PASS3, counter="o200k_base", question="Which refund applies?"),
    **{"pass": True, "chosen": ["policy"], "units": 22},
)

# Tool definitions, by OpenAI's cookbook method (o200k_base: 7, 3, 3, -3, 3, 12).
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}
from _cookbook import num_tokens_for_tools as cookbook_tools

TOOLS_CHAT = {
    "mode": "messages",
    "limit": 500,
    "tokenizer": "gpt-4o",
    "tools": [WEATHER],
    "messages": [msg("user", "What's the weather like in San Francisco?")],
}
case(
    M,
    "tool-definitions-counted",
    "One function tool counted by the cookbook's method with the prompt: 7 + name:description, 3 for the properties, 3 + key:type:description each, the enum's -3 + 3 + count per value, 12 at the end; the model name gpt-4o counts with o200k_base.",
    TOOLS_CHAT,
    **{
        "pass": True,
        "kept": [0],
        "tokenizer": "o200k_base",
        "model": "gpt-4o",
        "tools_tokens": cookbook_tools([WEATHER], "o200k_base"),
        "tokens": cookbook(TOOLS_CHAT["messages"], "o200k_base") + cookbook_tools([WEATHER], "o200k_base"),
    },
)
case(
    M,
    "model-name-dated",
    "A dated model name is read as its encoding, as tiktoken's encoding_for_model maps it: gpt-4o-2024-08-06 counts with o200k_base, and the report names both.",
    chat(200, CAPITALS, "gpt-4o-2024-08-06"),
    **{"pass": True, "tokenizer": "o200k_base", "model": "gpt-4o-2024-08-06", "tokens": 3 + sum(costs(CAPITALS, "o200k_base"))},
)


# ---------------------------------------------------------------- claims: a selection someone says the rule makes
# Each case states the claim's verdict by hand: (check, id or index) of every failure, and the first one's detail.
def claim_case(mode, name, description, input, claimed, holds, failed=(), first=None, **facts):
    facts["claim_failures"] = list(failed)
    if first is not None:
        facts["summary"] = (
            f"The claim fails: {first}"
            + (f" (and {len(failed) - 1} more failure{'s' if len(failed) > 2 else ''})" if len(failed) > 1 else "")
            + ". "
            + evaluate(input)["summary"]
        )
    elif holds:
        facts["summary"] = "The claim holds: " + evaluate(input)["summary"]
    case(mode, f"claim-{name}", description, {**input, "claim": claimed}, **facts)


claim_case(
    R,
    "holds-in-another-order",
    "The seed example claimed as C, A with used 7: the order of the list is not judged, and the claim holds.",
    SEED,
    {"selected": ["C", "A"], "used": 7},
    True,
    **{"pass": True, "claim": {"pass": True, "failures": []}},
)
claim_case(
    R,
    "over-budget",
    "Claiming A and B: they cost 9 of 7, and B does not fit the 3 tokens A leaves.",
    SEED,
    {"selected": ["A", "B"]},
    False,
    [("token budget", None), ("follows the rule", "B")],
    "the claimed items cost 9 tokens (A 4 + B 5), over the budget of 7 by 2",
    **{"pass": False},
)
claim_case(
    R,
    "misses-a-fitting-item",
    "Claiming A alone: C fits the 3 tokens that remain after A, so the rule keeps it.",
    SEED,
    {"selected": ["A"]},
    False,
    [("follows the rule", "C")],
    "C fits the 3 tokens that remain (it needs 3) but is not claimed",
)
claim_case(
    R,
    "unknown-and-repeated-ids",
    "An id the input does not have, and one given twice; the used figure is not the sum either.",
    SEED,
    {"selected": ["A", "C", "X", "C"], "used": 8},
    False,
    [("known ids", "X"), ("known ids", "C"), ("used adds up", None)],
    '"X" is not an id of the input',
)
claim_case(
    R,
    "greedy-counterexample",
    "B and C (relevance 18 in 10 tokens) beat the rule's A (10): the claim is a better combination, but not the rule's, and the failure says both.",
    {"budget": 10, "items": [item("A", 10, 6), item("B", 9, 5), item("C", 9, 5)]},
    {"selected": ["B", "C"]},
    False,
    [("follows the rule", "A")],
    "A fits the 10 tokens that remain (it needs 6) but is not claimed; yet the claim, within the budget, totals relevance 18 against the rule's 10: "
    "a better combination than the greedy rule's, but not the rule's",
)
case(
    R,
    "claim-invalid-id",
    "A claimed id that is not a string is an input error at its path, like any other.",
    {**SEED, "claim": {"selected": ["A", 3]}},
    **{
        "pass": False,
        "check": ["claim shape"],
        "error_paths": ["$.claim.selected[1]"],
        "first_error": "expected a non-empty string id, got 3",
    },
)
case(
    R,
    "claim-in-another-modes-words",
    "A relevance claim that says included (the blocks word) is an unknown key that names the right one.",
    {**SEED, "claim": {"included": ["A"]}},
    **{"pass": False, "check": ["claim shape"], "error_paths": ["$.claim.included", "$.claim"]},
)

claim_case(
    Q,
    "holds",
    "The required example claimed in another order, with its used figure.",
    SEED3,
    {"selected": ["recent", "contract"], "used": 7},
    True,
    **{"pass": True},
)
claim_case(
    Q,
    "leaves-out-required",
    "A claim without the required contract: the rule always keeps it.",
    SEED3,
    {"selected": ["recent", "older"]},
    False,
    [("required kept", "contract")],
    "contract is required and kept by the rule, but not claimed",
)
claim_case(
    Q,
    "overflow-selects-nothing",
    "The required items overflow: the rule selects nothing, and so does the claim, which holds (the report still fails).",
    {"mode": "required", "budget": 5, "items": [req("policy", 3, 1, True), req("ticket", 4, 5, True), req("extra", 1, 9)]},
    {"selected": []},
    True,
    **{"pass": False, "claim": {"pass": True, "failures": []}},
)
claim_case(
    Q,
    "overflow-claims-items",
    "The required items overflow, yet the claim selects them: over the budget, and the rule selects nothing.",
    {"mode": "required", "budget": 5, "items": [req("policy", 3, 1, True), req("ticket", 4, 5, True), req("extra", 1, 9)]},
    {"selected": ["policy", "ticket"]},
    False,
    [("token budget", None), ("follows the rule", "ticket")],
    "the claimed items cost 7 tokens (policy 3 + ticket 4), over the budget of 5 by 2",
)
claim_case(
    Q,
    "better-combination",
    "With the required core kept, B and C (priority 18) beat the rule's A (10) in the 10 tokens left.",
    {"mode": "required", "budget": 12, "items": [req("core", 2, 0, True), req("A", 6, 10), req("B", 5, 9), req("C", 5, 9)]},
    {"selected": ["core", "C", "B"]},
    False,
    [("follows the rule", "A")],
    "A fits the 10 tokens that remain (it needs 6) but is not claimed; yet the claim, within the budget, totals priority 18 "
    "against the rule's 10: a better combination than the greedy rule's, but not the rule's",
)

BLK = {
    "mode": "blocks",
    "window": win(100),
    "task": "Answer the ticket.",
    "blocks": [
        blk("ticket", "The jar arrived cracked.", p=100, required=True, tokens=40),
        blk("policy", "Damaged items: full refund.", p=90, tokens=50),
        blk("history", "Customer since 2021.", p=50, tokens=30),
    ],
}
BLK_PROMPT = evaluate(BLK)["prompt"]
claim_case(
    B,
    "holds-with-prompt",
    "The blocks claimed in another order with the composed prompt and used: the prompt lists them in packing order, and the claim holds.",
    BLK,
    {"included": ["policy", "ticket"], "prompt": BLK_PROMPT, "used": 90},
    True,
    **{"pass": True},
)
claim_case(
    B,
    "leaves-out-required",
    "A claim without the required ticket block, which fits first.",
    BLK,
    {"included": ["policy", "history"]},
    False,
    [("required kept", "ticket")],
    "ticket is required and kept by the rule, but not claimed",
)
claim_case(
    B,
    "over-budget",
    "All three blocks claimed: 120 of 100 tokens, and history does not fit the 10 left.",
    BLK,
    {"included": ["ticket", "policy", "history"], "used": 120},
    False,
    [("token budget", None), ("follows the rule", "history")],
    "the claimed items cost 120 tokens (ticket 40 + policy 50 + history 30), over the budget of 100 by 20",
)
claim_case(
    B,
    "prompt-differs",
    "The right blocks, but a prompt whose source line has a Cyrillic і: named at the first differing character.",
    BLK,
    {"included": ["ticket", "policy"], "prompt": BLK_PROMPT.replace("Source: test\nPriority: 90", "Source: tеst\nPriority: 90")},
    False,
    [("prompt matches", None)],
    None,
    **{"pass": False},
)
claim_case(
    B,
    "unknown-id-and-used",
    "An unknown block id, and a used figure that is not the claimed costs' sum.",
    BLK,
    {"included": ["ticket", "policy", "ORDER"], "used": 100},
    False,
    [("known ids", "ORDER"), ("used adds up", None)],
    '"ORDER" is not an id of the input',
)

PSG = pin(
    20,
    pas(
        ("a", "The carrier lost the parcel for two days before it was found."),
        ("b", "Refunds post after the warehouse scans the return."),
        ("c", "Weekend."),
    ),
    question="Why was the refund late?",
)
PSG_PROMPT = evaluate(PSG)["prompt"]
claim_case(
    P,
    "holds-with-prompt",
    "The passages claimed as c, b with the rendered prompt and its count: the claim holds.",
    PSG,
    {"chosen": ["c", "b"], "prompt": PSG_PROMPT, "used": 19},
    True,
    **{"pass": True},
)
claim_case(
    P,
    "skips-a-fitting-passage",
    "Claiming b alone: c still fits the 3 words left after b.",
    PSG,
    {"chosen": ["b"]},
    False,
    [("follows the rule", "c")],
    "c fits the 3 words that remain (it adds 2) but is not claimed",
)
claim_case(
    P,
    "over-limit",
    "Claiming a and b: the prompt counts 30 words, over 20, and a (13 words) never fit the 12 the base prompt leaves.",
    PSG,
    {"chosen": ["a", "b"]},
    False,
    [("token budget", None), ("follows the rule", "a")],
    "the prompt with the claimed passages counts 30 words, over the limit of 20 by 10",
)
claim_case(
    P,
    "prompt-differs-and-used",
    "The right passages, a prompt that drops the final colon, and a used figure one too high.",
    PSG,
    {"chosen": ["b", "c"], "prompt": PSG_PROMPT[:-1], "used": 20},
    False,
    [("prompt matches", None), ("used adds up", None)],
    None,
    **{"pass": False},
)
claim_case(
    P,
    "unknown-id",
    "A passage id the input does not have.",
    PSG,
    {"chosen": ["b", "c", "d"]},
    False,
    [("known ids", "d")],
    '"d" is not an id of the input',
)
case(
    P,
    "claim-invalid-id",
    "A claimed passage id that is null is an input error at its path.",
    {**PSG, "claim": {"chosen": [None]}},
    **{"pass": False, "check": ["claim shape"], "error_paths": ["$.claim.chosen[0]"]},
)

SUPPORT_CHAT = [
    msg("system", "You are a support agent."),
    msg("user", "Hi, I ordered a lamp last week."),
    msg("assistant", "Happy to help. What is the order number?"),
    msg("user", "Where is my order A-1042?"),
    {"role": "assistant", "content": None, "tool_calls": calls("call_1")},
    {"role": "tool", "tool_call_id": "call_1", "content": "shipped 2026-11-20, arriving Tuesday"},
    msg("assistant", "It shipped on the 20th and arrives Tuesday."),
    msg("user", "Thanks!"),
]
SC = costs(SUPPORT_CHAT)
SC_LIMIT = 3 + SC[0] + sum(SC[3:]) + SC[2] - 1  # message 2 misses by one token
MSG = chat(SC_LIMIT, SUPPORT_CHAT)
assert evaluate(MSG)["kept"] == [0, 3, 4, 5, 6, 7], evaluate(MSG)["kept"]
claim_case(
    M,
    "holds",
    "The kept messages claimed newest first, with the prompt's count: the claim holds.",
    MSG,
    {"kept": [7, 6, 5, 4, 3, 0], "used": 3 + SC[0] + sum(SC[3:])},
    True,
    **{"pass": True},
)
claim_case(
    M,
    "hole",
    "Message 6 left out while older ones are kept: a hole in the history, and 6 fits.",
    MSG,
    {"kept": [0, 3, 4, 5, 7]},
    False,
    [("no holes", 6), ("follows the rule", 6)],
    "message 6 is not claimed, but the older message 5 is: a hole in the history",
)
claim_case(
    M,
    "tool-call-without-result",
    "The tool call (4) claimed without its result (5).",
    MSG,
    {"kept": [0, 3, 4, 6, 7]},
    False,
    [("tool calls paired", 4), ("no holes", 5)],
    "message 4 calls tools, but its result 5 is not claimed",
)
claim_case(
    M,
    "starts-with-assistant",
    "Claiming back to message 2, an assistant turn: not a user start, one token over the limit, and message 2 did not fit.",
    MSG,
    {"kept": [0, 2, 3, 4, 5, 6, 7]},
    False,
    [("token budget", None), ("starts with user", 2), ("follows the rule", 2)],
    f"the claimed messages and the reply priming count {SC_LIMIT + 1} estimated tokens, over the limit of {SC_LIMIT} by 1",
)
claim_case(
    M,
    "leaves-out-pinned",
    "The system message is pinned: a claim without it fails.",
    MSG,
    {"kept": [3, 4, 5, 6, 7]},
    False,
    [("required kept", 0)],
    "message 0 (system) is pinned but not claimed",
)
claim_case(
    M,
    "unknown-index-and-used",
    "An index past the history's end, and a used figure that is not the count.",
    MSG,
    {"kept": [0, 3, 4, 5, 6, 7, 8], "used": 1},
    False,
    [("known ids", 8), ("used adds up", None)],
    "8 is not a message index: the history has 8 messages (0-7)",
)
case(
    M,
    "claim-invalid-index",
    "Claimed indices must be integers from 0: a text and a negative number are input errors at their paths.",
    {**MSG, "claim": {"kept": [0, "3", -1]}},
    **{"pass": False, "check": ["claim shape"], "error_paths": ["$.claim.kept[1]", "$.claim.kept[2]"]},
)


# Strategy stable over several calls of one chat (the page's examples): each call given the one before as previous.
CACHE_POLICY = (
    "You are the support agent of Lumen & Oak, a home-goods shop. Answer in two or three sentences, "
    "name the order number you are talking about, and never promise a date the carrier has not given. "
    "Returns: any item may be returned within 30 days of delivery, unused and in its original packaging; "
    "the customer pays the return postage unless the item arrived damaged or was not what was ordered. "
    "Refunds go back to the original payment method within five working days of the parcel reaching the "
    "warehouse in Leipzig; store credit is instant and carries a 10 % bonus. Damaged items: ask for a photo "
    "of the item and of the box before anything else, then offer a replacement or a full refund, the "
    "customer's choice; never ask them to send a damaged glass item back. Late parcels: a parcel is late "
    "when the carrier's estimate has passed by two working days; look it up with track_order, and if the "
    "carrier has lost it open a claim with open_claim and offer a replacement shipped express at no cost. "
    "Warranty: electrical items carry a two-year warranty; a fault within the first six months is presumed "
    "to have been there at delivery. Vouchers: one voucher per order, not valid on gift cards. Tone: warm, "
    "brief, no exclamation marks, no emojis. Escalate to a human when the customer asks twice, mentions a "
    "lawyer, or the order is above 1,000 EUR. "
) * 3
CACHE_TURNS = [
    (
        "Hello, I ordered an Arc floor lamp and a Pro 900 blender last Tuesday, order A-1042, and the tracking page has not moved since Thursday. Can you tell me where it is?",
        None,
        "Order A-1042 left our warehouse on Wednesday with DHL, and its last scan was in the Kassel hub on Thursday morning. DHL's estimate was Friday, so it is now two working days late; I have asked DHL to trace it and will write to you as soon as they answer.",
    ),
    (
        "Thanks. If it is lost, can I get the lamp sent again quickly? We are hosting friends on Saturday and I wanted it in the living room by then.",
        (
            "track_order",
            '{"order":"A-1042"}',
            "A-1042: DHL status 'parcel not found at hub Kassel', trace opened 2026-12-01, carrier verdict pending, estimated verdict 2026-12-03.",
        ),
        "DHL could not find the parcel at Kassel and has opened a trace; their verdict is due on Thursday. If they declare it lost, I will ship a new lamp and blender express at no cost, which would reach you on Friday.",
    ),
    (
        "That works. And the blender, can I swap it for the Pro 1200 instead and pay the difference? My partner says the 900 is too weak for ice.",
        None,
        "Yes: the Pro 1200 costs 40 EUR more than the Pro 900. I can put the swap on the replacement order, and you pay the 40 EUR difference by the link I will send once DHL's verdict is in.",
    ),
    (
        "Perfect. One more thing: the voucher WINTER10 did not apply at checkout. Can it still be used on this order?",
        None,
        "WINTER10 takes 10 % off one order and was valid on A-1042, so I have refunded its 18.90 EUR to your card ending 4421; it reaches you within five working days.",
    ),
    (
        "Great, thank you. Also, if the old parcel turns up after the new one arrives, what do I do with it?",
        (
            "track_order",
            '{"order":"A-1042"}',
            "A-1042: DHL status 'declared lost', claim CL-5521 opened 2026-12-03, replacement order A-1107 created, express, estimated delivery 2026-12-04.",
        ),
        "DHL declared the parcel lost, so replacement order A-1107 ships express today and should arrive on Friday. If the old parcel still reaches you, refuse it at the door or keep it closed, and we will send you a free return label.",
    ),
    (
        "Will the replacement need my signature? I am out between 9 and 12 on Friday.",
        None,
        "Express parcels need a signature. I have asked DHL to deliver A-1107 after 12:00 on Friday, or you can name a neighbour on the DHL page with the tracking number I will email.",
    ),
    ("Can you email me the tracking number now, and the return label for the old parcel just in case?", None, None),
]


def cache_history(n):
    h = [{"role": "system", "content": CACHE_POLICY}]
    calls = 0
    for k, (user, tool, reply) in enumerate(CACHE_TURNS[:n]):
        h.append({"role": "user", "content": user})
        if k == n - 1:
            break
        if tool:
            calls += 1
            h.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": f"call_{calls}", "type": "function", "function": {"name": tool[0], "arguments": tool[1]}}],
                }
            )
            h.append({"role": "tool", "tool_call_id": f"call_{calls}", "content": tool[2]})
        h.append({"role": "assistant", "content": reply})
    return h


CACHE_LIMIT = 1560
CACHE_DESCRIPTIONS = {
    5: "Call 5 of a chat under strategy stable, given call 4 as previous: everything from the cut fits, so the prompt is call 4's plus the new turn; 1,279 tokens are the previous prompt's, and OpenAI bills 1,152 of them as cached.",
    6: "Call 6, given call 5 as previous: the prompt grows to 1,528 of 1,560 tokens, still call 5's plus the new turns; 1,280 tokens billed as cached.",
    7: "Call 7, given call 6 as previous: the history no longer fits 1,560, so the cut moves, down to the low watermark (0.8 x 1,560 = 1,248); only the system message is reused and nothing is cached this time.",
}
cache_previous = None
for n in range(1, len(CACHE_TURNS) + 1):
    data = {
        "mode": "messages",
        "limit": CACHE_LIMIT,
        "strategy": "stable",
        "low_watermark": 0.8,
        "caching": {"provider": "openai", "prices": {"input": 2, "cached_input": 0.5}},
        "messages": cache_history(n),
    }
    if cache_previous:
        data["previous"] = cache_previous
    if n in CACHE_DESCRIPTIONS:
        case(
            M,
            f"cache-stable-call-{n}",
            CACHE_DESCRIPTIONS[n],
            data,
            **{"pass": True, "cut_from": {5: "previous", 6: "previous", 7: "low_watermark"}[n]},
        )
    cache_previous = evaluate(data)["as_previous"]
case(
    M,
    "stable-watermark-out-of-range",
    "A low watermark is a share of the limit in (0, 1]: 1.5 is an input error at its path, naming the value.",
    {"mode": "messages", "limit": 1560, "strategy": "stable", "low_watermark": 1.5, "messages": cache_history(2)},
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.low_watermark"]},
)
case(
    M,
    "stable-negative-price",
    "Prices per million tokens are input, never negative: -0.5 is an input error at its path.",
    {
        "mode": "messages",
        "limit": 1560,
        "strategy": "stable",
        "caching": {"provider": "openai", "prices": {"input": 2, "cached_input": -0.5}},
        "messages": cache_history(2),
    },
    **{"pass": False, "check": ["input shape"], "error_paths": ["$.caching.prices.cached_input"]},
)

# Clearing old tool results: an agent that read three files, at a limit its history is far over.
FILES = [
    ("orders.csv", "order A-1042, lamp, shipped; " * 12, "What is in orders.csv?", "Order A-1042, a lamp, has shipped."),
    (
        "returns.md",
        "Returns are accepted within 30 days of delivery. " * 8,
        "And the returns policy?",
        "Returns within 30 days of delivery.",
    ),
    ("hub.log", "parcel at the Elm hub, waiting; " * 12, "Where is the parcel now?", "It waits at the Elm hub."),
]
AGENT = [msg("system", "You are a support agent who reads files.")]
for n, (name, body, ask, answer) in enumerate(FILES):
    call = {"id": f"call_{n}", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": name})}}
    AGENT += [
        msg("user", ask),
        msg("assistant", None, tool_calls=[call]),
        msg("tool", body.strip(), tool_call_id=f"call_{n}"),
        msg("assistant", answer),
    ]
AGENT.append(msg("user", "Can I still return the lamp?"))
case(
    M,
    "clear-old-tool-results",
    "Clearing before dropping: the two older file reads (messages 3 and 7) become placeholders, the newest (keep 1) stays, and only the oldest turn is dropped, where dropping alone keeps the last turn only.",
    {"mode": "messages", "limit": 300, "messages": AGENT, "clear": {"keep": 1}},
    **{"pass": True, "kept": [0, 5, 6, 7, 8, 9, 10, 11, 12, 13], "dropped": [1, 2, 3, 4]},
)
assert [row["index"] for row in evaluate({"mode": "messages", "limit": 300, "messages": AGENT, "clear": {"keep": 1}})["cleared"]] == [3, 7]
assert evaluate({"mode": "messages", "limit": 300, "messages": AGENT})["kept"] == [0, 9, 10, 11, 12, 13]

print("wrote", len(list(ROOT.rglob("*.json"))), "fixture files")
