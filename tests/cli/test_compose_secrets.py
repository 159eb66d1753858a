"""`fitproof compose`'s API key is never shown (fitproof/cli/_secrets.py): a key that cannot
be an Authorization header, a password in the base URL, a server that echoes the key back
(whole, cut, escaped, in another case), a key pasted into another setting or a setting's
name, key-like runs in a URL described rather than shown; and redact() itself."""

import io
import json

import pytest

from cli_calls import one_line_error
from compose_servers import EXAMPLE, SECRET, call, compose, model_env_secrets
from compose_servers import models  # noqa: F401 (a fixture: pytest finds it by name)
from conftest import ROOT
from fitproof.cli import run


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
    return [key[start : start + 8] for start in range(len(key) - 7) if key[start : start + 8].lower() in text]


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


@pytest.mark.parametrize(
    "setting, value",
    [
        ("FITPROOF_BASE_URL", "https://x.openai.azure.com/v1?api-key={key}"),
        ("FITPROOF_BASE_URL", "http://admin:{key}?x@host/v1"),
        ("FITPROOF_TEMPERATURE", "Bearer {key}"),
        ("FITPROOF_TEMPERATURE", "{key}"),
        ("FITPROOF_CONTEXT_TOKENS", "{key}"),
        # a key pasted into the URL itself (with api_key unset, a plain key is described: the test below)
        ("FITPROOF_BASE_URL", "http://127.0.0.1:99999/{key}"),
        ("FITPROOF_BASE_URL", "{key}.example.com"),
        ("FITPROOF_BASE_URL", "http://[{key}]/v1"),
    ],
)
def test_a_key_cut_short_in_a_settings_message_is_still_redacted(setting, value):
    """Values are cut to 60 characters before they are shown: the cut key must still be
    redacted; a key in a URL's query is hidden even with api_key unset."""
    in_the_url = setting == "FITPROOF_BASE_URL" and "?" not in value
    for environ in ({"FITPROOF_API_KEY": ODD_KEY}, *([] if in_the_url else [{}])):
        code, out, err = call(["compose", EXAMPLE], environ={**environ, setting: value.format(key=ODD_KEY)})
        assert code == 2 and one_line_error(err) and leaked(ODD_KEY, out + err) == [], err
        if setting == "FITPROOF_BASE_URL" and "?" in value:
            assert 'got "https://x.openai.azure.com/v1?***"' in err or 'got "http://***@host/v1"' in err


def test_a_key_like_run_in_a_url_is_described_but_a_long_host_name_is_shown():
    for key in ("sk-test-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "Ab3" * 10, "0123456789abcdef" * 2):
        code, _, err = call(["compose", EXAMPLE], environ={"FITPROOF_BASE_URL": f"http://x:99999/{key}"})
        assert code == 2 and key not in err and f"<{len(key)} characters: may be a key>" in err, err
    host = "http://my-resource-name-eastus.openai.azure.com:0/v1"
    code, _, err = call(["compose", EXAMPLE], environ={"FITPROOF_BASE_URL": host})
    assert code == 2 and f'got "{host}"' in err  # a long lower-case label is a host, shown as typed


def test_a_key_like_run_in_the_url_stays_hidden_in_model_call_errors_and_a_placeholder_key_hides_nothing():
    run_in_path = "AbCdEfGhIjKlMnOpQrStUvWx0123"
    code, out, err = call(
        ["compose", EXAMPLE, "--call-model", "--json"], environ={"FITPROOF_BASE_URL": f"http://127.0.0.1:9/v1/{run_in_path}"}
    )
    assert (
        code == 1
        and run_in_path not in out + err
        and "cannot reach http://127.0.0.1:9/v1/<28 characters: may be a key>/chat/completions" in err
    ), err
    # "ollama" or "local" as api_key is a placeholder: it once cut words out of the address ("[redacted]host")
    code, _, err = call(
        ["compose", EXAMPLE, "--call-model"], environ={"FITPROOF_BASE_URL": "http://localhost:9/v1", "FITPROOF_API_KEY": "local"}
    )
    assert code == 1 and "cannot reach http://localhost:9/v1/chat/completions" in err and "[redacted]" not in err, err


def test_names_of_settings_and_variables_are_shown_unless_they_hold_a_key(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"reserved_output_token": 1}))
    code, _, err = call(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and 'config: unknown setting "reserved_output_token" (did you mean "reserved_output_tokens"?)' in err, err
    name = "FITPROOF_API_KEYsk_proj_AbCdEf0123456789xyzXYZ"
    code, _, err = call(["compose", EXAMPLE], environ={name: "1"})
    assert code == 2 and "AbCdEf0123" not in err and "FITPROOF_<37 characters: may be a key>: no such setting" in err, err


def test_an_unknown_config_key_that_may_be_a_key_is_not_shown(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({ODD_KEY: 1}))
    code, out, err = call(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and leaked(ODD_KEY, out + err) == [] and "config: unknown setting a text of" in err, err


def test_the_api_key_is_not_echoed_when_it_lands_in_another_setting(tmp_path):
    """A key pasted into FITPROOF_CONTEXT_TOKENS is not echoed in the settings error (a case the settings fuzz of test_compose_settings.py found)."""
    source = tmp_path / "input.json"
    source.write_bytes((ROOT / "examples" / "refund-case.json").read_bytes())
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"FITPROOF_API_KEY": SECRET, "FITPROOF_CONTEXT_TOKENS": SECRET + "\r\nX: 1"}
    assert run(["compose", str(source)], None, stdout, stderr, environ) == 2
    assert SECRET not in stderr.getvalue() and ("[redacted]" in stderr.getvalue() or "not shown: it may be a key" in stderr.getvalue())
    assert stderr.getvalue().startswith("fitproof: settings: FITPROOF_CONTEXT_TOKENS: expected an integer")
