"""`fitproof compose`: settings layers, required overflow, and the optional model call
against real HTTP servers on 127.0.0.1 (one that answers, one that is down, one too slow, one
that answers garbage, and the misbehaving ones of _fake_model): no key is shown, no call hangs."""

import http.server
import io
import json
import os
import re
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from _fake_model import FakeModels
from conftest import ROOT
from fitproof.cli import _chat, _settings
from fitproof.cli import _settings
from fitproof.cli import run
from cli_calls import call_cli as call_secrets, one_line_error


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
    code, out, _ = call(["compose", EXAMPLE, "--config", str(config), "--json"], {"FITPROOF_FIXED_PROMPT_TOKENS": "450"})
    report = json.loads(out)["result"]
    assert report["available"] == 150
    assert [entry["id"] for entry in report["excluded"]] == ["ORDER_DATA", "OPERATIONS_PLAYBOOK"]


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


@pytest.mark.parametrize("key, fixed, broken", [("context_tokens", 874, 873), ("reserved_output_tokens", 276, 277), ("fixed_prompt_tokens", 446, 447)])
def test_each_advised_window_number_is_exactly_enough(key, fixed, broken):
    from fitproof import evaluate

    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    window = {"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 470}
    assert evaluate({**document, "window": {**window, key: fixed}})["can_proceed"] is True
    assert evaluate({**document, "window": {**window, key: broken}})["can_proceed"] is False


def test_advice_says_when_one_number_alone_cannot_free_enough():
    code, _, err = call(["compose", EXAMPLE], {"FITPROOF_CONTEXT_TOKENS": "500", "FITPROOF_RESERVED_OUTPUT_TOKENS": "10", "FITPROOF_FIXED_PROMPT_TOKENS": "460"})
    # 500 - 10 - 460 = 30 for 104 tokens of required blocks: 74 short, more than the 10 reserved.
    assert code == 1
    assert "lower reserved_output_tokens (now 10; it alone cannot free 74)" in err
    assert "lower fixed_prompt_tokens from 460 to at most 386" in err


def test_advice_never_names_a_context_past_the_largest_setting():
    """At context_tokens 2^53-1 the advice once said to raise it to 2^53+3, which is refused."""
    top = 2**53 - 1
    code, _, err = call(["compose", EXAMPLE], {"FITPROOF_CONTEXT_TOKENS": str(top), "FITPROOF_RESERVED_OUTPUT_TOKENS": str(top - 600),
                                               "FITPROOF_FIXED_PROMPT_TOKENS": "500"})
    assert code == 1
    assert f"raise context_tokens (now {top}; it alone cannot free 4 within 2^53-1)" in err
    assert f"lower reserved_output_tokens from {top - 600} to at most {top - 604}" in err


def test_settings_are_validated_before_anything_runs(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"context_token": 10, "base_url": "localhost:1234"}))
    code, out, err = call(["compose", EXAMPLE, "--config", str(config), "--call-model"], {"FITPROOF_TEMPERATURE": "hot"})
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert any('unknown setting "context_token"' in line for line in lines)
    assert any("config: base_url: expected an http:// or https:// URL" in line for line in lines)
    assert any('FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "hot"' in line for line in lines)


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
    assert err.startswith(f"fitproof: settings: {expected}"), err


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
    assert err.startswith(f"fitproof: settings: {expected}"), err


def test_environment_variables_are_read_as_the_numbers_and_flags_they_spell(tmp_path):
    environ = {"FITPROOF_CONTEXT_TOKENS": " 1200 ", "FITPROOF_TEMPERATURE": "0.5", "FITPROOF_CALL_MODEL": "No",
               "FITPROOF_TIMEOUT_SECONDS": "1e1"}
    settings = _settings.effective_settings({}, None, environ)
    assert (settings["context_tokens"], settings["temperature"], settings["call_model"], settings["timeout_seconds"]) == (1200, 0.5, False, 10.0)
    code, out, err = call(["compose", EXAMPLE], {"FITPROOF_TEMPERATURE": "1e400", "FITPROOF_CONTEXT_TOKENS": "1_000"})
    assert code == 2
    assert 'FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "1e400"' in err  # as written, not as inf
    assert 'FITPROOF_CONTEXT_TOKENS: expected an integer from 0 to 2^53-1, got "1_000"' in err


@pytest.mark.parametrize("name, expected", [
    ("FITPROOF_CONTEXT_TOKEN", "FITPROOF_CONTEXT_TOKEN: no such setting (did you mean FITPROOF_CONTEXT_TOKENS?)"),
    ("FITPROOF_context_tokens", "FITPROOF_context_tokens: no such setting (did you mean FITPROOF_CONTEXT_TOKENS?)"),
    ("FITPROOF_FOO", "FITPROOF_FOO: no such setting (known: FITPROOF_<CONTEXT_TOKENS|RESERVED_OUTPUT_TOKENS|"),
])
def test_a_misspelt_environment_variable_is_a_settings_error(name, expected):
    """It once left the setting at its default without a word; the project's other variables are no error."""
    code, out, err = call(["compose", EXAMPLE], {name: "2000", "FITPROOF_TOKENIZER_DATA": "/nowhere", "FITPROOF_CHROMIUM": "x"})
    assert code == 2 and out == ""
    assert err.startswith(f"fitproof: settings: {expected}"), err
    assert err.count("\n") == 1  # the other two variables are the project's


def test_an_empty_config_name_is_refused_not_skipped():
    """``--config "$UNSET"`` once ran with the defaults as if no config had been asked for."""
    assert call(["compose", EXAMPLE, "--config", ""]) == (2, "", "fitproof: compose --config needs a file name, got an empty one\n")
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
    assert err == f"fitproof: {error}\n"


def test_another_modes_input_is_named_for_what_it_is():
    """A relevance input got three lines of unknown and missing keys in mode blocks."""
    message = ("compose needs an input in mode blocks; this is a valid relevance input "
               "(check it with `fitproof check`; see examples/refund-case.json for compose)")
    code, out, err = call(["compose", str(ROOT / "examples" / "relevance.json")])
    assert (code, out, err) == (1, "", f"fitproof: {message}\n")
    code, out, _ = call(["compose", str(ROOT / "examples" / "relevance.json"), "--json"])
    assert code == 1 and json.loads(out) == {"ok": False, "error": message}


def test_an_input_without_a_window_uses_the_defaults(tmp_path):
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    del data["window"]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    code, out, err = call(["compose", str(path)], {"FITPROOF_CONTEXT_TOKENS": "1200"})
    assert "available 680 = context 1200 - reserved output 300 - fixed prompt 220" in out, err


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


def test_a_window_without_budget_is_a_settings_error():
    code, _, err = call(["compose", EXAMPLE], {"FITPROOF_RESERVED_OUTPUT_TOKENS": "1000"})
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
    released = threading.Event()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatServer.received.append((self.path, self.headers.get("Authorization"), body))
        if self.behaviour == "slow":  # no answer before the test ends (or a minute): only the client's deadline ends the call
            ChatServer.released.wait(60)
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
    ChatServer.released.clear()
    yield start
    ChatServer.released.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def model_env(base_url, **extra):
    return {"FITPROOF_BASE_URL": base_url, "FITPROOF_API_KEY": "sk-test", "FITPROOF_MODEL": "local-model", **extra}


def test_model_answer_is_printed_without_think_sections(chat_server):
    code, out, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), FITPROOF_TEMPERATURE="0.2"))
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
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), FITPROOF_FIXED_PROMPT_TOKENS="820"))
    assert code == 1 and ChatServer.received == []
    first, *details = err.splitlines()
    assert first.startswith("fitproof: budgeting failed: ") and first.endswith(" short (the model was not called: the prompt did not pass its checks).")
    assert all(line.startswith("  ") for line in details)  # one message: the rest are its details


def test_the_model_is_not_called_when_a_check_fails_and_says_so(chat_server):
    """The README's 850-token window: the rendered prompt does not fit, so no call, and stderr says so."""
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), FITPROOF_CONTEXT_TOKENS="850"))
    assert code == 1 and ChatServer.received == []
    assert err.count("\n") == 1 and err.endswith("But a check failed: rendered prompt fits window. (the model was not called: the prompt did not pass its checks)\n")
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer")))
    assert code == 0 and "not called" not in err


def test_the_model_is_not_called_on_an_invalid_input_and_the_reason_is_the_input(chat_server, tmp_path):
    """An invalid input has no prompt: its one message says so, not that a prompt failed its checks."""
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["blocks"][0]["priority"] = "high"
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, out, err = call(["compose", str(tmp_path / "input.json"), "--call-model"], model_env(chat_server("answer")))
    assert code == 1 and out == "" and ChatServer.received == []
    lines = err.splitlines()
    assert lines[0].startswith("fitproof: ") and lines[0].endswith(" (the model was not called: the input is not valid)")
    assert lines[1].startswith("  $.blocks[0].priority: ") and all(line.startswith("  ") for line in lines[1:])
    assert "did not pass its checks" not in err


def test_a_failing_claim_with_call_model_is_one_message(chat_server, tmp_path):
    """A claim that fails makes the report fail: one line says so and that the model was not called."""
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["claim"] = {"included": []}
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, _, err = call(["compose", str(tmp_path / "input.json"), "--call-model"], model_env(chat_server("answer")))
    assert code == 1 and ChatServer.received == []
    assert err.count("\n") == 1 and err.startswith("fitproof: The claim fails: ") and err.endswith("(the model was not called: the prompt did not pass its checks)\n")


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
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(base_url, FITPROOF_TIMEOUT_SECONDS="0.5"))
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("fitproof: model call failed: ") and message in err
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
        assert err == ("" if text.startswith("{\"blocks\": [{") else f"fitproof: {envelope['error']}\n")
        if position:
            assert (envelope["line"], envelope["column"]) == position


def test_compose_json_settles_every_ending_in_one_envelope(tmp_path, chat_server):
    """Bad settings and a --config that is not JSON left stdout empty, and --call-model
    appended the answer as text after the JSON."""
    code, out, err = call(["compose", EXAMPLE, "--json"], {"FITPROOF_TEMPERATURE": "hot", "FITPROOF_TIMEOUT_SECONDS": "0"})
    assert code == 2 and json.loads(out) == {"ok": False, "error": 'settings: FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "hot"; '
                                             'FITPROOF_TIMEOUT_SECONDS: expected a number from 0.001 to 3600, got "0"'}
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


SECRET = "sk-live-7f3a9c1e5b2d4f60"


@pytest.fixture
def models():
    fakes = FakeModels()
    yield fakes
    fakes.close()


def model_env_secrets(base_url, **extra):
    return {"FITPROOF_BASE_URL": base_url, "FITPROOF_API_KEY": SECRET, "FITPROOF_TIMEOUT_SECONDS": "5", **extra}


def compose(environ):
    return call_secrets(["compose", EXAMPLE, "--call-model"], environ=environ)


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(models):
    # A redirect is not followed: the Authorization header goes to no other host, and its answer is not printed.
    other_url, other_received = models.start("answer")
    url, received = models.start("redirect", redirect_to=other_url + "/chat/completions")
    code, out, err = compose(model_env_secrets(url))
    assert code == 1 and one_line_error(err) and "redirect" in err and "not followed" in err
    assert received == [("/v1/chat/completions", f"Bearer {SECRET}")] and other_received == []
    assert "Full refund" not in out


@pytest.mark.parametrize("key", [SECRET + "\r\nX-Injected: 1", SECRET + "\n", "sk-ключ-" + SECRET, SECRET + " x", ""])
def test_a_key_that_cannot_be_a_header_is_a_settings_error_that_does_not_echo_it(models, key):
    # A key with CR/LF or outside Latin-1 is refused in one line, never in a traceback that would print it.
    url, received = models.start("answer")
    code, out, err = compose(model_env_secrets(url, FITPROOF_API_KEY=key))
    assert code == 2 and "FITPROOF_API_KEY" in err and "Traceback" not in err
    assert SECRET not in err and SECRET not in out and received == []


def test_a_password_in_the_base_url_is_refused_without_printing_it(models):
    url, received = models.start("answer")
    code, _, err = compose(model_env_secrets(url.replace("http://", "http://admin:hunter2pass@")))
    assert code == 2 and one_line_error(err) and "hunter2pass" not in err and "***@127.0.0.1" in err and received == []


@pytest.mark.parametrize("behaviour", ["echo-500", "echo-garbage", "echo-answer"])
def test_a_server_that_echoes_the_key_does_not_get_it_onto_the_terminal(models, behaviour):
    url, _ = models.start(behaviour)
    code, out, err = compose(model_env_secrets(url))
    assert SECRET not in out and SECRET not in err
    assert "[redacted]" in out + err and "Traceback" not in err
    if behaviour != "echo-answer":
        assert code == 1 and one_line_error(err)


def test_an_echoed_key_cut_at_the_edge_of_what_is_shown_is_still_redacted(models):
    key = "sk-" + "k" * 3000
    url, _ = models.start("echo-garbage")
    code, _, err = compose(model_env_secrets(url, FITPROOF_API_KEY=key))
    assert code == 1 and "kkkkkkkk" not in err


# A key as some providers write them: base64-like characters, long.
ODD_KEY = "sk-proj-AbC/+=Xy9_8765&<zQ-" + "Ab1_" * 20 + "TAIL"


def leaked(key: str, text: str) -> list[str]:
    """Every run of 8 characters of the key (in any case) found in ``text``."""
    text = text.lower()
    return [key[start:start + 8] for start in range(len(key) - 7) if key[start:start + 8].lower() in text]


@pytest.mark.parametrize("behaviour", ["echo-cut", "echo-cut-lines", "echo-escaped"])
@pytest.mark.parametrize("key", [SECRET, ODD_KEY])
def test_no_part_of_an_echoed_key_is_shown_however_it_is_written_or_cut(models, behaviour, key):
    """A body cut at 4 KiB through the key must not show the rest of it; a key written with
    escaped slashes, HTML entities or in lower case is redacted too."""
    url, _ = models.start(behaviour)
    code, out, err = compose(model_env_secrets(url, FITPROOF_API_KEY=key))
    assert code == 1 and one_line_error(err) and "answered HTTP 500" in err
    assert leaked(key, out + err) == [], err
    if behaviour != "echo-cut-lines":
        assert "[redacted]" in err


@pytest.mark.parametrize("key", [SECRET, ODD_KEY])
def test_the_start_of_a_key_left_at_the_end_of_a_cut_body_is_redacted(models, key):
    url, _ = models.start("echo-tail")
    code, out, err = compose(model_env_secrets(url, FITPROOF_API_KEY=key))
    assert code == 1 and "answered HTTP 500: [redacted]" in err and key[:4] not in err, err


def test_redaction_keeps_its_place_in_any_text():
    """Spans are found in a text as long as the original: "İ" lowers to two characters with
    str.lower(), so each one before the key would move the redaction right, and forty let it out."""
    from fitproof.cli._secrets import redact as _redact

    key = "sk-proj-Q7ahZk3LmN9pXyZw12345abc"
    assert _redact("İ" * 40 + " " + key + " tail", [key]) == "İ" * 40 + " [redacted] tail"
    assert _redact(f"a {key.upper()} b {key[3:20]} c", [key]) == "a [redacted] b [redacted] c"
    assert _redact("error: " + key[:6], [key], cut=True) == "error: [redacted]"
    assert _redact("error: " + key[:6], [key]) == "error: " + key[:6]  # not cut: 6 characters are not the key
    assert _redact("nothing here", [key]) == "nothing here" and _redact("any", []) == "any"
    assert _redact("ab" * 100 + "!", ["ab" * 12]) == "[redacted]!"  # a periodic key: covered end to end


@pytest.mark.parametrize("setting, value", [
    ("FITPROOF_BASE_URL", "https://x.openai.azure.com/v1?api-key={key}"),
    ("FITPROOF_BASE_URL", "http://admin:{key}?x@host/v1"),
    ("FITPROOF_TEMPERATURE", "Bearer {key}"),
    ("FITPROOF_TEMPERATURE", "{key}"),
    ("FITPROOF_CONTEXT_TOKENS", "{key}"),
    # a key pasted into the URL itself (with api_key unset, a plain key is described: the test below)
    ("FITPROOF_BASE_URL", "http://127.0.0.1:99999/{key}"),
    ("FITPROOF_BASE_URL", "{key}.example.com"),
    ("FITPROOF_BASE_URL", "http://[{key}]/v1"),
])
def test_a_key_cut_short_in_a_settings_message_is_still_redacted(setting, value):
    """Values are cut to 60 characters before they are shown: the cut key must still be
    redacted; a key in a URL's query is hidden even with api_key unset."""
    in_the_url = setting == "FITPROOF_BASE_URL" and "?" not in value
    for environ in ({"FITPROOF_API_KEY": ODD_KEY}, *([] if in_the_url else [{}])):
        code, out, err = call_secrets(["compose", EXAMPLE], environ={**environ, setting: value.format(key=ODD_KEY)})
        assert code == 2 and one_line_error(err) and leaked(ODD_KEY, out + err) == [], err
        if setting == "FITPROOF_BASE_URL" and "?" in value:
            assert 'got "https://x.openai.azure.com/v1?***"' in err or 'got "http://***@host/v1"' in err


def test_a_key_like_run_in_a_url_is_described_but_a_long_host_name_is_shown():
    for key in ("sk-test-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "Ab3" * 10, "0123456789abcdef" * 2):
        code, _, err = call_secrets(["compose", EXAMPLE], environ={"FITPROOF_BASE_URL": f"http://x:99999/{key}"})
        assert code == 2 and key not in err and f"<{len(key)} characters: may be a key>" in err, err
    host = "http://my-resource-name-eastus.openai.azure.com:0/v1"
    code, _, err = call_secrets(["compose", EXAMPLE], environ={"FITPROOF_BASE_URL": host})
    assert code == 2 and f'got "{host}"' in err  # a long lower-case label is a host, shown as typed


def test_a_key_like_run_in_the_url_stays_hidden_in_model_call_errors_and_a_placeholder_key_hides_nothing():
    run_in_path = "AbCdEfGhIjKlMnOpQrStUvWx0123"
    code, out, err = call_secrets(["compose", EXAMPLE, "--call-model", "--json"], environ={"FITPROOF_BASE_URL": f"http://127.0.0.1:9/v1/{run_in_path}"})
    assert code == 1 and run_in_path not in out + err and "cannot reach http://127.0.0.1:9/v1/<28 characters: may be a key>/chat/completions" in err, err
    # "ollama" or "local" as api_key is a placeholder: it once cut words out of the address ("[redacted]host")
    code, _, err = call_secrets(["compose", EXAMPLE, "--call-model"], environ={"FITPROOF_BASE_URL": "http://localhost:9/v1", "FITPROOF_API_KEY": "local"})
    assert code == 1 and "cannot reach http://localhost:9/v1/chat/completions" in err and "[redacted]" not in err, err


def test_names_of_settings_and_variables_are_shown_unless_they_hold_a_key(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"reserved_output_token": 1}))
    code, _, err = call_secrets(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and 'config: unknown setting "reserved_output_token" (did you mean "reserved_output_tokens"?)' in err, err
    name = "FITPROOF_API_KEYsk_proj_AbCdEf0123456789xyzXYZ"
    code, _, err = call_secrets(["compose", EXAMPLE], environ={name: "1"})
    assert code == 2 and "AbCdEf0123" not in err and "FITPROOF_<37 characters: may be a key>: no such setting" in err, err


def test_an_unknown_config_key_that_may_be_a_key_is_not_shown(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({ODD_KEY: 1}))
    code, out, err = call_secrets(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and leaked(ODD_KEY, out + err) == [] and "config: unknown setting a text of" in err, err


def test_the_timeout_bounds_the_whole_call_not_each_read(models):
    # A byte every 0.1 s keeps every single read inside its timeout: only a deadline for the whole call ends it.
    # The server never ends the answer before the test does (or a minute has passed, when the
    # client, without a deadline, would report the connection cut): only the deadline can end it.
    url, received = models.start("drip")
    code, _, err = compose(model_env_secrets(url, FITPROOF_TIMEOUT_SECONDS="1"))
    assert code == 1 and one_line_error(err) and "did not answer within 1 s" in err, err
    assert len(received) == 1


@pytest.mark.parametrize("behaviour", ["huge", "huge-undeclared"])
def test_an_answer_over_10_mb_is_refused(models, behaviour):
    url, _ = models.start(behaviour)
    code, _, err = compose(model_env_secrets(url, FITPROOF_TIMEOUT_SECONDS="30"))
    assert code == 1 and one_line_error(err) and "more than the 10,485,760" in err


def test_a_deeply_nested_answer_is_an_error_not_a_recursion_error(models):
    url, _ = models.start("nested")
    code, _, err = compose(model_env_secrets(url))
    assert code == 1 and one_line_error(err) and "nested too deeply" in err


def test_control_characters_from_the_server_never_reach_the_terminal(models):
    url, _ = models.start("escapes")
    code, out, err = compose(model_env_secrets(url))
    assert code == 0, err
    answer = out.split("=== Model answer", 1)[1]
    assert "\x1b" not in answer and "\x07" not in answer and "\x9b" not in answer and "\r" not in answer
    assert answer.endswith("Full refund.\nSecond line\tend\n")
    # whole sequences go, not only their control characters ("[2J", "[1;31m" and the title once stayed)
    assert answer.split("\n", 1)[1] == "Full refund.\nSecond line\tend\n", answer
    url, _ = models.start("error-escapes")
    code, _, err = compose(model_env_secrets(url))
    assert code == 1 and one_line_error(err) and "\x1b" not in err and "\r" not in err and "overloaded" in err


@pytest.mark.parametrize(
    "name, value",
    [
        ("CONTEXT_TOKENS", "²"), ("CONTEXT_TOKENS", "①"), ("CONTEXT_TOKENS", "٣٠٠٠"), ("CONTEXT_TOKENS", "1_000"),
        ("CONTEXT_TOKENS", "３０００"), ("CONTEXT_TOKENS", "9" * 5000), ("TEMPERATURE", "٠.٥"), ("TEMPERATURE", "0_1"),
        ("TIMEOUT_SECONDS", "１"), ("BASE_URL", "http://[::1"), ("BASE_URL", "http://例え.jp/v1"),
        ("BASE_URL", "http://localhost:99999/v1"), ("BASE_URL", "http://localhost:port/v1"), ("BASE_URL", "http:///v1"),
        ("BASE_URL", "http://localhost/v1?x=1"), ("BASE_URL", "http://local host/v1"), ("BASE_URL", "http://localhost:0/v1"),
    ],
)
def test_settings_take_ascii_numbers_and_whole_urls_only(name, value):
    code, out, err = call_secrets(["compose", EXAMPLE], environ={f"FITPROOF_{name}": value})
    assert code == 2 and out == "" and one_line_error(err) and f"FITPROOF_{name}" in err, err


def test_ascii_numbers_and_ipv6_urls_still_work():
    settings = _settings.effective_settings(_settings.NO_WINDOW, None, {
        "FITPROOF_CONTEXT_TOKENS": " 1200 ", "FITPROOF_TEMPERATURE": "0.5", "FITPROOF_BASE_URL": "http://[::1]:1234/v1/",
    })
    assert settings["context_tokens"] == 1200 and settings["temperature"] == 0.5 and settings["base_url"] == "http://[::1]:1234/v1"


def test_compose_prints_a_report_whose_costs_were_counted_exactly(tmp_path):
    # A blocks input with a tokenizer has no sensitivity margin: the report is still printed, no KeyError.
    document = json.loads((ROOT / "fixtures" / "blocks" / "tokenizer-refund-counted-exactly.json").read_text())["input"]
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, out, err = call_secrets(["compose", str(tmp_path / "input.json")])
    assert code in (0, 1) and "Traceback" not in err and "costs counted exactly (o200k_base)" in out


CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")


DOCUMENTED_EXIT_CODES = {int(code) for code in re.findall(r"^\| ([0-9]+) \| ", CONTRACT, re.M)}


# What a run that nobody interrupted may end with: 130 is Ctrl+C's.
RUN_EXIT_CODES = DOCUMENTED_EXIT_CODES - {130}


EXAMPLE_fuzz = (ROOT / "examples" / "refund-case.json").read_bytes()


SECRET_fuzz = "sk-fuzz-3b8e0c7d1a9f"


# A port nothing listens on (discard): a model call there is refused at once, on loopback.
CLOSED_PORT_URL = "http://127.0.0.1:9/v1"


FUZZ = settings(max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


SETTING_VALUES = st.one_of(
    st.sampled_from(["", "0", "850", "²", "①", "٣٠٠٠", "1_000", "1e3", "nan", "-1", "0.5", "true", "yes", "maybe", "9" * 5000,
                     "http://[::1", "http://例え.jp/v1", "http://u:pw@127.0.0.1:9/v1", "ftp://x", "http://", CLOSED_PORT_URL,
                     SECRET_fuzz + "\r\nX: 1", "ключ", "\x1b[2J"]),
    st.text(max_size=20).filter(lambda text: "\x00" not in text),
)


SETTING_NAMES = ["CONTEXT_TOKENS", "RESERVED_OUTPUT_TOKENS", "FIXED_PROMPT_TOKENS", "BASE_URL", "API_KEY", "MODEL",
                 "TEMPERATURE", "CALL_MODEL", "TIMEOUT_SECONDS"]


def _message_lines(err: str) -> list[str]:
    """stderr's message lines: argparse's usage line and indented details of a message are not messages of their own."""
    return [line for line in err.splitlines() if line and not line.startswith((" ", "usage:"))]


COUNT_SETTINGS = ("CONTEXT_TOKENS", "RESERVED_OUTPUT_TOKENS", "FIXED_PROMPT_TOKENS")


@FUZZ
@given(
    st.dictionaries(st.sampled_from(SETTING_NAMES), SETTING_VALUES, max_size=5),
    st.sampled_from([[], ["--json"], ["--call-model"]]),
)
def test_compose_settings_are_ascii_numbers_whole_urls_and_unechoed_keys(settings_values, options):
    environ = {"FITPROOF_" + name: value for name, value in settings_values.items()}
    if "BASE_URL" in settings_values and not settings_values["BASE_URL"].startswith(("http://u:pw@", "http://[::1", "ftp:", "http:///")):
        environ["FITPROOF_BASE_URL"] = CLOSED_PORT_URL  # never another host
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "input.json").write_bytes(EXAMPLE_fuzz)
        stdout, stderr = io.StringIO(), io.StringIO()
        code = run(["compose", str(Path(work) / "input.json"), *options], io.BytesIO(), stdout, stderr, environ)
    out, err = stdout.getvalue(), stderr.getvalue()
    assert code in RUN_EXIT_CODES and "Traceback" not in err
    assert "pw@" not in out + err and "\x1b" not in out + err
    key = settings_values.get("API_KEY", "")
    if len(key) >= 8 and list(settings_values.values()).count(key) == 1:
        assert key not in out + err and json.dumps(key)[1:-1] not in out + err
    # The oracle: a count written with anything but ASCII digits (and blanks around them) is refused.
    for name in COUNT_SETTINGS:
        value = settings_values.get(name)
        if value is not None and not re.fullmatch(r"[ \t\n\r]*[0-9]+[ \t\n\r]*", value):
            assert code == 2 and f"FITPROOF_{name}" in err, (name, value, err)
    if code == 2:
        assert all(line.startswith("fitproof: settings: ") for line in err.splitlines()), err


@pytest.fixture(scope="module")
def models_fuzz():
    fakes = FakeModels()
    yield fakes
    fakes.close()


@pytest.mark.parametrize("behaviour, code, words", [
    ("answer", 0, "Full refund."),
    ("redirect", 1, "not followed"),
    ("drip", 1, "did not answer within 1 s"),
    ("garbage", 1, "OpenAI-style"),
    ("huge", 1, "10,485,760"),
    ("huge-undeclared", 1, "10,485,760"),
    ("echo-500", 1, "HTTP 500"),
    ("echo-garbage", 1, "[redacted]"),
    ("echo-answer", 0, "[redacted]"),
    ("nested", 1, "nested too deeply"),
    ("escapes", 0, "Full refund."),
    ("silent", 1, "did not answer within 1 s"),
    ("header-drip", 1, "did not answer within 1 s"),
    ("bad-chunks", 1, "failed"),
    ("error-escapes", 1, "HTTP 503"),
])
def test_every_model_server_misbehaviour_is_one_line_and_bounded(models_fuzz, tmp_path, behaviour, code, words):
    target, target_received = models_fuzz.start("answer")
    url, received = models_fuzz.start(behaviour, redirect_to=target + "/chat/completions")
    (tmp_path / "input.json").write_bytes(EXAMPLE_fuzz)
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"FITPROOF_BASE_URL": url, "FITPROOF_API_KEY": SECRET_fuzz, "FITPROOF_TIMEOUT_SECONDS": "1"}
    # Bounded: the slow servers (drip, silent, header-drip) never end the exchange while the test
    # waits, so the call returning with "did not answer within 1 s" is the deadline's doing.
    result = run(["compose", str(tmp_path / "input.json"), "--call-model"], io.BytesIO(), stdout, stderr, environ)
    out, err = stdout.getvalue(), stderr.getvalue()
    assert result == code, err
    assert words in (out if code == 0 else err)
    assert SECRET_fuzz not in out + err and "Traceback" not in err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out + err)
    assert err.count("\n") == (0 if code == 0 else 1)
    assert len(received) == 1 and target_received == []  # one request, never one to another address


def test_the_api_key_is_not_echoed_when_it_lands_in_another_setting(tmp_path):
    """A key pasted into FITPROOF_CONTEXT_TOKENS is not echoed in the settings error (a case the fuzz above found)."""
    source = tmp_path / "input.json"
    source.write_bytes((ROOT / "examples" / "refund-case.json").read_bytes())
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"FITPROOF_API_KEY": SECRET_fuzz, "FITPROOF_CONTEXT_TOKENS": SECRET_fuzz + "\r\nX: 1"}
    assert run(["compose", str(source)], None, stdout, stderr, environ) == 2
    assert SECRET_fuzz not in stderr.getvalue() and ("[redacted]" in stderr.getvalue() or "not shown: it may be a key" in stderr.getvalue())
    assert stderr.getvalue().startswith("fitproof: settings: FITPROOF_CONTEXT_TOKENS: expected an integer")


@pytest.mark.parametrize("content, said", [
    (b"{bad", "invalid JSON: expected an object key in double quotes at line 1 column 2"),
    (b"", "invalid JSON"),
    (b"\xff{}", "input is not valid UTF-8"),
])
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


def test_compose_overflow_advice_is_one_message_with_indented_details(tmp_path):
    """The advice for a required overflow is one message with its details, not three (a case the fuzz above found)."""
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
