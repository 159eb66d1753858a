"""The CLI's manners toward a person: help with examples, text output, hints and "did you mean"."""

import io
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from context_budget.cli import EXAMPLES, _parser, run
from test_seeds import SEED_000


class TerminalBytes(io.BytesIO):
    def isatty(self):
        return True


class TerminalText(io.StringIO):
    def isatty(self):
        return True


def call(argv, stdin=b"", stdin_class=io.BytesIO, stdout_class=io.StringIO):
    stdout, stderr = stdout_class(), io.StringIO()
    code = run(argv, stdin_class(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


# ---------------------------------------------------------------- help


def test_no_command_lists_every_command_with_an_example():
    code, out, err = call([])
    assert code == 2 and out == ""
    commands = _parser(io.StringIO(), io.StringIO())._subparsers._group_actions[0].choices
    for name in commands:
        assert f"\n    {name}" in err, f"{name} is not listed"
        assert EXAMPLES[name] in err, f"{name} has no example"
    assert "docs/contract.md" in err


def test_help_shows_the_examples_on_stdout():
    code, out, _ = call(["--help"])
    assert code == 0 and "examples (one per command):" in out and EXAMPLES["check"] in out


@pytest.mark.parametrize("name", ["check", "compose", "fixtures"])
def test_the_examples_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples use paths from the repository root, as the README does
    code, out, err = call(EXAMPLES[name].split()[1:])
    assert code == 0, err
    assert out


# ---------------------------------------------------------------- standard input


def test_no_file_and_a_terminal_on_stdin_is_a_usage_error_with_a_hint():
    code, out, err = call(["check"], stdin_class=TerminalBytes)
    assert code == 2 and out == ""
    assert "standard input is a terminal" in err and "use - to type it" in err and err.count("\n") == 1


def test_an_explicit_dash_on_a_terminal_reads_it_after_a_hint():
    code, out, err = call(["check", "-", "--format", "json"], json.dumps(SEED_000), stdin_class=TerminalBytes)
    assert code == 0 and json.loads(out)["ok"] is True
    assert "reading JSON from the terminal" in err and "Ctrl+D" in err


def test_piped_input_needs_no_dash():
    code, out, err = call(["check"], json.dumps(SEED_000))
    assert code == 0 and err == "" and json.loads(out)["ok"] is True


def test_compose_on_a_terminal_without_a_file_is_refused_too():
    code, _, err = call(["compose"], stdin_class=TerminalBytes)
    assert code == 2 and "compose: no FILE given" in err


# ---------------------------------------------------------------- did you mean


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["check", "--indnet", "2", "examples/refund-case.json"], "unknown option --indnet (did you mean --indent?)"),
        (["check", "--indnet=2", "x.json"], "unknown option --indnet (did you mean --indent?)"),
        (["check", "--fromat", "text", "x.json"], "unknown option --fromat (did you mean --format?)"),
        (["chek", "x.json"], "invalid choice: 'chek'"),
        (["check", "--format", "txt", "x.json"], "did you mean 'text'?"),
        (["check", "a.json", "b.json"], "unexpected argument 'b.json'"),
        (["compose", "x.json", "--jsno"], "unknown option --jsno (did you mean --json?)"),
        # before the command, options are the program's own: they once gave "required: COMMAND",
        # or a guess among the command's options (--verison as --jsonl)
        (["--verison"], "unknown option --verison (did you mean --version?)"),
        (["--helpp"], "unknown option --helpp (did you mean --help?)"),
        (["--verison", "check", "x.json"], "unknown option --verison (did you mean --version?)"),
        (["--jsonl", "check", "x.json"], "--jsonl is an option of check: write it after the command (check --jsonl ...)"),
    ],
)
def test_bad_usage_names_the_closest_option(argv, expected):
    code, out, err = call(argv)
    assert code == 2 and out == ""
    assert expected in err and "Traceback" not in err


def test_an_unknown_command_suggests_the_closest():
    _, _, err = call(["chek"])
    assert "did you mean 'check'?" in err


def test_an_option_nothing_resembles_lists_the_known_ones():
    _, _, err = call(["check", "--zzzzzz", "x.json"])
    assert "unknown option --zzzzzz (known: " in err and "--format" in err


# ---------------------------------------------------------------- output format


def test_json_is_the_default_when_stdout_is_not_a_terminal():
    _, out, _ = call(["check"], json.dumps(SEED_000))
    assert json.loads(out)["result"]["selected"] == ["A", "C"]


def test_text_is_the_default_when_stdout_is_a_terminal():
    code, out, _ = call(["check"], json.dumps(SEED_000), stdout_class=TerminalText)
    assert code == 0 and out.startswith("PASS  Selected A, C within 7 tokens.\n")


@pytest.mark.parametrize("argv", [["check", "--indent", "2"], ["check", "--format", "json"], ["check", "--jsonl"]])
def test_json_options_keep_json_on_a_terminal(argv):
    _, out, _ = call(argv, json.dumps(SEED_000), stdout_class=TerminalText)
    assert json.loads(out.splitlines()[0] if "--jsonl" in argv else out)["ok"] is True


@pytest.mark.parametrize("extra", [["--jsonl"], ["--indent", "2"]])
def test_text_with_a_json_option_is_a_usage_error(extra):
    code, out, err = call(["check", "--format", "text", *extra], json.dumps(SEED_000))
    assert code == 2 and out == "" and "--format text" in err


def test_indent_with_jsonl_is_a_usage_error():
    """It was accepted and ignored: each envelope is one line."""
    code, out, err = call(["check", "--jsonl", "--indent", "2"], "{}\n")
    assert (code, out) == (2, "") and "--indent cannot apply to it" in err


def test_text_of_many_problems_gives_the_total():
    data = {"budget": 1, "items": [{"id": "", "relevance": 1, "tokens": 1}] * 80}
    _, out, _ = call(["check", "--format", "text"], json.dumps(data))
    assert "mode relevance: the input is not valid (50 problems listed)" in out
    assert out.splitlines()[-1] == "  … and 30 more not listed (80 in all)"
    _, out, _ = call(["check", "--format", "text"], json.dumps({**data, "items": data["items"][:2]}))
    assert "more not listed" not in out
    # The total is the detail's own tail, never words from the input (a key can say anything).
    tricky = {"budget": 5, "items": [{"id": "a", "relevance": 1, "tokens": 1, "(and 999 more problems)": 1}, {"id": "b"}]}
    _, out, _ = call(["check", "--format", "text"], json.dumps(tricky))
    assert "more not listed" not in out


def test_text_shows_summary_amounts_checks_and_every_decision():
    code, out, _ = call(["check", "--format", "text"], json.dumps(SEED_000))
    assert code == 0
    assert out.splitlines()[:2] == ["PASS  Selected A, C within 7 tokens.", "mode relevance: used 7 of a budget of 7 tokens, 0 left"]
    assert "  ok    token budget\n  ok    deterministic relevance order\n" in out
    kept, left_out = out.split("kept, in the order considered (2)\n")[1].split("left out (1)\n")
    assert "1. A  4 tokens, 7 left before  fits_remaining_budget" in kept
    assert "3. C  3 tokens, 3 left before  fits_remaining_budget" in kept
    assert "2. B  5 tokens, 3 left before  exceeds_remaining_budget (needs 5, 3 left)" in left_out
    assert "best possible relevance: 16 (A, C); this selection: 16" in out


def test_text_shortens_a_summary_that_names_thousands_of_ids_as_the_page_does():
    items = [{"id": f"item-{i:05d}", "relevance": i % 97, "tokens": 1 + i % 40} for i in range(5_000)]
    code, out, _ = call(["check", "--format", "text"], json.dumps({"budget": 100_000, "items": items}).encode())
    first = out.splitlines()[0]
    from context_budget import evaluate

    kept = evaluate({"budget": 100_000, "items": items})["selected"]
    assert code == 0 and len(first) < 330, len(first)
    shown = first.count("item-")
    assert first.startswith(f"PASS  Selected {kept[0]}, {kept[1]}, ") and f", … {len(kept) - shown:,} more …, {kept[-1]} within 100000 tokens." in first
    assert evaluate({"budget": 7, "items": [{"id": "A", "relevance": 1, "tokens": 2}]})["summary"] in call(
        ["check", "--format", "text"], b'{"budget": 7, "items": [{"id": "A", "relevance": 1, "tokens": 2}]}')[1]  # short ones whole


def test_a_jsonl_file_given_to_check_without_jsonl_says_so():
    lines = b'{"budget": 1, "items": []}\n{"budget": 2, "items": []}\n'
    code, out, _ = call(["check", "-"], lines)
    assert code == 1 and json.loads(out)["error"].endswith("at line 2 column 1 (one JSON input per line? check --jsonl reads them)")
    code, out, _ = call(["check", "-"], b'{"budget": 1, "items": []} 5')  # extra data on the same line: no such guess
    assert code == 1 and "--jsonl" not in out


def test_text_says_why_sums_past_the_float_range_are_missing():
    """It printed Python's None: "at most None; this selection: None"."""
    items = [{"id": name, "relevance": 1e308, "tokens": 1} for name in "abc"]
    _, out, _ = call(["check", "--format", "text"], json.dumps({"budget": 2, "items": items}))
    assert out.splitlines()[-1] == ("best possible relevance: past the 64-bit float range (a, b); "
                                    "this selection: past the 64-bit float range")
    assert "None" not in out


def test_text_of_a_failed_selection_gives_the_reason_for_each_item():
    document = {"mode": "required", "budget": 5, "items": [
        {"id": "contract", "cost": 3, "priority": 0, "required": True},
        {"id": "policy", "cost": 4, "priority": 9, "required": True},
        {"id": "extra", "cost": 1, "priority": 1}]}
    code, out, _ = call(["check", "--format", "text"], json.dumps(document))
    assert code == 1
    assert out.startswith("FAIL  Required items policy, contract need 7 tokens but the budget is 5: 2 tokens short.\n")
    assert "kept, in the order considered (0)\n  (none)\n" in out
    words = " ".join(out.split())  # the id column is padded to the longest id
    assert "policy 4 tokens, 5 left before required_items_exceed_budget" in words
    assert "extra 1 token, 5 left before not_considered_required_overflow" in words  # one token, not "1 tokens"


def test_text_of_invalid_input_lists_every_problem_with_its_path():
    code, out, _ = call(["check", "--format", "text"], '{"budget": "ten", "items": [{"id": "A", "relevance": 1, "tokns": 2}]}')
    assert code == 1
    assert out.splitlines() == [
        "FAIL  Input needs a non-negative integer budget and items array.",
        "mode relevance: the input is not valid (3 problems listed)",
        '  $.budget: expected an integer from 0 to 2^53-1, got "ten"',
        '  $.items[0].tokns: unknown key "tokns" (did you mean "tokens"? expected id, relevance, tokens, content)',
        '  $.items[0]: missing required key "tokens"',
    ]


def test_text_of_unreadable_json_is_one_line():
    code, out, _ = call(["check", "--format", "text"], '{"budget": 1,,}')
    assert code == 1 and out == "FAIL  invalid JSON: expected an object key in double quotes at line 1 column 14\n"


def test_text_of_passages_shows_the_prompt_count_each_decision_was_made_on():
    document = {"mode": "passages", "question": "Why was the refund late?", "limit": 20, "counter": "words", "passages": [
        {"id": "a", "text": "The carrier lost the parcel for two days before it was found."},
        {"id": "b", "text": "Refunds post after the warehouse scans the return."}]}
    _, out, _ = call(["check", "--format", "text"], json.dumps(document))
    assert "mode passages: the prompt counts 17 of 20 words" in out
    assert "a  13 words, prompt with it 21 of 20  exceeds_remaining_budget" in out


def test_text_of_blocks_names_the_required_block_that_stops_the_run(monkeypatch):
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["window"]["fixed_prompt_tokens"] = 850
    code, out, _ = call(["check", "--format", "text"], json.dumps(document))
    assert code == 1
    # 1200 - 300 - 850 leaves 50: CUSTOMER_MESSAGE (44) fits, REFUND_POLICY (60) meets 6.
    assert out.startswith("FAIL  Cannot proceed: required block REFUND_POLICY needs 60 tokens but only 6 remain.\n")
    assert "REFUND_POLICY        60 tokens, 6 left before  required_block_too_large_for_budget (required, needs 60, 6 left: the run cannot proceed)" in out


def test_long_lists_are_cut_with_a_pointer_to_the_json():
    document = {"budget": 1000, "items": [{"id": f"i{n:03}", "relevance": n, "tokens": 1} for n in range(150)]}
    _, out, _ = call(["check", "--format", "text"], json.dumps(document))
    assert "  … and 50 more (--format json lists them all)" in out
    assert len(out.splitlines()) < 130


# ---------------------------------------------------------------- the envelope's error


def test_the_envelope_error_names_the_first_located_problem():
    _, out, _ = call(["check"], '{"budget": 7, "items": [{"id": "A", "relevance": 9, "tokenz": 4}]}')
    error = json.loads(out)["error"]
    assert error == (
        "Each item needs id, numeric relevance, and non-negative integer tokens. "
        '$.items[0].tokenz: unknown key "tokenz" (did you mean "tokens"? expected id, relevance, tokens, content) '
        "(and 1 more problem, listed in errors)"
    )


def test_the_envelope_error_of_a_failed_selection_is_its_summary():
    document = {"mode": "required", "budget": 1, "items": [{"id": "a", "cost": 2, "priority": 0, "required": True}]}
    _, out, _ = call(["check"], json.dumps(document))
    assert json.loads(out)["error"] == "Required item a needs 2 tokens but the budget is 1: 1 token short."


def test_a_real_terminal_gets_text(tmp_path):
    """Through a pseudo-terminal, as a person runs it: no option needed for the text form."""
    pty = pytest.importorskip("pty")
    import os

    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI with the pty as its terminal
        os.environ["PYTHONPATH"] = str(ROOT / "py")
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "context_budget", "check", "examples/refund-case.json"])
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    out = b"".join(chunks).decode().replace("\r\n", "\n")
    assert os.waitstatus_to_exitcode(status) == 0
    assert out.startswith("PASS  Packed CUSTOMER_MESSAGE") and "kept, in the order considered (5)" in out


def test_a_pipe_gets_json():
    process = subprocess.run(
        [sys.executable, "-m", "context_budget", "check", "examples/refund-case.json"],
        capture_output=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"}, timeout=60,
    )
    assert process.returncode == 0 and json.loads(process.stdout)["ok"] is True


def test_a_failed_check_puts_its_detail_in_the_envelope_error():
    from context_budget._envelope import failure_text

    report = {
        "pass": False, "summary": "Selected A within 7 tokens. But a check failed: token budget.",
        "checks": [{"name": "token budget", "pass": False, "detail": "selected costs add up to 9, over the budget of 7"}],
    }
    assert failure_text(report) == "Selected A within 7 tokens. But a check failed: token budget. token budget: selected costs add up to 9, over the budget of 7"


# ---------------------------------------------------------------- hints in the report


@pytest.mark.parametrize(
    "key, hint",
    [("tokns", '(did you mean "tokens"? '), ("Tokens", '(did you mean "tokens"? '), ("ID", '(did you mean "id"? '),
     ("colour", "(expected "), ("t" * 100, "(expected ")],
)
def test_unknown_keys_suggest_only_a_close_name(key, hint):
    from context_budget import evaluate

    item = {"id": "a", "relevance": 1, "tokens": 1, key: 1}
    message = evaluate({"budget": 1, "items": [item]})["errors"][0]["message"]
    assert message.startswith(f"unknown key ") and hint in message


def test_no_mode_hint_when_no_other_mode_accepts_the_input():
    from context_budget import evaluate

    report = evaluate({"mode": "required", "budget": 7, "items": [{"id": "A", "relevance": 9}]})
    assert all(error["path"] != "$.mode" for error in report["errors"])


# Ctrl+C arrives (as a real SIGINT) while the command's modules are still being imported:
# the process's entry point ends it as it does one during a run, exit 130 without a traceback.
_INTERRUPTED_IMPORT = """
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "context_budget.cli._arguments":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["context-budget", "check", "-"]
from context_budget._launch import main
main()
print("not reached")
"""


def test_ctrl_c_while_the_command_imports_ends_quietly():
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED_IMPORT], input="{}", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")


def test_the_package_exports_each_public_name_and_no_other():
    """Each name in ``__all__`` is there after ``import context_budget``, and a wrong one is an AttributeError."""
    probe = (
        "import context_budget as cb\n"
        "print(cb.evaluate({'budget': 1, 'items': []})['pass'], cb.count_tokens('a b', 'estimate') > 0)\n"
        "print(all(hasattr(cb, name) for name in cb.__all__), sorted(set(cb.__all__) - set(dir(cb))))\n"
        "try:\n    cb.no_such_name\nexcept AttributeError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.splitlines() == [
        "True True", "True []", "module 'context_budget' has no attribute 'no_such_name'",
    ], done.stderr


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [
    ["check", "examples/refund-case.json"], ["check", "--jsonl", "LINES"], ["check", "--jsonl", "--jobs", "2", "LINES"],
    ["compose", "examples/refund-case.json"], ["count", "README.md"], ["fixtures", "fixtures/required"],
])
def test_a_full_disk_is_one_line_and_exit_2(argv, tmp_path):
    """Every command printed a traceback ending in OSError: No space left on device."""
    lines = tmp_path / "lines.jsonl"
    lines.write_text((json.dumps(SEED_000) + "\n") * 600)
    argv = [str(lines) if part == "LINES" else part for part in argv]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "context_budget", *argv], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert (done.returncode, done.stderr) == (2, "context-budget: cannot write standard output: No space left on device\n")


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv, code", [
    (["check", "nope.json"], 2), (["chek"], 2), (["compose", "examples/refund-case.json", "--config", "nope.json"], 2),
    (["check", "-"], 1), (["check", "examples/refund-case.json"], 0),
])
def test_a_standard_error_that_cannot_be_written_keeps_the_exit_code(argv, code):
    """A failed write of the error line raised out of the command: exit 1 (Python's) for every failure."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "context_budget", *argv], input="{", stdout=subprocess.PIPE, stderr=full,
                              text=True, cwd=ROOT, timeout=60)
    assert done.returncode == code


def test_line_breaks_in_ids_cannot_forge_lines_of_the_text_report():
    data = {"budget": 5, "items": [{"id": "A\r\nok    FAKE LINE", "relevance": 1, "tokens": 2}, {"id": "B\nC", "relevance": 0, "tokens": 9}]}
    out = io.StringIO()
    run(["check", "--format", "text"], io.BytesIO(json.dumps(data).encode()), out, io.StringIO())
    assert not any(line.startswith(("ok    FAKE", "C ")) for line in out.getvalue().splitlines())
    assert "Selected A\\r\\nok    FAKE LINE within 5 tokens." in out.getvalue() and "B\\nC" in out.getvalue()


# ---------------------------------------------------------------- slow work is never silent

class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("argv, slow, what", [
    (["compose", "examples/refund-case.json", "--call-model"], "context_budget.cli._chat.call_model", "waiting for the model at http://localhost:12"),
    (["count", "README.md"], "context_budget.tokenizers.count_tokens", "counting the tokens of"),
    (["check", "examples/refund-case.json"], "context_budget.cli.check.evaluate_with_problems", "checking"),
    (["check", "examples/refund-case.json"], "context_budget.cli.check.envelope_text", "writing the report"),
])
def test_a_slow_step_shows_its_seconds_on_a_terminal_and_wipes_them(monkeypatch, argv, slow, what):
    """A large check or count, or a model that keeps compose waiting up to its timeout, takes
    seconds: a terminal sees them counted, and the line wiped when the step ends."""
    module_name, _, name = slow.rpartition(".")
    module = sys.modules[module_name]
    real = getattr(module, name)

    def slowly(*args, **kwargs):
        __import__("time").sleep(1.3)
        return "The answer." if name == "call_model" else real(*args, **kwargs)  # no model server here

    monkeypatch.setattr(module, name, slowly)
    for stderr_class, shown in ((Terminal, True), (io.StringIO, False)):
        stdout, stderr = Terminal(), stderr_class()
        code = run(argv, io.BytesIO(), stdout, stderr)
        assert code in (0, 1) and stdout.getvalue()
        said = stderr.getvalue()
        if shown:
            assert said.startswith(f"\rcontext-budget: {what}") and ": 1 s" in said and "\x1b" not in said, said
            last = said.rstrip("\r").rsplit("\r", 2)
            assert said.endswith("\r") and set(last[-1]) == {" "} and len(last[-1]) == len(last[-2]), said  # wiped with spaces
        else:
            assert said == ""
