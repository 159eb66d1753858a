"""The chat-completions client: the composed prompt posted to an OpenAI-compatible
``/chat/completions`` with the standard library only; the web page never calls a model.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from typing import TYPE_CHECKING

from .._base.errors import FitproofError
from .._base.strict_json import nesting_within
from .._base.values import preview
from ._secrets import redact, secrets_of, shown_url
from ._streams import printable

if TYPE_CHECKING:  # for the annotations only: imported where a model is called
    import http.client


class ModelError(FitproofError):
    """A model call that failed; the message is one line."""


# A model server that answers more than this is refused, not read into memory.
MAX_RESPONSE_BYTES = 10 * 1024 * 1024
# How much of an error body is read (it may echo the request) and how much of it is shown.
_ERROR_BODY_BYTES, _ERROR_BODY_SHOWN = 4096, 200

# A terminal escape sequence whole (a model's colours, a title): CSI (ESC [ or U+009B) with
# its parameters and final byte, OSC/DCS/APC/PM/SOS strings up to BEL or ESC \ (an unended
# one loses only its opening, never the rest of the answer; a scan stops at the next opening,
# so it stays linear), and two-character escapes. Dropping only the control characters
# would leave "[31m" in the text.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9c-\x9f]*(?:\x07|\x1b\\|\x9c)|\x1b[ -~]"
)


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
        answer = printable(_ESCAPE_SEQUENCE.sub("", strip_think(_call(prompt, settings, secrets))))
        return redact(answer, secrets)  # a server that puts the key in its answer must not get it onto the terminal either
    except ModelError as error:
        raise ModelError(printable(redact(str(error), secrets)).replace("\n", " ").replace("\t", " ")) from None


def _call(prompt: str, settings: dict, secrets: list[str]) -> str:
    # Imported here: http.client, ssl and socket add ~19 ms to every command's start-up
    # (more than half of it), and only compose --call-model needs them.
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
    worker = threading.Thread(target=exchange, name="fitproof model call", daemon=True)
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
        detail = " ".join(redact(printable(text), secrets, cut=cut).split())
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
        # A cut error body may end in part of an echoed key: redact(cut=True) takes care of it.
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
        shown = redact(raw[:window].decode("utf-8", "replace"), secrets)[:1000]
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
