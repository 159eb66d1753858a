"""The CLI's manners, whatever the command: help with examples, usage errors and "did you mean",
standard input on a terminal, closed or full streams, Ctrl+C, and slow steps shown on a terminal."""

import io
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from fitproof.cli import EXAMPLES, _parser, run
from fitproof.cli import run
from seeds import SEED_000
from cli_calls import call_cli as call_streams, file_tree as _tree


class TerminalBytes(io.BytesIO):
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


# ---------------------------------------------------------------- Ctrl+C, full disks, closed streams


# Ctrl+C arrives (as a real SIGINT, from outside) while the command's modules are still being
# imported: the process's entry point ends it as it does one during a run, exit 130 without a
# traceback. The import stops half-way, says so on a pipe and waits there for the signal.
_INTERRUPTED_IMPORT = """
import os, signal, sys, time

READY = int(sys.argv[1])
signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal: see _SAYS_WHEN_IT_WAITS in test_batch

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "fitproof.cli._arguments":
            os.write(READY, b"!")  # half-way through the imports: ready for Ctrl+C
            time.sleep(60)  # ended by the test's SIGINT
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["fitproof", "check", "-"]
from fitproof._launch import main
main()
print("not reached")
"""


def test_ctrl_c_while_the_command_imports_ends_quietly():
    import signal

    ready, ready_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _INTERRUPTED_IMPORT, str(ready_end)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            pass_fds=(ready_end,),
        )
        os.close(ready_end)
        try:
            assert os.read(ready, 1) == b"!", process.communicate(timeout=60)  # b"": it ended before the import
            process.send_signal(signal.SIGINT)
            out, err = process.communicate("{}", timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    finally:
        os.close(ready)
    assert (process.returncode, out, err) == (130, "", "")


def test_the_package_exports_each_public_name_and_no_other():
    """Each name in ``__all__`` is there after ``import fitproof``, and a wrong one is an AttributeError."""
    probe = (
        "import fitproof as cb\n"
        "print(cb.evaluate({'budget': 1, 'items': []})['pass'], cb.count_tokens('a b', 'estimate') > 0)\n"
        "print(all(hasattr(cb, name) for name in cb.__all__), sorted(set(cb.__all__) - set(dir(cb))))\n"
        "try:\n    cb.no_such_name\nexcept AttributeError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.splitlines() == [
        "True True",
        "True []",
        "module 'fitproof' has no attribute 'no_such_name'",
    ], done.stderr


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "argv",
    [
        ["check", "examples/refund-case.json"],
        ["check", "--jsonl", "LINES"],
        ["check", "--jsonl", "--jobs", "2", "LINES"],
        ["compose", "examples/refund-case.json"],
        ["count", "README.md"],
        ["fixtures", "fixtures/required"],
    ],
)
def test_a_full_disk_is_one_line_and_exit_2(argv, tmp_path):
    """Every command printed a traceback ending in OSError: No space left on device."""
    lines = tmp_path / "lines.jsonl"
    lines.write_text((json.dumps(SEED_000) + "\n") * 600)
    argv = [str(lines) if part == "LINES" else part for part in argv]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "fitproof", *argv], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120
        )
    assert (done.returncode, done.stderr) == (2, "fitproof: cannot write standard output: No space left on device\n")


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "argv, code",
    [
        (["check", "nope.json"], 2),
        (["chek"], 2),
        (["compose", "examples/refund-case.json", "--config", "nope.json"], 2),
        (["check", "-"], 1),
        (["check", "examples/refund-case.json"], 0),
    ],
)
def test_a_standard_error_that_cannot_be_written_keeps_the_exit_code(argv, code):
    """A failed write of the error line raised out of the command: exit 1 (Python's) for every failure."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "fitproof", *argv], input="{", stdout=subprocess.PIPE, stderr=full, text=True, cwd=ROOT, timeout=60
        )
    assert done.returncode == code


# ---------------------------------------------------------------- slow work is never silent


class Terminal(io.StringIO):
    def isatty(self):
        return True


class TickedTerminal(Terminal):
    """A terminal's stderr that tells when the ticker's line for ``what`` has been shown."""

    def __init__(self, what):
        super().__init__()
        import threading

        self.what, self.ticked = what, threading.Event()

    def write(self, text):
        written = super().write(text)
        if text.startswith(f"\rfitproof: {self.what}") and text.endswith(" s"):
            self.ticked.set()
        return written


@pytest.mark.parametrize(
    "argv, slow, what",
    [
        (
            ["compose", "examples/refund-case.json", "--call-model"],
            "fitproof.cli._chat.call_model",
            "waiting for the model at http://localhost:12",
        ),
        (["count", "README.md"], "fitproof.tokenizers.count_tokens", "counting the tokens of"),
        (["check", "examples/refund-case.json"], "fitproof.cli.check.evaluate_with_problems", "checking"),
        (["check", "examples/refund-case.json"], "fitproof.cli.check.envelope_text", "writing the report"),
    ],
)
def test_a_slow_step_shows_its_seconds_on_a_terminal_and_wipes_them(monkeypatch, argv, slow, what):
    """A large check or count, or a model that keeps compose waiting up to its timeout, takes
    seconds: a terminal sees them counted, and the line wiped when the step ends. The step lasts
    until the ticker has shown its line (not a guessed 1.3 s); the ticker's clock says 1 s."""
    import itertools
    import threading
    import types

    from fitproof.cli import _ticker

    module_name, _, name = slow.rpartition(".")
    module = sys.modules[module_name]
    real = getattr(module, name)
    stderr = None

    def slowly(*args, **kwargs):
        if isinstance(stderr, TickedTerminal):
            assert stderr.ticked.wait(60), "the ticker never showed its line"
        else:  # nothing is counting: no ticker, so nothing can be shown however long the step takes
            assert not [thread for thread in threading.enumerate() if thread.name == "fitproof ticker"]
        return "The answer." if name == "call_model" else real(*args, **kwargs)  # no model server here

    monkeypatch.setattr(module, name, slowly)
    for stderr_class, shown in ((lambda: TickedTerminal(what), True), (io.StringIO, False)):
        monkeypatch.setattr(_ticker, "time", types.SimpleNamespace(monotonic=itertools.count().__next__))  # 0, 1, 2... s
        stdout, stderr = Terminal(), stderr_class()
        code = run(argv, io.BytesIO(), stdout, stderr)
        assert code in (0, 1) and stdout.getvalue()
        said = stderr.getvalue()
        if shown:
            # (A step before this one may have been counted too on a busy machine: this one's line is looked for.)
            assert f"\rfitproof: {what}" in said and ": 1 s" in said and "\x1b" not in said, said
            last = said.rstrip("\r").rsplit("\r", 2)
            assert said.endswith("\r") and set(last[-1]) == {" "} and len(last[-1]) == len(last[-2]), said  # wiped with spaces
        else:
            assert said == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "70000"],
        ["serve", "--port", "-1"],
        ["serve", "--port", "٨٠"],
        ["check", "--indent", "-1"],
        ["check", "--indent", "100000000"],
    ],
)
def test_out_of_range_options_are_usage_errors(argv):
    code, out, err = call_streams(argv, b"{}")
    assert code == 2 and out == "" and "Traceback" not in err and "must be an integer from" in err


def cli_process(args, **options):
    return subprocess.run([sys.executable, "-m", "fitproof", *args], capture_output=True, cwd=ROOT, timeout=60, **options)


@pytest.mark.parametrize("args", [["check", "-"], ["check", "--jsonl", "-"], ["compose", "-"]])
def test_closed_stdin_is_a_usage_error(args):
    # `<&-`: descriptor 0 closed before Python starts, so sys.stdin is None: no AttributeError traceback.
    result = cli_process(args, stdin=None, preexec_fn=lambda: os.close(0))
    assert result.returncode == 2 and result.stderr == b"fitproof: cannot read standard input: it is closed\n", result.stderr
    # Closed after start-up: reading fails with EBADF, said in one line, not an OSError traceback.
    result = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.close(0); from fitproof.cli import main; sys.argv[1:] = " + repr(args) + "; main()"],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2 and result.stderr.startswith(b"fitproof: cannot read standard input: "), result.stderr
    assert result.stderr.count(b"\n") == 1


def test_a_closed_stdout_ends_quietly(tmp_path):
    # `check --jsonl big | head -1` ends without a BrokenPipeError traceback.
    big = tmp_path / "big.jsonl"
    big.write_text((json.dumps({"budget": 5, "items": [{"id": "A", "relevance": 1, "tokens": 1}]}) + "\n") * 20_000)
    process = subprocess.Popen(
        [sys.executable, "-m", "fitproof", "check", "--jsonl", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert json.loads(process.stdout.readline())["ok"] is True
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    assert process.stderr.read() == b""
    process.stderr.close()


def test_a_reader_that_goes_away_during_one_large_report_exits_1(tmp_path):
    """One write of a 5 MB report to a pipe whose reader has gone can return a partial count,
    and CPython's buffered writer drops the rest without an error: exit 0 would say all was read."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"budget": 10**6, "items": [{"id": f"item-{i}", "relevance": i % 97, "tokens": 3} for i in range(30_000)]}))
    process = subprocess.Popen(
        [sys.executable, "-m", "fitproof", "check", "--indent", "2", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    assert process.stderr.read() == b""
    process.stderr.close()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_that_cannot_carry_utf8_gets_escapes_not_a_traceback(tmp_path, encoding):
    # PYTHONIOENCODING=ascii and an id with "é" or an emoji: escapes, never a UnicodeEncodeError.
    document = {"budget": 5, "items": [{"id": "é😀", "relevance": 1, "tokens": 1}]}
    (tmp_path / "in.json").write_text(json.dumps(document))
    (tmp_path / "in.jsonl").write_text(json.dumps(document) + "\n")
    environ = {**os.environ, "PYTHONIOENCODING": encoding}
    for args in (
        ["check", str(tmp_path / "in.json")],
        ["check", "--jsonl", str(tmp_path / "in.jsonl")],
        ["check", "--jsonl", "--jobs", "2", str(tmp_path / "in.jsonl")],
    ):
        result = cli_process(args, env=environ)
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        assert json.loads(result.stdout)["result"]["selected"] == ["é😀"]
    result = cli_process(["check", str(tmp_path / "in.json"), "--format", "text"], env=environ)
    assert result.returncode == 0 and result.stderr == b"" and b"\\U0001f600" in result.stdout


def _process(args, **options):
    return subprocess.run([sys.executable, "-m", "fitproof", *args], capture_output=True, cwd=ROOT, timeout=60, **options)


@pytest.mark.parametrize(
    "closing, args, code, message",
    [
        (0, ["check", "-"], 2, b"fitproof: cannot read standard input: it is closed\n"),
        (0, ["count", "-"], 2, b"fitproof: cannot read standard input: it is closed\n"),
        (1, ["check", "examples/refund-case.json"], 2, b"fitproof: cannot write standard output: it is closed\n"),
        (2, ["check", "missing.json"], 2, b""),
    ],
)
def test_closed_standard_streams(closing, args, code, message):
    result = _process(args, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(closing))
    assert result.returncode == code and result.stderr == message, result.stderr


@pytest.mark.parametrize(
    "argv, said",
    [
        (["build-site", ""], "build-site needs a directory name, got an empty one"),
        (["build-site", "", "--force"], "build-site needs a directory name, got an empty one"),
        (["fixtures", ""], "fixtures needs a directory name, got an empty one"),
        (
            ["fixtures", "/dev/null"],
            "/dev/null is neither a directory nor a file: fixtures runs every *.json case under a directory, or one case file",
        ),
        (
            ["fixtures"],
            "fixtures needs a directory of cases or one case file (there is no ./fixtures here): give one, or run the package's own cases with --shipped",
        ),
        (["check", ""], "check needs a file name (or - for standard input), got an empty one"),
        (["compose", ""], "compose needs a file name (or - for standard input), got an empty one"),
        (["count", ""], "count needs a file name (or - for standard input), got an empty one"),
    ],
)
def test_empty_or_wrong_path_arguments_are_never_guessed(tmp_path, monkeypatch, argv, said):
    """`build-site "$OUT" --force` with OUT unset must not write into the current directory
    (Path("") is "."): an empty DIR is refused, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file.json").write_text("{}")
    (tmp_path / "index.html").write_text("mine")
    before = _tree(tmp_path)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(argv, None, stdout, stderr, {}) == 2
    assert stderr.getvalue() == f"fitproof: {said}\n" and stdout.getvalue() == ""
    assert _tree(tmp_path) == before


def call_usage(argv, stdin=b""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("argv", [[], ["nope"], ["check", "--bogus"], ["check", "a", "b"], ["fixtures", "/no/such/dir"]])
def test_bad_usage_exits_2(argv):
    code, out, err = call_usage(argv)
    assert code == 2 and out == "" and err and "Traceback" not in err
