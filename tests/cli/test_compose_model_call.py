"""`fitproof compose --call-model` (fitproof/cli/_chat.py): the optional model call over HTTP
against real servers on 127.0.0.1 (compose_servers' ChatServer: one that answers, one that is
down, one too slow, one that answers garbage; and the misbehaving ones of _fake_model), the
<think> sections stripped from the answer, when the model is not called, and every failure
one line, bounded in time, never a traceback: no call hangs."""

import io
import json
import re
from pathlib import Path

import pytest

from cli_calls import one_line_error
from compose_servers import EXAMPLE, SECRET, ChatServer, call, compose, free_port, model_env, model_env_secrets
from compose_servers import chat_server, models  # noqa: F401 (fixtures: pytest finds them by name)
from conftest import ROOT
from fitproof.cli import _chat, run


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
    assert first.startswith("fitproof: budgeting failed: ") and first.endswith(
        " short (the model was not called: the prompt did not pass its checks)."
    )
    assert all(line.startswith("  ") for line in details)  # one message: the rest are its details


def test_the_model_is_not_called_when_a_check_fails_and_says_so(chat_server):
    """The README's 850-token window: the rendered prompt does not fit, so no call, and stderr says so."""
    code, _, err = call(["compose", EXAMPLE, "--call-model"], model_env(chat_server("answer"), FITPROOF_CONTEXT_TOKENS="850"))
    assert code == 1 and ChatServer.received == []
    assert err.count("\n") == 1 and err.endswith(
        "But a check failed: rendered prompt fits window. (the model was not called: the prompt did not pass its checks)\n"
    )
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
    assert (
        err.count("\n") == 1
        and err.startswith("fitproof: The claim fails: ")
        and err.endswith("(the model was not called: the prompt did not pass its checks)\n")
    )


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


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(models):
    # A redirect is not followed: the Authorization header goes to no other host, and its answer is not printed.
    other_url, other_received = models.start("answer")
    url, received = models.start("redirect", redirect_to=other_url + "/chat/completions")
    code, out, err = compose(model_env_secrets(url))
    assert code == 1 and one_line_error(err) and "redirect" in err and "not followed" in err
    assert received == [("/v1/chat/completions", f"Bearer {SECRET}")] and other_received == []
    assert "Full refund" not in out


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
    "behaviour, code, words",
    [
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
    ],
)
def test_every_model_server_misbehaviour_is_one_line_and_bounded(models, tmp_path, behaviour, code, words):
    target, target_received = models.start("answer")
    url, received = models.start(behaviour, redirect_to=target + "/chat/completions")
    (tmp_path / "input.json").write_bytes(Path(EXAMPLE).read_bytes())
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"FITPROOF_BASE_URL": url, "FITPROOF_API_KEY": SECRET, "FITPROOF_TIMEOUT_SECONDS": "1"}
    # Bounded: the slow servers (drip, silent, header-drip) never end the exchange while the test
    # waits, so the call returning with "did not answer within 1 s" is the deadline's doing.
    result = run(["compose", str(tmp_path / "input.json"), "--call-model"], io.BytesIO(), stdout, stderr, environ)
    out, err = stdout.getvalue(), stderr.getvalue()
    assert result == code, err
    assert words in (out if code == 0 else err)
    assert SECRET not in out + err and "Traceback" not in err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out + err)
    assert err.count("\n") == (0 if code == 0 else 1)
    assert len(received) == 1 and target_received == []  # one request, never one to another address
