"""Many requests: ``batch.check_lines`` and ``check --jsonl --jobs N`` give the same envelopes, in input order."""

import io
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from context_budget import batch
from context_budget.cli import run
from test_seeds import SEED_000

sys.path.insert(0, str(ROOT / "bench"))
from _inputs import realistic_requests  # noqa: E402


def call(argv, stdin=b""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def sample_lines(count=40):
    """Realistic requests with a blank line, JSON that does not parse and an invalid input among them."""
    lines = [json.dumps(request) for request in realistic_requests(count, seed=5)]
    lines[3] = ""
    lines[7] = '{"budget": 10, "items": [}'
    lines[11] = '{"budget": -1, "items": []}'
    return lines


def test_check_lines_gives_one_envelope_per_non_blank_line_in_order():
    lines = sample_lines()
    texts = list(batch.check_lines(line + "\n" for line in lines))  # text lines with their breaks, as Dask reads them
    envelopes = [json.loads(text) for text in texts]
    assert [envelope["input_line"] for envelope in envelopes] == [number for number, line in enumerate(lines, 1) if line]
    assert envelopes[6]["ok"] is False and envelopes[6]["error"].startswith("invalid JSON") and "line 1" in envelopes[6]["error"]
    assert envelopes[10]["result"]["errors"][0]["path"] == "$.budget"
    assert all(envelope["ok"] for index, envelope in enumerate(envelopes) if index not in (6, 10))
    assert all("\n" not in text for text in texts)
    # bytes lines (a file opened in binary) give the same text
    assert list(batch.check_lines(line.encode() + b"\n" for line in lines)) == texts


@pytest.mark.parametrize("jobs", ["2", "0"])
def test_jobs_keep_the_envelopes_of_one_process(jobs, monkeypatch):
    monkeypatch.setattr(batch, "CHUNK_LINES", 3)  # many small tasks, so that order is really at stake
    data = ("\n".join(sample_lines()) + "\n").encode()
    code_one, one, _ = call(["check", "--jsonl"], data)
    code_many, many, err = call(["check", "--jsonl", "--jobs", jobs], data)
    assert code_one == code_many == 1
    assert many == one and err == ""
    assert one == "".join(text + "\n" for text in batch.check_lines(data.splitlines()))


def test_jobs_need_jsonl_and_a_sane_count():
    code, _, err = call(["check", "--jobs", "2"], json.dumps(SEED_000).encode())
    assert code == 2 and "--jobs spreads the lines of --jsonl" in err
    code, _, err = call(["check", "--jsonl", "--jobs", "-1"], b"")
    assert code == 2 and "--jobs must be an integer from 0 to 256, got '-1'" in err


def test_progress_only_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    clock = iter(range(0, 1000, 2))
    monkeypatch.setattr(batch.time, "monotonic", lambda: next(clock))
    stdout, stderr = io.StringIO(), Terminal()
    lines = ((json.dumps(SEED_000) + "\n") * 3).encode()
    assert run(["check", "--jsonl"], io.BytesIO(lines), stdout, stderr) == 0
    assert "3 lines checked" in stderr.getvalue() and len(stdout.getvalue().splitlines()) == 3
    _, _, quiet = call(["check", "--jsonl"], lines)  # a pipe or file gets nothing
    assert quiet == ""


def test_jobs_in_a_real_process(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(sample_lines(12)) + "\n")
    command = [sys.executable, "-m", "context_budget", "check", "--jsonl", "--jobs", "2", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr == ""
    assert done.stdout == "".join(text + "\n" for text in batch.check_lines(path.read_bytes().splitlines()))
