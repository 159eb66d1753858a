"""The README's examples give the output they show, checked as a reader would: `python -m doctest README.md`."""

import doctest

from conftest import ROOT


def test_readme_example_runs_as_shown():
    # Each example block ends with a blank line, so that its closing fence is not read as expected output.
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 15 and result.failed == 0
