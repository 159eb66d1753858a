"""The linter holds the code: ``ruff check`` with the project's settings (pyproject.toml's
[tool.ruff]) finds nothing in the package, the tests, the benchmarks and the scripts."""

import subprocess
import sys

from conftest import ROOT


def test_ruff_finds_nothing():
    process = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert process.returncode == 0, process.stdout[-4000:] + process.stderr[-2000:]


def test_ruff_reads_the_project_s_settings_and_would_see_an_unused_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n")
    process = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(planted)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert process.returncode == 1 and "F401" in process.stdout


def test_the_code_is_as_the_formatter_writes_it():
    process = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--no-cache", "--check", "py", "tests", "bench", "scripts"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert process.returncode == 0, process.stdout[-4000:] + process.stderr[-2000:]


def test_the_formatter_reads_the_project_s_width(tmp_path):
    """A line of 120 characters stands (the default width, 88, would wrap it); one of 150 is wrapped."""

    def check(width):
        planted = tmp_path / f"planted_{width}.py"
        planted.write_text("x = [" + ", ".join(["1"] * ((width - 4) // 3)) + "]\n")
        assert abs(len(planted.read_text()) - 1 - width) <= 3
        config = ["--config", str(ROOT / "pyproject.toml")]
        return subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--no-cache", "--check", *config, str(planted)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )

    assert check(120).returncode == 0
    wrapped = check(150)
    assert wrapped.returncode == 1 and "would be reformatted" in wrapped.stdout + wrapped.stderr
