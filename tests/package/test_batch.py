"""Many requests: ``batch.check_lines`` and ``check --jsonl --jobs N`` give the same envelopes, in input order."""

import io
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from fitproof import batch
from fitproof.cli import run
from seeds import SEED_000

from _inputs import realistic_requests


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


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def slow_clock(monkeypatch):
    """Two seconds pass at every reading: the progress meter shows at once."""
    clock = iter(range(0, 1000, 2))
    monkeypatch.setattr(batch.time, "monotonic", lambda: next(clock))


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


def test_progress_only_on_a_terminal(slow_clock):
    stdout, stderr = io.StringIO(), Terminal()
    lines = ((json.dumps(SEED_000) + "\n") * 3).encode()
    assert run(["check", "--jsonl"], io.BytesIO(lines), stdout, stderr) == 0
    assert "3 lines checked" in stderr.getvalue() and len(stdout.getvalue().splitlines()) == 3
    _, _, quiet = call(["check", "--jsonl"], lines)  # a pipe or file gets nothing
    assert quiet == ""


def test_jobs_in_a_real_process(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(sample_lines(12)) + "\n")
    command = [sys.executable, "-m", "fitproof", "check", "--jsonl", "--jobs", "2", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr == ""
    assert done.stdout == "".join(text + "\n" for text in batch.check_lines(path.read_bytes().splitlines()))


def test_text_and_bytes_lines_are_blank_alike_and_read_alike():
    """Text lines skipped a line of U+3000 (str.strip) that bytes and the CLI report; text read
    with errors="surrogateescape" gives the bytes' error message, byte and column."""
    for odd in ["\u3000", "\u00a0", "\x1c", "\x85", "\u2028"]:
        assert list(batch.check_lines([odd])) == list(batch.check_lines([odd.encode()])) != []
    raw = b'{"budget": 1, "items": [{"id": "caf\xe9"}]}\n'
    assert list(batch.check_lines([raw.decode("utf-8", "surrogateescape")])) == list(batch.check_lines([raw]))


def test_chunks_are_capped_by_bytes_as_well_as_lines(monkeypatch):
    """Chunks are capped in bytes as well as lines: 256 lines of 1 MB per chunk, two chunks per worker, would hold GBs with --jobs 2."""
    monkeypatch.setattr(batch, "CHUNK_BYTES", 10)
    lines = [b"12345\n", b"123\n", b"1234567890123\n", b"1\n", b"2\n"]
    chunks = list(batch._chunks(lines))
    assert chunks == [(1, [b"12345\n", b"123\n"]), (3, [b"1234567890123\n"]), (4, [b"1\n", b"2\n"])]


def test_lines_read_before_a_line_too_large_are_written_first_with_jobs(monkeypatch):
    """With --jobs 1 and --jobs 2 alike, the envelopes of the lines before the one too large are written."""
    from fitproof.cli import _input

    monkeypatch.setattr(_input, "MAX_INPUT_BYTES", 200)
    data = (json.dumps(SEED_000) + "\n") * 3 + "x" * 300 + "\n" + json.dumps(SEED_000) + "\n"
    for jobs in ("1", "2"):
        code, out, err = call(["check", "--jsonl", "--jobs", jobs], data.encode())
        assert code == 2 and len(out.splitlines()) == 3, (jobs, out)
        assert err == "fitproof: cannot read line 4 of standard input: larger than 0 MiB (each input must be smaller)\n"


def test_progress_counts_envelopes_clears_its_line_and_never_mixes_into_a_terminals_output(slow_clock):
    lines = ((json.dumps(SEED_000) + "\n\n") * 3).encode()  # blank lines are not counted
    for jobs in ("1", "2"):
        stdout, stderr = io.StringIO(), Terminal()
        run(["check", "--jsonl", "--jobs", jobs], io.BytesIO(lines), stdout, stderr)
        assert stderr.getvalue().endswith("\rfitproof: 3 lines checked\x1b[K\n"), (jobs, stderr.getvalue())
    stdout, stderr = Terminal(), Terminal()
    run(["check", "--jsonl"], io.BytesIO(lines), stdout, stderr)
    assert stderr.getvalue() == ""  # the envelopes go to the terminal: no meter between them


# The command as the script runs it, but for one hook: when the run, stopped by Ctrl+C, waits for
# the chunks running in the workers (batch._shut_down), it says so on a pipe, so that the test
# sends the second Ctrl+C at that moment, not after a guessed delay.
_SAYS_WHEN_IT_WAITS = """
import os, signal, sys
from concurrent.futures import ProcessPoolExecutor

READY = int(sys.argv.pop(1))
# Ctrl+C as a process started from a terminal gets it: a test run started in the background
# (`pytest ... &`) has SIGINT ignored, the child would inherit that and Python keep it so.
signal.signal(signal.SIGINT, signal.default_int_handler)
real_shutdown = ProcessPoolExecutor.shutdown

def shutdown(self, wait=True, *, cancel_futures=False):
    if cancel_futures:  # only batch._shut_down cancels: after Ctrl+C, deaf to another one
        os.write(READY, b"w")
    return real_shutdown(self, wait, cancel_futures=cancel_futures)

ProcessPoolExecutor.shutdown = shutdown
sys.argv[0] = "fitproof"
from fitproof._launch import main
main()
"""


@pytest.mark.parametrize("envelopes, again", [(1, False), (1, True), (600, True)])
def test_ctrl_c_with_jobs_ends_quietly_and_takes_the_workers_with_it(tmp_path, envelopes, again):
    """Workers that got Ctrl+C before ignoring it printed tracebacks, and the parent waited
    for them for good (4 runs in 79). Workers start with Ctrl+C held back, then ignore it.
    Ctrl+C comes once the run has written ``envelopes`` envelopes (the workers are running, one
    during start-up: test_manners), and ``again`` while the running chunks end (that hung on
    3.11 and 3.12)."""
    import select
    import signal

    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps(request) for request in realistic_requests(400, seed=2)) * 40 + "\n")
    waiting, waiting_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _SAYS_WHEN_IT_WAITS, str(waiting_end), "check", "--jsonl", "--jobs", "2", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            cwd=ROOT,
            pass_fds=(waiting_end,),
        )
        os.close(waiting_end)
        try:
            for _ in range(envelopes):  # the run is under way: what it wrote is read as it comes
                assert process.stdout.readline().startswith(b'{"ok"')
            os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl+C: the whole group
            if again:
                assert select.select([waiting], [], [], 60)[0] and os.read(waiting, 1) == b"w"  # it waits for the running chunks
                os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=60)  # the rest of stdout read: a full pipe holds no one up
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
    finally:
        os.close(waiting)
    assert process.returncode == 130, (envelopes, again, process.returncode, err.decode()[-2000:])
    assert b"Traceback" not in err, err.decode()[-2000:]


def test_jobs_on_windows_stay_within_its_61_workers(monkeypatch):
    assert (batch.worker_count(3), batch.worker_count(200)) == (3, 200)
    monkeypatch.setattr(sys, "platform", "win32")
    assert (batch.worker_count(3), batch.worker_count(200)) == (3, 61)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(128)))
    assert batch.worker_count(0) == 61


def test_check_lines_refuses_one_text_or_anything_but_lines():
    """One JSON text was checked a character at a time (23 error envelopes); other items were an AttributeError."""
    for lines, error in (
        ('{"budget": 1, "items": []}', "got one str: it would be checked a character at a time"),
        (b"{}", "got one bytes"),
        ([b"{}", 1], "line 2 must be bytes or str, got int"),
    ):
        with pytest.raises(TypeError, match=error):
            list(batch.check_lines(lines))
    with pytest.raises(TypeError, match="got one str"):
        batch.check_lines("{}")  # at the call, not at the first envelope
    with pytest.raises(ValueError, match="start must be a line number from 1, got 0"):
        batch.check_lines([b"{}"], start=0)
    line = json.dumps(SEED_000).encode()
    assert list(batch.check_lines([bytearray(line), memoryview(line)])) == list(batch.check_lines([line, line]))
