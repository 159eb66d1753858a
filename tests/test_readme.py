"""The README's example gives the output it shows."""

import doctest
import re

from conftest import ROOT


def test_readme_example_runs_as_shown():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for block in blocks:
        runner.run(parser.get_doctest(block, {}, "README", "README.md", 0))
    assert runner.summarize(verbose=False).failed == 0
