"""The linter holds the code: ``ruff check`` with the project's settings (pyproject.toml's
[tool.ruff]) finds nothing in the package, the tests, the benchmarks and the scripts."""

import re
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


# What the project tracks its work in is not the repository's reader's: no file names an issue.
ISSUE_NUMBER = re.compile(r"\bissues? #?[0-9]+|\btickets? #[0-9]+", re.I)


def tracked_text_files():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in listed:
        if (
            name.endswith((".py", ".js", ".md", ".html", ".css", ".toml", ".json"))
            and not name.startswith(("tests/data/", "fixtures/"))
            and name != "tests/docs/test_lint.py"
        ):
            path = ROOT / name
            if path.is_file():
                yield name, path.read_text(encoding="utf-8", errors="replace")


def test_no_file_names_an_issue_number():
    found = [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {match.group()}"
        for name, text in tracked_text_files()
        for match in ISSUE_NUMBER.finditer(text)
    ]
    assert found == []


def test_the_issue_number_pattern_finds_what_it_looks_for():
    assert ISSUE_NUMBER.search('"""Hostile files (issue 50, parts 1 to 3)') and ISSUE_NUMBER.search("see ticket #12")
    assert not ISSUE_NUMBER.search("the claimed items cost 120 tokens (ticket 40 + policy 50)") and not ISSUE_NUMBER.search(
        "the issue is 3 tokens"
    )
