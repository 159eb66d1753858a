"""Oversized files are refused with one line, never read whole (no MemoryError traceback):
a 300 GB sparse fixture case, a large foreign manifest.json in a build-site DIR, an
oversized rank file in FITPROOF_TOKENIZER_DATA."""

import io
import os
import subprocess
import sys


from conftest import ROOT
from fitproof.cli import run

HUGE = 300 * 10**9


def sparse(path, size):
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def call(argv, environ=None):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(), stdout, stderr, environ or {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_a_huge_fixture_case_is_one_failure_not_a_traceback(tmp_path):
    sparse(tmp_path / "huge.json", HUGE)
    code, out, _ = call(["fixtures", str(tmp_path)])
    assert code == 1
    assert "FAIL huge.json: " in out and "larger than 256 MiB" in out and out.endswith("0 passed, 1 failed\n")


def test_a_large_foreign_manifest_is_not_read_whole(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    sparse(site / "manifest.json", HUGE)
    code, out, err = call(["build-site", str(site)])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err  # not ours: the folder is refused


def test_an_oversized_rank_file_is_one_line(tmp_path):
    sparse(tmp_path / "o200k_base.tiktoken", HUGE)
    environ = {**os.environ, "FITPROOF_TOKENIZER_DATA": str(tmp_path), "PYTHONPATH": str(ROOT / "py")}
    done = subprocess.run(
        [sys.executable, "-m", "fitproof", "count", "-", "--tokenizer", "o200k_base"],
        input=b"hello",
        capture_output=True,
        env=environ,
        timeout=120,
    )
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1 and "larger than 64 MiB" in err, err
