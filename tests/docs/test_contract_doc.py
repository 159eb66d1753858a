"""The manual shows what the package does: every example in docs/ and the README runs and gives the
output shown, every link inside it leads somewhere, and a fact stated once is not stated twice."""

import doctest
import re

import pytest

from conftest import ROOT

CONTRACT = ROOT / "docs" / "contract.md"
README = ROOT / "README.md"
# Every page of the manual; the README's Python examples run in test_readme.py (python -m doctest README.md).
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]


def python_examples(text):
    """(line number, source) of each ```python block, in order."""
    return [(text.count("\n", 0, match.start(1)), match.group(1)) for match in re.finditer(r"```python\n(.*?)```", text, re.S)]


def run_python_examples(path):
    """Run a page's ```python blocks as one doctest session (imports carry over); return how many blocks ran.

    A block without >>> lines must be a file's text, starting `# name.py` (the fixture recipe, which
    test_fixtures.py runs): anything else would be an example that silently runs nowhere."""
    text = path.read_text()
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    names, ran = {}, 0
    for line, example in python_examples(text):
        test = parser.get_doctest(example, names, f"{path.name} line {line + 1}", str(path), line)
        if not test.examples:
            assert re.match(r"# [\w.-]+\.py\n", example), f"{path.name} line {line + 1}: a python block with no >>> lines"
            continue
        runner.run(test, clear_globs=False)
        names = test.globs  # DocTest works on a copy
        ran += 1
    assert runner.summarize(verbose=False).failed == 0
    return ran


def test_every_python_example_gives_the_output_shown():
    assert run_python_examples(CONTRACT) >= 8  # one per mode at least; a lost fence would silently skip examples


@pytest.mark.parametrize("page", [page for page in PAGES if page != CONTRACT], ids=lambda page: page.name)
def test_every_python_example_of_the_other_pages_gives_the_output_shown(page):
    run_python_examples(page)


def _commands(block):
    """Split a console block into (line offset, (command, output)) pairs."""
    pairs, lines = [], block.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("$ "):
            output = []
            for following in lines[index + 1 :]:
                if following.startswith("$ "):
                    break
                output.append(following)
            pairs.append((index, (line[2:], "\n".join(output) + "\n")))
    return pairs


def run_command(command):
    """``[echo 'JSON' |] fitproof ARGS [| head -N]``, run through the CLI function from the repository root."""
    import io
    import os
    import shlex

    from fitproof.cli import run

    stdin = b""
    if " | fitproof " in command:
        feed, command = command.split(" | fitproof ", 1)
        stdin = (shlex.split(feed)[1] + "\n").encode()
        command = "fitproof " + command
    head = None
    if " | head -" in command:
        command, head = command.split(" | head -")
    words = shlex.split(command)
    assert words[0] == "fitproof", command
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
    examples = [(document, *example) for document in DOCUMENTS for example in _all_console_examples(document.read_text())]
    assert len(examples) >= 8 and {document.name for document, *_ in examples} >= {"README.md", "contract.md", "cli.md"}
    for document, line, command, expected in examples:
        assert run_command(command) == expected, f"{document.relative_to(ROOT)} line {line}: {command}"


def _all_console_examples(text):
    examples = []
    for match in re.finditer(r"```console\n(.*?)```", text, re.S):
        first_line = text.count("\n", 0, match.start(1)) + 1
        examples += [(first_line + offset, command, output) for offset, (command, output) in _commands(match.group(1))]
    return examples


def test_every_mode_has_a_section():
    from fitproof.modes import MODES

    text = CONTRACT.read_text()
    for name in MODES:
        assert f"\n### {name}\n" in text, f"docs/contract.md has no section for mode {name}"


def test_the_readme_and_the_schemas_point_to_the_contract():
    from importlib import resources

    assert "](docs/contract.md)" in (ROOT / "README.md").read_text()
    schemas = resources.files("fitproof").joinpath("schemas")
    for schema in schemas.iterdir():
        if schema.name.endswith(".schema.json"):
            assert "docs/contract.md" in schema.read_text(), schema.name


def test_links_stay_inside_the_repository():
    """A user of the project reads these files; a link out of the checkout is broken for them."""
    for document in DOCUMENTS:
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
    """Each `.venv/bin/fitproof ...` line of "Try it" runs, exits 0 and prints something."""
    import io
    import os
    import shlex

    from fitproof.cli import run

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Try it") : text.index("\n## ", text.index("## Try it") + 1)]
    commands = re.findall(r"(?m)^\.venv/bin/fitproof(.*?)(?:\s+#.*)?$", section)
    assert len(commands) >= 4
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for command in commands:
            stdout, stderr = io.StringIO(), io.StringIO()
            code = run(shlex.split(command), io.BytesIO(), stdout, stderr, {})
            expected = 2 if not command.strip() else 0  # the bare command lists the commands on stderr
            assert code == expected, f"fitproof{command}: exit {code}: {stderr.getvalue()}"
            assert stdout.getvalue() or stderr.getvalue(), command
    finally:
        os.chdir(here)


def test_the_exit_codes_are_in_the_contract_once():
    """The table of exit codes is the contract's (`--help` points there); no other page copies it."""

    def table(path):
        return re.findall(r"(?m)^\| [0-9]+ \|.*$", path.read_text())

    assert len(table(CONTRACT)) == 5
    for document in DOCUMENTS:
        assert document == CONTRACT or not table(document), f"{document.name} repeats the exit codes"


def test_every_failure_in_the_cli_page_ends_with_a_code_of_the_contract():
    codes = {int(code) for code in re.findall(r"(?m)^\| ([0-9]+) \|", CONTRACT.read_text())}
    cli = (ROOT / "docs" / "cli.md").read_text()
    failures = cli[cli.index("## What happens when") :]
    said = {int(code) for code in re.findall(r"[Ee]xit ([0-9]+)", failures)}
    assert said and said <= codes, said - codes
