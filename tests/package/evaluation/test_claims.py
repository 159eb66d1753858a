"""Claims: a selection someone says the rule makes, judged by evaluate (report["claim"]) and verify_claim.

Every failure kind in every mode where it applies, a correct claim in another order, invalid
claims and their paths, reports without a claim unchanged, a judge that a tampered report
cannot fool, and a property over random relevance and required inputs.
"""

import copy
import dataclasses
import json
import random

import pytest
from hypothesis import given, strategies as st

from fitproof import ClaimFailure, ClaimVerdict, InvalidInputError, evaluate, verify_claim
from fitproof._evaluation import claims as _claims
from fitproof.modes import MODES


def item(i, r, t):
    return {"id": i, "relevance": r, "tokens": t}


def req(i, c, p, required=None):
    d = {"id": i, "cost": c, "priority": p}
    if required is not None:
        d["required"] = required
    return d


SEED = {"budget": 7, "items": [item("A", 9, 4), item("B", 8, 5), item("C", 7, 3)]}
COUNTER = {"budget": 10, "items": [item("A", 10, 6), item("B", 9, 5), item("C", 9, 5)]}
REQUIRED = {"mode": "required", "budget": 8, "items": [req("contract", 3, 0, True), req("recent", 4, 9), req("older", 3, 2)]}
REQUIRED_COUNTER = {"mode": "required", "budget": 12, "items": [req("core", 2, 0, True), req("A", 6, 10), req("B", 5, 9), req("C", 5, 9)]}
OVERFLOW = {"mode": "required", "budget": 5, "items": [req("policy", 3, 1, True), req("ticket", 4, 5, True), req("extra", 1, 9)]}
BLOCKS = {
    "mode": "blocks",
    "window": {"context_tokens": 400, "reserved_output_tokens": 200, "fixed_prompt_tokens": 100},
    "task": "Answer the ticket.",
    "blocks": [
        {
            "id": "ticket",
            "source": "helpdesk",
            "content": "The jar arrived cracked.",
            "priority": 100,
            "observed_at": "2026-03-13T13:18:00Z",
            "required": True,
            "tokens": 40,
        },
        {
            "id": "policy",
            "source": "wiki",
            "content": "Damaged items: full refund.",
            "priority": 90,
            "observed_at": "2026-02-21T09:00:00Z",
            "tokens": 50,
        },
        {
            "id": "history",
            "source": "crm",
            "content": "Customer since 2021.",
            "priority": 50,
            "observed_at": "2026-03-01T10:00:00+01:00",
            "tokens": 30,
        },
    ],
}
PASSAGES = {
    "mode": "passages",
    "question": "Why was the refund late?",
    "limit": 20,
    "counter": "words",
    "passages": [
        {"id": "a", "text": "The carrier lost the parcel for two days before it was found."},
        {"id": "b", "text": "Refunds post after the warehouse scans the return."},
        {"id": "c", "text": "Weekend."},
    ],
}
HISTORY = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Hi, I ordered a lamp last week."},
    {"role": "assistant", "content": "Happy to help. What is the order number?"},
    {"role": "user", "content": "Where is my order A-1042?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"order":"A-1042"}'}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "shipped 2026-11-20, arriving Tuesday"},
    {"role": "assistant", "content": "It shipped on the 20th and arrives Tuesday."},
    {"role": "user", "content": "Thanks!"},
]
MESSAGES = {"mode": "messages", "limit": 110, "messages": HISTORY}  # the rule keeps 0, 3-7 (101 tokens)


def judged(data, claim):
    report = evaluate({**data, "claim": claim})
    assert "errors" not in report, report.get("errors")
    return report


def failures(data, claim):
    return judged(data, claim)["claim"]["failures"]


def kinds(data, claim):
    return [(failure["check"], failure.get("id", failure.get("index"))) for failure in failures(data, claim)]


# ---------------------------------------------------------------- a correct claim holds, in any order


@pytest.mark.parametrize(
    "data, claim",
    [
        (SEED, {"selected": ["C", "A"], "used": 7}),
        (REQUIRED, {"selected": ["recent", "contract"], "used": 7}),
        (OVERFLOW, {"selected": []}),  # the rule selects nothing when the required items overflow
        (BLOCKS, {"included": ["policy", "ticket"], "used": 90}),
        (PASSAGES, {"chosen": ["c", "b"], "used": 19}),
        (MESSAGES, {"kept": [7, 6, 5, 4, 3, 0], "used": 101}),
        (MESSAGES, {"kept": [0, 3, 5, 4, 6, 7]}),
    ],
    ids=["relevance", "required", "required-overflow", "blocks", "passages", "messages", "messages-shuffled"],
)
def test_a_correct_claim_in_another_order_holds(data, claim):
    report = judged(data, claim)
    assert report["claim"] == {"pass": True, "failures": []}
    plain = evaluate(data)
    assert report["pass"] == plain["pass"]
    assert report["summary"] == f"The claim holds: {plain['summary']}"
    # Everything else is the report without a claim, and the claim comes right after mode.
    assert {key: value for key, value in report.items() if key not in ("claim", "summary")} == {
        key: value for key, value in plain.items() if key != "summary"
    }
    assert list(report)[:5] == ["pass", "summary", "checks", "mode", "claim"]


def test_a_correct_claim_with_its_prompt_holds():
    for data, key in ((BLOCKS, "included"), (PASSAGES, "chosen")):
        plain = evaluate(data)
        ids = [entry["id"] for entry in plain[key]] if key == "included" else plain[key]
        assert judged(data, {key: ids[::-1], "prompt": plain["prompt"]})["claim"]["pass"]


def test_the_verdict_is_the_same_from_verify_claim():
    assert verify_claim(SEED, {"selected": ["A", "C"]}) == ClaimVerdict(True, ())
    verdict = verify_claim(SEED, {"selected": ["A", "B"]})
    assert not verdict.holds
    assert verdict.failures[-1] == ClaimFailure("follows the rule", "B is claimed, but after A 3 tokens remain and B needs 5", "B")
    assert verify_claim(MESSAGES, {"kept": [0, 3, 5, 6, 7]}).failures[0].index == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.holds = True  # frozen, as the typed API's other results


def test_verify_claim_replaces_a_claim_in_the_input_and_raises_on_invalid_ones():
    assert verify_claim({**SEED, "claim": {"selected": ["B"]}}, {"selected": ["A", "C"]}).holds
    with pytest.raises(InvalidInputError) as raised:
        verify_claim(SEED, {"selected": ["A", 3]})
    assert [problem.path for problem in raised.value.problems] == ["$.claim.selected[1]"]
    with pytest.raises(InvalidInputError):
        verify_claim({"budget": -1, "items": []}, {"selected": []})


# ---------------------------------------------------------------- known ids


@pytest.mark.parametrize(
    "data, claim, expected",
    [
        (SEED, {"selected": ["A", "C", "X"]}, [("known ids", "X")]),
        (SEED, {"selected": ["A", "C", "A"]}, [("known ids", "A")]),
        (REQUIRED, {"selected": ["contract", "recent", "nope"]}, [("known ids", "nope")]),
        (BLOCKS, {"included": ["ticket", "policy", "policy"]}, [("known ids", "policy")]),
        (PASSAGES, {"chosen": ["b", "c", "z"]}, [("known ids", "z")]),
        (MESSAGES, {"kept": [0, 3, 4, 5, 6, 7, 12]}, [("known ids", 12)]),
        (MESSAGES, {"kept": [0, 3, 4, 5, 6, 7, 7]}, [("known ids", 7)]),
    ],
)
def test_an_unknown_or_repeated_id_is_named(data, claim, expected):
    assert kinds(data, claim) == expected


def test_known_ids_messages():
    assert failures(SEED, {"selected": ["A", "C", "X", "X"]}) == [
        {"check": "known ids", "detail": '"X" is not an id of the input', "id": "X"}
    ]
    assert failures(SEED, {"selected": ["A", "C", "C"]})[0]["detail"] == "C is claimed twice"
    assert failures(MESSAGES, {"kept": [0, 3, 4, 5, 6, 7, 9]})[0]["detail"] == "9 is not a message index: the history has 8 messages (0-7)"


def test_ids_are_compared_by_utf16_code_units():
    data = {"budget": 1, "items": [item("\U0001f600", 1, 1)]}
    assert judged(data, {"selected": ["\ud83d\ude00"]})["claim"]["pass"]


def test_many_unknown_ids_are_capped():
    found = failures(SEED, {"selected": ["A", "C"] + [f"x{i}" for i in range(30)]})
    assert len(found) == _claims.MAX_LISTED + 1 and found[-1]["detail"] == "and 10 more ids that are unknown or claimed twice"


# ---------------------------------------------------------------- token budget (the claim's)


def test_within_budget_in_every_mode():
    assert failures(SEED, {"selected": ["A", "B"]})[0] == {
        "check": "token budget",
        "detail": "the claimed items cost 9 tokens (A 4 + B 5), over the budget of 7 by 2",
    }
    assert kinds(REQUIRED, {"selected": ["contract", "recent", "older"]})[0] == ("token budget", None)
    assert (
        failures(BLOCKS, {"included": ["ticket", "policy", "history"]})[0]["detail"]
        == "the claimed items cost 120 tokens (ticket 40 + policy 50 + history 30), over the budget of 100 by 20"
    )
    assert (
        failures(PASSAGES, {"chosen": ["a", "b"]})[0]["detail"]
        == "the prompt with the claimed passages counts 30 words, over the limit of 20 by 10"
    )
    assert (
        failures(MESSAGES, {"kept": [0, 2, 3, 4, 5, 6, 7]})[0]["detail"]
        == "the claimed messages and the reply priming count 115 tokens, over the limit of 110 by 5"
    )


# ---------------------------------------------------------------- required kept


def test_required_kept():
    assert failures(REQUIRED, {"selected": ["recent", "older"]}) == [
        {"check": "required kept", "detail": "contract is required and kept by the rule, but not claimed", "id": "contract"}
    ]
    assert kinds(BLOCKS, {"included": ["policy", "history"]}) == [("required kept", "ticket")]
    assert kinds(MESSAGES, {"kept": [3, 4, 5, 6, 7]}) == [("required kept", 0)]
    assert failures(MESSAGES, {"kept": [3, 4, 5, 6, 7]})[0]["detail"] == "message 0 (system) is pinned but not claimed"


def test_a_pinned_tool_unit_is_kept_whole():
    history = copy.deepcopy(HISTORY)
    history[4]["pinned"] = True
    data = {**MESSAGES, "limit": 200, "messages": history}
    kept = evaluate(data)["kept"]
    assert 5 in kept
    found = failures(data, {"kept": [index for index in kept if index != 5]})
    assert ("required kept", 5) in [(f["check"], f.get("index")) for f in found]
    assert "pinned with its tool unit" in found[[f.get("index") for f in found].index(5)]["detail"]


def test_a_required_block_that_does_not_fit_need_not_be_claimed():
    data = copy.deepcopy(BLOCKS)
    data["blocks"][0]["tokens"] = 140  # over the 100 available: the run cannot proceed
    plain = evaluate(data)
    assert not plain["can_proceed"]
    report = judged(data, {"included": [entry["id"] for entry in plain["included"]]})
    assert report["claim"]["pass"] and not report["pass"]
    assert kinds(data, {"included": ["ticket"]})[-1] == ("follows the rule", "ticket")


# ---------------------------------------------------------------- follows the rule


def test_follows_the_rule_names_the_first_departure():
    assert failures(SEED, {"selected": ["A"]}) == [
        {"check": "follows the rule", "detail": "C fits the 3 tokens that remain (it needs 3) but is not claimed", "id": "C"}
    ]
    assert failures(SEED, {"selected": ["B"]})[0]["detail"] == "A fits the 7 tokens that remain (it needs 4) but is not claimed"
    assert (
        failures({"budget": 3, "items": [item("A", 9, 4)]}, {"selected": ["A"]})[-1]["detail"]
        == "A is claimed, but the budget is 3 tokens and A needs 4"
    )
    assert failures(REQUIRED, {"selected": ["contract", "older"]})[0] == {
        "check": "follows the rule",
        "detail": "recent fits the 5 tokens that remain (it needs 4) but is not claimed",
        "id": "recent",
    }
    assert (
        failures(BLOCKS, {"included": ["ticket"]})[0]["detail"] == "policy fits the 60 tokens that remain (it needs 50) but is not claimed"
    )
    assert (
        failures(BLOCKS, {"included": ["ticket", "policy", "history"]})[1]["detail"]
        == "history is claimed, but after ticket and policy 10 tokens remain and history needs 30"
    )


def test_follows_the_rule_in_passages():
    assert failures(PASSAGES, {"chosen": ["b"]}) == [
        {"check": "follows the rule", "detail": "c fits the 3 words that remain (it adds 2) but is not claimed", "id": "c"}
    ]
    assert (
        failures(PASSAGES, {"chosen": ["a"]})[-1]["detail"] == "a is claimed, but the prompt without passages leaves 12 words and a adds 13"
    )
    assert (
        failures({**PASSAGES, "limit": 18}, {"chosen": ["b", "c"]})[-1]["detail"] == "c is claimed, but after b 1 word remains and c adds 2"
    )


def test_follows_the_rule_in_messages():
    assert failures(MESSAGES, {"kept": [0, 4, 5, 6, 7]})[-1:] == [
        {"check": "follows the rule", "detail": "message 3 fits the 22 tokens that remain (it needs 13) but is not claimed", "index": 3}
    ]
    found = failures(MESSAGES, {"kept": [0, 1, 3, 4, 5, 6, 7]})
    assert (
        found[-1]["detail"]
        == "message 1 is claimed, but the walk stopped at the newer message 2, which needs 14 tokens with only 9 left: nothing older is kept"
    )
    assert (
        failures(MESSAGES, {"kept": [0, 2, 3, 4, 5, 6, 7]})[-1]["detail"]
        == "message 2 is claimed, but after the newer messages 3-7, 9 tokens remain and it needs 14"
    )
    wide = {**MESSAGES, "limit": 500}
    found = failures(wide, {"kept": [0, 1, 3, 4, 5, 6, 7]})
    assert found[-1] == {
        "check": "follows the rule",
        "detail": "message 2 fits the 399 tokens that remain (it needs 14) but is not claimed",
        "index": 2,
    }
    found = failures(wide, {"kept": [0, 4, 5, 6, 7]})
    assert found[-1]["detail"] == "message 3 fits the 412 tokens that remain (it needs 13) but is not claimed"


CHAT_LESSON = {
    "mode": "messages",
    "limit": 95,
    "messages": [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": "Hi, I ordered a lamp last week."},
        {"role": "assistant", "content": "Happy to help. What is the order number?"},
        {"role": "user", "content": "Where is my order A-1042?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"order":"A-1042"}'}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped 2026-11-20, arriving Tuesday"},
        {"role": "assistant", "content": "It shipped on the 20th and arrives Tuesday."},
        {"role": "user", "content": "Thanks! Can I change the address?"},
        {"role": "assistant", "content": "Yes, until it leaves the hub. What is the new one?"},
        {"role": "user", "content": "5 Elm Street, please."},
    ],
}


def test_a_claim_that_keeps_the_turn_before_a_dropped_reply_is_told_why_that_turn_goes():
    """Message 6 is dropped for the user start only because the tool unit before it does not
    fit: a claim that keeps the unit too is told the unit's failure, in the walk's numbers (the
    walk took message 6's tokens before it dropped it), not the start it does not break."""
    assert failures(CHAT_LESSON, {"kept": [0, 4, 5, 6, 7, 8, 9]})[-1] == {
        "check": "follows the rule",
        "detail": "messages 4-5 (a tool call and its results) are claimed, but after the newer messages 6-9, 27 tokens remain and they need 54",
        "index": 4,
    }
    assert failures(CHAT_LESSON, {"kept": [0, 3, 6, 7, 8, 9]})[-1]["detail"] == (
        "message 3 is claimed, but the walk stopped at the newer messages 4-5 (a tool call and its results), "
        "which need 54 tokens with only 27 left: nothing older is kept"
    )
    # Without the older turn, the start is the failure.
    assert "where the kept history resumes at a user turn" in failures(CHAT_LESSON, {"kept": [0, 6, 7, 8, 9]})[-1]["detail"]


def test_the_start_at_a_user_turn_is_part_of_the_rule():
    history = [
        {"role": "user", "content": "x " * 60},
        {"role": "assistant", "content": "Sure."},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "Done."},
    ]
    data = {"mode": "messages", "tokenizer": "estimate", "limit": 40, "messages": history}
    assert evaluate(data)["kept"] == [2, 3]
    found = failures(data, {"kept": [1, 2, 3]})
    assert ("starts with user", 1) in [(f["check"], f.get("index")) for f in found]
    assert found[-1]["detail"] == (
        "message 1 is claimed, but it comes before the live turn (message 2, the newest user message): "
        "the conversation sent starts at a user turn and never with a reply to a message left out"
    )


def test_overflow_the_rule_selects_nothing():
    assert failures(OVERFLOW, {"selected": ["extra"]}) == [
        {
            "check": "follows the rule",
            "detail": "extra is claimed, but the required items need 7 tokens, over the budget of 5: the rule selects nothing",
            "id": "extra",
        }
    ]
    assert [f["check"] for f in failures(OVERFLOW, {"selected": ["policy", "ticket"]})] == ["token budget", "follows the rule"]
    pinned = {"mode": "messages", "limit": 12, "messages": HISTORY[:2]}
    report = judged(pinned, {"kept": []})
    assert report["claim"]["pass"] and not report["pass"]
    assert failures(pinned, {"kept": [1]})[-1]["detail"] == (
        "message 1 is claimed, but the pinned messages, the live turn and the reply priming need 26 tokens, over the limit of 12: the rule keeps nothing"
    )


@pytest.mark.parametrize(
    "data, claim, worth",
    [
        (COUNTER, {"selected": ["B", "C"]}, "relevance 18 against the rule's 10"),
        (REQUIRED_COUNTER, {"selected": ["core", "B", "C"]}, "priority 18 against the rule's 10"),
    ],
)
def test_a_better_combination_than_the_rules_is_said_so(data, claim, worth):
    found = failures(data, claim)
    assert [f["check"] for f in found] == ["follows the rule"]
    assert found[0]["detail"].startswith(
        "A fits the 10 tokens that remain (it needs 6) but is not claimed; yet the claim, within the budget"
    )
    assert worth in found[0]["detail"] and found[0]["detail"].endswith("a better combination than the greedy rule's, but not the rule's")


def test_a_better_combination_in_blocks():
    blocks = [
        {"id": name, "source": "s", "content": "c", "priority": priority, "observed_at": "2026-01-01T00:00:00Z", "tokens": tokens}
        for name, priority, tokens in (("A", 10, 6), ("B", 9, 5), ("C", 9, 5))
    ]
    data = {"mode": "blocks", "window": {"context_tokens": 10, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0}, "blocks": blocks}
    assert "priority 18 against the rule's 10" in failures(data, {"included": ["B", "C"]})[0]["detail"]
    assert "better" not in failures(data, {"included": ["B"]})[0]["detail"]  # worth less: no such note


# ---------------------------------------------------------------- messages: holes, pairs, user start


def test_a_hole():
    assert ("no holes", 6) in kinds(MESSAGES, {"kept": [0, 3, 4, 5, 7]})
    assert (
        failures(MESSAGES, {"kept": [0, 3, 4, 5, 7]})[0]["detail"]
        == "message 6 is not claimed, but the older message 5 is: a hole in the history"
    )


def test_a_tool_call_without_its_result_and_the_other_way_round():
    assert failures(MESSAGES, {"kept": [0, 3, 4, 6, 7]})[0] == {
        "check": "tool calls paired",
        "detail": "message 4 calls tools, but its result 5 is not claimed",
        "index": 4,
    }
    assert failures(MESSAGES, {"kept": [0, 3, 5, 6, 7]})[0] == {
        "check": "tool calls paired",
        "detail": "message 5 is a tool result, but message 4, whose call it answers, is not claimed",
        "index": 5,
    }


def test_a_start_that_is_not_a_user_turn():
    assert failures(MESSAGES, {"kept": [0, 4, 5, 6, 7]}) != []
    found = failures({**MESSAGES, "limit": 500}, {"kept": [0, 2, 3, 4, 5, 6, 7]})
    assert found[0] == {
        "check": "starts with user",
        "detail": "the claimed conversation starts at message 2 (assistant), not at a user turn",
        "index": 2,
    }


# ---------------------------------------------------------------- prompt matches


def test_prompt_matches_at_the_first_differing_character():
    prompt = evaluate(PASSAGES)["prompt"]
    found = failures(PASSAGES, {"chosen": ["b", "c"], "prompt": prompt.replace("Weekend", "Weekday")})
    assert found == [
        {
            "check": "prompt matches",
            "detail": (
                "the claimed prompt differs from the one rendered from the claimed selection at character 108 (line 4, column 9): "
                'the claim has "day.\\nAnswer:", the rendered prompt "end.\\nAnswer:"'
            ),
        }
    ]
    short = failures(PASSAGES, {"chosen": ["b", "c"], "prompt": prompt[:-1]})[0]["detail"]
    assert short.endswith('the claimed prompt ends there, the rendered one goes on with ":"')
    long = failures(PASSAGES, {"chosen": ["b", "c"], "prompt": prompt + "\n"})[0]["detail"]
    assert long.endswith('the rendered prompt ends there, the claimed one goes on with "\\n"')
    blocks_prompt = evaluate(BLOCKS)["prompt"]
    found = failures(BLOCKS, {"included": ["ticket", "policy"], "prompt": blocks_prompt.replace("Source: wiki", "Source: wik\u0456")})
    assert [f["check"] for f in found] == ["prompt matches"] and '"\\u0456' in found[0]["detail"]


def test_the_prompt_is_rendered_from_the_claimed_selection():
    prompt = evaluate(PASSAGES)["prompt"]
    found = failures(PASSAGES, {"chosen": ["b"], "prompt": prompt})
    assert [f["check"] for f in found] == ["follows the rule", "prompt matches"]
    wrong_order = evaluate(BLOCKS)["prompt"]
    assert judged(BLOCKS, {"included": ["policy", "ticket"], "prompt": wrong_order})["claim"][
        "pass"
    ]  # packing order, whatever the list order


# ---------------------------------------------------------------- used adds up


@pytest.mark.parametrize(
    "data, claim, detail",
    [
        (SEED, {"selected": ["A", "C"], "used": 8}, "the claim says used 8, but the claimed costs add up to 7"),
        (REQUIRED, {"selected": ["contract", "recent"], "used": 8}, "the claim says used 8, but the claimed costs add up to 7"),
        (BLOCKS, {"included": ["ticket", "policy"], "used": 100}, "the claim says used 100, but the claimed costs add up to 90"),
        (PASSAGES, {"chosen": ["b", "c"], "used": 20}, "the claim says used 20, but the prompt with the claimed passages counts 19"),
        (
            MESSAGES,
            {"kept": [0, 3, 4, 5, 6, 7], "used": 98},
            "the claim says used 98, but the claimed messages and the reply priming count 101",
        ),
    ],
)
def test_used_adds_up(data, claim, detail):
    assert failures(data, claim) == [{"check": "used adds up", "detail": detail}]


# ---------------------------------------------------------------- pass and summary


def test_a_failed_claim_fails_the_report_and_leads_its_summary():
    report = judged(SEED, {"selected": ["A", "B"]})
    assert report["pass"] is False and report["claim"]["pass"] is False
    assert report["summary"] == (
        "The claim fails: the claimed items cost 9 tokens (A 4 + B 5), over the budget of 7 by 2 "
        "(and 1 more failure). Selected A, C within 7 tokens."
    )
    assert all(check["pass"] for check in report["checks"])  # the rule's own checks still pass


def test_a_failing_check_is_still_said(monkeypatch):
    relevance = MODES["relevance"]
    real = relevance.select

    def tampered(parsed):
        result = real(parsed)
        result["used"] += 1
        return result

    monkeypatch.setattr(relevance, "select", tampered)
    holds = evaluate({**SEED, "claim": {"selected": ["A", "C"]}})
    assert holds["claim"]["pass"] and not holds["pass"]
    assert holds["summary"] == "The claim holds: Selected A, C within 7 tokens. But a check failed: token budget."
    fails = evaluate({**SEED, "claim": {"selected": ["A"]}})
    assert fails["summary"].endswith("Selected A, C within 7 tokens. But a check failed: token budget.")


# ---------------------------------------------------------------- the judge is independent of the report


def test_a_tampered_selection_cannot_make_its_claim_hold(monkeypatch):
    relevance = MODES["relevance"]
    real = relevance.select

    def tampered(parsed):  # the rule's result, with B swapped in for C
        result = real(parsed)
        result["selected"] = ["A", "B"]
        for row in result["trace"]:
            row["kept"] = row["id"] in ("A", "B")
        return result

    monkeypatch.setattr(relevance, "select", tampered)
    report = evaluate({**SEED, "claim": {"selected": ["A", "B"]}})
    assert report["selected"] == ["A", "B"]
    assert not report["claim"]["pass"] and not report["pass"]
    assert [f["check"] for f in report["claim"]["failures"]] == ["token budget", "follows the rule"]
    honest = evaluate({**SEED, "claim": {"selected": ["A", "C"]}})
    assert honest["claim"]["pass"]  # the judge replays from the input, not from the tampered trace


def test_a_shuffled_trace_does_not_move_the_judge(monkeypatch):
    for name, data, claim in (
        ("required", REQUIRED, {"selected": ["contract", "recent"]}),
        ("blocks", BLOCKS, {"included": ["ticket", "policy"]}),
    ):
        mode = MODES[name]
        real = mode.select

        def reversed_trace(parsed, real=real):
            result = real(parsed)
            result["trace"].reverse()
            return result

        monkeypatch.setattr(mode, "select", reversed_trace)
        report = evaluate({**data, "claim": claim})
        assert not report["pass"] and report["claim"]["pass"], name


def test_the_judge_takes_the_parsed_input_only():
    parsed = MODES["relevance"].parse(SEED)
    claim, problems = _claims.read_claim({"selected": ["C", "A"]}, "relevance")
    assert problems == [] and _claims.judge("relevance", parsed, claim) == {"pass": True, "failures": []}


# ---------------------------------------------------------------- invalid claims


@pytest.mark.parametrize(
    "data, claim, paths",
    [
        (SEED, [1], ["$.claim"]),
        (SEED, {"selected": ["A", 3]}, ["$.claim.selected[1]"]),
        (SEED, {"selected": "A"}, ["$.claim.selected"]),
        (SEED, {"selected": ["A", " "]}, ["$.claim.selected[1]"]),
        (SEED, {"selcted": ["A"]}, ["$.claim.selcted", "$.claim"]),
        (SEED, {"selected": [], "used": -1}, ["$.claim.used"]),
        (SEED, {"selected": [], "prompt": "x"}, ["$.claim.prompt"]),
        (REQUIRED, {"included": ["contract"]}, ["$.claim.included", "$.claim"]),
        (BLOCKS, {"included": ["ticket"], "prompt": 3}, ["$.claim.prompt"]),
        (PASSAGES, {"chosen": [None]}, ["$.claim.chosen[0]"]),
        (MESSAGES, {"kept": [0, "3", 1.5, -1, True]}, ["$.claim.kept[1]", "$.claim.kept[2]", "$.claim.kept[3]", "$.claim.kept[4]"]),
        (MESSAGES, None, ["$.claim"]),
    ],
)
def test_an_invalid_claim_is_an_input_error_with_its_path(data, claim, paths):
    report = evaluate({**data, "claim": claim})
    assert report["pass"] is False and "claim" not in report
    assert [error["path"] for error in report["errors"]] == paths
    assert report["checks"] == [
        {
            "name": "claim shape",
            "pass": False,
            "detail": f"{paths[0]}: {report['errors'][0]['message']}"
            + (f" (and {len(paths) - 1} more problem{'s' if len(paths) > 2 else ''}, listed in errors)" if len(paths) > 1 else ""),
        }
    ]
    assert report["summary"] == _claims.claim_summary(report["mode"])


def test_invalid_claim_messages():
    errors = evaluate({**SEED, "claim": {"selected": ["A", 3], "included": []}})["errors"]
    assert errors == [
        {
            "path": "$.claim.included",
            "message": 'unknown key "included": in mode relevance a claim lists its item ids in "selected" ("included" is the word of mode blocks)',
        },
        {"path": "$.claim.selected[1]", "message": "expected a non-empty string id, got 3"},
    ]
    assert evaluate({**SEED, "claim": "A, C"})["errors"][0]["message"] == 'expected an object {"selected": [ids]}, got a string: "A, C"'
    assert (
        evaluate({**MESSAGES, "claim": {"kept": ["3"]}})["errors"][0]["message"]
        == 'expected a message index: an integer from 0 to 2^53-1, got "3"'
    )
    assert (
        evaluate({**SEED, "claim": {"selcted": []}})["errors"][0]["message"]
        == 'unknown key "selcted" (did you mean "selected"? expected selected, used)'
    )


def test_a_claim_and_other_problems_are_listed_together():
    report = evaluate({"budget": -1, "items": [], "claim": {"selected": [1]}})
    assert [error["path"] for error in report["errors"]] == ["$.budget", "$.claim.selected[0]"]
    assert report["checks"][0]["name"] == "input shape"
    report = evaluate({"mode": "messages", "limit": 10, "messages": [{"role": "user"}], "claim": {"kept": ["0"]}})
    assert [error["path"] for error in report["errors"]] == ["$.messages[0]", "$.claim.kept[0]"]


def test_a_claim_with_a_tokenizer_is_judged_on_the_counted_costs():
    data = {"budget": 20, "tokenizer": "estimate", "items": [{"id": "order", "relevance": 2, "content": "word " * 10}, item("note", 1, 3)]}
    plain = evaluate(data)
    assert judged(data, {"selected": plain["selected"]})["claim"]["pass"]


# ---------------------------------------------------------------- no claim, no change; no mutation


def test_without_a_claim_the_report_has_no_claim_and_an_unknown_claims_key_is_still_an_error():
    assert "claim" not in evaluate(SEED)
    assert evaluate({**SEED, "claims": {}})["errors"][0]["path"] == "$.claims"
    assert evaluate({"mode": "nope", "claim": {}})["errors"][0]["path"] == "$.mode"


def test_evaluate_does_not_change_an_input_with_a_claim():
    data = {**MESSAGES, "claim": {"kept": [7, 0, 3, 4, 5, 6]}}
    before = json.dumps(data)
    report = evaluate(data)
    assert json.dumps(data) == before and report["claim"]["pass"]


# ---------------------------------------------------------------- scale


def test_a_claim_at_100000_items():
    rng = random.Random(5)
    items = [item(f"item-{index:06d}", round(rng.random() * 100, 3), rng.randint(1, 400)) for index in range(100_000)]
    data = {"budget": 5_000_000, "items": items}
    selected = evaluate(data)["selected"]
    rng.shuffle(selected)
    assert evaluate({**data, "claim": {"selected": selected}})["claim"]["pass"]
    found = evaluate({**data, "claim": {"selected": selected[1:]}})["claim"]["failures"]
    assert [f["check"] for f in found] == ["follows the rule"] and found[0]["id"] == selected[0]


# ---------------------------------------------------------------- the property

ID_CHARS = st.sampled_from(["a", "b", "B", "\uff5e", "\U0001f600", "\u00e9", "\ud800"])
IDS = st.text(ID_CHARS, min_size=1, max_size=3)
SCORES = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -0.0, 2.5, 9007199254740993]))
COUNTS = st.integers(0, 12)


def unique_by_id(items):
    seen = {}
    for entry in items:
        seen.setdefault(entry["id"], entry)
    return list(seen.values())


INPUTS = st.one_of(
    st.fixed_dictionaries(
        {
            "budget": st.integers(0, 40),
            "items": st.lists(st.fixed_dictionaries({"id": IDS, "relevance": SCORES, "tokens": COUNTS}), max_size=10).map(unique_by_id),
        }
    ),
    st.fixed_dictionaries(
        {
            "mode": st.just("required"),
            "budget": st.integers(0, 40),
            "items": st.lists(
                st.fixed_dictionaries({"id": IDS, "cost": COUNTS, "priority": SCORES}, optional={"required": st.booleans()}), max_size=10
            ).map(unique_by_id),
        }
    ),
)


@given(INPUTS, st.data())
def test_the_rules_own_selection_holds_and_any_other_claim_fails(data, draw):
    report = evaluate(data)
    assert "errors" not in report
    ids = [entry["id"] for entry in data["items"]]
    own = list(report["selected"])
    assert judged(data, {"selected": draw.draw(st.permutations(own)), "used": report["used"]})["claim"]["pass"]
    other = draw.draw(st.lists(st.sampled_from(ids + ["zz-unknown"]), max_size=12) if ids else st.just(["zz-unknown"]))
    verdict = judged(data, {"selected": other})["claim"]
    # The judge on its own (ranking and replaying without the report's proven trace) says the same.
    mode = data.get("mode", "relevance")
    parsed = MODES[mode].parse(data)
    assert _claims.judge(mode, parsed, _claims.read_claim({"selected": other}, mode)[0]) == verdict
    assert _claims.judge(mode, parsed, _claims.read_claim({"selected": own}, mode)[0])["pass"]
    if sorted(other) == sorted(own):
        assert verdict["pass"]
    else:
        assert not verdict["pass"] and len(verdict["failures"]) >= 1


def test_the_judges_order_of_consideration_is_the_rules_with_many_ties():
    rng = random.Random(9)
    names = [f"id-{rng.randrange(10**6)}-{index}" for index in range(3000)] + ["\U0001f600", "\uff5e", "\U0001f600a"]
    relevance = {"budget": 20_000, "items": [item(name, rng.randint(0, 30), rng.randint(0, 20)) for name in names]}
    required = {
        "mode": "required",
        "budget": 20_000,
        "items": [req(name, rng.randint(0, 20), rng.choice([0, 1, 2.5]), rng.random() < 0.1) for name in names],
    }
    blocks = {
        "mode": "blocks",
        "window": {"context_tokens": 9_000, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0},
        "blocks": [
            {
                "id": name,
                "source": "s",
                "content": "c",
                "priority": rng.randint(0, 3),
                "tokens": rng.randint(0, 9),
                "observed_at": rng.choice(["2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00", "2026-02-01T00:00:00Z"]),
                "required": rng.random() < 0.01,
            }
            for name in names
        ],
    }
    for data, key in ((relevance, "selected"), (required, "selected"), (blocks, "included")):
        plain = evaluate(data)
        chosen = [entry["id"] for entry in plain[key]] if key == "included" else list(plain[key])
        rng.shuffle(chosen)
        assert judged(data, {key: chosen})["claim"]["pass"], data.get("mode")
        # Leaving out the last item the rule keeps is named, with the budget that remained before it.
        last = [row for row in plain["trace"] if row["kept"] and not row.get("required")][-1]
        found = failures(data, {key: [name for name in chosen if name != last["id"]]})
        assert found[-1]["id"] == last["id"] and f"fits the {last['remaining_before']} tokens" in found[-1]["detail"]


@pytest.mark.parametrize("mode", [None, "required"])
def test_a_bad_claim_on_an_input_valid_in_its_mode_names_no_other_mode(mode):
    # {"budget": 1, "items": []} is valid in relevance and required alike: only the claim is wrong,
    # so its problem is the first and only one, with no "valid in mode ..." hint either way.
    data = {"budget": 1, "items": [], "claim": {"selected": 5}, **({"mode": mode} if mode else {})}
    report = evaluate(data)
    assert [error["path"] for error in report["errors"]] == ["$.claim.selected"]


def test_an_input_invalid_in_its_mode_still_gets_the_hint_beside_its_claims_problem():
    data = {"mode": "required", "budget": 1, "items": [{"id": "A", "relevance": 1, "tokens": 1}], "claim": {"selected": 5}}
    paths = [error["path"] for error in evaluate(data)["errors"]]
    assert paths[0] == "$.mode" and paths[-1] == "$.claim.selected"
