"""The README's examples give the output they show, checked as a reader would: `python -m doctest README.md`."""

import doctest

from conftest import ROOT


def test_readme_example_runs_as_shown():
    # Each example block ends with a blank line, so that its closing fence is not read as expected output.
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 15 and result.failed == 0


def test_the_readme_is_a_first_read_at_most_300_lines_none_over_200_characters():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md is {len(lines)} lines: move detail to docs/"
    assert [number for number, line in enumerate(lines, 1) if len(line) > 200] == []
