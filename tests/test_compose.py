"""`context-budget compose`: settings layers, required overflow, and the optional model call
against real HTTP servers on 127.0.0.1 (one that answers, one that is down, one too slow, one
that answers garbage)."""

import http.server
import io
import json
import socket
import threading
import time

import pytest

from conftest import ROOT
from context_budget.cli import _chat, _settings
from context_budget.cli import run

EXAMPLE = str(ROOT / "examples" / "refund-case.json")


def call(argv, environ=None):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(b""), stdout, stderr, environ or {})
    return code, stdout.getvalue(), stderr.getvalue()


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
    positions = [out.index(f"### Block {name}") for name in ("CUSTOMER_MESSAGE", "REFUND_POLICY", "ORDER_DATA", "CUSTOMER_HISTORY", "OPERATIONS_PLAYBOOK")]
    assert positions == sorted(positions)


def test_environment_overrides_config_which_overrides_the_input(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"context_tokens": 900, "reserved_output_tokens": 300}))
    code, out, _ = call(["compose", EXAMPLE, "--config", str(config), "--json"])
    assert json.loads(out)["result"]["available"] == 900 - 300 - 220
    code, out, _ = call(["compose", EXAMPLE, "--config", str(config), "--json"], {"CONTEXT_BUDGET_FIXED_PROMPT_TOKENS": "450"})
    report = json.loads(out)["result"]
    assert report["available"] == 150
    assert [entry["id"] for entry in report["excluded"]] == ["ORDER_DATA", "OPERATIONS_PLAYBOOK"]


def test_required_overflow_exits_1_with_the_advice():
    code, out, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_CONTEXT_TOKENS": "850", "CONTEXT_BUDGET_FIXED_PROMPT_TOKENS": "470"})
    assert code == 1
    assert "=== Composed prompt ===" not in out
    assert "REFUND_POLICY  60 tokens  required_block_too_large_for_budget" in out
    # 850 - 300 - 470 leaves 80 for required blocks of 44 + 60 = 104: 24 short. Every window number is named.
    assert "the required blocks need 104 tokens but 80 are available" in err and ": 24 short." in err
    assert "raise context_tokens from 850 to at least 874" in err
    assert "lower reserved_output_tokens from 300 to at most 276" in err
    assert "lower fixed_prompt_tokens from 470 to at most 446" in err
    assert "shorten the required blocks by 24 tokens" in err


@pytest.mark.parametrize("key, fixed, broken", [("context_tokens", 874, 873), ("reserved_output_tokens", 276, 277), ("fixed_prompt_tokens", 446, 447)])
def test_each_advised_window_number_is_exactly_enough(key, fixed, broken):
    from context_budget import evaluate

    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    window = {"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 470}
    assert evaluate({**document, "window": {**window, key: fixed}})["can_proceed"] is True
    assert evaluate({**document, "window": {**window, key: broken}})["can_proceed"] is False


def test_advice_says_when_one_number_alone_cannot_free_enough():
    code, _, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_CONTEXT_TOKENS": "500", "CONTEXT_BUDGET_RESERVED_OUTPUT_TOKENS": "10", "CONTEXT_BUDGET_FIXED_PROMPT_TOKENS": "460"})
    # 500 - 10 - 460 = 30 for 104 tokens of required blocks: 74 short, more than the 10 reserved.
    assert code == 1
    assert "lower reserved_output_tokens (now 10; it alone cannot free 74)" in err
    assert "lower fixed_prompt_tokens from 460 to at most 386" in err


def test_advice_never_names_a_context_past_the_largest_setting():
    """At context_tokens 2^53-1 the advice once said to raise it to 2^53+3, which is refused."""
    top = 2**53 - 1
    code, _, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_CONTEXT_TOKENS": str(top), "CONTEXT_BUDGET_RESERVED_OUTPUT_TOKENS": str(top - 600),
                                               "CONTEXT_BUDGET_FIXED_PROMPT_TOKENS": "500"})
    assert code == 1
    assert f"raise context_tokens (now {top}; it alone cannot free 4 within 2^53-1)" in err
    assert f"lower reserved_output_tokens from {top - 600} to at most {top - 604}" in err


def test_settings_are_validated_before_anything_runs(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"context_token": 10, "base_url": "localhost:1234"}))
    code, out, err = call(["compose", EXAMPLE, "--config", str(config), "--call-model"], {"CONTEXT_BUDGET_TEMPERATURE": "hot"})
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert any('unknown setting "context_token"' in line for line in lines)
    assert any("config: base_url: expected an http:// or https:// URL" in line for line in lines)
    assert any('CONTEXT_BUDGET_TEMPERATURE: expected a number from 0 to 2, got "hot"' in line for line in lines)


@pytest.mark.parametrize("window, expected", [
    ({"context_tokns": 1200, "reserved_output_tokens": 300, "fixed_prompt_tokens": 220},
     '$.window.context_tokns: unknown key "context_tokns" (did you mean "context_tokens"?'),
    ({"context_tokens": 1200, "reserved_output_tokens": 300, "fixed_prompt_tokens": 220, "extra": 1}, '$.window.extra: unknown key "extra"'),
    (5, "$.window: expected an object, got a number: 5"),
    (None, "$.window: expected an object, got null"),
])
def test_the_inputs_window_is_validated_like_any_setting(tmp_path, window, expected):
    """A misspelt window key once left the default (850) in its place without a word."""
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    data["window"] = window
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    code, out, err = call(["compose", str(path)])
    assert code == 2 and out == ""
    assert err.startswith(f"context-budget: settings: {expected}"), err


@pytest.mark.parametrize("window, config, expected", [
    ({"context_tokens": "1000"}, None, '$.window.context_tokens: expected an integer from 0 to 2^53-1, got "1000" (a JSON text: write the number without quotes)'),
    ({"context_tokens": " 1000 "}, None, '$.window.context_tokens: expected an integer'),
    ({}, {"call_model": "yes"}, 'config: call_model: expected true or false, got "yes" (a JSON text: write true, without quotes)'),
    ({}, {"temperature": "0.5"}, 'config: temperature: expected a number from 0 to 2, got "0.5" (a JSON'),
    ({}, {"fixed_prompt_tokens": "  200\n"}, 'config: fixed_prompt_tokens: expected an integer'),
    ({}, {"timeout_seconds": "hot"}, 'config: timeout_seconds: expected a number from 0.001 to 3600, got "hot"'),
])
def test_json_settings_take_json_numbers_and_flags_not_texts(tmp_path, window, config, expected):
    """The input's window and a config file are JSON, held to the input's rules: "1000" is a
    text there (``check`` refuses the same window). Only environment variables are text."""
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    data["window"] = window
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    argv = ["compose", str(path)]
    if config is not None:
        (tmp_path / "config.json").write_text(json.dumps(config))
        argv += ["--config", str(tmp_path / "config.json")]
    code, out, err = call(argv)
    assert code == 2 and out == ""
    assert err.startswith(f"context-budget: settings: {expected}"), err


def test_environment_variables_are_read_as_the_numbers_and_flags_they_spell(tmp_path):
    environ = {"CONTEXT_BUDGET_CONTEXT_TOKENS": " 1200 ", "CONTEXT_BUDGET_TEMPERATURE": "0.5", "CONTEXT_BUDGET_CALL_MODEL": "No",
               "CONTEXT_BUDGET_TIMEOUT_SECONDS": "1e1"}
    settings = _settings.effective_settings({}, None, environ)
    assert (settings["context_tokens"], settings["temperature"], settings["call_model"], settings["timeout_seconds"]) == (1200, 0.5, False, 10.0)
    code, out, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_TEMPERATURE": "1e400", "CONTEXT_BUDGET_CONTEXT_TOKENS": "1_000"})
    assert code == 2
    assert 'CONTEXT_BUDGET_TEMPERATURE: expected a number from 0 to 2, got "1e400"' in err  # as written, not as inf
    assert 'CONTEXT_BUDGET_CONTEXT_TOKENS: expected an integer from 0 to 2^53-1, got "1_000"' in err


@pytest.mark.parametrize("name, expected", [
    ("CONTEXT_BUDGET_CONTEXT_TOKEN", "CONTEXT_BUDGET_CONTEXT_TOKEN: no such setting (did you mean CONTEXT_BUDGET_CONTEXT_TOKENS?)"),
    ("CONTEXT_BUDGET_context_tokens", "CONTEXT_BUDGET_context_tokens: no such setting (did you mean CONTEXT_BUDGET_CONTEXT_TOKENS?)"),
    ("CONTEXT_BUDGET_FOO", "CONTEXT_BUDGET_FOO: no such setting (known: CONTEXT_BUDGET_<CONTEXT_TOKENS|RESERVED_OUTPUT_TOKENS|"),
])
def test_a_misspelt_environment_variable_is_a_settings_error(name, expected):
    """It once left the setting at its default without a word; the project's other variables are no error."""
    code, out, err = call(["compose", EXAMPLE], {name: "2000", "CONTEXT_BUDGET_TOKENIZER_DATA": "/nowhere", "CONTEXT_BUDGET_CHROMIUM": "x"})
    assert code == 2 and out == ""
    assert err.startswith(f"context-budget: settings: {expected}"), err
    assert err.count("\n") == 1  # the other two variables are the project's


def test_an_empty_config_name_is_refused_not_skipped():
    """``--config "$UNSET"`` once ran with the defaults as if no config had been asked for."""
    assert call(["compose", EXAMPLE, "--config", ""]) == (2, "", "context-budget: compose --config needs a file name, got an empty one\n")
    code, out, err = call(["compose", EXAMPLE, "--config", "", "--json"])
    assert code == 2 and json.loads(out) == {"ok": False, "error": "compose --config needs a file name, got an empty one"}


@pytest.mark.parametrize("argv, error", [
    (["compose", "--json", "nope.json"], "cannot read nope.json: No such file or directory"),
    (["compose", "--json", EXAMPLE, "--config", "nope.json"], "cannot read nope.json: No such file or directory"),
    (["compose", "--json", EXAMPLE, "--config", str(ROOT / "examples")], f"cannot read {ROOT / 'examples'}: Is a directory"),
    (["compose", "--json", "-", "--config", "-"], "compose cannot read both the input and --config from standard input: give one of them as a file"),
])
def test_compose_json_writes_an_envelope_when_a_file_cannot_be_read(argv, error):
    """A file that could not be read left standard output empty, against "one envelope however the run ends"."""
    code, out, err = call(argv)
    assert code == 2 and json.loads(out) == {"ok": False, "error": error}
    assert err == f"context-budget: {error}\n"


def test_another_modes_input_is_named_for_what_it_is():
    """A relevance input got three lines of unknown and missing keys in mode blocks."""
    message = ("compose needs an input in mode blocks; this is a valid relevance input "
               "(check it with `context-budget check`; see examples/refund-case.json for compose)")
    code, out, err = call(["compose", str(ROOT / "examples" / "relevance.json")])
    assert (code, out, err) == (1, "", f"context-budget: {message}\n")
    code, out, _ = call(["compose", str(ROOT / "examples" / "relevance.json"), "--json"])
    assert code == 1 and json.loads(out) == {"ok": False, "error": message}


def test_an_input_without_a_window_uses_the_defaults(tmp_path):
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    del data["window"]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    code, out, err = call(["compose", str(path)], {"CONTEXT_BUDGET_CONTEXT_TOKENS": "1200"})
    assert "available 680 = context 1200 - reserved output 300 - fixed prompt 220" in out, err


def test_an_exact_count_is_not_shown_as_approximate(tmp_path):
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    path = tmp_path / "exact.json"
    path.write_text(json.dumps({**data, "tokenizer": "o200k_base"}))
    code, out, _ = call(["compose", str(path)])
    assert code == 0 and "rendered prompt 578 tokens (349 of them" in out and "~" not in out.split("=== Packing report ===")[1]


def test_a_prompt_that_overflows_the_window_exits_1():
    code, out, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_CONTEXT_TOKENS": "850"})
    assert code == 1
    assert "FAIL rendered prompt fits window" in out
    assert "rendered prompt fits window" in err


def test_a_window_without_budget_is_a_settings_error():
    code, _, err = call(["compose", EXAMPLE], {"CONTEXT_BUDGET_RESERVED_OUTPUT_TOKENS": "1000"})
    assert code == 2 and "no context budget" in err and "raise context_tokens" in err


def test_compose_reports_invalid_blocks_with_paths(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"mode": "blocks", "blocks": [{"id": "x"}]}))
    code, out, err = call(["compose", str(path)])
    assert code == 1 and out == ""
    assert "$.blocks[0]: missing required key" in err


# ---------------------------------------------------------------- the model call

class ChatServer(http.server.BaseHTTPRequestHandler):
    behaviour = "answer"
    received = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatServer.received.append((self.path, self.headers.get("Authorization"), body))
        if self.behaviour == "slow":
            time.sleep(2)
        if self.behaviour == "error":
            self._reply(500, b'{"error": "model not loaded"}')
        elif self.behaviour == "garbage":
            self._reply(200, b"<html>not json</html>")
        else:
            answer = "<think>The customer is first-time.<think>nested</think> still thinking</think>Full refund, no return shipping. [REFUND_POLICY]"
            self._reply(200, json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode())

    def _reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def chat_server():
    servers = []

    def start(behaviour):
        handler = type("Handler", (ChatServer,), {"behaviour": behaviour})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    ChatServer.received = []
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def model_env(base_url, **extra):
    return {"CONTEXT_BUDGET_BASE_URL": base_url, "CONTEXT_BUDGET_API_KEY": "sk-test", "CONTEXT_BUDGET_MODEL": "local-model", **extra}


def test_model_answer_is_printed_without_think_sections(chat_server):
    code, out, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), CONTEXT_BUDGET_TEMPERATURE="0.2"))
    assert code == 0, err
    assert out.endswith("=== Model answer (local-model) ===\nFull refund, no return shipping. [REFUND_POLICY]\n")
    path, authorization, body = ChatServer.received[0]
    assert path == "/v1/chat/completions" and authorization == "Bearer sk-test"
    assert body["model"] == "local-model" and body["temperature"] == 0.2
    assert body["messages"][0]["content"].startswith("System:\nYou are a refund")


def test_the_model_is_not_called_by_default(chat_server):
    code, out, _ = call(["compose", EXAMPLE], model_env(chat_server("answer")))
    assert code == 0 and "Model answer" not in out and ChatServer.received == []


def test_the_model_is_not_called_when_required_blocks_overflow(chat_server):
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), CONTEXT_BUDGET_FIXED_PROMPT_TOKENS="820"))
    assert code == 1 and ChatServer.received == []
    assert err.endswith("context-budget: the model was not called: the prompt did not pass its checks\n")  # it said nothing of it


def test_the_model_is_not_called_when_a_check_fails_and_says_so(chat_server):
    """The README's 850-token window: the rendered prompt does not fit, so no call, and stderr says so."""
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), CONTEXT_BUDGET_CONTEXT_TOKENS="850"))
    assert code == 1 and ChatServer.received == []
    assert "But a check failed: rendered prompt fits window." in err and err.endswith("the model was not called: the prompt did not pass its checks\n")
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer")))
    assert code == 0 and "not called" not in err


def test_the_model_is_not_called_on_an_invalid_input_and_the_reason_is_the_input(chat_server, tmp_path):
    """An invalid input has no prompt: the line after its errors says so, not that a prompt failed its checks."""
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["blocks"][0]["priority"] = "high"
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, out, err = call(["compose", str(tmp_path / "input.json"), "--call-model"], model_env(chat_server("answer")))
    assert code == 1 and out == "" and ChatServer.received == []
    lines = err.splitlines()
    assert lines[1].startswith("  $.blocks[0].priority: ")
    assert lines[-1] == "context-budget: the model was not called: the input is not valid"
    assert "did not pass its checks" not in err


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    "behaviour, message",
    [
        ("down", "cannot reach http://127.0.0.1:"),
        ("slow", "did not answer within 0.5 s"),
        ("garbage", "did not answer with an OpenAI-style chat completion"),
        ("error", 'answered HTTP 500: {"error": "model not loaded"}'),
    ],
)
def test_model_failures_are_one_line_errors(chat_server, behaviour, message):
    base_url = f"http://127.0.0.1:{free_port()}/v1" if behaviour == "down" else chat_server(behaviour)
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(base_url, CONTEXT_BUDGET_TIMEOUT_SECONDS="0.5"))
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("context-budget: model call failed: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "text, expected",
    [
        ("plain answer", "plain answer"),
        ("<think>reasoning</think>answer", "answer"),
        ("a<think>x<think>y</think>z</think>b", "ab"),
        ("answer<think>never closed", "answer"),
        ("reasoning without an opening tag</think>answer", "answer"),
        ("<think></think>\n\n  answer  ", "answer"),
        ("one</think>two<think>three</think>four", "twofour"),
    ],
)
def test_strip_think(text, expected):
    assert _chat.strip_think(text) == expected


def test_compose_json_always_writes_an_envelope_whose_error_names_the_first_problem(tmp_path):
    """--json gave the bare summary for invalid blocks, and nothing at all on stdout for
    text that is not JSON or not a blocks object."""
    cases = [
        ('{"blocks": [{"id": "a"}]}', 'Each block needs id, source, content, priority 0..100 and observed_at with an offset. $.blocks[0]: missing required key "source"', None),
        ('{"blocks": [', "input ", (1, 13)),
        ("[1]", "compose needs a JSON object in mode blocks (see examples/refund-case.json)", None),
    ]
    for text, error, position in cases:
        path = tmp_path / "input.json"
        path.write_text(text)
        code, out, err = call(["compose", str(path), "--json"])
        envelope = json.loads(out)
        assert code == 1 and envelope["ok"] is False and envelope["error"].startswith(error), envelope
        assert err == ("" if text.startswith("{\"blocks\": [{") else f"context-budget: {envelope['error']}\n")
        if position:
            assert (envelope["line"], envelope["column"]) == position


def test_compose_json_settles_every_ending_in_one_envelope(tmp_path, chat_server):
    """Bad settings and a --config that is not JSON left stdout empty, and --call-model
    appended the answer as text after the JSON."""
    code, out, err = call(["compose", EXAMPLE, "--json"], {"CONTEXT_BUDGET_TEMPERATURE": "hot", "CONTEXT_BUDGET_TIMEOUT_SECONDS": "0"})
    assert code == 2 and json.loads(out) == {"ok": False, "error": 'settings: CONTEXT_BUDGET_TEMPERATURE: expected a number from 0 to 2, got "hot"; '
                                             'CONTEXT_BUDGET_TIMEOUT_SECONDS: expected a number from 0.001 to 3600, got "0"'}
    assert err.count("\n") == 2
    config = tmp_path / "settings.json"
    config.write_text("{nope")
    code, out, err = call(["compose", EXAMPLE, "--json", "--config", str(config)])
    assert code == 2 and json.loads(out)["ok"] is False and json.loads(out)["error"].startswith(f"config {config}: invalid JSON")
    code, out, err = call(["compose", EXAMPLE, "--json", "--call-model"], model_env(chat_server("answer")))
    envelope = json.loads(out)  # the whole of stdout is one JSON value
    assert code == 0 and err == "" and envelope["answer"] == "Full refund, no return shipping. [REFUND_POLICY]"
    assert envelope["ok"] is True and envelope["result"]["pass"] is True
    code, out, err = call(["compose", EXAMPLE, "--json", "--call-model"], {"CONTEXT_BUDGET_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"})
    envelope = json.loads(out)
    assert code == 1 and envelope["error"].startswith("model call failed: cannot reach") and "result" in envelope
