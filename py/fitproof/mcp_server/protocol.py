"""JSON-RPC 2.0 and the MCP lifecycle: one message in, its answer out (``Session.handle``).

What a line can be and what it gets back:

- not UTF-8 or not JSON (``NaN``, a duplicate key, nesting Python cannot parse): -32700, id null;
- longer than ``MAX_MESSAGE_BYTES``: -32600, with the request's id when its first 64 KiB name it;
- JSON that is not a request or notification (no ``method``, ``jsonrpc`` not "2.0", an id that
  is neither a string nor an integer): -32600;
- a method this server does not have: -32601; params that are not an object, an unknown tool or
  resource, a ``protocolVersion`` that is not a string, a cursor it never gave: -32602;
- a tool's bad arguments are not a protocol error: the tool answers with ``isError`` (tools.py);
- a failure of the server itself: -32603, one line on standard error, and the next line is served.

Notifications get no answer (an unknown one is ignored), nor do responses from the client (this
server sends no requests). Batches (arrays) exist only in protocol version 2025-03-26.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

from .. import __version__
from .._base.errors import FitproofError
from .._base.values import did_you_mean
from .words import preview

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # one JSON-RPC message, as one line
ID_SEARCH_BYTES = 64 * 1024  # of a line over the limit, the part searched for its id

# Newest first: a client's version from this list is echoed, any other gets the newest.
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = PROTOCOL_VERSIONS[0]

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

INSTRUCTIONS = (
    "fitproof decides which pieces of context enter a prompt under a token budget, by one "
    "documented rule, and proves it with checks that re-derive the result from the input. "
    "check: apply the rule to an input (modes relevance, required, blocks, passages, messages) and "
    "get the report and its first failure; with a claim, judge a selection someone made. "
    "count_tokens: a text's exact token count (o200k_base, cl100k_base) or an estimate. "
    "trim_messages: the newest turns of a chat history that fit a limit, ready to send. "
    "verify_claim: whether a claimed selection is the one the rule makes, and every failure if not. "
    "tools/list carries short input schemas; the full ones are resources (fitproof://schema/<tool>)."
)


class InvalidParams(FitproofError):
    """A request's params are wrong (-32602): the message says which and what was received."""

    def __init__(self, message: str, data: object = None) -> None:
        super().__init__(message)
        self.data = data


def _object(pairs: list[tuple[str, Any]]) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {json.dumps(key, ensure_ascii=False)}")
    return value


def _constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse(line: bytes) -> object:
    """The JSON value of one line, strictly (UTF-8, no NaN, no duplicate keys); ``ValueError`` says why not."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 (byte 0x{line[error.start]:02x} at offset {error.start})") from None
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at column {error.colno}") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error(id: object, code: int, message: str, data: object = None) -> dict:
    answer: dict = {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
    if data is not None:
        answer["error"]["data"] = data
    return answer


def encode(answer: object) -> bytes:
    """One line of JSON (UTF-8; ``\\u`` escapes only for U+2028 and U+2029, which JavaScript before
    ES2019 and Python's ``str.splitlines`` read as line ends, and where a lone surrogate forces them)."""
    text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False)
    if "\u2028" in text or "\u2029" in text:  # (only inside strings: JSON has them nowhere else)
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(answer, ensure_ascii=True, separators=(",", ":"), check_circular=False, allow_nan=False).encode()
    return data + b"\n"


class Session:
    """One client's session: the negotiated version and the tools, and ``handle`` for each message.

    ``log`` takes one line for standard error (only a failure of the server itself is logged).
    """

    def __init__(self, toolbox: Any = None, log: Callable[[str], None] | None = None) -> None:
        if toolbox is None:
            from . import tools as toolbox
        self.toolbox = toolbox
        self.version: str | None = None
        self.initialized = False
        self.client: object = None
        self.log = log if log is not None else _stderr_line
        self._methods: dict[str, Callable[[dict], object]] = {
            "initialize": self._initialize,
            "ping": lambda params: {},
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/read": self._resources_read,
            "resources/templates/list": self._templates_list,
        }

    # -- lines -----------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> bytes | None:
        """The line that answers ``line`` (a message without its newline), or None (a notification)."""
        if len(line) > MAX_MESSAGE_BYTES:
            return encode(self.oversized(line[:ID_SEARCH_BYTES], len(line)))
        try:
            message = parse(line)
        except ValueError as why:
            return encode(error(None, PARSE_ERROR, f"Parse error: {why}"))
        answer = self.handle(message)
        return None if answer is None else self.encode(answer)

    def encode(self, answer: dict | list) -> bytes:
        """``answer`` as its line; an answer that is not JSON (a bug here) as an internal error."""
        try:
            return encode(answer)
        except (TypeError, ValueError, RecursionError) as failure:
            self.log(f"cannot encode the answer: {type(failure).__name__}: {str(failure)[:300]}")
            return encode(error(_answer_id(answer), INTERNAL_ERROR, "Internal error: the answer could not be encoded as JSON"))

    def oversized(self, head: bytes, size: int | None = None) -> dict:
        """The answer to a line over the limit, of which ``head`` is the start (its id, when it names one)."""
        request_id = top_level_id(head.decode("utf-8", "replace"))
        what = f"{size:,} bytes" if size is not None else "more"
        return error(
            request_id,
            INVALID_REQUEST,
            f"Invalid request: the message is larger than the {MAX_MESSAGE_BYTES:,} bytes this server reads ({what}); send less per call",
            {"limit_bytes": MAX_MESSAGE_BYTES},
        )

    # -- messages --------------------------------------------------------------------------

    def handle(self, message: object) -> dict | list | None:
        """The answer to one parsed message (a dict, or for a batch a list), or None."""
        if isinstance(message, list):
            if self.version != "2025-03-26":
                return error(
                    None,
                    INVALID_REQUEST,
                    f"Invalid request: a batch (a JSON array) is not part of MCP {self.version or LATEST_VERSION}; "
                    "send one message per line",
                )
            if not message:
                return error(None, INVALID_REQUEST, "Invalid request: an empty batch")
            answers = [answer for answer in map(self._one, message) if answer is not None]
            return answers or None
        return self._one(message)

    def _one(self, message: object) -> dict | None:
        if not isinstance(message, dict):
            return error(None, INVALID_REQUEST, f"Invalid request: expected a JSON-RPC message (an object), got {preview(message)}")
        has_id = "id" in message
        request_id = message.get("id")
        answer_id = request_id if has_id and _valid_id(request_id) else None
        if "method" not in message:
            if has_id and ("result" in message or "error" in message):
                return None  # a response; this server sends no requests, so none is awaited
            return error(answer_id, INVALID_REQUEST, "Invalid request: no method")
        if message.get("jsonrpc") != "2.0":
            return error(answer_id, INVALID_REQUEST, f'Invalid request: jsonrpc must be "2.0", got {preview(message.get("jsonrpc"))}')
        method = message["method"]
        if not isinstance(method, str):
            return error(answer_id, INVALID_REQUEST, f"Invalid request: method must be a string, got {preview(method)}")
        if has_id and not _valid_id(request_id):
            return error(None, INVALID_REQUEST, f"Invalid request: id must be a string or an integer, got {preview(request_id)}")
        params = message.get("params")
        if params is None:
            params = {}
        if not has_id:
            if isinstance(params, dict):
                self._notified(method, params)
            return None
        handler = self._methods.get(method)
        if handler is None:
            return error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}{did_you_mean(method, self._methods)}")
        if not isinstance(params, dict):
            return error(request_id, INVALID_PARAMS, f"Invalid params: params must be an object, got {preview(params)}")
        try:
            result = handler(params)
        except InvalidParams as invalid:
            return error(request_id, INVALID_PARAMS, f"Invalid params: {invalid}", invalid.data)
        except Exception as failure:  # the server's own bug: said once, and the session goes on
            self.log(f"{method} failed: {type(failure).__name__}: {str(failure)[:300]}")
            return error(request_id, INTERNAL_ERROR, f"Internal error: {type(failure).__name__} in {method} (please report it)")
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _notified(self, method: str, params: dict) -> None:
        if method == "notifications/initialized":
            self.initialized = True
        # notifications/cancelled is the stdio loop's (it drops the cancelled request's answer);
        # any other notification needs nothing from this server.

    # -- methods ---------------------------------------------------------------------------

    def _initialize(self, params: dict) -> dict:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise InvalidParams(f"params.protocolVersion must be a string such as {json.dumps(LATEST_VERSION)}, got {preview(requested)}")
        self.version = requested if requested in PROTOCOL_VERSIONS else LATEST_VERSION
        self.client = params.get("clientInfo")
        server_info = {"name": "fitproof", "version": __version__}
        if self.version >= "2025-06-18":
            server_info["title"] = "fitproof"
        return {
            "protocolVersion": self.version,
            "capabilities": {"tools": {"listChanged": False}, "resources": {"listChanged": False}},
            "serverInfo": server_info,
            "instructions": INSTRUCTIONS,
        }

    def _tools_list(self, params: dict) -> dict:
        _one_page(params, "tool")
        return {"tools": self.toolbox.listing(self.version or LATEST_VERSION)}

    def _resources_list(self, params: dict) -> dict:
        from . import definitions

        _one_page(params, "resource")
        return {"resources": definitions.resources(self.version or LATEST_VERSION)}

    def _templates_list(self, params: dict) -> dict:
        _one_page(params, "resource template")
        return {"resourceTemplates": []}

    def _resources_read(self, params: dict) -> dict:
        from . import definitions

        uri = params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams(f"params.uri must be a resource's URI (a string), got {preview(uri)}")
        contents = definitions.read(uri)
        if contents is None:  # -32602 with the uri, as the protocol's revision of 2026 settles it
            known = [resource["uri"] for resource in definitions.resources(LATEST_VERSION)]
            raise InvalidParams(f"Resource not found: {preview(uri)}{did_you_mean(uri, known)}; resources/list lists them", {"uri": uri})
        return {"contents": contents}

    def _tools_call(self, params: dict) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise InvalidParams(f"params.name must be a tool's name (a string), got {preview(name)}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidParams(f"params.arguments must be an object, got {preview(arguments)}", {"tool": name})
        names = self.toolbox.names()
        if name not in names:
            raise InvalidParams(
                f"Unknown tool: {preview(name)}{did_you_mean(name, names)}; the tools are {', '.join(names)}", {"tool": name}
            )
        return self.toolbox.call(name, arguments, self.version or LATEST_VERSION)


def _one_page(params: dict, what: str) -> None:
    if params.get("cursor") is not None:
        raise InvalidParams(
            f"params.cursor: this server lists every {what} on one page and gave no cursor, got {preview(params['cursor'])}"
        )


def _stderr_line(text: str) -> None:
    try:
        sys.stderr.write(f"fitproof mcp: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _answer_id(answer: object) -> object:
    return answer.get("id") if isinstance(answer, dict) else None


_INTERESTING = None


def top_level_id(text: str) -> str | int | None:
    """The ``id`` of the JSON object ``text`` starts (it may be cut anywhere), if a top-level key
    names one before the cut; None otherwise. A key ``id`` inside ``params`` is not it."""
    import re

    global _INTERESTING
    if _INTERESTING is None:
        _INTERESTING = re.compile(r'["{}\[\],:]')
    depth_stack: list[str] = []
    expect_key = False
    position = 0
    while True:
        found = _INTERESTING.search(text, position)
        if found is None:
            return None
        position, mark = found.start(), found.group()
        if mark == '"':
            end = _string_end(text, position)
            if end < 0:
                return None
            if expect_key and len(depth_stack) == 1:
                colon = _skip_space(text, end)
                if colon < len(text) and text[colon] == ":":
                    try:
                        key = json.loads(text[position:end])
                    except ValueError:
                        return None
                    if key == "id":
                        return _id_at(text, _skip_space(text, colon + 1))
            expect_key = False
            position = end
            continue
        if mark == "{":
            depth_stack.append(mark)
            expect_key = True
        elif mark == "[":
            depth_stack.append(mark)
            expect_key = False
        elif mark in "}]":
            if depth_stack:
                depth_stack.pop()
            if not depth_stack:
                return None
            expect_key = False
        elif mark == ",":
            expect_key = bool(depth_stack) and depth_stack[-1] == "{"
        else:  # ":"
            expect_key = False
        position += 1


def _id_at(text: str, start: int) -> str | int | None:
    """The id value at ``start``, when it is one an id may be (a string or an integer) and is
    whole before the cut. Nothing else is decoded: an array or object there (which no id may be)
    could nest past the parser's recursion limit within the searched bytes."""
    import re

    if text.startswith('"', start):
        end = _string_end(text, start)
        if end < 0:
            return None
        try:
            value = json.loads(text[start:end])
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    number = re.compile(r"-?(?:0|[1-9][0-9]*)(?=[\s,}\]])").match(text, start)
    return int(number.group()) if number else None


def _string_end(text: str, start: int) -> int:
    """The index after the closing quote of the string that starts at ``start``; -1 if it is cut."""
    position = start + 1
    while True:
        position = text.find('"', position)
        if position < 0:
            return -1
        backslashes = 0
        while text[position - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return position + 1
        position += 1


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
