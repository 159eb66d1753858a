"""The `compose` pipeline's settings and its optional call to a local model.

Settings come, later winning, from the defaults (seed 001's appsettings), the input's
``window``, a JSON config file, and environment variables named ``CONTEXT_BUDGET_`` +
the setting in capitals (``CONTEXT_BUDGET_CONTEXT_TOKENS=1200``). They are validated
before anything runs. The model call posts the composed prompt to an OpenAI-compatible
``/chat/completions`` with the standard library only; the web page never calls a model.
"""

from __future__ import annotations

import http.client
import json
import math
import socket
import urllib.error
import urllib.request
from typing import Mapping

from ._values import Invalid, preview, read_count

ENV_PREFIX = "CONTEXT_BUDGET_"
WINDOW_KEYS = ("context_tokens", "reserved_output_tokens", "fixed_prompt_tokens")
DEFAULTS = {
    "context_tokens": 850,
    "reserved_output_tokens": 300,
    "fixed_prompt_tokens": 220,
    "base_url": "http://localhost:1234/v1",
    "api_key": "not-needed",
    "model": "deepseek/deepseek-r1-0528-qwen3-8b",
    "temperature": 0.0,
    "call_model": False,
    "timeout_seconds": 60.0,
}


class SettingsError(ValueError):
    """Every problem with the effective settings, one per line."""


class ModelError(Exception):
    """A model call that failed; the message is one line."""


def _read_number(value: object, low: float, high: float) -> float:
    number = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            pass
    if isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number) and low <= number <= high:
        return float(number)
    raise Invalid(f"expected a number from {low:g} to {high:g}, got {preview(value)}")


def _read_flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    raise Invalid(f"expected true or false, got {preview(value)}")


def _read_count_or_text(value: object) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return read_count(value)


def _read_url(value: object) -> str:
    if isinstance(value, str) and value.startswith(("http://", "https://")) and len(value) > len("https://"):
        return value.rstrip("/")
    raise Invalid(f"expected an http:// or https:// URL, got {preview(value)}")


def _read_string(value: object) -> str:
    if isinstance(value, str):
        return value
    raise Invalid(f"expected a string, got {preview(value)}")


READERS = {
    "context_tokens": _read_count_or_text,
    "reserved_output_tokens": _read_count_or_text,
    "fixed_prompt_tokens": _read_count_or_text,
    "base_url": _read_url,
    "api_key": _read_string,
    "model": _read_string,
    "temperature": lambda value: _read_number(value, 0, 2),
    "call_model": _read_flag,
    "timeout_seconds": lambda value: _read_number(value, 0.001, 3600),
}


def effective_settings(window: object, config: object, environ: Mapping[str, str]) -> dict:
    """Merge the layers and validate the result; raise SettingsError listing every problem."""
    problems: list[str] = []
    layers: list[tuple[str, dict]] = []
    if isinstance(window, dict):
        layers.append(("$.window", {key: window[key] for key in WINDOW_KEYS if key in window}))
    if config is not None:
        if not isinstance(config, dict):
            problems.append(f"config: expected an object, got {preview(config)}")
        else:
            unknown = [key for key in config if key not in DEFAULTS]
            problems += [f"config: unknown setting {json.dumps(key)} (known: {', '.join(DEFAULTS)})" for key in unknown]
            layers.append(("config", {key: value for key, value in config.items() if key in DEFAULTS}))
    layers.append(("env", {key: environ[ENV_PREFIX + key.upper()] for key in DEFAULTS if ENV_PREFIX + key.upper() in environ}))
    settings: dict = {}
    origin: dict = {}
    for key, value in DEFAULTS.items():
        settings[key], origin[key] = value, "default"
    for name, layer in layers:
        for key, value in layer.items():
            settings[key], origin[key] = value, name
    for key, read in READERS.items():
        try:
            settings[key] = read(settings[key])
        except Invalid as error:
            where = ENV_PREFIX + key.upper() if origin[key] == "env" else f"{origin[key]}: {key}"
            problems.append(f"{where}: {error}")
    if not problems:
        available = settings["context_tokens"] - settings["reserved_output_tokens"] - settings["fixed_prompt_tokens"]
        if available <= 0:
            problems.append(
                f"no context budget: context_tokens {settings['context_tokens']} - reserved_output_tokens "
                f"{settings['reserved_output_tokens']} - fixed_prompt_tokens {settings['fixed_prompt_tokens']} = {available}; "
                "raise context_tokens or lower reserved_output_tokens or fixed_prompt_tokens"
            )
    if problems:
        raise SettingsError("\n".join(problems))
    return settings


def strip_think(text: str) -> str:
    """The answer without ``<think>…</think>`` sections, nested or left unclosed.

    A ``</think>`` with no opening tag (some reasoning models omit it) ends a section
    that began at the start of the answer, so everything before it is dropped too.
    """
    opening, closing = "<think>", "</think>"
    kept: list[str] = []
    depth = 0
    index = 0
    while index < len(text):
        if text.startswith(opening, index):
            depth += 1
            index += len(opening)
        elif text.startswith(closing, index):
            if depth == 0:
                kept.clear()
            else:
                depth -= 1
            index += len(closing)
        else:
            if depth == 0:
                kept.append(text[index])
            index += 1
    return "".join(kept).strip()


def call_model(prompt: str, settings: dict) -> str:
    """Post the prompt as one user message; return the answer's text without think sections."""
    url = settings["base_url"] + "/chat/completions"
    body = json.dumps(
        {"model": settings["model"], "messages": [{"role": "user", "content": prompt}], "temperature": settings["temperature"]}
    ).encode()
    request = urllib.request.Request(
        url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {settings['api_key']}"},
    )
    timeout = settings["timeout_seconds"]
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        detail = error.read(200).decode("utf-8", "replace").strip().replace("\n", " ")
        raise ModelError(f"{url} answered HTTP {error.code}{': ' + detail if detail else ''}") from None
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise ModelError(f"{url} did not answer within {timeout:g} s") from None
        raise ModelError(f"cannot reach {url}: {getattr(reason, 'strerror', None) or reason}") from None
    except (TimeoutError, socket.timeout):
        raise ModelError(f"{url} did not answer within {timeout:g} s") from None
    except (OSError, http.client.HTTPException) as error:
        raise ModelError(f"the connection to {url} failed: {error or type(error).__name__}") from None
    try:
        answer = json.loads(raw)
        content = answer["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelError(f"{url} did not answer with an OpenAI-style chat completion: {preview(raw.decode('utf-8', 'replace'))}") from None
    return strip_think(content)
