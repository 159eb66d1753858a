"""Partial cases (``expect``): the keys a case states, compared exactly and strictly typed, objects
by the keys they give, lists whole; a case's shape errors name their JSON path; claims in cases."""

import json

import pytest

from fitproof import evaluate
from fitproof._fixtures import case as _fixtures
from fitproof.fixtures import check_case

INPUT = {"budget": 7, "items": [{"id": "A", "relevance": 0.9, "tokens": 4},
                                {"id": "B", "relevance": 0.8, "tokens": 5},
                                {"id": "C", "relevance": 0.5, "tokens": 3}]}
REPORT = evaluate(INPUT)


def partial(expect, report=REPORT):
    return _fixtures.first_difference(expect, report, partial=True)


def write(tmp_path, case, name="case.json"):
    path = tmp_path / name
    path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_a_partial_expectation_states_only_its_keys():
    assert partial({"pass": True, "selected": ["A", "C"]}) is None
    assert partial({"optimal": {"value": 1.4}, "trace": REPORT["trace"]}) is None  # nested objects by their keys
    assert partial({"selected": ["A"]}) == '$.selected: expected ["A"], got ["A", "C"]'
    assert partial({"pass": False}) == "$.pass: expected false, got true"
    # The same expectation as a whole report fails: the report has more keys.
    assert _fixtures.first_difference({"pass": True, "selected": ["A", "C"]}, REPORT) == '$.summary: not expected, got "Selected A, C within 7 tokens."'


@pytest.mark.parametrize("expect, said", [
    ({"used": 7.0}, "$.used: expected 7.0, got 7"),
    ({"budget": True}, "$.budget: expected true, got 7"),
    ({"pass": 1}, "$.pass: expected 1, got true"),
    ({"optimal": {"value": 1}}, "$.optimal.value: expected 1, got 1.4"),
    ({"selected": "A, C"}, '$.selected: expected "A, C", got ["A", "C"]'),
    ({"errors": []}, "$.errors: expected [], got nothing"),
    ({"optimal": {"ids": ["A", "C"]}}, '$.optimal.ids: expected ["A", "C"], got nothing'),
    ({"mode": None}, '$.mode: expected null, got "relevance"'),
])
def test_values_are_compared_strictly_by_json_type(expect, said):
    assert partial(expect) == said


def test_lists_are_compared_whole_and_objects_inside_them_whole():
    row = dict(REPORT["trace"][0])
    assert partial({"trace": [row, *REPORT["trace"][1:]]}) is None
    shortened = {key: value for key, value in row.items() if key != "reason"}
    said = partial({"trace": [shortened, *REPORT["trace"][1:]]})
    # A list too long to print is named whole, and where inside it the two part.
    assert said.startswith("$.trace: expected [{") and said.endswith('(first difference at $.trace[0].reason: not expected, got "fits_remaining_budget")')
    assert partial({"selected": ["C", "A"]}) == '$.selected: expected ["C", "A"], got ["A", "C"]'  # order matters


def test_a_missing_key_is_named_with_the_one_meant():
    assert partial({"selcted": ["A", "C"]}) == '$.selcted: expected ["A", "C"], got nothing (did you mean "selected"?)'
    assert partial({"optimal": {"valu": 1.4}}) == '$.optimal.valu: expected 1.4, got nothing (did you mean "value"?)'
    assert partial({"x y": 1}) == '$["x y"]: expected 1, got nothing'


def test_long_strings_alike_at_the_start_show_where_they_part():
    long = "x" * 80
    said = _fixtures.first_difference({"summary": long + "a"}, {"summary": long + "b"}, partial=True)
    assert said.startswith('$.summary: expected "xxx') and said.endswith('; from character 81: expected "a", got "b"')


def test_a_corrupted_report_fails_the_partial_case(tmp_path):
    """The check can fail: the same case passes on the true report and fails on each corruption of it."""
    expect = {"pass": True, "selected": ["A", "C"], "used": 7, "optimal": {"value": 1.4}}
    assert partial(expect) is None
    for key, wrong in (("pass", False), ("selected", ["A", "B"]), ("used", 8), ("optimal", {"value": 1.5})):
        assert partial(expect, {**REPORT, key: wrong}).startswith(f"$.{key}")


@pytest.mark.parametrize("case, said", [
    ({"description": "d", "input": INPUT, "expected": REPORT, "expect": {"pass": True}},
     '$: both "expected" and "expect"; a case gives one of them, the whole report or the keys it states'),
    ({"description": "d", "input": INPUT},
     '$: missing "expected" (the whole report) or "expect" (the keys it states)'),
    ({"description": "d", "input": INPUT, "expect": {}},
     "$.expect: an empty object states nothing, so any report would pass: give the keys the case is about"),
    ({"description": "d", "input": INPUT, "expect": [True]},
     "$.expect: expected an object of the report's keys, got [true]"),
    ({"description": "d", "input": INPUT, "expects": {"pass": True}},
     '$.expects: unknown key (did you mean "expect"?); $: missing "expected" (the whole report) or "expect" (the keys it states)'),
    ({"input": INPUT, "expect": {"pass": True}}, '$: missing key "description"'),
])
def test_a_case_that_is_not_one_is_named_by_its_json_path(tmp_path, case, said):
    outcome = check_case(write(tmp_path, case))
    assert not outcome.passed and outcome.detail == f"cannot load: {said}"


def test_a_partial_case_runs_as_a_case(tmp_path):
    assert check_case(write(tmp_path, {"description": "A and C", "input": INPUT, "expect": {"pass": True, "selected": ["A", "C"]}})).passed
    outcome = check_case(write(tmp_path, {"description": "A and B", "input": INPUT, "expect": {"selected": ["A", "B"]}}))
    assert not outcome.passed and outcome.detail == '$.selected: expected ["A", "B"], got ["A", "C"]'


def test_a_reworded_summary_breaks_no_partial_case(tmp_path, monkeypatch):
    """An upgrade that rewords the summary fails a snapshot, never a partial case that leaves the summary out."""
    path = write(tmp_path, {"description": "A and C", "input": INPUT, "expect": {"pass": True, "selected": ["A", "C"]}})
    snapshot = write(tmp_path, {"description": "A and C", "input": INPUT, "expected": REPORT}, "snapshot.json")
    reworded = lambda data: {**evaluate(data), "summary": "Kept A and C (7 of 7 tokens)."}  # noqa: E731
    monkeypatch.setattr(_fixtures, "evaluate", reworded)
    assert check_case(path).passed
    assert check_case(snapshot).detail == '$.summary: expected "Selected A, C within 7 tokens.", got "Kept A and C (7 of 7 tokens)."'


# --- claims in cases ---------------------------------------------------------------------------

WRONG_CLAIM = {**INPUT, "claim": {"selected": ["A", "B"]}}


def test_a_case_pins_how_a_wrong_claim_is_judged(tmp_path):
    judged = {"description": "B does not fit after A", "input": WRONG_CLAIM, "expect": {"pass": False, "claim": {"pass": False}}}
    assert check_case(write(tmp_path, judged)).passed
    failures = evaluate(WRONG_CLAIM)["claim"]["failures"]
    assert check_case(write(tmp_path, {**judged, "expect": {"claim": {"failures": failures}}})).passed
    said = check_case(write(tmp_path, {**judged, "expect": {"claim": {"failures": failures[:1]}}})).detail
    assert said.startswith('$.claim.failures: expected [{"check": "within budget"') and said.endswith(f"(expected 1 elements, got {len(failures)})")
    # The verdict is checked: a claim that holds fails the case, saying so at its path.
    right = {**judged, "input": {**INPUT, "claim": {"selected": ["C", "A"]}}, "expect": {"claim": {"pass": False}}}
    outcome = check_case(write(tmp_path, right))
    assert not outcome.passed and outcome.detail == "$.claim.pass: expected false, got true"
    # So does an input without a claim: the report has no verdict.
    outcome = check_case(write(tmp_path, {**right, "input": INPUT}))
    assert outcome.detail == '$.claim: expected {"pass": false}, got nothing'


def test_the_claim_example_of_the_docs_passes(tmp_path):
    import re

    from conftest import ROOT

    page = (ROOT / "docs" / "fixtures.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\n  \"description\": \"An agent that keeps B.*?)```", page, re.S).group(1)
    case = json.loads(block)
    assert "claim" in case["input"] and case["expect"]["claim"] == {"pass": False}
    assert check_case(write(tmp_path, case)).passed


def test_a_long_list_that_differs_says_where_even_when_both_previews_look_alike():
    # Five short ids: both previews show the same four and "…"; the message says where they part.
    said = partial({"selected": ["a", "b", "c", "d", "e"]}, {"selected": ["a", "b", "c", "d", "f"]})
    assert said == '$.selected: expected ["a", "b", "c", "d", …], got ["a", "b", "c", "d", …] (first difference at $.selected[4]: expected "e", got "f")'


def test_every_difference_is_counted_after_the_first(tmp_path):
    from fitproof._fixtures.case import judge

    case = tmp_path / "case.json"
    case.write_text(json.dumps({"description": "d", "input": {"budget": 7, "items": [{"id": "A", "relevance": 1, "tokens": 3}]},
                                "expect": {"pass": False, "selected": [], "used": 0}}))
    assert judge(case, "case.json").difference == "$.pass: expected false, got true (and 2 more differences)"
    assert list(_fixtures.differences({"a": 1, "b": [1, 2], "c": 3}, {"a": 2, "b": [1, 3, 4], "c": 3})) == [
        "$.a: expected 1, got 2", "$.b[1]: expected 2, got 3"]
