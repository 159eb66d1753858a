"""`fitproof compose` itself (fitproof/cli/compose.py): the composed prompt and its packing
report, the advice when the required blocks overflow the window, reading the input and
--config (files that cannot be read, text that is not JSON, another mode's input), and the one
--json envelope however the run ends. The settings layers are tested in
test_compose_settings.py, the model call in test_compose_model_call.py and the hidden API key
in test_compose_secrets.py; compose_servers.py holds what they share."""

import io
import json

import pytest

from compose_servers import EXAMPLE, call, free_port, model_env
from compose_servers import chat_server  # noqa: F401 (a fixture: pytest finds it by name)
from conftest import ROOT
from fitproof.cli import run


def test_compose_prints_prompt_and_report():
    code, out, err = call(["compose", EXAMPLE])
    assert code == 0 and err == ""
    assert out.startswith("=== Composed prompt ===\nSystem:\n")
    assert "### Block CUSTOMER_MESSAGE\nSource: support-ticket\nPriority: 100\n" in out
    assert "available 680 = context 1200 - reserved output 300 - fixed prompt 220" in out
    assert "rendered prompt ~598 tokens (343 of them system, task, headers and metadata) of 900" in out
    assert "optional priority: greedy 220, best possible 220" in out
    assert "if the estimates are off by 15%: nothing would flip; required slack 576" in out
    # The composer keeps the included (packing) order.
    positions = [
        out.index(f"### Block {name}")
        for name in ("CUSTOMER_MESSAGE", "REFUND_POLICY", "ORDER_DATA", "CUSTOMER_HISTORY", "OPERATIONS_PLAYBOOK")
    ]
    assert positions == sorted(positions)


def test_required_overflow_exits_1_with_the_advice():
    code, out, err = call(["compose", EXAMPLE], {"FITPROOF_CONTEXT_TOKENS": "850", "FITPROOF_FIXED_PROMPT_TOKENS": "470"})
    assert code == 1
    assert "=== Composed prompt ===" not in out
    assert "REFUND_POLICY  60 tokens  required_block_too_large_for_budget" in out
    # 850 - 300 - 470 leaves 80 for required blocks of 44 + 60 = 104: 24 short. Every window number is named.
    assert "the required blocks need 104 tokens but 80 are available" in err and ": 24 short." in err
    assert "raise context_tokens from 850 to at least 874" in err
    assert "lower reserved_output_tokens from 300 to at most 276" in err
    assert "lower fixed_prompt_tokens from 470 to at most 446" in err
    assert "shorten the required blocks by 24 tokens" in err


@pytest.mark.parametrize(
    "key, fixed, broken", [("context_tokens", 874, 873), ("reserved_output_tokens", 276, 277), ("fixed_prompt_tokens", 446, 447)]
)
def test_each_advised_window_number_is_exactly_enough(key, fixed, broken):
    from fitproof import evaluate

    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    window = {"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 470}
    assert evaluate({**document, "window": {**window, key: fixed}})["can_proceed"] is True
    assert evaluate({**document, "window": {**window, key: broken}})["can_proceed"] is False


def test_advice_says_when_one_number_alone_cannot_free_enough():
    code, _, err = call(
        ["compose", EXAMPLE],
        {"FITPROOF_CONTEXT_TOKENS": "500", "FITPROOF_RESERVED_OUTPUT_TOKENS": "10", "FITPROOF_FIXED_PROMPT_TOKENS": "460"},
    )
    # 500 - 10 - 460 = 30 for 104 tokens of required blocks: 74 short, more than the 10 reserved.
    assert code == 1
    assert "lower reserved_output_tokens (now 10; it alone cannot free 74)" in err
    assert "lower fixed_prompt_tokens from 460 to at most 386" in err


def test_advice_never_names_a_context_past_the_largest_setting():
    """At context_tokens 2^53-1 the advice once said to raise it to 2^53+3, which is refused."""
    top = 2**53 - 1
    code, _, err = call(
        ["compose", EXAMPLE],
        {"FITPROOF_CONTEXT_TOKENS": str(top), "FITPROOF_RESERVED_OUTPUT_TOKENS": str(top - 600), "FITPROOF_FIXED_PROMPT_TOKENS": "500"},
    )
    assert code == 1
    assert f"raise context_tokens (now {top}; it alone cannot free 4 within 2^53-1)" in err
    assert f"lower reserved_output_tokens from {top - 600} to at most {top - 604}" in err


def test_an_empty_config_name_is_refused_not_skipped():
    """``--config "$UNSET"`` once ran with the defaults as if no config had been asked for."""
    assert call(["compose", EXAMPLE, "--config", ""]) == (2, "", "fitproof: compose --config needs a file name, got an empty one\n")
    code, out, err = call(["compose", EXAMPLE, "--config", "", "--json"])
    assert code == 2 and json.loads(out) == {"ok": False, "error": "compose --config needs a file name, got an empty one"}


@pytest.mark.parametrize(
    "argv, error",
    [
        (["compose", "--json", "nope.json"], "cannot read nope.json: No such file or directory"),
        (["compose", "--json", EXAMPLE, "--config", "nope.json"], "cannot read nope.json: No such file or directory"),
        (["compose", "--json", EXAMPLE, "--config", str(ROOT / "examples")], f"cannot read {ROOT / 'examples'}: Is a directory"),
        (
            ["compose", "--json", "-", "--config", "-"],
            "compose cannot read both the input and --config from standard input: give one of them as a file",
        ),
    ],
)
def test_compose_json_writes_an_envelope_when_a_file_cannot_be_read(argv, error):
    """A file that could not be read left standard output empty, against "one envelope however the run ends"."""
    code, out, err = call(argv)
    assert code == 2 and json.loads(out) == {"ok": False, "error": error}
    assert err == f"fitproof: {error}\n"


def test_another_modes_input_is_named_for_what_it_is():
    """A relevance input got three lines of unknown and missing keys in mode blocks."""
    message = (
        "compose needs an input in mode blocks; this is a valid relevance input "
        "(check it with `fitproof check`; see examples/refund-case.json for compose)"
    )
    code, out, err = call(["compose", str(ROOT / "examples" / "relevance.json")])
    assert (code, out, err) == (1, "", f"fitproof: {message}\n")
    code, out, _ = call(["compose", str(ROOT / "examples" / "relevance.json"), "--json"])
    assert code == 1 and json.loads(out) == {"ok": False, "error": message}


def test_an_exact_count_is_not_shown_as_approximate(tmp_path):
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    path = tmp_path / "exact.json"
    path.write_text(json.dumps({**data, "tokenizer": "o200k_base"}))
    code, out, _ = call(["compose", str(path)])
    assert code == 0 and "rendered prompt 578 tokens (349 of them" in out and "~" not in out.split("=== Packing report ===")[1]


def test_a_prompt_that_overflows_the_window_exits_1():
    code, out, err = call(["compose", EXAMPLE], {"FITPROOF_CONTEXT_TOKENS": "850"})
    assert code == 1
    assert "FAIL rendered prompt fits window" in out
    assert "rendered prompt fits window" in err


def test_compose_reports_invalid_blocks_with_paths(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"mode": "blocks", "blocks": [{"id": "x"}]}))
    code, out, err = call(["compose", str(path)])
    assert code == 1 and out == ""
    assert "$.blocks[0]: missing required key" in err


def test_compose_json_always_writes_an_envelope_whose_error_names_the_first_problem(tmp_path):
    """--json gave the bare summary for invalid blocks, and nothing at all on stdout for
    text that is not JSON or not a blocks object."""
    cases = [
        (
            '{"blocks": [{"id": "a"}]}',
            'Each block needs id, source, content, priority 0..100 and observed_at with an offset. $.blocks[0]: missing required key "source"',
            None,
        ),
        ('{"blocks": [', "input ", (1, 13)),
        ("[1]", "compose needs a JSON object in mode blocks (see examples/refund-case.json)", None),
    ]
    for text, error, position in cases:
        path = tmp_path / "input.json"
        path.write_text(text)
        code, out, err = call(["compose", str(path), "--json"])
        envelope = json.loads(out)
        assert code == 1 and envelope["ok"] is False and envelope["error"].startswith(error), envelope
        assert err == ("" if text.startswith('{"blocks": [{') else f"fitproof: {envelope['error']}\n")
        if position:
            assert (envelope["line"], envelope["column"]) == position


def test_compose_json_settles_every_ending_in_one_envelope(tmp_path, chat_server):
    """Bad settings and a --config that is not JSON left stdout empty, and --call-model
    appended the answer as text after the JSON."""
    code, out, err = call(["compose", EXAMPLE, "--json"], {"FITPROOF_TEMPERATURE": "hot", "FITPROOF_TIMEOUT_SECONDS": "0"})
    assert code == 2 and json.loads(out) == {
        "ok": False,
        "error": 'settings: FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "hot"; '
        'FITPROOF_TIMEOUT_SECONDS: expected a number from 0.001 to 3600, got "0"',
    }
    assert err.count("\n") == 2
    config = tmp_path / "settings.json"
    config.write_text("{nope")
    code, out, err = call(["compose", EXAMPLE, "--json", "--config", str(config)])
    assert code == 2 and json.loads(out)["ok"] is False and json.loads(out)["error"].startswith(f"config {config}: invalid JSON")
    code, out, err = call(["compose", EXAMPLE, "--json", "--call-model"], model_env(chat_server("answer")))
    envelope = json.loads(out)  # the whole of stdout is one JSON value
    assert code == 0 and err == "" and envelope["answer"] == "Full refund, no return shipping. [REFUND_POLICY]"
    assert envelope["ok"] is True and envelope["result"]["pass"] is True
    code, out, err = call(["compose", EXAMPLE, "--json", "--call-model"], {"FITPROOF_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"})
    envelope = json.loads(out)
    assert code == 1 and envelope["error"].startswith("model call failed: cannot reach") and "result" in envelope


def test_compose_prints_a_report_whose_costs_were_counted_exactly(tmp_path):
    # A blocks input with a tokenizer has no sensitivity margin: the report is still printed, no KeyError.
    document = json.loads((ROOT / "fixtures" / "blocks" / "tokenizer-refund-counted-exactly.json").read_text())["input"]
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, out, err = call(["compose", str(tmp_path / "input.json")])
    assert code in (0, 1) and "Traceback" not in err and "costs counted exactly (o200k_base)" in out


@pytest.mark.parametrize(
    "content, said",
    [
        (b"{bad", "invalid JSON: expected an object key in double quotes at line 1 column 2"),
        (b"", "invalid JSON"),
        (b"\xff{}", "input is not valid UTF-8"),
    ],
)
def test_compose_input_that_is_not_acceptable_json_exits_1_like_check(tmp_path, content, said):
    """Input that is not acceptable JSON is exit 1 for compose, as the exit-code table says, not 2 (bad usage)."""
    source = tmp_path / "input.json"
    source.write_bytes(content)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert stderr.getvalue().startswith(f"fitproof: input {source}: ") and said in stderr.getvalue()
    assert stderr.getvalue().count("\n") == 1 and stdout.getvalue() == ""
    assert run(["check", str(source)], None, io.StringIO(), io.StringIO(), {}) == 1  # the same input, the same code
    stderr = io.StringIO()
    assert run(["compose", "-"], io.BytesIO(content), io.StringIO(), stderr, {}) == 1
    assert stderr.getvalue().startswith("fitproof: input standard input: ") and said in stderr.getvalue()
    # A --config that is not JSON is a settings problem: bad usage.
    config = tmp_path / "config.json"
    config.write_bytes(content)
    example = ROOT / "examples" / "refund-case.json"
    assert run(["compose", str(example), "--config", str(config)], None, io.StringIO(), io.StringIO(), {}) == 2


@pytest.mark.parametrize("content", [b"[]", b"null", b'{"mode": "relevance", "budget": 1, "items": []}'])
def test_compose_input_that_is_not_a_blocks_object_exits_1_like_check(tmp_path, content):
    source = tmp_path / "input.json"
    source.write_bytes(content)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert stderr.getvalue() == "fitproof: compose needs a JSON object in mode blocks (see examples/refund-case.json)\n"
    assert stdout.getvalue() == ""


def _message_lines(err: str) -> list[str]:
    """stderr's message lines: argparse's usage line and indented details of a message are not messages of their own."""
    return [line for line in err.splitlines() if line and not line.startswith((" ", "usage:"))]


def test_compose_overflow_advice_is_one_message_with_indented_details(tmp_path):
    """The advice for a required overflow is one message with its details, not three (a case the settings fuzz of test_compose_settings.py found)."""
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text(encoding="utf-8"))
    data["window"] = {"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 470}
    source = tmp_path / "input.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert _message_lines(stderr.getvalue()) == [stderr.getvalue().splitlines()[0]]
    assert stderr.getvalue().startswith("fitproof: budgeting failed: the required blocks need")
    assert stderr.getvalue().splitlines()[1].startswith("  To fix it: raise context_tokens from 850 to at least")


class TerminalBytes(io.BytesIO):
    def isatty(self):
        return True


def call_terminal(argv, stdin=b"", stdin_class=io.BytesIO, stdout_class=io.StringIO):
    stdout, stderr = stdout_class(), io.StringIO()
    code = run(argv, stdin_class(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_compose_on_a_terminal_without_a_file_is_refused_too():
    code, _, err = call_terminal(["compose"], stdin_class=TerminalBytes)
    assert code == 2 and "compose: no FILE given" in err
