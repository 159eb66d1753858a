"""``Report`` (_evaluation/report.py) declares every key a report has: each mode's ``Result``, and
every key of every fixture case's report; and a type checker then rejects a misspelt key."""

import json
import os
import subprocess
import sys
import typing

import pytest

from conftest import ROOT
from fitproof import Report, evaluate
from fitproof.modes import blocks, messages, passages, relevance, required

DECLARED = typing.get_type_hints(Report)
CASES = sorted((ROOT / "fixtures").rglob("*.json"))


@pytest.mark.parametrize("mode", [relevance, required, blocks, passages, messages], ids=lambda mode: mode.NAME)
def test_every_key_of_a_modes_result_is_declared_with_the_same_type(mode):
    result = typing.get_type_hints(mode.Result)
    assert set(result) <= set(DECLARED), set(result) - set(DECLARED)
    # A key the modes share has one type: the mode's own, or a looser one for lists of JSON rows.
    for key, kind in result.items():
        declared = DECLARED[key]
        if typing.get_origin(kind) is list:
            assert typing.get_origin(declared) is list, key
        else:
            assert kind == declared or kind in typing.get_args(declared), (key, kind, declared)


def test_every_key_of_every_fixture_report_is_declared():
    assert len(CASES) > 100
    seen = set()
    for path in CASES:
        case = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(case, dict) and "input" in case:
            seen |= set(evaluate(case["input"]))
    assert {"pass", "summary", "checks", "mode", "errors", "selected", "included", "chosen", "kept"} <= seen
    assert seen <= set(DECLARED), seen - set(DECLARED)


def test_the_four_keys_of_every_report_are_required():
    assert Report.__required_keys__ == {"pass", "summary", "checks", "mode"}


def test_a_misspelt_report_key_is_a_type_error(tmp_path):
    source = (
        "from fitproof import evaluate\n\n"
        'report = evaluate({"budget": 1, "items": []})\n'
        'print(report["selected"], report["pass"])\n'
        'print(report["selectd"])\n'
    )
    (tmp_path / "reads.py").write_text(source)
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", "--cache-dir", os.devnull, "reads.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "MYPYPATH": str(ROOT / "py")},
    )
    errors = [line for line in process.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith("reads.py:5:") and '"selectd"' in errors[0], process.stdout + process.stderr
