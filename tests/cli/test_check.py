"""`fitproof check`: envelopes of files, standard input and --jsonl lines, its text report and
the envelope's error, hints in the report, and input refused at the size and depth limits."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from fitproof.cli import run
from seeds import SEED_000
from cli_calls import call_cli as call_jsonl, one_line_error


def call(argv, stdin=b""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_check_passing_input_prints_ok_envelope():
    code, out, err = call(["check"], json.dumps(SEED_000))
    envelope = json.loads(out)
    assert code == 0 and err == ""
    assert envelope["ok"] is True and envelope["result"]["summary"] == "Selected A, C within 7 tokens."


def test_check_invalid_input_prints_error_envelope_and_exits_1():
    code, out, _ = call(["check", "-"], '{"budget": -1, "items": []}')
    envelope = json.loads(out)
    assert code == 1
    assert envelope["ok"] is False
    # The general summary, then the first located problem, so the one line says what to fix.
    assert (
        envelope["error"]
        == "Input needs a non-negative integer budget and items array. $.budget: expected an integer from 0 to 2^53-1, got -1"
    )
    assert envelope["result"]["errors"][0]["path"] == "$.budget"


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"budget": 1,\n "budget": 2}', 'duplicate key "budget" at line 2 column 2'),
        ('{"items": [{"id": "a", "x": 1, "x": 2}]}', 'duplicate key "x" at line 1 column 32'),
        ('{"a": {"k": 1}, "b": {"k": 1}}', None),  # same key in two objects is fine
        ('{"budget": NaN}', "NaN is not a JSON number at line 1 column 12"),
        ('{"budget": -Infinity}', "Infinity is not a JSON number at line 1 column 12"),
        ('{"budget": 1,,}', "invalid JSON: expected an object key in double quotes at line 1 column 14"),
        ("", "invalid JSON: the input holds no JSON value (it is empty or only whitespace) at line 1 column 1"),
        ("[" * 100_000, "JSON nests arrays and objects more than 512 levels deep at line 1 column 513"),
        (
            '{"s": "[[\\"[",\n "x": ' + "[" * 600,
            "JSON nests arrays and objects more than 512 levels deep at line 2 column 518",
        ),  # the object is level 1
        ("[" * 512 + "]" * 512, None),
        ('{"budget": ' + "9" * 5000 + "}", "integer with more than 4300 digits at line 1 column 12"),
    ],
)
def test_check_rejects_unacceptable_json_with_position(text, message):
    code, out, _ = call(["check"], text)
    envelope = json.loads(out)
    assert code == 1 and envelope["ok"] is False
    if message is None:
        assert "result" in envelope
    else:
        assert envelope["error"] == message and "result" not in envelope
        if " at line " in message:  # the position is also given as numbers, for the page's editor
            line, column = message.rsplit(" at line ", 1)[1].split(" column ")
            assert (envelope["line"], envelope["column"]) == (int(line), int(column))


def test_check_rejects_bytes_that_are_not_utf8():
    code, out, _ = call(["check"], b'{"budget": 1, "items": [{"id": "\xff"}]}')
    assert code == 1
    assert json.loads(out) == {
        "ok": False,
        "error": "input is not valid UTF-8 (byte 0xff at offset 32) at line 1 column 33",
        "line": 1,
        "column": 33,
    }
    code, out, _ = call(
        ["check"], '{"budget": 1,\n "items": [{"id": "é\xff"}]}'.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff")
    )
    assert json.loads(out)["line"] == 2 and json.loads(out)["column"] == 21  # characters, not bytes: "é" is one
    code, out, _ = call(["check"], b'\xef\xbb\xbf{"a": \xff}')
    assert json.loads(out)["column"] == 7  # a byte order mark is dropped, as for any other error: not a column


def test_check_accepts_a_byte_order_mark():
    code, _, _ = call(["check"], "\ufeff" + json.dumps(SEED_000))
    assert code == 0


def test_check_reads_a_file(tmp_path):
    path = tmp_path / "input.json"
    path.write_text(json.dumps(SEED_000))
    assert call(["check", str(path)])[0] == 0


def test_missing_file_is_a_one_line_usage_error(tmp_path):
    code, out, err = call(["check", str(tmp_path / "missing.json")])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "No such file or directory" in err and "Traceback" not in err


def test_lone_surrogates_are_escaped_in_output():
    code, out, _ = call(["check"], '{"budget": 1, "items": [{"id": "\\ud800", "relevance": 1, "tokens": 1}]}')
    assert code == 0
    out.encode("utf-8")  # valid UTF-8 even though the id is not valid Unicode
    assert json.loads(out)["result"]["selected"] == ["\ud800"]


def test_non_ascii_output_stays_readable():
    _, out, _ = call(["check"], '{"budget": 1, "items": [{"id": "ü", "relevance": 1, "tokens": 1}]}')
    assert '"selected": ["ü"]' in out


def test_real_process_round_trip():
    process = subprocess.run(
        [sys.executable, "-m", "fitproof", "check"],
        input=json.dumps({"budget": -1, "items": []}).encode(),
        capture_output=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert process.returncode == 1, process.stderr
    assert json.loads(process.stdout)["error"].startswith("Input needs a non-negative integer budget and items array. $.budget: ")
    assert process.stderr == b""


def test_jsonl_writes_one_envelope_per_line_and_goes_on_after_a_bad_one():
    lines = [json.dumps(SEED_000), "", '{"budget": -1, "items": []}', "{bad", json.dumps(SEED_000)]
    code, out, _ = call(["check", "--jsonl"], "\n".join(lines) + "\n")
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(e["input_line"], e["ok"]) for e in envelopes] == [(1, True), (3, False), (4, False), (5, True)]
    assert envelopes[2]["error"].startswith("invalid JSON") and "result" not in envelopes[2]
    assert envelopes[1]["result"]["errors"][0]["path"] == "$.budget"


def test_jsonl_exit_0_when_every_line_passes(tmp_path):
    path = tmp_path / "inputs.jsonl"
    path.write_text((json.dumps(SEED_000) + "\n") * 3)
    code, out, _ = call(["check", "--jsonl", str(path)])
    assert code == 0 and len(out.splitlines()) == 3


def test_jsonl_streams(monkeypatch):
    """Each envelope is written before the next line is read: nothing accumulates."""
    stdout = io.StringIO()

    class Lines:
        def __iter__(self):
            for index in range(3):
                assert len(stdout.getvalue().splitlines()) == index
                yield (json.dumps(SEED_000) + "\n").encode()

    class Stdin:
        buffer = Lines()

    assert run(["check", "--jsonl"], Stdin(), stdout, io.StringIO()) == 0
    assert len(stdout.getvalue().splitlines()) == 3


def test_jsonl_reports_an_unclosed_bracket_on_its_own_line(tmp_path):
    lines = tmp_path / "in.jsonl"
    lines.write_bytes(b'{"budget": 1, "items": [\n{"budget": 1, "items": []}\r\n{"budget": \r\n')
    code, out, _ = call_jsonl(["check", "--jsonl", str(lines)])
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert (envelopes[0]["input_line"], envelopes[0]["line"]) == (1, 1)
    assert envelopes[1]["ok"] is True
    assert (envelopes[2]["input_line"], envelopes[2]["line"]) == (3, 1)


def test_an_endless_input_is_refused_at_the_size_limit(monkeypatch, tmp_path):
    # `check /dev/zero` (or an endless pipe) must not read until memory runs out.
    from fitproof.cli import _input

    monkeypatch.setattr(_input, "MAX_INPUT_BYTES", 1000)
    endless = Path("/dev/zero")
    for argv, stdin in (
        (["check", str(endless)], b""),
        (["check", "-"], b"[" * 5000),
        (["count", str(endless)], b""),
        (["check", "--jsonl", str(endless)], b""),
        (["check", "--jsonl", "-"], b"1\n" + b" " * 5000),
        (["compose", str(tmp_path / "in.json"), "--config", str(endless)], b""),
    ):
        (tmp_path / "in.json").write_text("{}")
        code, _, err = call_jsonl(argv, stdin)
        assert code == 2 and one_line_error(err) and "larger than" in err, (argv, err)
        # the advice fits the command: only check's input is split into JSONL lines
        advice = (
            "count a smaller file" if argv[0] == "count" else "a config holds a few settings" if "--config" in argv else "check --jsonl"
        )
        assert advice in err or "each input must be smaller" in err, (argv, err)


def test_nesting_depth_is_measured_in_one_pass():
    # A million levels in one pass: one pass per level would be quadratic, in `check` and in the page.
    deep = "[" * 1_000_000 + "]" * 1_000_000
    result = subprocess.run(
        [sys.executable, "-m", "fitproof", "check", "-"], input=deep.encode(), capture_output=True, cwd=ROOT, timeout=20
    )
    assert result.returncode == 1 and b"more than 512 levels deep" in result.stdout


class TerminalText(io.StringIO):
    def isatty(self):
        return True


def call_manners(argv, stdin=b"", stdin_class=io.BytesIO, stdout_class=io.StringIO):
    stdout, stderr = stdout_class(), io.StringIO()
    code = run(argv, stdin_class(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_json_is_the_default_when_stdout_is_not_a_terminal():
    _, out, _ = call_manners(["check"], json.dumps(SEED_000))
    assert json.loads(out)["result"]["selected"] == ["A", "C"]


def test_text_is_the_default_when_stdout_is_a_terminal():
    code, out, _ = call_manners(["check"], json.dumps(SEED_000), stdout_class=TerminalText)
    assert code == 0 and out.startswith("PASS  Selected A, C within 7 tokens.\n")


@pytest.mark.parametrize("argv", [["check", "--indent", "2"], ["check", "--format", "json"], ["check", "--jsonl"]])
def test_json_options_keep_json_on_a_terminal(argv):
    _, out, _ = call_manners(argv, json.dumps(SEED_000), stdout_class=TerminalText)
    assert json.loads(out.splitlines()[0] if "--jsonl" in argv else out)["ok"] is True


@pytest.mark.parametrize("extra", [["--jsonl"], ["--indent", "2"]])
def test_text_with_a_json_option_is_a_usage_error(extra):
    code, out, err = call_manners(["check", "--format", "text", *extra], json.dumps(SEED_000))
    assert code == 2 and out == "" and "--format text" in err


def test_indent_with_jsonl_is_a_usage_error():
    """It was accepted and ignored: each envelope is one line."""
    code, out, err = call_manners(["check", "--jsonl", "--indent", "2"], "{}\n")
    assert (code, out) == (2, "") and "--indent cannot apply to it" in err


def test_text_of_many_problems_gives_the_total():
    data = {"budget": 1, "items": [{"id": "", "relevance": 1, "tokens": 1}] * 80}
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps(data))
    assert "mode relevance: the input is not valid (50 problems listed)" in out
    assert out.splitlines()[-1] == "  … and 30 more not listed (80 in all)"
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps({**data, "items": data["items"][:2]}))
    assert "more not listed" not in out
    # The total is the detail's own tail, never words from the input (a key can say anything).
    tricky = {"budget": 5, "items": [{"id": "a", "relevance": 1, "tokens": 1, "(and 999 more problems)": 1}, {"id": "b"}]}
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps(tricky))
    assert "more not listed" not in out


def test_text_shows_summary_amounts_checks_and_every_decision():
    code, out, _ = call_manners(["check", "--format", "text"], json.dumps(SEED_000))
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
    code, out, _ = call_manners(["check", "--format", "text"], json.dumps({"budget": 100_000, "items": items}).encode())
    first = out.splitlines()[0]
    from fitproof import evaluate

    kept = evaluate({"budget": 100_000, "items": items})["selected"]
    assert code == 0 and len(first) < 330, len(first)
    shown = first.count("item-")
    assert (
        first.startswith(f"PASS  Selected {kept[0]}, {kept[1]}, ")
        and f", … {len(kept) - shown:,} more …, {kept[-1]} within 100000 tokens." in first
    )
    assert (
        evaluate({"budget": 7, "items": [{"id": "A", "relevance": 1, "tokens": 2}]})["summary"]
        in call_manners(["check", "--format", "text"], b'{"budget": 7, "items": [{"id": "A", "relevance": 1, "tokens": 2}]}')[1]
    )  # short ones whole


def test_a_jsonl_file_given_to_check_without_jsonl_says_so():
    lines = b'{"budget": 1, "items": []}\n{"budget": 2, "items": []}\n'
    code, out, _ = call_manners(["check", "-"], lines)
    assert code == 1 and json.loads(out)["error"].endswith("at line 2 column 1 (one JSON input per line? check --jsonl reads them)")
    code, out, _ = call_manners(["check", "-"], b'{"budget": 1, "items": []} 5')  # extra data on the same line: no such guess
    assert code == 1 and "--jsonl" not in out


def test_text_says_why_sums_past_the_float_range_are_missing():
    """It printed Python's None: "at most None; this selection: None"."""
    items = [{"id": name, "relevance": 1e308, "tokens": 1} for name in "abc"]
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps({"budget": 2, "items": items}))
    assert out.splitlines()[-1] == (
        "best possible relevance: past the 64-bit float range (a, b); this selection: past the 64-bit float range"
    )
    assert "None" not in out


def test_text_of_a_failed_selection_gives_the_reason_for_each_item():
    document = {
        "mode": "required",
        "budget": 5,
        "items": [
            {"id": "contract", "cost": 3, "priority": 0, "required": True},
            {"id": "policy", "cost": 4, "priority": 9, "required": True},
            {"id": "extra", "cost": 1, "priority": 1},
        ],
    }
    code, out, _ = call_manners(["check", "--format", "text"], json.dumps(document))
    assert code == 1
    assert out.startswith("FAIL  Required items policy, contract need 7 tokens but the budget is 5: 2 tokens short.\n")
    assert "kept, in the order considered (0)\n  (none)\n" in out
    words = " ".join(out.split())  # the id column is padded to the longest id
    assert "policy 4 tokens, 5 left before required_items_exceed_budget" in words
    assert "extra 1 token, 5 left before not_considered_required_overflow" in words  # one token, not "1 tokens"


def test_text_of_invalid_input_lists_every_problem_with_its_path():
    code, out, _ = call_manners(["check", "--format", "text"], '{"budget": "ten", "items": [{"id": "A", "relevance": 1, "tokns": 2}]}')
    assert code == 1
    assert out.splitlines() == [
        "FAIL  Input needs a non-negative integer budget and items array.",
        "mode relevance: the input is not valid (3 problems listed)",
        '  $.budget: expected an integer from 0 to 2^53-1, got "ten"',
        '  $.items[0].tokns: unknown key "tokns" (did you mean "tokens"? expected id, relevance, tokens, content)',
        '  $.items[0]: missing required key "tokens"',
    ]


def test_text_of_unreadable_json_is_one_line():
    code, out, _ = call_manners(["check", "--format", "text"], '{"budget": 1,,}')
    assert code == 1 and out == "FAIL  invalid JSON: expected an object key in double quotes at line 1 column 14\n"


def test_text_of_passages_shows_the_prompt_count_each_decision_was_made_on():
    document = {
        "mode": "passages",
        "question": "Why was the refund late?",
        "limit": 20,
        "counter": "words",
        "passages": [
            {"id": "a", "text": "The carrier lost the parcel for two days before it was found."},
            {"id": "b", "text": "Refunds post after the warehouse scans the return."},
        ],
    }
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps(document))
    assert "mode passages: the prompt counts 17 of 20 words" in out
    assert "a  13 words, prompt with it 21 of 20  exceeds_remaining_budget" in out


def test_text_of_blocks_names_the_required_block_that_stops_the_run(monkeypatch):
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["window"]["fixed_prompt_tokens"] = 850
    code, out, _ = call_manners(["check", "--format", "text"], json.dumps(document))
    assert code == 1
    # 1200 - 300 - 850 leaves 50: CUSTOMER_MESSAGE (44) fits, REFUND_POLICY (60) meets 6.
    assert out.startswith("FAIL  Cannot proceed: required block REFUND_POLICY needs 60 tokens but only 6 remain.\n")
    assert (
        "REFUND_POLICY        60 tokens, 6 left before  required_block_too_large_for_budget (required, needs 60, 6 left: the run cannot proceed)"
        in out
    )


def test_long_lists_are_cut_with_a_pointer_to_the_json():
    document = {"budget": 1000, "items": [{"id": f"i{n:03}", "relevance": n, "tokens": 1} for n in range(150)]}
    _, out, _ = call_manners(["check", "--format", "text"], json.dumps(document))
    assert "  … and 50 more (--format json lists them all)" in out
    assert len(out.splitlines()) < 130


def test_the_envelope_error_names_the_first_located_problem():
    _, out, _ = call_manners(["check"], '{"budget": 7, "items": [{"id": "A", "relevance": 9, "tokenz": 4}]}')
    error = json.loads(out)["error"]
    assert error == (
        "Each item needs id, numeric relevance, and non-negative integer tokens. "
        '$.items[0].tokenz: unknown key "tokenz" (did you mean "tokens"? expected id, relevance, tokens, content) '
        "(and 1 more problem, listed in errors)"
    )


def test_the_envelope_error_of_a_failed_selection_is_its_summary():
    document = {"mode": "required", "budget": 1, "items": [{"id": "a", "cost": 2, "priority": 0, "required": True}]}
    _, out, _ = call_manners(["check"], json.dumps(document))
    assert json.loads(out)["error"] == "Required item a needs 2 tokens but the budget is 1: 1 token short."


def test_a_real_terminal_gets_text(tmp_path):
    """Through a pseudo-terminal, as a person runs it: no option needed for the text form."""
    pty = pytest.importorskip("pty")
    import os

    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI with the pty as its terminal
        os.environ["PYTHONPATH"] = str(ROOT / "py")
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "fitproof", "check", "examples/refund-case.json"])
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
        [sys.executable, "-m", "fitproof", "check", "examples/refund-case.json"],
        capture_output=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert process.returncode == 0 and json.loads(process.stdout)["ok"] is True


def test_a_failed_check_puts_its_detail_in_the_envelope_error():
    from fitproof._envelope import failure_text

    report = {
        "pass": False,
        "summary": "Selected A within 7 tokens. But a check failed: token budget.",
        "checks": [{"name": "token budget", "pass": False, "detail": "selected costs add up to 9, over the budget of 7"}],
    }
    assert (
        failure_text(report)
        == "Selected A within 7 tokens. But a check failed: token budget. token budget: selected costs add up to 9, over the budget of 7"
    )


@pytest.mark.parametrize(
    "key, hint",
    [
        ("tokns", '(did you mean "tokens"? '),
        ("Tokens", '(did you mean "tokens"? '),
        ("ID", '(did you mean "id"? '),
        ("colour", "(expected "),
        ("t" * 100, "(expected "),
    ],
)
def test_unknown_keys_suggest_only_a_close_name(key, hint):
    from fitproof import evaluate

    item = {"id": "a", "relevance": 1, "tokens": 1, key: 1}
    message = evaluate({"budget": 1, "items": [item]})["errors"][0]["message"]
    assert message.startswith("unknown key ") and hint in message


def test_no_mode_hint_when_no_other_mode_accepts_the_input():
    from fitproof import evaluate

    report = evaluate({"mode": "required", "budget": 7, "items": [{"id": "A", "relevance": 9}]})
    assert all(error["path"] != "$.mode" for error in report["errors"])


def test_line_breaks_in_ids_cannot_forge_lines_of_the_text_report():
    data = {
        "budget": 5,
        "items": [{"id": "A\r\nok    FAKE LINE", "relevance": 1, "tokens": 2}, {"id": "B\nC", "relevance": 0, "tokens": 9}],
    }
    out = io.StringIO()
    run(["check", "--format", "text"], io.BytesIO(json.dumps(data).encode()), out, io.StringIO())
    assert not any(line.startswith(("ok    FAKE", "C ")) for line in out.getvalue().splitlines())
    assert "Selected A\\r\\nok    FAKE LINE within 5 tokens." in out.getvalue() and "B\\nC" in out.getvalue()
