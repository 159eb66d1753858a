"""`fitproof fixtures`: every case, one case file, a mismatch named by its path, wrong keys named."""

import io
import json

from conftest import FIXTURES
from fitproof.cli import run


def call(argv, stdin=b""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_fixtures_command_runs_every_case():
    code, out, _ = call(["fixtures", str(FIXTURES)])
    lines = out.splitlines()
    total = len(list(FIXTURES.rglob("*.json")))
    assert code == 0
    assert lines[-1] == f"{total} passed, 0 failed"
    assert "ok   relevance/seed-000-example.json" in lines


def test_fixtures_command_reports_a_mismatch_with_its_path(tmp_path):
    case = json.loads((FIXTURES / "relevance" / "seed-000-example.json").read_text())
    case["expected"]["selected"] = ["A", "B"]
    (tmp_path / "wrong.json").write_text(json.dumps(case))
    (tmp_path / "broken.json").write_text("{")
    code, out, _ = call(["fixtures", str(tmp_path)])
    assert code == 1
    assert 'FAIL wrong.json: $.selected[1]: expected "B", got "C"' in out
    assert "FAIL broken.json: cannot load: invalid JSON" in out
    assert out.splitlines()[-1] == "0 passed, 2 failed"


def test_fixtures_command_runs_one_case_file_and_names_wrong_keys(tmp_path):
    code, out, _ = call(["fixtures", str(FIXTURES / "relevance" / "seed-000-example.json")])
    assert (code, out) == (0, "ok   seed-000-example.json\n1 passed, 0 failed\n")
    case = json.loads((FIXTURES / "relevance" / "seed-000-example.json").read_text())
    (tmp_path / "extra.json").write_text(json.dumps({**case, "$schema": "x"}))
    (tmp_path / "short.json").write_text(json.dumps({"input": case["input"]}))
    (tmp_path / "number.json").write_text(json.dumps({**case, "description": 5}))
    code, out, _ = call(["fixtures", str(tmp_path)])
    assert code == 1
    assert 'FAIL extra.json: cannot load: $["$schema"]: unknown key (a case has description, input, and expected or expect)' in out
    assert (
        'FAIL short.json: cannot load: $: missing key "description"; $: missing "expected" (the whole report) or "expect" (the keys it states)'
        in out
    )
    assert "FAIL number.json: cannot load: $.description: expected a string, got 5" in out


def test_a_case_written_as_the_readme_says_passes(tmp_path):
    """The recipe for your own cases: expected is evaluate's report, written by Python's json."""
    from fitproof import evaluate

    data = {"budget": 7, "items": [{"id": "A", "relevance": 2.0, "tokens": 4}]}
    case = {"description": "a float score stays a float", "input": data, "expected": evaluate(data)}
    (tmp_path / "case.json").write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert call(["fixtures", str(tmp_path)])[0] == 0
