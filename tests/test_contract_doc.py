"""docs/contract.md shows what the package does: every example in it runs and gives the output shown."""

import doctest
import re

from conftest import ROOT

CONTRACT = ROOT / "docs" / "contract.md"


def python_examples(text):
    """(line number, source) of each ```python block, in order."""
    return [(text.count("\n", 0, match.start(1)), match.group(1)) for match in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_every_python_example_gives_the_output_shown():
    examples = python_examples(CONTRACT.read_text())
    assert len(examples) >= 6  # one per mode at least; a lost fence would silently skip examples
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    names = {}  # one session for the whole page, as a reader would type it: imports carry over
    for line, example in examples:
        test = parser.get_doctest(example, names, f"contract.md line {line + 1}", str(CONTRACT), line)
        assert test.examples, f"the example at line {line + 1} has no >>> lines"
        runner.run(test, clear_globs=False)
        names = test.globs  # DocTest works on a copy
    assert runner.summarize(verbose=False).failed == 0


def _commands(block):
    """Split a console block into (line offset, (command, output)) pairs."""
    pairs, lines = [], block.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("$ "):
            output = []
            for following in lines[index + 1:]:
                if following.startswith("$ "):
                    break
                output.append(following)
            pairs.append((index, (line[2:], "\n".join(output) + "\n")))
    return pairs


def run_command(command):
    """``[echo 'JSON' |] context-budget ARGS [| head -N]``, run through the CLI function from the repository root."""
    import io
    import os
    import shlex

    from context_budget.cli import run

    stdin = b""
    if " | context-budget " in command:
        feed, command = command.split(" | context-budget ", 1)
        stdin = (shlex.split(feed)[1] + "\n").encode()
        command = "context-budget " + command
    head = None
    if " | head -" in command:
        command, head = command.split(" | head -")
    words = shlex.split(command)
    assert words[0] == "context-budget", command
    stdout, stderr = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        run(words[1:], io.BytesIO(stdin), stdout, stderr, {})
    finally:
        os.chdir(here)
    out = stdout.getvalue()
    if head is not None:
        out = "".join(out.splitlines(keepends=True)[: int(head)])
    return out


def test_every_command_line_example_prints_what_is_shown():
    examples = _all_console_examples(CONTRACT.read_text())
    assert len(examples) >= 3
    for line, command, expected in examples:
        assert run_command(command) == expected, f"docs/contract.md line {line}: {command}"


def _all_console_examples(text):
    examples = []
    for match in re.finditer(r"```console\n(.*?)```", text, re.S):
        first_line = text.count("\n", 0, match.start(1)) + 1
        examples += [(first_line + offset, command, output) for offset, (command, output) in _commands(match.group(1))]
    return examples


def test_every_mode_has_a_section():
    from context_budget.modes import MODES

    text = CONTRACT.read_text()
    for name in MODES:
        assert f"\n### {name}\n" in text, f"docs/contract.md has no section for mode {name}"


def test_the_readme_and_the_schemas_point_to_the_contract():
    from importlib import resources

    assert "](docs/contract.md)" in (ROOT / "README.md").read_text()
    schemas = resources.files("context_budget").joinpath("schemas")
    for schema in schemas.iterdir():
        if schema.name.endswith(".schema.json"):
            assert "docs/contract.md" in schema.read_text(), schema.name


def test_links_stay_inside_the_repository():
    """A user of the project reads these files; a link out of the checkout (../shared/…) is broken for them."""
    for document in (ROOT / "README.md", CONTRACT):
        for target in re.findall(r"\]\(([^)\s]+)\)", document.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            file, _, anchor = target.partition("#")
            path = (document.parent / file).resolve() if file else document
            assert path.is_relative_to(ROOT) and path.exists(), f"{document.name} links to {target}"
            if anchor:
                assert anchor in heading_anchors(path), f"{document.name} links to {target}: no such heading"


def heading_anchors(path):
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"(?m)^#+ (.+)$", re.sub(r"```.*?```", "", path.read_text(), flags=re.S))
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_the_readme_try_it_commands_work():
    """Each `.venv/bin/context-budget ...` line of "Try it" runs, exits 0 and prints something."""
    import io
    import os
    import shlex

    from context_budget.cli import run

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Try it"):text.index("\n## ", text.index("## Try it") + 1)]
    commands = re.findall(r"(?m)^\.venv/bin/context-budget(.*?)(?:\s+#.*)?$", section)
    assert len(commands) >= 4
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for command in commands:
            stdout, stderr = io.StringIO(), io.StringIO()
            code = run(shlex.split(command), io.BytesIO(), stdout, stderr, {})
            expected = 2 if not command.strip() else 0  # the bare command lists the commands on stderr
            assert code == expected, f"context-budget{command}: exit {code}: {stderr.getvalue()}"
            assert stdout.getvalue() or stderr.getvalue(), command
    finally:
        os.chdir(here)


def test_the_exit_codes_are_the_same_in_the_readme_and_the_contract():
    def table(path):
        return re.findall(r"(?m)^\| [0-9]+ \|.*$", path.read_text())

    assert table(ROOT / "README.md") == table(CONTRACT) and len(table(CONTRACT)) == 4
