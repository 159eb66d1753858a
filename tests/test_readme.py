"""The README's example gives the output it shows."""

import doctest
import re

from conftest import ROOT


def test_readme_example_runs_as_shown():
    text = (ROOT / "README.md").read_text()
    assert re.findall(r"```python\n(.*?)```", text, re.S)
    # As a reader would check it: `python -m doctest README.md` (each block ends with a blank
    # line, so that its closing fence is not read as expected output).
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 12 and result.failed == 0
