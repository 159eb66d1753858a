"""Every module of the package passes mypy, as pyproject.toml's [tool.mypy] configures it."""

import os
import subprocess
import sys

from conftest import ROOT


def _mypy(*arguments, cwd):
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def test_the_package_passes_mypy():
    # From the root, so that pyproject.toml's [tool.mypy] (python_version, files) is the config.
    process = _mypy("--config-file", str(ROOT / "pyproject.toml"), "py/fitproof", cwd=ROOT)
    assert process.returncode == 0, process.stdout + process.stderr


def test_mypy_fails_on_a_type_error(tmp_path):
    """The test above can fail: the same call on a module with one type error exits non-zero, naming it."""
    (tmp_path / "planted.py").write_text('def twice(n: int) -> int:\n    return n * 2\n\n\ntwice("two")\n')
    process = _mypy("--config-file", str(ROOT / "pyproject.toml"), "planted.py", cwd=tmp_path)
    assert process.returncode == 1 and 'planted.py:5: error: Argument 1 to "twice" has incompatible type "str"' in process.stdout, (
        process.stdout + process.stderr
    )
