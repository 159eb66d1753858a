"""What ``tools/list`` costs an agent's context, the full input schemas behind ``resources/read``,
what the slim schemas leave out refused by the tools themselves, and no raw U+2028/U+2029 on the wire."""

import json

import jsonschema
import pytest

from fitproof import count_tokens
from fitproof.mcp_server import definitions, stdio
from fitproof.mcp_server.protocol import PROTOCOL_VERSIONS, encode
from test_mcp_protocol import RELEVANCE, call, request, run_loop, rpc, session

LATEST = PROTOCOL_VERSIONS[0]
BUDGET = 2500  # o200k_base tokens for the four definitions, all told
TOOLS = ("check", "count_tokens", "trim_messages", "verify_claim")


def tools_list_line(version=LATEST):
    """The exact line the server writes for tools/list."""
    line = session(version).handle_line(json.dumps(request("tools/list")).encode())
    assert line is not None
    return line


def read(opened, uri):
    return opened.handle(request("resources/read", {"uri": uri}))


# -- the cost ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_the_four_definitions_cost_at_most_2500_o200k_base_tokens(version):
    line = tools_list_line(version)
    assert count_tokens(line.decode("utf-8"), "o200k_base") <= BUDGET
    tools = json.loads(line)["result"]["tools"]
    assert [tool["name"] for tool in tools] == list(TOOLS)


def test_the_full_schemas_are_what_the_slim_ones_leave_out():
    opened = session()
    slim = sum(count_tokens(json.dumps(tool["inputSchema"]), "o200k_base") for tool in definitions.listing(LATEST))
    full = sum(count_tokens(read(opened, f"fitproof://schema/{tool}")["result"]["contents"][0]["text"], "o200k_base") for tool in TOOLS)
    assert full > 5 * slim  # the thousands of tokens an agent reads only when it asks


# -- resources -----------------------------------------------------------------------------------


def test_resources_list_each_tools_and_each_modes_full_schema():
    opened = session()
    listed = opened.handle(request("resources/list"))["result"]["resources"]
    uris = [resource["uri"] for resource in listed]
    assert uris == [f"fitproof://schema/{tool}" for tool in TOOLS] + [f"fitproof://schema/mode/{mode}" for mode in definitions.MODES]
    for resource in listed:
        assert resource["name"] and resource["title"] and resource["description"] and resource["mimeType"] == "application/json"
        contents = read(opened, resource["uri"])["result"]["contents"]
        assert [(part["uri"], part["mimeType"]) for part in contents] == [(resource["uri"], "application/json")]
        assert resource["size"] == len(contents[0]["text"].encode("utf-8"))
        jsonschema.Draft202012Validator.check_schema(json.loads(contents[0]["text"]))
    assert json.loads(read(opened, "fitproof://schema/mode/blocks")["result"]["contents"][0]["text"]) == definitions.mode_schema("blocks")
    assert opened.handle(request("resources/templates/list"))["result"] == {"resourceTemplates": []}


def test_an_older_client_gets_resources_without_titles():
    listed = session("2024-11-05").handle(request("resources/list"))["result"]["resources"]
    assert listed and all("title" not in resource and resource["size"] > 0 for resource in listed)


@pytest.mark.parametrize(
    "params, says",
    [
        ({"uri": "fitproof://schema/chek"}, 'Resource not found: "fitproof://schema/chek" (did you mean fitproof://schema/check?)'),
        ({"uri": "fitproof://schema/mode/nope"}, "Resource not found"),
        ({"uri": "file:///etc/passwd"}, "Resource not found"),
        ({"uri": 5}, "params.uri must be a resource's URI (a string), got 5"),
        ({}, "params.uri must be"),
    ],
)
def test_an_unknown_resource_is_invalid_params_with_its_uri(params, says):
    answer = read(session(), params.get("uri"))["error"] if "uri" in params else session().handle(request("resources/read", {}))["error"]
    assert answer["code"] == -32602 and says in answer["message"]
    if isinstance(params.get("uri"), str):
        assert answer["data"] == {"uri": params["uri"]}


def test_a_resource_cursor_it_never_gave_is_invalid_params():
    answer = session().handle(request("resources/list", {"cursor": "x"}))["error"]
    assert answer["code"] == -32602 and "every resource on one page" in answer["message"]


# -- the slim schemas ----------------------------------------------------------------------------


def slim_and_full(tool):
    return next(t for t in definitions.listing(LATEST) if t["name"] == tool)["inputSchema"], definitions.full_schema(tool)


def test_a_slim_schema_is_never_narrower_than_the_full_one_on_the_shipped_inputs():
    from conftest import ROOT

    slim, full = (jsonschema.Draft202012Validator(schema) for schema in slim_and_full("trim_messages"))
    seen = set()
    for path in sorted((ROOT / "fixtures" / "messages").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data.get("input", data)
        arguments = {("messages" if key == "input" else key): value for key, value in data.items() if key not in ("mode", "claim")}
        if full.is_valid(arguments):
            slim.validate(arguments)
            seen |= set(arguments)
    assert {"format", "system", "instructions", "strategy", "low_watermark", "previous", "caching"} <= seen


ANTHROPIC = [{"role": "user", "content": "Where is my order?"}]

# Arguments the slim schema takes and the full one refuses (or, deeper than any schema goes, the
# package: a message's role, a tool definition, a claim's shape in its mode): the tool refuses each, naming the path.
LEFT_OUT = [
    ("check", {"input": {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokens": "x"}]}}, "$.input.items[0].tokens: "),
    ("check", {"input": {"budget": 7, "items": [], "extra": 1}}, '$.input.extra: unknown key "extra"'),
    ("check", {"input": {**RELEVANCE, "mode": "relevant"}}, "$.input.mode: "),
    ("check", {"input": RELEVANCE, "claim": {"selected": "A"}}, "$.claim.selected: "),
    ("check", {"input": RELEVANCE, "claim": {"chosen": ["A"]}}, "$.claim"),
    ("verify_claim", {"input": {"budget": -1, "items": []}, "claim": {"selected": []}}, "$.input.budget: "),
    ("verify_claim", {"input": RELEVANCE, "claim": {"selected": [1]}}, "$.claim.selected[0]: "),
    ("trim_messages", {"messages": [{"role": "usr", "content": "x"}], "limit": 10}, "$.messages[0].role: "),
    ("trim_messages", {"messages": [], "limit": 10}, "$.messages: "),
    ("trim_messages", {"messages": ANTHROPIC, "limit": -1}, "$.limit: "),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "low_watermark": 2}, "$.low_watermark: expected a number in (0, 1]"),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "previous": {"messages": 0}}, "$.previous"),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "caching": {"provider": "x"}}, "$.caching.provider: expected one of openai"),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "clear": {"keep": -1}}, "$.clear.keep: "),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "clear": {"kepe": 1}}, "$.clear.kepe: "),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "template": "llama3", "template_options": {"x": 1}}, "$.template_options"),
    (
        "trim_messages",
        {"messages": ANTHROPIC, "limit": 100, "format": "anthropic", "system": [{"type": "image"}]},
        "$.system[0]",
    ),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "tools": [{"type": "x"}]}, "$.tools[0]"),
    (
        "trim_messages",
        {"messages": ANTHROPIC, "limit": 100, "format": "anthropic", "context_management": {"edits": 5}},
        "$.context_management",
    ),
    ("trim_messages", {"messages": ANTHROPIC, "limit": 100, "conversation": ""}, "$.conversation: expected a non-empty string"),
]

DEEPER = ("$.claim", "$.messages[0].role: ", "$.tools[0]")


@pytest.mark.parametrize("tool, arguments, says", LEFT_OUT)
def test_what_the_slim_schema_leaves_out_the_tool_refuses(tool, arguments, says):
    slim, full = slim_and_full(tool)
    assert jsonschema.Draft202012Validator(slim).is_valid(arguments), "the slim schema refuses it already"
    assert not jsonschema.Draft202012Validator(full).is_valid(arguments) or says in DEEPER
    result = call(session(), tool, arguments)
    assert result["isError"] is True and says in result["content"][0]["text"], result["content"][0]["text"]


def test_an_unknown_argument_points_to_the_full_schema():
    text = call(session(), "trim_messages", {"messages": ANTHROPIC, "limit": 9, "strategi": "stable"})["content"][0]["text"]
    assert text.startswith("$.strategi: unknown argument (did you mean strategy?)")
    assert text.endswith("(the full schema: resource fitproof://schema/trim_messages)")


# -- U+2028 and U+2029 ---------------------------------------------------------------------------

SEPARATORS = ("\u2028".encode(), "\u2029".encode())


def test_no_answer_carries_a_raw_line_or_paragraph_separator():
    for line in [tools_list_line(version) for version in PROTOCOL_VERSIONS]:
        assert not any(separator in line for separator in SEPARATORS)
    data = {"budget": 9, "items": [{"id": "A\u2028B", "relevance": 9, "tokens": 4}, {"id": "C\u2029", "relevance": 1, "tokens": 3}]}
    opened = session()
    for message in (
        request("tools/call", {"name": "check", "arguments": {"input": data}}),
        request("tools/call", {"name": "count_tokens", "arguments": {"text": "a\u2028b", "tokenizer": "x\u2029"}}),
        request("resources/read", {"uri": "fitproof://\u2028"}),
        request("tools/call", {"name": "che\u2028ck", "arguments": {}}),
    ):
        line = opened.handle_line(json.dumps(message, ensure_ascii=False).encode())
        assert line is not None and line.endswith(b"\n") and line.count(b"\n") == 1
        assert not any(separator in line for separator in SEPARATORS), line
        assert b"\\u2028" in line or b"\\u2029" in line
    answer = json.loads(opened.handle_line(json.dumps(request("tools/call", {"name": "check", "arguments": {"input": data}})).encode()))
    assert answer["result"]["structuredContent"]["report"]["selected"] == ["A\u2028B", "C\u2029"]  # the same text, escaped


def test_the_stdio_loop_writes_them_escaped_too():
    written = []
    chunks = iter([rpc(request("tools/call", {"name": "count_tokens", "arguments": {"text": 5, "tokenizer": "\u2028"}}))])
    assert stdio.serve(lambda: next(chunks, b""), written.append) == 0
    assert len(written) == 1 and not any(separator in written[0] for separator in SEPARATORS)
    assert run_loop([rpc(request("ping"))]) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_encode_escapes_them_and_nothing_else():
    line = encode({"text": "a\u2028b\u2029c é \u2027"})
    assert line == '{"text":"a\\u2028b\\u2029c é \u2027"}\n'.encode()
    assert json.loads(line) == {"text": "a\u2028b\u2029c é \u2027"}
