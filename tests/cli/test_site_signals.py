"""A build-site stopped by SIGTERM or SIGHUP cleans up as Ctrl+C does: no temporary file is
left in the site, the exit is 130, and a rerun finishes the job."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

# The build sends the signal to itself during its first write (the interim manifest), while
# that write's temporary file exists.
STOPPED = """
import os, signal, sys
real, stop = os.chmod, getattr(signal, sys.argv[2])
def chmod(*arguments, **keywords):
    os.chmod = real
    os.kill(os.getpid(), stop)
    return real(*arguments, **keywords)
os.chmod = chmod
sys.argv = ["fitproof", "build-site", sys.argv[1]]
from fitproof.cli import main
main()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_stopped_build_leaves_no_temporary_files_and_a_rerun_finishes(tmp_path, name):
    site = tmp_path / "site"
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    stopped = subprocess.run([sys.executable, "-c", STOPPED, str(site), name], capture_output=True, env=environ, timeout=600)
    assert stopped.returncode == 130, stopped
    assert "Traceback" not in stopped.stderr.decode()
    assert not [path for path in tmp_path.rglob("*.tmp")]
    rerun = subprocess.run([sys.executable, "-m", "fitproof", "build-site", str(site)], capture_output=True, env=environ, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert not [path for path in tmp_path.rglob("*.tmp")]


def test_a_rebuild_removes_what_a_killed_build_left_and_nothing_else(tmp_path):
    # SIGKILL gives no chance to clean up: the next build of the same site removes the temporary
    # files named for its own files, and leaves every other file alone.
    site = tmp_path / "site"
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    build = [sys.executable, "-m", "fitproof", "build-site", str(site)]
    assert subprocess.run(build, capture_output=True, env=environ, timeout=600).returncode == 0
    left = [site / ".index.html.0123456789ab.tmp", site / ".manifest.json.a9xoqzi0.tmp"]
    kept = [site / ".notes.txt.0123456789ab.tmp", site / "index.html.0123456789ab.tmp", site / "mine.tmp"]
    for path in left + kept:
        path.write_bytes(b"partial")
    assert subprocess.run(build, capture_output=True, env=environ, timeout=600).returncode == 0
    assert not any(path.exists() for path in left)
    assert all(path.read_bytes() == b"partial" for path in kept)
