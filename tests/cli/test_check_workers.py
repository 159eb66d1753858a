"""check --jsonl --jobs N when its processes are killed: workers end with their parent, and a
lost worker is said in one line with an exit code of its own."""

import io
import json
import multiprocessing
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fitproof import batch
from fitproof.cli import run
from conftest import signals_as_from_a_terminal


LINE = json.dumps({"mode": "relevance", "budget": 10, "items": [{"id": "a", "relevance": 1, "tokens": 3}]})


def _children(pid):
    """The child processes of ``pid`` (Linux's /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _still_running(pid, wait=60):
    """Whether ``pid`` is still running after waiting up to ``wait`` s for it to end. A process
    closes its files before it becomes a zombie, so the output's EOF can come while a worker is
    still on its way out; on a busy machine that moment is visible. Linux's pidfd says when the
    exit is complete (the wait ends at once then); a worker that never ends is still caught."""
    if not hasattr(os, "pidfd_open"):
        return _alive(pid)
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    try:
        select.select([handle], [], [], wait)
    finally:
        os.close(handle)
    return _alive(pid)


@pytest.mark.skipif(
    not Path("/proc/self/task").exists() or not Path(f"/proc/self/task/{os.getpid()}/children").exists(),
    reason="needs Linux's /proc to find the workers",
)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_workers_end_when_the_parent_is_killed(tmp_path, how):
    big = tmp_path / "big.jsonl"
    big.write_text((LINE + "\n") * 50_000)
    parent = subprocess.Popen(
        [sys.executable, "-m", "fitproof", "check", "--jsonl", "--jobs", "2", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=signals_as_from_a_terminal,
    )  # SIGHUP arrives under nohup too
    workers = []
    try:
        assert parent.stdout.readline()  # the workers are running (the first chunk came back)
        workers = _children(parent.pid)
        assert len(workers) >= 2
        parent.send_signal(how)
        parent.wait(timeout=30)
        # The output ends (EOF) once every process holding it is gone: `| wc -l` finishes.
        reader = subprocess.run(["cat"], stdin=parent.stdout, stdout=subprocess.DEVNULL, timeout=60)
        assert reader.returncode == 0
        assert not [pid for pid in workers if _still_running(pid)]
    finally:
        for pid in workers:  # on the old code they stay, blocked for good
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=30)
        parent.stdout.close()


def _lines_killing_workers(total, at):
    """``total`` input lines; at line ``at`` every worker of this process is killed."""
    for number in range(1, total + 1):
        if number == at:
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
        yield (LINE + "\n").encode()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_worker_is_one_line_and_its_own_exit_code():
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(["check", "--jsonl", "--jobs", "2", "-"], _lines_killing_workers(20_000, 3_000), stdout, stderr)
    assert code == 3  # EXIT_WORKER_LOST
    message = stderr.getvalue()
    assert message.count("\n") == 1 and "Traceback" not in message
    assert message.startswith("fitproof: check: a worker process ended unexpectedly")
    missing = int(message.split("missing from input line ")[1].split()[0])
    written = stdout.getvalue().splitlines()
    assert 1 <= missing <= 3_000 and len(written) == missing - 1  # every line before it, none from it on
    assert [json.loads(line)["input_line"] for line in written] == list(range(1, missing))


def test_worker_lost_is_raised_by_the_library_too():
    out = io.StringIO()
    with pytest.raises(batch.WorkerLost) as lost:
        batch.write_checked(_lines_killing_workers(5_000, 1_000), out, jobs=2)
    assert lost.value.line == len(out.getvalue().splitlines()) + 1
