"""The seeds' own examples give the seeds' stated answers, to the letter (golden tests)."""

from fitproof import evaluate
from seeds import SEED_000, SEED_003


def three_keys(report):
    return {key: report[key] for key in ("pass", "summary", "checks")}


def test_seed_000_example():
    assert three_keys(evaluate(SEED_000)) == {
        "pass": True,
        "summary": "Selected A, C within 7 tokens.",
        "checks": [{"name": "token budget", "pass": True}, {"name": "deterministic relevance order", "pass": True}],
    }


def test_seed_000_negative_budget():
    report = evaluate({"budget": -1, "items": []})
    assert report["pass"] is False
    assert report["summary"] == "Input needs a non-negative integer budget and items array."
    assert [check["name"] for check in report["checks"]] == ["input shape"]
    assert report["errors"] == [{"path": "$.budget", "message": "expected an integer from 0 to 2^53-1, got -1"}]


def test_seed_000_four_token_boundary():
    assert evaluate({"budget": 4, "items": [{"id": "x", "relevance": 1, "tokens": 4}]})["selected"] == ["x"]


def test_seed_000_invalid_item_summary():
    report = evaluate({"budget": 4, "items": [{"id": "x", "relevance": 1, "tokens": -4}]})
    assert report["summary"] == "Each item needs id, numeric relevance, and non-negative integer tokens."
    assert [check["name"] for check in report["checks"]] == ["item shape"]


def test_seed_003_example():
    report = evaluate(SEED_003)
    assert {key: report[key] for key in ("selected", "omitted", "used")} == {
        "selected": ["contract", "recent"],
        "omitted": ["older"],
        "used": 7,
    }
    assert report["pass"] is True
