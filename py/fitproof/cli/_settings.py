"""The compose command's settings, layered and validated before anything runs.

Later layers win: the defaults, the input's ``window``, a JSON config file, and environment
variables named ``FITPROOF_`` + the setting in capitals (``FITPROOF_CONTEXT_TOKENS=1200``).
Every problem is reported at once, and no message shows the API key or a password.
"""

from __future__ import annotations

import json
import math
import re
import urllib.parse
from typing import Any, Mapping

from .._base.errors import FitproofError
from .._base.values import Invalid, closest_name, got, json_text, preview, read_count, unknown_key_problems
from ._secrets import PLACEHOLDER_KEY, redact, secrets_of, shown, url_for_message, without_key_like_runs, without_url_credentials

ENV_PREFIX = "FITPROOF_"
# The project's environment variables that are not compose settings.
OTHER_VARIABLES = ("FITPROOF_TOKENIZER_DATA", "FITPROOF_CHROMIUM")
WINDOW_KEYS = ("context_tokens", "reserved_output_tokens", "fixed_prompt_tokens")
DEFAULTS: dict[str, Any] = {  # each setting's own type (read by READERS)
    "context_tokens": 850,
    "reserved_output_tokens": 300,
    "fixed_prompt_tokens": 220,
    "base_url": "http://localhost:1234/v1",
    "api_key": PLACEHOLDER_KEY,
    "model": "deepseek/deepseek-r1-0528-qwen3-8b",
    "temperature": 0.0,
    "call_model": False,
    "timeout_seconds": 60.0,
}
_SETTING_NAMES = {key.upper() for key in DEFAULTS}

# effective_settings' window when the input has none (an explicit null is an error, like any non-object).
NO_WINDOW = object()


class SettingsError(FitproofError, ValueError):
    """Every problem with the effective settings: ``problems``, one line each (the message joins them)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# Numbers in settings are written in ASCII: Python's int() and float() also take "1_000",
# "٣٠٠٠" and full-width digits, and str.isdigit() says yes to "²", which int() refuses.
_ASCII_COUNT = re.compile(r"[0-9]{1,20}")
_ASCII_NUMBER = re.compile(r"[-+]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][-+]?[0-9]{1,4})?")
_ASCII_BLANKS = " \t\n\r"
# A bearer token travels in an HTTP header: visible ASCII only (no spaces, CR/LF or other
# control characters, nothing outside Latin-1 that would make the header itself fail).
_TOKEN = re.compile(r"[\x21-\x7e]{1,4096}")
_VARIABLE = re.compile(r"[A-Za-z0-9_]{1,64}")
_FLAG_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _read_number(value: object, low: float, high: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and low <= value <= high:
        return float(value)
    raise Invalid(f"expected a number from {low:g} to {high:g}, got {shown(value)}")


def _read_flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise Invalid(f"expected true or false, got {shown(value)}")


def _read_count(value: object) -> int:
    return read_count(value, show=shown)


def _read_url(value: object) -> str:
    if not isinstance(value, str):
        raise Invalid(f"expected an http:// or https:// URL, got {preview(value)}")
    if not value.isascii() or any(char <= " " or char == "\x7f" for char in value):
        raise Invalid(
            f"expected a URL of visible ASCII characters (write a non-ASCII host name in its xn-- form), got {url_for_message(value)}"
        )
    try:
        parts = urllib.parse.urlsplit(value)
        port = parts.port
    except ValueError:  # urllib's own words can quote the password ("Port could not be cast … 's3cr3t'")
        raise Invalid(f"not a valid URL (its host or port cannot be read), got {url_for_message(value)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid(f"expected an http:// or https:// URL with a host, got {url_for_message(value)}")
    if parts.username is not None or parts.password is not None:
        raise Invalid(f"expected a URL without a user name or password (put the key in api_key), got {url_for_message(value)}")
    if parts.query or parts.fragment or "?" in value or "#" in value:
        raise Invalid(f"expected a base URL without ?query or #fragment (/chat/completions is added to it), got {url_for_message(value)}")
    if port == 0:
        raise Invalid(f"expected a port from 1 to 65535, got {url_for_message(value)}")
    return value.rstrip("/")


def _read_string(value: object) -> str:
    if isinstance(value, str):
        return value
    raise Invalid(f"expected a string, got {preview(value)}")


def _read_api_key(value: object) -> str:
    # Never shown back: the message says what is wrong, not what the key is.
    if not isinstance(value, str):
        raise Invalid("expected a string")
    if not _TOKEN.fullmatch(value):
        if not value:
            raise Invalid("expected a key, got an empty string")
        if len(value) > 4096:
            raise Invalid(f"expected at most 4096 characters, got {len(value)}")
        position = next(index for index, char in enumerate(value) if not "\x21" <= char <= "\x7e")
        raise Invalid(
            f"expected visible ASCII characters only (no spaces, line breaks or control characters); "
            f"character {position + 1} of {len(value)} is not"
        )
    return value


READERS = {
    "context_tokens": _read_count,
    "reserved_output_tokens": _read_count,
    "fixed_prompt_tokens": _read_count,
    "base_url": _read_url,
    "api_key": _read_api_key,
    "model": _read_string,
    "temperature": lambda value: _read_number(value, 0, 2),
    "call_model": _read_flag,
    "timeout_seconds": lambda value: _read_number(value, 0.001, 3600),
}


def _from_text(key: str, text: str) -> object:
    """An environment variable's text as the JSON value it stands for: a number or a flag for
    the settings that take one, when it is written as one in ASCII; anything else is left as
    text, which the setting's reader refuses by name. (The input's ``window`` and a config
    file are JSON: "1000" there is a text, refused like any other.)"""
    stripped = text.strip(_ASCII_BLANKS)
    if key in WINDOW_KEYS and _ASCII_COUNT.fullmatch(stripped):
        return int(stripped)
    if key in ("temperature", "timeout_seconds") and _ASCII_NUMBER.fullmatch(stripped) and math.isfinite(float(stripped)):
        return float(stripped)
    if key == "call_model" and stripped.lower() in _FLAG_WORDS:
        return _FLAG_WORDS[stripped.lower()]
    return text


def _window_layer(window: object, problems: list[str]) -> list[tuple[str, dict]]:
    """The input's ``window``: an object of WINDOW_KEYS only, since a misspelt key would
    otherwise leave the default in its place unsaid."""
    if isinstance(window, dict):
        problems += [f"{problem.path}: {problem.message}" for problem in unknown_key_problems(window, "$.window", WINDOW_KEYS)]
        return [("$.window", {key: window[key] for key in WINDOW_KEYS if key in window})]
    if window is not NO_WINDOW:
        problems.append(f"$.window: expected an object, got {got(window)}")
    return []


def _config_layer(config: object, problems: list[str]) -> list[tuple[str, dict]]:
    if config is None:
        return []
    if not isinstance(config, dict):
        problems.append(f"config: expected an object, got {preview(config)}")
        return []
    for key in config:  # a misspelt name is shown with the closest one; a key pasted as a name is not
        if key not in DEFAULTS:
            near = closest_name(key, tuple(DEFAULTS))
            hint = f"did you mean {json_text(near)}?" if near else f"known: {', '.join(DEFAULTS)}"
            problems.append(f"config: unknown setting {preview(key) if near else shown(key)} ({hint})")
    return [("config", {key: value for key, value in config.items() if key in DEFAULTS})]


def _environment_layer(environ: Mapping[str, str], problems: list[str]) -> list[tuple[str, dict]]:
    for name in sorted(environ):  # a misspelt variable would leave the setting at its default unsaid
        if name.startswith(ENV_PREFIX) and name[len(ENV_PREFIX) :] not in _SETTING_NAMES and name not in OTHER_VARIABLES:
            known = tuple(key.upper() for key in DEFAULTS) + tuple(other[len(ENV_PREFIX) :] for other in OTHER_VARIABLES)
            near = closest_name(name[len(ENV_PREFIX) :].upper(), known)
            hidden = without_key_like_runs(name[len(ENV_PREFIX) :])  # a key pasted into the name is not shown either
            if hidden != name[len(ENV_PREFIX) :]:
                said = ENV_PREFIX + hidden
            else:
                said = name if _VARIABLE.fullmatch(name) else f"{preview(name[:40] + '…')} ({len(name)} characters)"
            problems.append(
                f"{said}: no such setting"
                + (f" (did you mean {ENV_PREFIX}{near}?)" if near else f" (known: {ENV_PREFIX}<{'|'.join(known)}>)")
            )
    return [("env", {key: _from_text(key, environ[ENV_PREFIX + key.upper()]) for key in DEFAULTS if ENV_PREFIX + key.upper() in environ})]


def effective_settings(window: object, config: object, environ: Mapping[str, str]) -> dict:
    """Merge the layers and validate the result; raise SettingsError listing every problem.

    ``window`` is the input's ``window`` (``NO_WINDOW`` when it has none).
    """
    problems: list[str] = []
    layers = _window_layer(window, problems) + _config_layer(config, problems) + _environment_layer(environ, problems)
    settings, origin = dict(DEFAULTS), dict.fromkeys(DEFAULTS, "default")
    for name, layer in layers:
        for key, value in layer.items():
            settings[key], origin[key] = value, name
    for key, read in READERS.items():
        try:
            settings[key] = read(settings[key])
        except Invalid as error:
            problems.append(_problem(key, error, settings[key], origin[key], environ))
    if not problems:
        available = settings["context_tokens"] - settings["reserved_output_tokens"] - settings["fixed_prompt_tokens"]
        if available <= 0:
            problems.append(
                f"no context budget: context_tokens {settings['context_tokens']} - reserved_output_tokens "
                f"{settings['reserved_output_tokens']} - fixed_prompt_tokens {settings['fixed_prompt_tokens']} = {available}; "
                "raise context_tokens or lower reserved_output_tokens or fixed_prompt_tokens"
            )
    if problems:
        # A URL with a password, or the API key, may sit in any setting by mistake: none is echoed.
        secrets = secrets_of(settings["api_key"])
        raise SettingsError([redact(without_url_credentials(problem), secrets) for problem in problems])
    return settings


def _problem(key: str, error: Invalid, value: object, origin: str, environ: Mapping[str, str]) -> str:
    """The line that says why setting ``key`` from layer ``origin`` was refused."""
    if origin == "env":  # shown as written: the reader refuses every text
        name = ENV_PREFIX + key.upper()
        try:
            READERS[key](environ[name])
        except Invalid as as_written:
            error = as_written
        return f"{name}: {error}"
    # JSON: a number or flag written in quotes is a text
    unquote = ""
    meant = _from_text(key, value) if isinstance(value, str) else value
    if meant is not value:
        unquote = (
            f" (a JSON text: write {json.dumps(meant)}, without quotes)"
            if isinstance(meant, bool)
            else " (a JSON text: write the number without quotes)"
        )
    where = f"$.window.{key}" if origin == "$.window" else f"{origin}: {key}"
    return f"{where}: {error}{unquote}"
