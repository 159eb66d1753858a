"""Every fixture case, run through ``evaluate`` in CPython: the full report must match."""

import pytest

from conftest import FIXTURES
from context_budget import _fixtures
from context_budget import evaluate
from context_budget.modes import MODES

FILES = _fixtures.fixture_files(FIXTURES)


@pytest.mark.parametrize("path", FILES, ids=[path.relative_to(FIXTURES).as_posix() for path in FILES])
def test_fixture(path):
    case = _fixtures.load(path)
    difference = _fixtures.first_difference(case["expected"], evaluate(case["input"]))
    assert difference is None, f"{case['description']}\n  first difference: {difference}"


def test_each_mode_has_enough_fixtures():
    for mode in MODES:
        assert len(list((FIXTURES / mode).glob("*.json"))) >= 12, mode


def test_fixture_mode_matches_its_folder():
    for path in FILES:
        case = _fixtures.load(path)
        assert case["expected"]["mode"] in (path.parent.name, None), path


def test_first_difference_names_the_path():
    expected = {"selected": ["A", "C"], "checks": [{"pass": True}]}
    assert _fixtures.first_difference(expected, {"selected": ["A", "B"], "checks": [{"pass": True}]}) == (
        '$.selected[1]: expected "C", got "B"'
    )
    assert _fixtures.first_difference(expected, {"selected": ["A", "C"], "checks": [{"pass": 1}]}) == (
        "$.checks[0].pass: expected true, got 1"
    )
    assert _fixtures.first_difference({"a": 1}, {"a": 1, "b 2": 2}) == '$["b 2"]: not expected, got 2'
    assert _fixtures.first_difference([1], [1, 2]) == "$: expected 1 elements, got 2"
    assert _fixtures.first_difference(expected, expected) is None
