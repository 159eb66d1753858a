"""The MCP server's protocol handler in-process: one message in, its answer out (no process, no SDK)."""

import json
import threading

import jsonschema
import pytest

from conftest import ROOT
from fitproof import evaluate
from fitproof.mcp_server import protocol, stdio, tools
from fitproof.mcp_server.protocol import MAX_MESSAGE_BYTES, PROTOCOL_VERSIONS, Session

LATEST = PROTOCOL_VERSIONS[0]
RELEVANCE = {
    "budget": 7,
    "items": [{"id": "A", "relevance": 9, "tokens": 4}, {"id": "B", "relevance": 8, "tokens": 5}, {"id": "C", "relevance": 7, "tokens": 3}],
}
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is my order?"},
    {"role": "assistant", "content": "It shipped on Friday."},
    {"role": "user", "content": "And the invoice?"},
]


def request(method, params=None, id=1):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def session(version=LATEST):
    opened = Session(log=lambda text: None)
    answer = opened.handle(
        request("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
    )
    assert answer["result"]["protocolVersion"] == version
    assert opened.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    return opened


def call(opened, name, arguments):
    answer = opened.handle(request("tools/call", {"name": name, "arguments": arguments}))
    assert "result" in answer, answer
    return answer["result"]


def line(opened, text):
    answer = opened.handle_line(text if isinstance(text, bytes) else text.encode())
    return None if answer is None else json.loads(answer)


# -- lifecycle ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_initialize_echoes_a_version_it_speaks(version):
    answer = Session().handle(request("initialize", {"protocolVersion": version, "capabilities": {}}))["result"]
    assert answer["protocolVersion"] == version
    assert answer["capabilities"] == {"tools": {"listChanged": False}, "resources": {"listChanged": False}}
    assert answer["serverInfo"]["name"] == "fitproof" and answer["instructions"]


@pytest.mark.parametrize("version", ["2026-07-28", "2023-01-01", "latest"])
def test_initialize_offers_its_newest_version_for_another(version):
    assert Session().handle(request("initialize", {"protocolVersion": version}))["result"]["protocolVersion"] == LATEST


def test_initialize_without_a_version_is_invalid_params():
    answer = Session().handle(request("initialize", {"capabilities": {}}))
    assert answer["error"]["code"] == -32602 and "protocolVersion" in answer["error"]["message"]


def test_ping_and_notifications():
    opened = session()
    assert opened.handle(request("ping", id="p")) == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert opened.initialized
    for method in ("notifications/cancelled", "notifications/progress", "notifications/whatever"):
        assert opened.handle({"jsonrpc": "2.0", "method": method, "params": {"requestId": 1}}) is None
    # a response from the client (this server sends no requests): nothing to answer
    assert opened.handle({"jsonrpc": "2.0", "id": 9, "result": {}}) is None


# -- JSON-RPC errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, code, says",
    [
        ("nope", -32700, "Parse error"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700, "Parse error"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', -32700, "not UTF-8"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}', -32700, "NaN is not JSON"),
        ('{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}', -32700, 'duplicate key "id"'),
        ("[" * 100_000, -32700, "nested too deeply"),
        ("5", -32600, "got 5"),
        ('"ping"', -32600, "an object"),
        ('{"jsonrpc": "2.0", "id": 1}', -32600, "no method"),
        ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600, 'jsonrpc must be "2.0", got "1.0"'),
        ('{"id": 1, "method": "ping"}', -32600, "jsonrpc"),
        ('{"jsonrpc": "2.0", "id": 1, "method": 5}', -32600, "method must be a string, got 5"),
        ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, "id must be a string or an integer, got null"),
        ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600, "got 1.5"),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, "got true"),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, "batch"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}', -32601, "Method not found: prompts/list"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "tools/lst"}', -32601, "did you mean tools/list?"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', -32602, "params must be an object, got [1]"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chek", "arguments": {}}}', -32602, "did you mean check?"),
        ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}', -32602, "params.name"),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check", "arguments": [1]}}',
            -32602,
            "params.arguments must be an object",
        ),
        ('{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "2"}}', -32602, "cursor"),
    ],
)
def test_a_bad_message_gets_its_error_and_the_session_goes_on(text, code, says):
    opened = session()
    answer = line(opened, text)
    assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] == code and says in answer["error"]["message"], answer
    try:  # an object whose id is valid gets it back, however bad the rest; anything else gets null
        sent = json.loads(text)
    except (ValueError, RecursionError):
        sent = None
    assert answer["id"] == (1 if code != -32700 and isinstance(sent, dict) and type(sent.get("id")) is int else None)
    assert line(opened, '{"jsonrpc": "2.0", "id": 2, "method": "ping"}') == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_an_invalid_notification_gets_no_answer():
    assert line(session(), '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": 5}') is None


def test_a_line_over_the_limit_is_refused_with_its_id():
    opened = session()
    big = json.dumps(request("tools/call", {"name": "count_tokens", "arguments": {"text": "x" * MAX_MESSAGE_BYTES}}, id="big"))
    answer = line(opened, big)
    assert answer["id"] == "big" and answer["error"]["code"] == -32600
    assert f"{MAX_MESSAGE_BYTES:,} bytes" in answer["error"]["message"] and answer["error"]["data"] == {"limit_bytes": MAX_MESSAGE_BYTES}


@pytest.mark.parametrize(
    "head, found",
    [
        ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"xxxx', 7),
        ('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":"inner","items":[{"id":3}]}},"id":"outer"}', "outer"),
        ('{"method":"tools/call","params":{"arguments":{"id":"inner","text":"cut here', None),
        ('{"params": {"text": "a \\" quote \\\\", "id": 1}, "id" : "x\\"y"', 'x"y'),
        ('{"id": null, "method": "ping"}', None),
        ('[{"id": 1}]', None),
        ('{"id": 1.5}', None),
        ("", None),
    ],
)
def test_the_id_of_a_cut_line(head, found):
    assert protocol.top_level_id(head) == found


def test_batches_only_in_2025_03_26():
    opened = session("2025-03-26")
    batch = [request("ping", id=1), {"jsonrpc": "2.0", "method": "notifications/initialized"}, request("nope", id=2), 5]
    answers = opened.handle(batch)
    assert [answer.get("id") for answer in answers] == [1, 2, None]
    assert answers[0]["result"] == {} and answers[1]["error"]["code"] == -32601 and answers[2]["error"]["code"] == -32600
    assert opened.handle([])["error"]["code"] == -32600
    assert session("2025-06-18").handle([request("ping")])["error"]["code"] == -32600


def test_a_failure_of_the_server_itself_is_an_internal_error_and_the_session_goes_on():
    logged = []

    class Broken:
        @staticmethod
        def names():
            return ("boom",)

        @staticmethod
        def call(name, arguments, version):
            raise KeyError("a bug")

        @staticmethod
        def listing(version):
            return []

    opened = Session(Broken, log=logged.append)
    answer = opened.handle(request("tools/call", {"name": "boom"}))
    assert answer["error"]["code"] == -32603 and "KeyError" in answer["error"]["message"]
    assert logged == ["tools/call failed: KeyError: 'a bug'"]
    assert opened.handle(request("ping", id=2))["result"] == {}


def test_an_answer_that_is_not_json_is_an_internal_error():
    logged = []
    opened = Session(log=logged.append)
    assert json.loads(opened.encode({"jsonrpc": "2.0", "id": 3, "result": {"x": float("nan")}}))["error"]["code"] == -32603
    assert logged and "encode" in logged[0]


def test_a_lone_surrogate_is_written_as_an_escape():
    text = Session().encode({"jsonrpc": "2.0", "id": 1, "result": {"text": "\ud83d é"}})
    assert text.endswith(b"\n") and b"\\ud83d" in text and json.loads(text)["result"]["text"] == "\ud83d é"


# -- tools/list ---------------------------------------------------------------------------------


def full_schema(opened, tool):
    answer = opened.handle(request("resources/read", {"uri": f"fitproof://schema/{tool}"}))["result"]
    return json.loads(answer["contents"][0]["text"])


def test_the_tools_and_their_schemas():
    opened = session()
    listed = opened.handle(request("tools/list"))["result"]["tools"]
    assert [tool["name"] for tool in listed] == ["check", "count_tokens", "trim_messages", "verify_claim"]
    for tool in listed:
        assert tool["title"] and tool["description"] and tool["annotations"]["readOnlyHint"] is True
        assert f"fitproof://schema/{tool['name']}" in tool["description"]
        for schema in (tool["inputSchema"], tool["outputSchema"], full_schema(opened, tool["name"])):
            assert schema["type"] == "object"
            jsonschema.Draft202012Validator.check_schema(schema)
        full = full_schema(opened, tool["name"])
        assert list(tool["inputSchema"]["properties"]) == list(full["properties"])
        assert tool["inputSchema"]["required"] == full["required"] and tool["inputSchema"]["additionalProperties"] is False
    check = full_schema(opened, "check")
    package = [json.loads((ROOT / "py" / "fitproof" / "schemas" / f"{mode}.schema.json").read_text()) for mode in tools.MODES]
    assert check["properties"]["input"]["anyOf"] == [{k: v for k, v in schema.items() if k not in ("$schema", "$id")} for schema in package]
    trim = full_schema(opened, "trim_messages")["properties"]
    assert trim["messages"] == package[-1]["properties"]["messages"] and trim["limit"] == package[-1]["properties"]["limit"]
    for key in ("format", "system", "instructions", "strategy", "low_watermark", "previous", "caching", "clear", "context_management"):
        assert trim[key] == package[-1]["properties"][key]


def test_every_shipped_example_fits_checks_input_schema_slim_and_full():
    opened = session()
    slim = opened.handle(request("tools/list"))["result"]["tools"][0]["inputSchema"]
    examples = sorted(path for path in (ROOT / "examples").glob("*.json") if not path.name.endswith("-answer.json"))
    assert len(examples) >= 3
    for schema in (slim, full_schema(opened, "check")):
        validator = jsonschema.Draft202012Validator(schema)
        for path in examples:
            validator.validate({"input": json.loads(path.read_text())})
        assert not validator.is_valid({"input": RELEVANCE, "extra": 1}) and not validator.is_valid({})


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26"])
def test_older_versions_get_what_they_know(version):
    opened = session(version)
    listed = opened.handle(request("tools/list"))["result"]["tools"]
    assert all("outputSchema" not in tool and "title" not in tool for tool in listed)
    assert all(("annotations" in tool) == (version == "2025-03-26") for tool in listed)
    result = call(opened, "count_tokens", {"text": "hello world"})
    assert "structuredContent" not in result
    assert [part["type"] for part in result["content"]] == ["text", "text"]
    assert json.loads(result["content"][1]["text"]) == {"tokens": 2, "tokenizer": "o200k_base", "encoding": "o200k_base"}


# -- tools/call ---------------------------------------------------------------------------------


def checked(opened, name, arguments):
    """The call's result, its structured content checked against the tool's output schema."""
    result = call(opened, name, arguments)
    assert result["isError"] is False, result
    schema = next(tool for tool in tools.listing(LATEST) if tool["name"] == name)["outputSchema"]
    jsonschema.validate(result["structuredContent"], schema)
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text"
    return result["content"][0]["text"], result["structuredContent"]


def test_check():
    text, structured = checked(session(), "check", {"input": RELEVANCE})
    assert text == "PASS  Selected A, C within 7 tokens."
    assert structured == {"pass": True, "report": evaluate(RELEVANCE)}


def test_check_with_a_claim_gives_the_first_failure():
    text, structured = checked(session(), "check", {"input": RELEVANCE, "claim": {"selected": ["A", "B"]}})
    assert structured["pass"] is False and structured["report"]["claim"]["pass"] is False
    assert structured["failure"].startswith("the claim fails the check 'token budget': the claimed items cost 9 tokens")
    assert text.startswith("FAIL  The claim fails")


def test_check_a_selection_that_fails_by_the_rule_is_a_result_not_an_error():
    data = {"mode": "required", "budget": 3, "items": [{"id": "A", "cost": 4, "priority": 1, "required": True}]}
    text, structured = checked(session(), "check", {"input": data})
    assert structured["pass"] is False and structured["failure"].startswith("required items selected: required item A is not selected")
    assert text.startswith("FAIL  Required item A needs 4 tokens but the budget is 3")


def test_count_tokens():
    text, structured = checked(
        session(), "count_tokens", {"text": "Order ORD-884120 shipped 2026-03-09 and arrived four days late.", "tokenizer": "gpt-4o"}
    )
    assert structured == {"tokens": 19, "tokenizer": "gpt-4o", "encoding": "o200k_base"}
    assert text == "19 tokens by gpt-4o (o200k_base), exact"
    assert checked(session(), "count_tokens", {"text": "", "tokenizer": "estimate"})[1]["tokens"] == 0


def test_trim_messages():
    text, structured = checked(session(), "trim_messages", {"messages": HISTORY, "limit": 25, "tokenizer": "gpt-4o"})
    assert structured["kept"] == [0, 3] and structured["dropped"] == [1, 2]
    assert structured["messages"] == [HISTORY[0], HISTORY[3]] and structured["tokens"] + structured["remaining"] == 25
    assert text == f"Send 2 of 4 messages (0, 3): {structured['tokens']} prompt tokens of 25, {structured['remaining']} left. Dropped: 1–2."


def test_verify_claim():
    text, structured = checked(session(), "verify_claim", {"input": RELEVANCE, "claim": {"selected": ["C", "A"]}})
    assert structured == {"holds": True, "failures": []} and text.startswith("CLAIM HOLDS")
    text, structured = checked(session(), "verify_claim", {"input": RELEVANCE, "claim": {"selected": ["A"]}})
    assert structured["holds"] is False and structured["failures"][0] == {
        "check": "follows the rule",
        "detail": "C fits the 3 tokens that remain (it needs 3) but is not claimed",
        "id": "C",
    }
    assert text.startswith("CLAIM FAILS: 1 failure\n  follows the rule: C fits")


@pytest.mark.parametrize(
    "name, arguments, says",
    [
        (
            "check",
            {"input": {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokens": "x"}]}},
            '$.input.items[0].tokens: expected an integer from 0 to 2^53-1, got "x"',
        ),
        ("check", {"input": [1, 2]}, "$.input: "),
        ("check", {"input": RELEVANCE, "claim": {"selected": "A"}}, "$.claim.selected: "),
        ("check", {"input": {**RELEVANCE, "claim": 5}}, "$.input.claim: expected an object"),
        ("check", {"inptu": RELEVANCE}, "$.inptu: unknown argument (did you mean input?)"),
        ("check", {}, "$.input: missing"),
        ("count_tokens", {"text": 5}, "$.text: expected a string, got 5"),
        ("count_tokens", {"text": "x", "tokenizer": "gpt-9"}, "$.tokenizer: unknown tokenizer 'gpt-9'"),
        (
            "count_tokens",
            {"text": "x", "tokenizer": ["o200k_base"]},
            "$.tokenizer: expected a tokenizer's or a model's name (a string), got [\"o200k_base\"]",
        ),
        (
            "trim_messages",
            {"messages": [{"role": "usr", "content": "x"}], "limit": 10},
            '$.messages[0].role: expected one of system, developer, user, assistant, tool, got "usr"',
        ),
        ("trim_messages", {"messages": HISTORY, "limit": -1}, "$.limit: "),
        (
            "trim_messages",
            {"messages": {"role": "user"}, "limit": 10},
            '$.messages: expected a list of messages (objects with role and content), got {"role": "user"}',
        ),
        ("trim_messages", {"messages": HISTORY, "limit": 10, "tokenizer": "gpt-4o"}, "Nothing to send: $.limit: "),
        ("verify_claim", {"input": RELEVANCE, "claim": {"selected": [1]}}, "$.claim.selected[0]: expected a non-empty string id, got 1"),
        ("verify_claim", {"input": {"budget": "7", "items": []}, "claim": {"selected": []}}, "$.input.budget: "),
        ("verify_claim", {"input": "x", "claim": {}}, '$.input: expected an object (an input of any mode), got "x"'),
        ("verify_claim", {"input": RELEVANCE}, "$.claim: missing"),
    ],
)
def test_bad_arguments_are_a_tool_error_naming_the_path(name, arguments, says):
    opened = session()
    result = call(opened, name, arguments)
    assert result["isError"] is True and says in result["content"][0]["text"], result
    assert call(opened, "count_tokens", {"text": "still serving"})["isError"] is False


def test_a_history_that_does_not_fit_says_by_how_much():
    result = call(session(), "trim_messages", {"messages": HISTORY, "limit": 10, "tokenizer": "gpt-4o"})
    assert result["isError"] is True
    assert result["structuredContent"]["shortfall"] > 0 and result["structuredContent"]["live_turn"] == [3]


def test_invalid_input_to_check_carries_the_report():
    result = call(session(), "check", {"input": {"budget": -1, "items": []}})
    assert result["isError"] is True and result["structuredContent"]["report"]["errors"][0]["path"] == "$.budget"


# -- the stdio loop, in-process -----------------------------------------------------------------


def run_loop(chunks):
    """What ``stdio.serve`` writes for these chunks of input (``chunks`` may be callables, run at their read)."""
    written = []
    pieces = iter(chunks)

    def read():
        piece = next(pieces, b"")
        return piece() if callable(piece) else piece

    assert stdio.serve(read, written.append) == 0
    return [json.loads(line) for line in written]


def rpc(message):
    return (json.dumps(message) + "\n").encode()


class Waiting:
    """A toolbox whose tool waits until the test lets it go: a call that is still running."""

    def __init__(self):
        self.go = threading.Event()

    def names(self):
        return tools.names()

    def listing(self, version):
        return tools.listing(version)

    def call(self, name, arguments, version):
        if name == "check":
            assert self.go.wait(timeout=60)
        return tools.call(name, arguments, version)


def test_a_request_cancelled_while_it_runs_gets_no_answer():
    toolbox = Waiting()
    opened = Session(toolbox)
    cancel = rpc({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}})

    def then_let_go():
        toolbox.go.set()  # the cancellation has been read by now: it came in the chunk before
        return b""

    written = []
    pieces = iter(
        [
            rpc(request("tools/call", {"name": "check", "arguments": {"input": RELEVANCE}}, id=1)),
            cancel + rpc(request("ping", id=2)),
            then_let_go,
        ]
    )
    stdio.serve(lambda: (lambda piece: piece() if callable(piece) else piece)(next(pieces)), written.append, opened)
    assert [json.loads(line) for line in written] == [{"jsonrpc": "2.0", "id": 2, "result": {}}]


def test_a_request_cancelled_before_its_turn_gets_no_answer():
    toolbox = Waiting()
    opened = Session(toolbox)
    first = rpc(request("tools/call", {"name": "check", "arguments": {"input": RELEVANCE}}, id="a"))
    second = rpc(request("tools/call", {"name": "count_tokens", "arguments": {"text": "x"}}, id="b"))
    cancel = rpc({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b"}})

    def then_let_go():
        toolbox.go.set()
        return b""

    written = []
    pieces = iter([first + second + cancel, then_let_go])
    stdio.serve(lambda: (lambda piece: piece() if callable(piece) else piece)(next(pieces)), written.append, opened)
    assert [json.loads(line)["id"] for line in written] == ["a"]


def test_ids_no_cancellation_could_name():
    cancel = rpc({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})  # one is pending
    answers = run_loop(
        [
            cancel + b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}\n{"jsonrpc": "2.0", "id": [1], "method": "ping"}\n'
            b'{"jsonrpc": "2.0", "id": true, "method": "ping"}\n' + rpc(request("ping", id=4))
        ]
    )
    assert [(answer["id"], answer.get("error", {}).get("code")) for answer in answers] == [(None, -32600)] * 3 + [(4, None)]


def test_a_full_disk_ends_it_with_one_line():
    logged = []

    def full(data):
        raise OSError(28, "No space left on device")

    assert stdio.serve(iter([rpc(request("ping")), b""]).__next__, full, Session(log=logged.append)) == 2
    assert logged == ["cannot write standard output: No space left on device"]


@pytest.mark.parametrize(
    "head",
    [
        b'{"jsonrpc":"2.0","id":' + b"[" * 70_000,  # an id that nests past the parser's recursion limit
        b'{"jsonrpc":"2.0","id":' + b'{"a":' * 20_000,
        b'{"jsonrpc":"2.0","params":' + b"[" * 70_000,
        b"[" * 70_000,
    ],
)
def test_an_oversized_line_that_nests_deeply_at_its_start_is_answered(head):
    # docs/cli.md: every line over the limit is answered -32600; its first 64 KiB, searched for an
    # id, may nest as deep as they like.
    chunks = [head] + [b"]" * (1 << 20)] * 17 + [b"\n" + rpc(request("ping", id=2))]
    answers = run_loop(chunks)
    assert answers[0]["id"] is None and answers[0]["error"]["code"] == -32600
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_an_oversized_lines_id_is_found_only_when_it_is_whole():
    from fitproof.mcp_server.protocol import top_level_id

    assert [top_level_id(text) for text in ['{"id": 12, "x"', '{"id": -3}', '{"id": "a\\"b"}', '{"a": {"id": 3}, "id": 4}']] == [
        12,
        -3,
        'a"b',
        4,
    ]
    assert [top_level_id(text) for text in ['{"id": 12', '{"id": 1.5}', '{"id": true}', '{"id": "cut', '{"id": [1]}']] == [None] * 5


def test_a_line_the_loop_cannot_answer_still_gets_an_answer(monkeypatch):
    # A bug in answering one line: the client hears -32603 (not silence) and the next line is served.
    def broken(*arguments):
        raise RuntimeError("planted")

    monkeypatch.setattr(stdio, "_answer", broken)
    written = []
    pieces = iter([rpc(request("ping", id=1)), b""])
    assert stdio.serve(lambda: next(pieces, b""), written.append, Session(log=lambda text: None)) == 0
    assert [json.loads(line)["error"]["code"] for line in written] == [-32603]


def test_lines_cut_anywhere_and_crlf():
    message = rpc(request("ping", id=1)).replace(b"\n", b"\r\n") + b"\n\n  \n" + rpc(request("ping", id=2))[:-1]
    answers = run_loop([message[i : i + 3] for i in range(0, len(message), 3)])
    assert answers == [{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 2, "result": {}}]


def test_an_oversized_line_in_pieces_is_skipped_to_its_newline():
    head = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"'
    filler = b"x" * (1 << 20)
    chunks = [head] + [filler] * 17 + [b'"}}}\n' + rpc(request("ping", id=2))]
    answers = run_loop(chunks)
    assert answers[0]["id"] == "big" and answers[0]["error"]["code"] == -32600
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    # cut off at the end of the input: still answered
    assert run_loop([head, filler * 17])[0]["id"] == "big"
