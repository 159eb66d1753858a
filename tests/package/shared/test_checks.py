"""Each check in a report can fail: fed a wrong result, it says so and names the problem."""

import copy
import json

import pytest

from fitproof import evaluate
from fitproof.modes import relevance, required
from conftest import ROOT
from seeds import SEED_000, SEED_003


def checks_for(mode, data, tamper):
    result = mode.run(data)
    tamper(result)
    return {check["name"]: check for check in mode.verify(data, result)}


def test_correct_results_pass_every_check():
    for mode, data in ((relevance, SEED_000), (required, SEED_003)):
        assert all(check["pass"] for check in mode.verify(data, mode.run(data)))


@pytest.mark.parametrize(
    "tamper, failing, detail",
    [
        # Selecting B too overspends the budget (4 + 5 + 3 = 12 > 7).
        (lambda r: r["selected"].append("B"), "token budget", "over the budget"),
        (lambda r: r.update(used=6), "token budget", "reported used 6"),
        (lambda r: r.update(remaining=1), "token budget", "reported remaining 1"),
        (lambda r: r["selected"].append("Z"), "token budget", "not an input item"),
        (lambda r: r["selected"].append("A"), "token budget", "selected twice"),
        # C considered before B breaks the descending-relevance order.
        (lambda r: r["trace"].insert(1, r["trace"].pop(2)), "deterministic relevance order", "ranks before"),
        (lambda r: r["trace"].pop(), "deterministic relevance order", "exactly once"),
        (lambda r: r["trace"][1].update(kept=True), "deterministic relevance order", "was kept with cost 5"),
        (lambda r: r["trace"][2].update(remaining_before=7), "deterministic relevance order", "remained before it"),
        (lambda r: r.update(omitted=[]), "deterministic relevance order", "omitted ids differ"),
    ],
)
def test_relevance_checks_fail_on_wrong_results(tamper, failing, detail):
    checks = checks_for(relevance, SEED_000, tamper)
    assert checks[failing]["pass"] is False
    assert detail in checks[failing]["detail"]


@pytest.mark.parametrize(
    "tamper, failing, detail",
    [
        (lambda r: r.update(selected=["recent", "older"], used=7, remaining=1), "required items selected", "contract"),
        (lambda r: r.update(selected=["contract", "recent", "older"]), "token budget", "over the budget"),
        (lambda r: r["trace"].reverse(), "deterministic priority order", "ranks before"),
        (lambda r: r["trace"][2].update(kept=True), "deterministic priority order", "was kept with cost 3"),
        (lambda r: r.update(selected=["recent", "contract"]), "deterministic priority order", "selected ids differ"),
    ],
)
def test_required_checks_fail_on_wrong_results(tamper, failing, detail):
    checks = checks_for(required, SEED_003, tamper)
    assert checks[failing]["pass"] is False
    assert detail in checks[failing]["detail"]


def test_order_check_rereads_scores_from_the_input():
    # A trace whose rows were relabelled with made-up relevance cannot fool the check.
    def tamper(result):
        result["trace"].insert(1, result["trace"].pop(2))
        result["trace"][1]["relevance"] = 8.5

    assert checks_for(relevance, SEED_000, tamper)["deterministic relevance order"]["pass"] is False


@pytest.mark.parametrize(
    "mode, data, check",
    [
        (
            relevance,
            {"budget": 1, "items": [{"id": "b", "relevance": 1, "tokens": 1}, {"id": "a", "relevance": 1, "tokens": 1}]},
            "deterministic relevance order",
        ),
        (
            required,
            {"mode": "required", "budget": 1, "items": [{"id": "b", "priority": 1, "cost": 1}, {"id": "a", "priority": 1, "cost": 1}]},
            "deterministic priority order",
        ),
        # The wrong tie after a right one: the message names the pair where it is.
        (
            relevance,
            {
                "budget": 1,
                "items": [
                    {"id": "x", "relevance": 2, "tokens": 1},
                    {"id": "y", "relevance": 2, "tokens": 1},
                    {"id": "b", "relevance": 1, "tokens": 1},
                    {"id": "a", "relevance": 1, "tokens": 1},
                ],
            },
            "deterministic relevance order",
        ),
    ],
)
def test_order_check_catches_ties_broken_by_input_order(monkeypatch, mode, data, check):
    """A rule whose sort ignores the id on ties keeps input order for them; the linear order
    check (adjacent pairs strictly ordered, ties by ordinal id) fails without any re-run."""

    def without_tie_break(ids, ranks, descending=False, positions=None):
        return sorted(range(len(ids)) if positions is None else positions, key=ranks.__getitem__, reverse=descending)

    monkeypatch.setattr(mode, "ranked_order", without_tie_break)
    result = mode.run(data)
    assert result["selected"] == [data["items"][0]["id"]]
    verdicts = {verdict["name"]: verdict for verdict in mode.verify(data, result)}
    assert verdicts[check]["pass"] is False
    assert "'a' was considered after 'b' but ranks before it" in verdicts[check]["detail"]


def test_blocks_order_check_catches_ties_broken_by_input_order(monkeypatch):
    data = json.loads(json.dumps(REFUND))
    for block in data["blocks"]:
        block.update(priority=50, observed_at="2026-03-01T00:00:00Z", required=False)
    data["blocks"].reverse()

    def without_tie_break(records):  # the rule's keys, but ties left in input order
        ranks = [(not record[5], -record[3], -record[4].nanoseconds) for record in records]
        return sorted(range(len(records)), key=ranks.__getitem__)

    monkeypatch.setattr(blocks, "_packing_order", without_tie_break)
    verdicts = {verdict["name"]: verdict for verdict in blocks.verify(data, blocks.run(data))}
    assert verdicts["deterministic packing order"]["pass"] is False
    assert "ranks before it" in verdicts["deterministic packing order"]["detail"]


@pytest.mark.parametrize(
    "first, second",
    [
        ({"required": True}, {"required": False, "priority": 100}),  # required first, whatever the priority
        ({"priority": 90}, {"priority": 89, "observed_at": "2099-01-01T00:00:00Z"}),  # then priority, whatever the time
        ({"observed_at": "2026-03-01T00:00:01Z"}, {"observed_at": "2026-03-01T00:00:00Z"}),  # then the newest
        ({"observed_at": "0001-01-01T00:00:00.000000002Z"}, {"observed_at": "0001-01-01T00:00:00.000000001Z"}),
    ],
)
def test_blocks_order_check_catches_each_part_of_the_rank_out_of_order(monkeypatch, first, second):
    """Two blocks that differ in one part of the rank, packed the wrong way round (the one that
    ranks first has the later id, so a check that missed that part would take them for a tie
    rightly broken by id)."""
    base = {"source": "s", "content": "x", "priority": 50, "observed_at": "2026-03-01T00:00:00Z", "required": False}
    data = {
        "mode": "blocks",
        "window": {"context_tokens": 1000, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0},
        "blocks": [dict(base, id="a", **second), dict(base, id="z", **first)],
    }
    assert [row["id"] for row in blocks.run(data)["trace"]] == ["z", "a"]
    monkeypatch.setattr(blocks, "_packing_order", lambda records: list(range(len(records))))  # input order
    verdicts = {verdict["name"]: verdict for verdict in blocks.verify(data, blocks.run(data))}
    assert verdicts["deterministic packing order"] == {
        "name": "deterministic packing order",
        "pass": False,
        "detail": "'z' was considered after 'a' but ranks before it",
    }


def test_a_failed_check_fails_the_report(monkeypatch):
    from fitproof import evaluate

    honest = relevance.select

    def overspend(parsed):
        result = honest(parsed)
        result["selected"].append("B")
        return result

    monkeypatch.setattr(relevance, "select", overspend)
    report = evaluate(copy.deepcopy(SEED_000))
    assert report["pass"] is False
    assert "a check failed: token budget" in report["summary"].lower()


# ---------------------------------------------------------------- blocks
from fitproof.modes import blocks  # noqa: E402

REFUND = json.loads((ROOT / "examples" / "refund-case.json").read_text())
REFUND_TIGHT = dict(REFUND, window=dict(REFUND["window"], context_tokens=850, fixed_prompt_tokens=400))


def test_refund_case_passes_every_check():
    for data in (REFUND, REFUND_TIGHT):
        assert all(check["pass"] for check in blocks.verify(data, blocks.run(data)))


@pytest.mark.parametrize(
    "tamper, failing, detail",
    [
        (lambda r: r["included"].append({"id": "ORDER_DATA", "tokens": 48}), "context budget", "over the budget"),
        (lambda r: r["included"][0].update(tokens=1), "context budget", "reported at 1 tokens"),
        (lambda r: r.update(available=151), "context budget", "reported available 151"),
        (lambda r: r.update(rendered_tokens=1), "rendered prompt fits window", "re-counts to"),
        (
            lambda r: (r["included"].pop(1), r.update(used=r["used"] - 60, remaining=r["remaining"] + 60)),
            "required blocks included",
            "REFUND_POLICY",
        ),
        (lambda r: r.update(can_proceed=False), "required blocks included", "can_proceed"),
        (lambda r: r["trace"].reverse(), "deterministic packing order", "ranks before"),
        (lambda r: r["trace"][2].update(kept=True), "deterministic packing order", "was kept"),
        (
            lambda r: r.update(prompt=r["prompt"].replace("### Block CUSTOMER_HISTORY", "### Block ORDER_DATA")),
            "prompt lists included blocks in order",
            "line",
        ),
        (lambda r: r.update(prompt=r["prompt"] + "extra"), "prompt lists included blocks in order", "fresh render"),
    ],
)
def test_blocks_checks_fail_on_wrong_results(tamper, failing, detail):
    checks = checks_for(blocks, REFUND_TIGHT, tamper)
    assert checks[failing]["pass"] is False, checks
    assert detail in checks[failing]["detail"]


def test_rendered_prompt_check_fails_when_headers_overflow_the_window():
    data = dict(REFUND, window={"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 220})
    checks = {check["name"]: check for check in blocks.verify(data, blocks.run(data))}
    assert checks["rendered prompt fits window"]["pass"] is False
    assert "over context - reserved output = 550" in checks["rendered prompt fits window"]["detail"]
    assert all(check["pass"] for name, check in checks.items() if name != "rendered prompt fits window")


def test_blocks_check_recounts_estimates_independently(monkeypatch):
    # If the estimator were wrong, the selector would pack by wrong costs; the check
    # counts again another way and disagrees.
    monkeypatch.setattr(blocks, "estimate_tokens", lambda text: 1)
    checks = {check["name"]: check for check in blocks.verify(REFUND, blocks.run(REFUND))}
    assert checks["context budget"]["pass"] is False


def test_required_order_check_catches_an_optional_item_ranked_before_a_required_one():
    """The order check ranks required rows first as a group (then each group by priority):
    a trace that lists a higher-priority optional item first fails it."""
    data = {
        "mode": "required",
        "budget": 10,
        "items": [{"id": "opt", "priority": 9, "cost": 1}, {"id": "req", "priority": 1, "cost": 1, "required": True}],
    }
    result = required.run(data)
    assert [row["id"] for row in result["trace"]] == ["req", "opt"]
    result["trace"].reverse()
    verdicts = {verdict["name"]: verdict for verdict in required.verify(data, result)}
    assert verdicts["deterministic priority order"]["pass"] is False
    assert verdicts["deterministic priority order"]["detail"] == "'req' was considered after 'opt' but ranks before it"


def test_blocks_names_missing_required_blocks_in_the_rules_order():
    """Like the summary: priority first, then newest, then ordinal id (here the reverse of id order)."""

    def block(block_id, priority, day):
        return {
            "id": block_id,
            "source": "crm",
            "content": "x",
            "priority": priority,
            "observed_at": f"2026-01-{day:02d}T00:00:00Z",
            "tokens": 50,
            "required": True,
        }

    data = {
        "mode": "blocks",
        "system": "s",
        "task": "t",
        "window": {"context_tokens": 60, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0},
        "blocks": [block("a", 1, 1), block("b", 5, 1), block("c", 5, 2), block("d", 9, 1)],
    }
    report = evaluate(data)
    assert report["summary"].startswith("Cannot proceed: required block c needs 50 tokens but only 10 remain")
    check = next(check for check in report["checks"] if check["name"] == "required blocks included")
    assert check["detail"] == "required blocks c, b, a are not included"
