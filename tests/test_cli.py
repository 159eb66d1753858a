"""The CLI, called as ``run(argv, stdin, stdout, stderr)`` and once as a real process."""

import io
import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT
from context_budget.cli import run
from test_seeds import SEED_000


def call(argv, stdin=b""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_check_passing_input_prints_ok_envelope():
    code, out, err = call(["check"], json.dumps(SEED_000))
    envelope = json.loads(out)
    assert code == 0 and err == ""
    assert envelope["ok"] is True and envelope["result"]["summary"] == "Selected A, C within 7 tokens."


def test_check_invalid_input_prints_error_envelope_and_exits_1():
    code, out, _ = call(["check", "-"], '{"budget": -1, "items": []}')
    envelope = json.loads(out)
    assert code == 1
    assert envelope["ok"] is False
    # The general summary, then the first located problem, so the one line says what to fix.
    assert envelope["error"] == "Input needs a non-negative integer budget and items array. $.budget: expected an integer from 0 to 2^53-1, got -1"
    assert envelope["result"]["errors"][0]["path"] == "$.budget"


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"budget": 1,\n "budget": 2}', 'duplicate key "budget" at line 2 column 2'),
        ('{"items": [{"id": "a", "x": 1, "x": 2}]}', 'duplicate key "x" at line 1 column 32'),
        ('{"a": {"k": 1}, "b": {"k": 1}}', None),  # same key in two objects is fine
        ('{"budget": NaN}', "NaN is not a JSON number at line 1 column 12"),
        ('{"budget": -Infinity}', "Infinity is not a JSON number at line 1 column 12"),
        ('{"budget": 1,,}', "invalid JSON: expected an object key in double quotes at line 1 column 14"),
        ("", "invalid JSON: the input holds no JSON value (it is empty or only whitespace) at line 1 column 1"),
        ("[" * 100_000, "JSON nests arrays and objects more than 512 levels deep at line 1 column 513"),
        ('{"s": "[[\\"[",\n "x": ' + "[" * 600, "JSON nests arrays and objects more than 512 levels deep at line 2 column 518"),  # the object is level 1
        ("[" * 512 + "]" * 512, None),
        ('{"budget": ' + "9" * 5000 + "}", "integer with more than 4300 digits at line 1 column 12"),
    ],
)
def test_check_rejects_unacceptable_json_with_position(text, message):
    code, out, _ = call(["check"], text)
    envelope = json.loads(out)
    assert code == 1 and envelope["ok"] is False
    if message is None:
        assert "result" in envelope
    else:
        assert envelope["error"] == message and "result" not in envelope
        if " at line " in message:  # the position is also given as numbers, for the page's editor
            line, column = message.rsplit(" at line ", 1)[1].split(" column ")
            assert (envelope["line"], envelope["column"]) == (int(line), int(column))


def test_check_rejects_bytes_that_are_not_utf8():
    code, out, _ = call(["check"], b'{"budget": 1, "items": [{"id": "\xff"}]}')
    assert code == 1
    assert json.loads(out) == {"ok": False, "error": "input is not valid UTF-8 (byte 0xff at offset 32) at line 1 column 33", "line": 1, "column": 33}
    code, out, _ = call(["check"], '{"budget": 1,\n "items": [{"id": "é\xff"}]}'.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    assert json.loads(out)["line"] == 2 and json.loads(out)["column"] == 21  # characters, not bytes: "é" is one
    code, out, _ = call(["check"], b'\xef\xbb\xbf{"a": \xff}')
    assert json.loads(out)["column"] == 7  # a byte order mark is dropped, as for any other error: not a column


def test_check_accepts_a_byte_order_mark():
    code, _, _ = call(["check"], "\ufeff" + json.dumps(SEED_000))
    assert code == 0


def test_check_reads_a_file(tmp_path):
    path = tmp_path / "input.json"
    path.write_text(json.dumps(SEED_000))
    assert call(["check", str(path)])[0] == 0


def test_missing_file_is_a_one_line_usage_error(tmp_path):
    code, out, err = call(["check", str(tmp_path / "missing.json")])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "No such file or directory" in err and "Traceback" not in err


def test_lone_surrogates_are_escaped_in_output():
    code, out, _ = call(["check"], '{"budget": 1, "items": [{"id": "\\ud800", "relevance": 1, "tokens": 1}]}')
    assert code == 0
    out.encode("utf-8")  # valid UTF-8 even though the id is not valid Unicode
    assert json.loads(out)["result"]["selected"] == ["\ud800"]


def test_non_ascii_output_stays_readable():
    _, out, _ = call(["check"], '{"budget": 1, "items": [{"id": "ü", "relevance": 1, "tokens": 1}]}')
    assert '"selected": ["ü"]' in out


@pytest.mark.parametrize("argv", [[], ["nope"], ["check", "--bogus"], ["check", "a", "b"], ["fixtures", "/no/such/dir"]])
def test_bad_usage_exits_2(argv):
    code, out, err = call(argv)
    assert code == 2 and out == "" and err and "Traceback" not in err


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
    assert 'FAIL extra.json: cannot load: a fixture is an object with keys description, input, expected: unknown key "$schema"' in out
    assert 'FAIL short.json: cannot load: a fixture is an object with keys description, input, expected: missing keys "description", "expected"' in out
    assert "FAIL number.json: cannot load: $.description: expected a string, got 5" in out


def test_a_case_written_as_the_readme_says_passes(tmp_path):
    """The recipe for your own cases: expected is evaluate's report, written by Python's json."""
    from context_budget import evaluate

    data = {"budget": 7, "items": [{"id": "A", "relevance": 2.0, "tokens": 4}]}
    case = {"description": "a float score stays a float", "input": data, "expected": evaluate(data)}
    (tmp_path / "case.json").write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert call(["fixtures", str(tmp_path)])[0] == 0


def test_real_process_round_trip():
    process = subprocess.run(
        [sys.executable, "-m", "context_budget", "check"],
        input=json.dumps({"budget": -1, "items": []}).encode(),
        capture_output=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert process.returncode == 1, process.stderr
    assert json.loads(process.stdout)["error"].startswith("Input needs a non-negative integer budget and items array. $.budget: ")
    assert process.stderr == b""


def test_jsonl_writes_one_envelope_per_line_and_goes_on_after_a_bad_one():
    lines = [json.dumps(SEED_000), "", '{"budget": -1, "items": []}', "{bad", json.dumps(SEED_000)]
    code, out, _ = call(["check", "--jsonl"], "\n".join(lines) + "\n")
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(e["input_line"], e["ok"]) for e in envelopes] == [(1, True), (3, False), (4, False), (5, True)]
    assert envelopes[2]["error"].startswith("invalid JSON") and "result" not in envelopes[2]
    assert envelopes[1]["result"]["errors"][0]["path"] == "$.budget"


def test_jsonl_exit_0_when_every_line_passes(tmp_path):
    path = tmp_path / "inputs.jsonl"
    path.write_text((json.dumps(SEED_000) + "\n") * 3)
    code, out, _ = call(["check", "--jsonl", str(path)])
    assert code == 0 and len(out.splitlines()) == 3


def test_jsonl_streams(monkeypatch):
    """Each envelope is written before the next line is read: nothing accumulates."""
    stdout = io.StringIO()

    class Lines:
        def __iter__(self):
            for index in range(3):
                assert len(stdout.getvalue().splitlines()) == index
                yield (json.dumps(SEED_000) + "\n").encode()

    class Stdin:
        buffer = Lines()

    assert run(["check", "--jsonl"], Stdin(), stdout, io.StringIO()) == 0
    assert len(stdout.getvalue().splitlines()) == 3
