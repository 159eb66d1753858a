"""`fitproof compose`'s settings (fitproof/cli/_settings.py): the layers (the input's window,
then --config, then FITPROOF_* variables, later wins), the defaults, and their validation:
JSON numbers and flags in the window and the config, ASCII numbers and whole URLs in the
environment, misspelt names, every problem named before anything runs; and a Hypothesis fuzz
of the variables that also holds a key given in one of them unechoed."""

import io
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli_calls import one_line_error, CLOSED_PORT_URL, SETTING_NAMES, setting_values
from compose_servers import EXAMPLE, SECRET, call
from conftest import ROOT
from fitproof.cli import _settings, run


def test_environment_overrides_config_which_overrides_the_input(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"context_tokens": 900, "reserved_output_tokens": 300}))
    code, out, _ = call(["compose", EXAMPLE, "--config", str(config), "--json"])
    assert json.loads(out)["result"]["available"] == 900 - 300 - 220
    code, out, _ = call(["compose", EXAMPLE, "--config", str(config), "--json"], {"FITPROOF_FIXED_PROMPT_TOKENS": "450"})
    report = json.loads(out)["result"]
    assert report["available"] == 150
    assert [entry["id"] for entry in report["excluded"]] == ["ORDER_DATA", "OPERATIONS_PLAYBOOK"]


def test_settings_are_validated_before_anything_runs(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"context_token": 10, "base_url": "localhost:1234"}))
    code, out, err = call(["compose", EXAMPLE, "--config", str(config), "--call-model"], {"FITPROOF_TEMPERATURE": "hot"})
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert any('unknown setting "context_token"' in line for line in lines)
    assert any("config: base_url: expected an http:// or https:// URL" in line for line in lines)
    assert any('FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "hot"' in line for line in lines)


@pytest.mark.parametrize(
    "window, expected",
    [
        (
            {"context_tokns": 1200, "reserved_output_tokens": 300, "fixed_prompt_tokens": 220},
            '$.window.context_tokns: unknown key "context_tokns" (did you mean "context_tokens"?',
        ),
        (
            {"context_tokens": 1200, "reserved_output_tokens": 300, "fixed_prompt_tokens": 220, "extra": 1},
            '$.window.extra: unknown key "extra"',
        ),
        (5, "$.window: expected an object, got a number: 5"),
        (None, "$.window: expected an object, got null"),
    ],
)
def test_the_inputs_window_is_validated_like_any_setting(tmp_path, window, expected):
    """A misspelt window key once left the default (850) in its place without a word."""
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    data["window"] = window
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    code, out, err = call(["compose", str(path)])
    assert code == 2 and out == ""
    assert err.startswith(f"fitproof: settings: {expected}"), err


@pytest.mark.parametrize(
    "window, config, expected",
    [
        (
            {"context_tokens": "1000"},
            None,
            '$.window.context_tokens: expected an integer from 0 to 2^53-1, got "1000" (a JSON text: write the number without quotes)',
        ),
        ({"context_tokens": " 1000 "}, None, "$.window.context_tokens: expected an integer"),
        ({}, {"call_model": "yes"}, 'config: call_model: expected true or false, got "yes" (a JSON text: write true, without quotes)'),
        ({}, {"temperature": "0.5"}, 'config: temperature: expected a number from 0 to 2, got "0.5" (a JSON'),
        ({}, {"fixed_prompt_tokens": "  200\n"}, "config: fixed_prompt_tokens: expected an integer"),
        ({}, {"timeout_seconds": "hot"}, 'config: timeout_seconds: expected a number from 0.001 to 3600, got "hot"'),
    ],
)
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
    environ = {
        "FITPROOF_CONTEXT_TOKENS": " 1200 ",
        "FITPROOF_TEMPERATURE": "0.5",
        "FITPROOF_CALL_MODEL": "No",
        "FITPROOF_TIMEOUT_SECONDS": "1e1",
    }
    settings = _settings.effective_settings({}, None, environ)
    assert (settings["context_tokens"], settings["temperature"], settings["call_model"], settings["timeout_seconds"]) == (
        1200,
        0.5,
        False,
        10.0,
    )
    code, out, err = call(["compose", EXAMPLE], {"FITPROOF_TEMPERATURE": "1e400", "FITPROOF_CONTEXT_TOKENS": "1_000"})
    assert code == 2
    assert 'FITPROOF_TEMPERATURE: expected a number from 0 to 2, got "1e400"' in err  # as written, not as inf
    assert 'FITPROOF_CONTEXT_TOKENS: expected an integer from 0 to 2^53-1, got "1_000"' in err


@pytest.mark.parametrize(
    "name, expected",
    [
        ("FITPROOF_CONTEXT_TOKEN", "FITPROOF_CONTEXT_TOKEN: no such setting (did you mean FITPROOF_CONTEXT_TOKENS?)"),
        ("FITPROOF_context_tokens", "FITPROOF_context_tokens: no such setting (did you mean FITPROOF_CONTEXT_TOKENS?)"),
        ("FITPROOF_FOO", "FITPROOF_FOO: no such setting (known: FITPROOF_<CONTEXT_TOKENS|RESERVED_OUTPUT_TOKENS|"),
    ],
)
def test_a_misspelt_environment_variable_is_a_settings_error(name, expected):
    """It once left the setting at its default without a word; the project's other variables are no error."""
    code, out, err = call(["compose", EXAMPLE], {name: "2000", "FITPROOF_TOKENIZER_DATA": "/nowhere", "FITPROOF_CHROMIUM": "x"})
    assert code == 2 and out == ""
    assert err.startswith(f"fitproof: settings: {expected}"), err
    assert err.count("\n") == 1  # the other two variables are the project's


def test_an_input_without_a_window_uses_the_defaults(tmp_path):
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    del data["window"]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    code, out, err = call(["compose", str(path)], {"FITPROOF_CONTEXT_TOKENS": "1200"})
    assert "available 680 = context 1200 - reserved output 300 - fixed prompt 220" in out, err


def test_a_window_without_budget_is_a_settings_error():
    code, _, err = call(["compose", EXAMPLE], {"FITPROOF_RESERVED_OUTPUT_TOKENS": "1000"})
    assert code == 2 and "no context budget" in err and "raise context_tokens" in err


@pytest.mark.parametrize(
    "name, value",
    [
        ("CONTEXT_TOKENS", "²"),
        ("CONTEXT_TOKENS", "①"),
        ("CONTEXT_TOKENS", "٣٠٠٠"),
        ("CONTEXT_TOKENS", "1_000"),
        ("CONTEXT_TOKENS", "３０００"),
        ("CONTEXT_TOKENS", "9" * 5000),
        ("TEMPERATURE", "٠.٥"),
        ("TEMPERATURE", "0_1"),
        ("TIMEOUT_SECONDS", "１"),
        ("BASE_URL", "http://[::1"),
        ("BASE_URL", "http://例え.jp/v1"),
        ("BASE_URL", "http://localhost:99999/v1"),
        ("BASE_URL", "http://localhost:port/v1"),
        ("BASE_URL", "http:///v1"),
        ("BASE_URL", "http://localhost/v1?x=1"),
        ("BASE_URL", "http://local host/v1"),
        ("BASE_URL", "http://localhost:0/v1"),
    ],
)
def test_settings_take_ascii_numbers_and_whole_urls_only(name, value):
    code, out, err = call(["compose", EXAMPLE], environ={f"FITPROOF_{name}": value})
    assert code == 2 and out == "" and one_line_error(err) and f"FITPROOF_{name}" in err, err


def test_ascii_numbers_and_ipv6_urls_still_work():
    settings = _settings.effective_settings(
        _settings.NO_WINDOW,
        None,
        {
            "FITPROOF_CONTEXT_TOKENS": " 1200 ",
            "FITPROOF_TEMPERATURE": "0.5",
            "FITPROOF_BASE_URL": "http://[::1]:1234/v1/",
        },
    )
    assert settings["context_tokens"] == 1200 and settings["temperature"] == 0.5 and settings["base_url"] == "http://[::1]:1234/v1"


CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")


DOCUMENTED_EXIT_CODES = {int(code) for code in re.findall(r"^\| ([0-9]+) \| ", CONTRACT, re.M)}


# What a run that nobody interrupted may end with: 130 is Ctrl+C's.
RUN_EXIT_CODES = DOCUMENTED_EXIT_CODES - {130}


FUZZ = settings(
    max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


COUNT_SETTINGS = ("CONTEXT_TOKENS", "RESERVED_OUTPUT_TOKENS", "FIXED_PROMPT_TOKENS")


SETTING_VALUES = setting_values(SECRET)


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
        (Path(work) / "input.json").write_bytes(Path(EXAMPLE).read_bytes())
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
