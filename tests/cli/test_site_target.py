"""build-site never writes into the page's sources: the checkout itself, or any directory
holding a checkout's sources, is refused even with --force."""

import io
import shutil
import subprocess

from conftest import ROOT
from fitproof.cli import run


def _status():
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True, timeout=60
    ).stdout


def test_the_checkout_itself_is_refused_even_with_force():
    before = _status()
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(["build-site", str(ROOT), "--force"], io.BytesIO(), stdout, stderr)
    assert code == 2 and stderr.getvalue().count("\n") == 1 and "holds the page's sources" in stderr.getvalue()
    assert _status() == before  # nothing written into the sources


def test_a_directory_holding_a_checkouts_sources_is_refused(tmp_path):
    shutil.copytree(ROOT / "py" / "fitproof", tmp_path / "py" / "fitproof")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(["build-site", str(tmp_path), "--force"], io.BytesIO(), stdout, stderr)
    assert code == 2 and "holds the page's sources" in stderr.getvalue()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["py"]
