"""The worked uses of claims in docs/claims.md: the agent's prompt states its input, the stored
answer is checked as shown, and examples/verify_port.py catches a wrong JavaScript port."""

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

PAGE = ROOT / "docs" / "claims.md"
PORT = ROOT / "tests" / "port" / "relevance.mjs"


def section(title):
    text = PAGE.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_prompt_states_the_budget_and_every_item_of_the_input():
    data = json.loads((ROOT / "examples" / "audit-input.json").read_text())
    prompt = re.search(r"```text\n(.*?)```", section("Auditing an agent"), re.S).group(1)
    assert f"The budget is {data['budget']} tokens." in prompt
    rows = re.findall(r"(?m)^(\S+) +(\d[\d.]*) +(\d+)$", prompt)
    assert rows == [(item["id"], str(item["relevance"]), str(item["tokens"])) for item in data["items"]]
    assert '{"selected": [ids]' in prompt


def test_the_answer_shown_is_the_stored_answer_and_it_fails_by_the_rule():
    from fitproof import verify_claim

    shown = re.search(r"```json\n(.*?)```", section("Auditing an agent"), re.S).group(1)
    stored = (ROOT / "examples" / "audit-answer.json").read_text()
    assert shown == stored
    verdict = verify_claim(json.loads((ROOT / "examples" / "audit-input.json").read_text()), json.loads(stored))
    assert not verdict.holds and [failure.check for failure in verdict.failures] == ["follows the rule"]


def test_the_audit_command_is_shown_with_its_output_and_exits_1():
    import io

    from fitproof.cli import run
    from test_contract_doc import _all_console_examples

    examples = _all_console_examples(section("Auditing an agent"))
    assert [command for _, command, _ in examples] == [
        "fitproof check examples/audit-input.json --claim examples/audit-answer.json --format text"
    ]  # test_contract_doc.py compares its output with the one shown
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["check", str(ROOT / "examples/audit-input.json"), "--claim", str(ROOT / "examples/audit-answer.json")]
    assert run(argv, io.BytesIO(), stdout, stderr, {}) == 1 and stderr.getvalue() == ""


def port_examples():
    """(arguments after the script, the output shown) of each ```sh / ```text pair in "Verifying a port"."""
    pairs = re.findall(
        r"```sh\n\.venv/bin/python examples/verify_port\.py (.*?)\n```\n\n```text\n(.*?)```", section("Verifying a port"), re.S
    )
    assert len(pairs) == 3
    return pairs


def run_script(arguments):
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "verify_port.py"), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JavaScript port cannot run")
@pytest.mark.parametrize("index", range(3))
def test_verify_port_prints_what_the_page_shows(index):
    arguments, shown = port_examples()[index]
    ran = run_script(arguments.split())
    assert ran.stdout == shown and ran.stderr == ""
    assert ran.returncode == (0 if index == 0 else 1)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JavaScript port cannot run")
@pytest.mark.parametrize("mistake", ["--ties-reversed", "--stop-at-first-misfit"])
def test_a_wrong_port_is_caught_on_other_seeds_too(mistake):
    ran = run_script(["--cases", "200", "--seed", "7", "--", "node", str(PORT), mistake])
    assert ran.returncode == 1 and "the port disagrees with the rule" in ran.stdout
    assert "follows the rule: " in ran.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JavaScript port cannot run")
def test_the_correct_port_agrees_on_other_seeds():
    ran = run_script(["--cases", "200", "--seed", "7", "--", "node", str(PORT)])
    assert (ran.returncode, ran.stdout) == (0, "200 inputs (seed 7): every answer of the port holds\n")


def test_an_answer_that_is_not_a_claim_is_a_disagreement():
    script = "import sys\nfor line in sys.stdin: print('[1]' if line.strip() else '')"
    ran = run_script(["--cases", "3", "--", sys.executable, "-c", script])
    assert ran.returncode == 1 and "input 1 of 3 (seed 1): the port disagrees with the rule" in ran.stdout
    assert "not a claim: " in ran.stdout and "$.claim" in ran.stdout


def test_a_port_that_answers_too_few_lines_fails():
    ran = run_script(["--cases", "3", "--", sys.executable, "-c", "print('{}')"])
    assert ran.returncode == 1 and ran.stderr == "the port answered 1 lines for 3 inputs\n"


def test_a_port_that_cannot_run_or_exits_with_an_error_is_exit_2(tmp_path):
    ran = run_script(["--", str(tmp_path / "no-such-port")])
    assert ran.returncode == 2 and ran.stderr.startswith(f"cannot run {tmp_path / 'no-such-port'}: ")
    ran = run_script(["--", sys.executable, "-c", "import sys; sys.exit('broken')"])
    assert (ran.returncode, ran.stderr) == (2, "the port exited 1: broken\n")
