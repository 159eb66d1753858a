"""Every fixture case, run through ``evaluate`` in CPython: the full report must match."""

import json
import os

import pytest

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof import evaluate
from fitproof.modes import MODES

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


def test_the_hand_parametrized_recipe_makes_each_case_a_pytest_test(tmp_path):
    """docs/fixtures.md's test file as written, in a folder of its own, with the README's case: the
    tests run one per case from another folder, a wrong case fails with the JSON path of its first
    difference, and no case is no silent pass."""
    import re
    import subprocess
    import sys

    from conftest import ROOT

    page = (ROOT / "docs" / "fixtures.md").read_text(encoding="utf-8")
    tests = next(block for block in re.findall(r"```python\n(.*?)```", page, re.S) if block.startswith("# test_my_cases.py"))
    (tmp_path / "test_my_cases.py").write_text(tests, encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    case = json.loads(re.search(r"```json\n(.*?)```", readme[readme.index("## Fixtures"):], re.S).group(1))
    (tmp_path / "my-cases").mkdir()
    (tmp_path / "my-cases" / "two-fit.json").write_text(json.dumps(case))
    (tmp_path / "my-cases" / "wrong.json").write_text(json.dumps({**case, "expect": {"used": 5}}))
    elsewhere = tmp_path / "elsewhere"  # run from another folder than the cases'
    elsewhere.mkdir()

    def run_tests():
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path / "test_my_cases.py")],
                              cwd=elsewhere, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})

    done = run_tests()
    assert "1 failed, 1 passed" in done.stdout, done.stdout[-3000:]
    assert "$.used: expected 5, got 7" in done.stdout and "test_case[wrong.json]" in done.stdout
    (tmp_path / "my-cases" / "wrong.json").unlink()
    (tmp_path / "my-cases" / "two-fit.json").unlink()
    done = run_tests()
    assert done.returncode != 0 and "no fixture files (*.json) under" in done.stdout, done.stdout[-3000:]


def test_an_input_given_as_a_case_is_named_for_what_it_is(tmp_path):
    (tmp_path / "input.json").write_text('{"budget": 7, "items": []}')
    outcome = _fixtures.run_case(tmp_path / "input.json", "input.json")
    assert not outcome.passed and outcome.detail == (
        'cannot load: this looks like an input for `fitproof check`, not a case: a case holds an input ("input") '
        'and what its report must say ("expected" or "expect")')
    (tmp_path / "input.json").write_text('{"description": "x", "input": {}}')  # a case missing a key: no such guess
    assert "looks like an input" not in _fixtures.run_case(tmp_path / "input.json", "input.json").detail


def test_the_public_runner_checks_a_case_as_the_cli_does(tmp_path):
    from fitproof.fixtures import case_files, check_case

    assert [path.name for path in case_files(FIXTURES / "relevance")][:2] == sorted(path.name for path in (FIXTURES / "relevance").glob("*.json"))[:2]
    one = FILES[0]
    assert case_files(one) == [one] and check_case(one).passed and check_case(str(one)).name == str(one)
    (tmp_path / "bad.json").write_text('{"input": {}, "expected": {}}')
    outcome = check_case(tmp_path / "bad.json")
    assert not outcome.passed and outcome.detail == 'cannot load: $: missing key "description"'
    for where, message in ((tmp_path / "none", "no fixture directory at"), (tmp_path, r"no fixture files \(\*\.json\) under")):
        (tmp_path / "bad.json").unlink(missing_ok=True)
        with pytest.raises(ValueError, match=message):
            case_files(where)


def test_an_empty_path_is_refused_never_the_current_directory():
    from fitproof.fixtures import case_files, check_case

    for function, said in ((case_files, "case_files needs a directory or a file name, got an empty one"), (check_case, "check_case needs a file name, got an empty one")):
        with pytest.raises(ValueError, match=said):
            function("")


def test_no_report_shares_a_list_or_an_object_with_its_input():
    """Editing a report (the messages to send, say) must not edit the caller's input."""
    def containers(value, found):
        if isinstance(value, (list, dict)):
            found.add(id(value))
            for item in value.values() if isinstance(value, dict) else value:
                containers(item, found)
        return found

    for path in FILES:
        data = _fixtures.load(path)["input"]
        assert not containers(data, set()) & containers(evaluate(data), set()), path.name
