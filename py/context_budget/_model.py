"""The `compose` pipeline's settings and its optional call to a local model.

Settings come, later winning, from the defaults (seed 001's appsettings), the input's
``window``, a JSON config file, and environment variables named ``CONTEXT_BUDGET_`` +
the setting in capitals (``CONTEXT_BUDGET_CONTEXT_TOKENS=1200``). They are validated
before anything runs. The model call posts the composed prompt to an OpenAI-compatible
``/chat/completions`` with the standard library only; the web page never calls a model.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import urllib.parse
from itertools import compress, count
from typing import TYPE_CHECKING, Mapping

from ._strict_json import nesting_within
from ._values import Invalid, closest_name, got, json_text, preview, read_count, unknown_key_problems

if TYPE_CHECKING:  # for the annotations only: imported where a model is called
    import http.client

ENV_PREFIX = "CONTEXT_BUDGET_"
# The project's environment variables that are not compose settings.
OTHER_VARIABLES = ("CONTEXT_BUDGET_TOKENIZER_DATA", "CONTEXT_BUDGET_CHROMIUM")
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


# A model server that answers more than this is refused, not read into memory.
MAX_RESPONSE_BYTES = 10 * 1024 * 1024
# How much of an error body is read (it may echo the request) and how much of it is shown.
_ERROR_BODY_BYTES, _ERROR_BODY_SHOWN = 4096, 200

# Numbers in settings are written in ASCII: Python's int() and float() also take "1_000",
# "٣٠٠٠" and full-width digits, and str.isdigit() says yes to "²", which int() refuses.
_ASCII_COUNT = re.compile(r"[0-9]{1,20}")
_ASCII_NUMBER = re.compile(r"[-+]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][-+]?[0-9]{1,4})?")
_ASCII_BLANKS = " \t\n\r"
# A bearer token travels in an HTTP header: visible ASCII only (no spaces, CR/LF or other
# control characters, nothing outside Latin-1 that would make the header itself fail).
_TOKEN = re.compile(r"[\x21-\x7e]{1,4096}")
# Control characters (C0, DEL, C1) other than newline and tab: a terminal would act on them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# A terminal escape sequence whole (a model's colours, a title): CSI (ESC [ or U+009B) with
# its parameters and final byte, OSC/DCS/APC/PM/SOS strings up to BEL or ESC \ (an unended
# one loses only its opening, never the rest of the answer; a scan stops at the next opening,
# so it stays linear), and two-character escapes. Dropping only the control characters
# would leave "[31m" in the text.
# (Patterns used only on the way to a message are kept as text: re compiles and caches them on
# first use, so that no process, nor the page's start-up, pays for them at import.)
_ESCAPE_SEQUENCE = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9c-\x9f]*(?:\x07|\x1b\\|\x9c)|\x1b[ -~]"
_VARIABLE = re.compile(r"[A-Za-z0-9_]{1,64}")
_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s\"]*@")


def printable(text: str) -> str:
    """``text`` safe for a terminal: no escape sequences or other control characters but newline and tab."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n"))
    return _SURROGATE.sub("\ufffd", text)


def _shown(value: object) -> str:
    """A setting's value for a message, with each word of 20 or more characters described,
    not shown: it may be a key pasted into the wrong setting ("Bearer sk-…" too), and no
    number, flag or host name is that long a word."""
    words = value.split() if isinstance(value, str) else []
    if not any(map(_key_like, words)):
        return preview(value)
    if len(words) == 1:
        return f"a text of {len(value)} characters (not shown: it may be a key)"
    described = [f"<{len(word)} characters>" if _key_like(word) else word for word in words]
    return f"{preview(' '.join(described))} (a long word not shown: it may be a key)"


# A word this long in a setting that is not the key is described instead of shown, unless it
# is a number (digits, a sign, a point, an exponent): no key looks like one.
_KEY_LIKE = 20
_NUMBER_WORD = re.compile(r"[-+0-9.eE]+")


def _key_like(word: str) -> bool:
    return len(word) >= _KEY_LIKE and not _NUMBER_WORD.fullmatch(word)
# What a base URL's host (and port and path) may look like when it is typed without its
# scheme ("openrouter.ai/api/v1", "https//api.openai.com/v1"): shown, since it is no key.
_HOST_LIKE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:?/*)?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?::[0-9]{1,5})?(?:/[^\s?#@]*)?")


def _read_number(value: object, low: float, high: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and low <= value <= high:
        return float(value)
    raise Invalid(f"expected a number from {low:g} to {high:g}, got {_shown(value)}")


def _read_flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise Invalid(f"expected true or false, got {_shown(value)}")


def _read_count(value: object) -> int:
    try:
        return read_count(value)
    except Invalid as error:
        shown = _shown(value)
        if shown != preview(value):
            raise Invalid(str(error).replace(preview(value), shown)) from None
        raise


_FLAG_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


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


def redact_url(url: str) -> str:
    """``url`` for printing: any user name and password in it replaced by ``***`` (all that
    comes before the last "@", even a "?" or "#" typed in a password), then any ?query or
    #fragment by ``?***`` or ``#***`` (a key can sit there: ``?api-key=…``)."""
    scheme, separator, rest = url.partition("://")
    if separator and "@" in rest:
        rest = "***@" + rest.rpartition("@")[2]
    for mark in "?#":
        head, found, _ = rest.partition(mark)
        if found:
            rest = f"{head}{mark}***"
    return f"{scheme}{separator}{rest}"


# A run in a URL that looks like a key pasted into it (a path segment, a host label): 20 or
# more letters, digits, "-" and "_" in both cases with a digit, or starting "sk-"; or 32 or
# more hexadecimal digits (Azure's keys). Host names are lower case and rarely that long.
_KEY_IN_URL = r"sk-[A-Za-z0-9_-]{17,}|(?=[A-Za-z0-9_-]{0,200}[A-Z])(?=[A-Za-z0-9_-]{0,200}[a-z])(?=[A-Za-z0-9_-]{0,200}[0-9])[A-Za-z0-9_-]{20,}|[0-9a-fA-F]{32,}"


def _described(found: re.Match) -> str:
    return f"<{len(found.group())} characters: may be a key>"


# A key shorter than this is a placeholder ("ollama", "local"), not a secret: redacting it
# would cut words out of host names and messages ("[redacted]host").
MIN_SECRET = 8


def secrets_of(key: object) -> list[str]:
    """What messages must never show: the API key, unless it is the default or a placeholder."""
    return [key] if isinstance(key, str) and len(key) >= MIN_SECRET and key != DEFAULTS["api_key"] else []


def shown_url(settings: dict) -> str:
    """The settings' base URL for a message: no user info, query or key-like run, and never the key."""
    url = redact_url(settings["base_url"])
    url = url if len(url) <= 300 else url[:299] + "…"  # a message, not a copy of a very long value
    return _redact(re.sub(_KEY_IN_URL, _described, url), secrets_of(settings["api_key"]))


def _url_for_message(value: str) -> str:
    """A base_url as a message shows it (worked out only for a message: a valid URL never pays
    for it; a message shows 60 characters, so only the first ones are looked at)."""
    if "://" in value or _HOST_LIKE.fullmatch(value[:2000]):
        return preview(re.sub(_KEY_IN_URL, _described, redact_url(value)[:300]))
    return _shown(value)


def _read_url(value: object) -> str:
    if not isinstance(value, str):
        raise Invalid(f"expected an http:// or https:// URL, got {preview(value)}")
    if not value.isascii() or any(char <= " " or char == "\x7f" for char in value):
        raise Invalid(f"expected a URL of visible ASCII characters (write a non-ASCII host name in its xn-- form), got {_url_for_message(value)}")
    try:
        parts = urllib.parse.urlsplit(value)
        port = parts.port
    except ValueError:  # urllib's own words can quote the password ("Port could not be cast … 's3cr3t'")
        raise Invalid(f"not a valid URL (its host or port cannot be read), got {_url_for_message(value)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid(f"expected an http:// or https:// URL with a host, got {_url_for_message(value)}")
    if parts.username is not None or parts.password is not None:
        raise Invalid(f"expected a URL without a user name or password (put the key in api_key), got {_url_for_message(value)}")
    if parts.query or parts.fragment or "?" in value or "#" in value:
        raise Invalid(f"expected a base URL without ?query or #fragment (/chat/completions is added to it), got {_url_for_message(value)}")
    if port == 0:
        raise Invalid(f"expected a port from 1 to 65535, got {_url_for_message(value)}")
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


_SETTING_NAMES = {key.upper() for key in DEFAULTS}

# effective_settings' window when the input has none (an explicit null is an error, like any non-object).
NO_WINDOW = object()


def effective_settings(window: object, config: object, environ: Mapping[str, str]) -> dict:
    """Merge the layers and validate the result; raise SettingsError listing every problem.

    ``window`` is the input's ``window`` (``NO_WINDOW`` when it has none): an object of
    WINDOW_KEYS only, since a misspelt key would otherwise leave the default in its place unsaid.
    """
    problems: list[str] = []
    layers: list[tuple[str, dict]] = []
    if isinstance(window, dict):
        problems += [f"{problem.path}: {problem.message}" for problem in unknown_key_problems(window, "$.window", WINDOW_KEYS)]
        layers.append(("$.window", {key: window[key] for key in WINDOW_KEYS if key in window}))
    elif window is not NO_WINDOW:
        problems.append(f"$.window: expected an object, got {got(window)}")
    if config is not None:
        if not isinstance(config, dict):
            problems.append(f"config: expected an object, got {preview(config)}")
        else:
            unknown = [key for key in config if key not in DEFAULTS]
            for key in unknown:  # a misspelt name is shown with the closest one; a key pasted as a name is not
                near = closest_name(key, tuple(DEFAULTS))
                hint = f"did you mean {json_text(near)}?" if near else f"known: {', '.join(DEFAULTS)}"
                problems.append(f"config: unknown setting {preview(key) if near else _shown(key)} ({hint})")
            layers.append(("config", {key: value for key, value in config.items() if key in DEFAULTS}))
    for name in sorted(environ):  # a misspelt variable would leave the setting at its default unsaid
        if name.startswith(ENV_PREFIX) and name[len(ENV_PREFIX):] not in _SETTING_NAMES and name not in OTHER_VARIABLES:
            known = tuple(key.upper() for key in DEFAULTS) + tuple(other[len(ENV_PREFIX):] for other in OTHER_VARIABLES)
            near = closest_name(name[len(ENV_PREFIX):].upper(), known)
            hidden = re.sub(_KEY_IN_URL, _described, name[len(ENV_PREFIX):])  # a key pasted into the name is not shown either
            if hidden != name[len(ENV_PREFIX):]:
                shown = ENV_PREFIX + hidden
            else:
                shown = name if _VARIABLE.fullmatch(name) else f"{preview(name[:40] + '…')} ({len(name)} characters)"
            problems.append(f"{shown}: no such setting" + (f" (did you mean {ENV_PREFIX}{near}?)" if near else f" (known: {ENV_PREFIX}<{'|'.join(known)}>)"))
    layers.append(("env", {key: _from_text(key, environ[ENV_PREFIX + key.upper()]) for key in DEFAULTS if ENV_PREFIX + key.upper() in environ}))
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
            if origin[key] == "env":  # shown as written: the reader refuses every text
                name = ENV_PREFIX + key.upper()
                try:
                    read(environ[name])
                except Invalid as as_written:
                    error = as_written
                problems.append(f"{name}: {error}")
            else:  # JSON: a number or flag written in quotes is a text
                unquote = ""
                meant = _from_text(key, settings[key]) if isinstance(settings[key], str) else settings[key]
                if meant is not settings[key]:
                    unquote = f" (a JSON text: write {json.dumps(meant)}, without quotes)" if isinstance(meant, bool) else " (a JSON text: write the number without quotes)"
                where = f"$.window.{key}" if origin[key] == "$.window" else f"{origin[key]}: {key}"
                problems.append(f"{where}: {error}{unquote}")
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
        key = settings["api_key"]
        secrets = secrets_of(key)
        raise SettingsError("\n".join(_redact(_URL_CREDENTIALS.sub(r"\1***@", problem), secrets) for problem in problems))
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
    """Post the prompt as one user message; return the answer's text without think sections.

    ``timeout_seconds`` bounds the whole call (connecting, sending, every byte of the
    answer), not each read. Redirects are not followed, so the key goes to no other
    address; the answer is capped at ``MAX_RESPONSE_BYTES``; every message is one line,
    with the key redacted and control characters removed.
    """
    secrets = secrets_of(settings["api_key"])
    try:
        answer = printable(re.sub(_ESCAPE_SEQUENCE, "", strip_think(_call(prompt, settings, secrets))))
        return _redact(answer, secrets)  # a server that puts the key in its answer must not get it onto the terminal either
    except ModelError as error:
        raise ModelError(printable(_redact(str(error), secrets)).replace("\n", " ").replace("\t", " ")) from None


# Any run of at least this many characters of a key (in any of its written forms, in any
# case) is redacted, so that a key cut by a preview, an error body cut at 4 KiB or a message
# cut at 200 characters leaves no recognisable part; at the very end of a text that was cut,
# a run of at least _TAIL characters that begins the key is redacted too.
_FRAGMENT = 8
_TAIL = 4
# Texts longer than this (a model's answer) are searched for the key's whole forms only.
_FRAGMENT_SEARCH_LIMIT = 1 << 16


def _forms(secret: str) -> set[str]:
    """How a server or a setting may write the key: as it is, JSON-escaped (with "\\/" too, as
    PHP writes it), percent-encoded, HTML-escaped; compared without case."""
    import html

    escaped = json_text(secret)[1:-1]
    forms = {secret, escaped, escaped.replace("/", "\\/"), urllib.parse.quote(secret, safe=""), html.escape(secret)}
    return {form.translate(_ASCII_LOWER) for form in forms if form}


# Case folded for A-Z only: str.lower() turns "İ" into two characters, which moved every
# span found in the lowered text off the text it was applied to (and let the key through).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _redact(text: str, secrets: list[str], cut: bool = False) -> str:
    """``text`` with every part of each secret replaced by ``[redacted]``: whole forms always;
    in a text of up to 64 KiB also every run of 8 or more of a form's characters, and, when
    the text was ``cut`` at its end, a start of a form of 4 or more characters left there."""
    secrets = [secret for secret in secrets if secret]
    if not secrets:
        return text
    lowered = text.translate(_ASCII_LOWER)  # as long as the text: a span found in one is a span of the other
    spans: list[tuple[int, int]] = []
    for form in set().union(*map(_forms, secrets)):
        start = lowered.find(form)
        while start >= 0:  # the whole form, at any length (a periodic key must not make this quadratic)
            spans.append((start, start + len(form)))
            start = lowered.find(form, start + len(form))
        if len(text) <= _FRAGMENT_SEARCH_LIMIT and len(form) >= _FRAGMENT:
            spans += _common_runs(lowered, form)
        if cut:
            for length in range(min(len(form), len(text)) - 1, _TAIL - 1, -1):
                if lowered.endswith(form[:length]):
                    spans.append((len(text) - length, len(text)))
                    break
    if not spans:
        return text
    pieces, done = [], 0
    for start, end in sorted(spans):
        if end <= done:
            continue
        if start > done or not pieces:  # a new span (one that overlaps the last extends it)
            pieces += [text[done:start], "[redacted]"]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _common_runs(text: str, form: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that match some part of ``form`` 8 or more characters long: the
    text's 8-character windows that are also the form's, found in one pass at C speed
    (their union is every such run, however the runs overlap)."""
    pieces = {form[start:start + _FRAGMENT] for start in range(len(form) - _FRAGMENT + 1)}
    windows = map(text.__getitem__, map(slice, range(len(text)), range(_FRAGMENT, len(text) + 1)))
    return [(start, start + _FRAGMENT) for start in compress(count(), map(pieces.__contains__, windows))]


def _call(prompt: str, settings: dict, secrets: list[str]) -> str:
    # Imported here: http.client and ssl are a third of `context-budget check`'s start-up
    # (~30 ms of a process), and only compose --call-model needs them.
    import http.client
    import socket
    import ssl

    url = settings["base_url"] + "/chat/completions"
    timeout = settings["timeout_seconds"]
    body = json.dumps(
        {"model": settings["model"], "messages": [{"role": "user", "content": prompt}], "temperature": settings["temperature"]}
    ).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {settings['api_key']}"}
    parts = urllib.parse.urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    # The port always given: http.client would read "::1" as host "::" and port 1.
    port = parts.port or (443 if parts.scheme == "https" else 80)
    connection = connection_class(parts.hostname, port, timeout=timeout)
    url = shown_url(settings) + "/chat/completions"  # from here on, for messages only: a key-like run described
    outcome: dict = {}

    def exchange() -> None:
        try:
            connection.request("POST", parts.path, body=body, headers=headers)
            response = connection.getresponse()
            outcome["status"] = response.status
            outcome["body"] = _read_capped(response, url, ok=200 <= response.status < 300)
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    # The exchange runs in a worker so that the deadline holds whatever the server does
    # (a byte a second keeps every single read inside its own timeout, and a name lookup
    # has none); at the deadline the socket is shut down, which ends any read at once.
    worker = threading.Thread(target=exchange, name="context-budget model call", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _abort(connection)
        raise ModelError(f"{url} did not answer within {timeout:g} s")
    connection.close()
    error = outcome.get("error")
    if isinstance(error, ModelError):
        raise error
    if isinstance(error, (TimeoutError, socket.timeout)):
        raise ModelError(f"{url} did not answer within {timeout:g} s")
    if isinstance(error, ssl.SSLError):
        raise ModelError(f"the TLS connection to {url} failed: {error.reason or type(error).__name__}")
    if isinstance(error, (ConnectionRefusedError, socket.gaierror)) or (isinstance(error, OSError) and "status" not in outcome):
        raise ModelError(f"cannot reach {url}: {getattr(error, 'strerror', None) or error or type(error).__name__}")
    if isinstance(error, (OSError, http.client.HTTPException, ValueError)):
        raise ModelError(f"the connection to {url} failed: {error or type(error).__name__}")
    if error is not None:
        raise ModelError(f"the call to {url} failed: {type(error).__name__}")
    status, raw = outcome["status"], outcome["body"]
    if 300 <= status < 400:
        raise ModelError(f"{url} answered HTTP {status}, a redirect: not followed, so that the key goes to no other address")
    if not 200 <= status < 300:
        # Redacted before it is cut, so that no part of an echoed key survives the cut; the body
        # itself may have been cut at _ERROR_BODY_BYTES, in the middle of a key.
        cut = len(raw) >= _ERROR_BODY_BYTES
        text = raw.decode("utf-8", "replace")
        if cut:  # a character cut in two is no character
            text = text.rstrip("\ufffd")
        detail = " ".join(_redact(printable(text), secrets, cut=cut).split())
        detail = detail[:_ERROR_BODY_SHOWN] + ("…" if len(detail) > _ERROR_BODY_SHOWN else "")
        raise ModelError(f"{url} answered HTTP {status}{': ' + detail if detail else ''}")
    return _answer_text(raw, url, secrets)


def _read_capped(response: http.client.HTTPResponse, url: str, ok: bool) -> bytes:
    """The body, at most MAX_RESPONSE_BYTES of a success or a short prefix of an error."""
    limit = MAX_RESPONSE_BYTES if ok else _ERROR_BODY_BYTES
    declared = response.getheader("Content-Length")
    if ok and declared and declared.strip().isascii() and declared.strip().isdigit() and int(declared) > limit:
        raise ModelError(f"{url} answered with {int(declared):,} bytes, more than the {limit:,} accepted")
    chunks, size = [], 0
    while size <= limit:
        chunk = response.read1(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    raw = b"".join(chunks)
    if size > limit:
        if ok:
            raise ModelError(f"{url} answered with more than the {limit:,} bytes accepted")
        # A cut error body may end in part of an echoed key: _redact(cut=True) takes care of it.
        raw = raw[:limit]
    return raw


def _abort(connection: http.client.HTTPConnection) -> None:
    import socket

    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    connection.close()


def _answer_text(raw: bytes, url: str, secrets: list[str]) -> str:
    def garbage() -> ModelError:
        # Redact a window longer than what is shown, so that a key cut at its edge is still whole.
        window = 1000 + max(map(len, secrets), default=0)
        shown = _redact(raw[:window].decode("utf-8", "replace"), secrets)[:1000]
        return ModelError(f"{url} did not answer with an OpenAI-style chat completion: {preview(shown)}")

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise garbage() from None
    if not nesting_within(text):
        raise ModelError(f"{url} answered with JSON nested too deeply to read")
    try:
        answer = json.loads(text)
        content = answer["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        raise garbage() from None
    if not isinstance(content, str):
        raise garbage()
    return content
