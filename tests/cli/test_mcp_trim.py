"""The ``trim_messages`` tool takes what ``fitproof.trim_messages`` takes and returns what it returns:
the three formats, strategy stable and ``previous``, caching, clearing, a conversation id, and the
memory's warning said in the result (never on standard error)."""

import json

import jsonschema
import pytest

from conftest import ROOT
from fitproof import MessagesError, trim_messages
from fitproof.mcp_server import definitions
from fitproof.modes.messages import stable
from test_mcp_protocol import HISTORY, LATEST, call, session

OUTPUT = definitions.OUTPUT_SCHEMAS["trim_messages"]
PUBLIC = ("kept", "dropped", "tokens", "limit", "remaining", "tools_tokens", "format")
WITH_PREVIOUS = ("strategy", "cut", "as_previous", "previous", "reuse")
WITH_CLEARING = ("cleared", "clearing", "summary_span")


@pytest.fixture(autouse=True)
def no_memory():
    stable.forget()
    yield
    stable.forget()


def tool(arguments, opened=None):
    result = call(opened or session(), "trim_messages", arguments)
    assert result["isError"] is False, result["content"][0]["text"]
    jsonschema.validate(result["structuredContent"], OUTPUT)
    return result["content"][0]["text"], result["structuredContent"]


def python(arguments):
    rest = {key: value for key, value in arguments.items() if key not in ("messages", "limit", "tokenizer")}
    return trim_messages(arguments["messages"], arguments["limit"], arguments.get("tokenizer"), **rest)


def assert_same(structured, trimmed):
    """The tool's structured content is the Python call's result, field for field."""
    assert structured["messages"] == list(trimmed)
    assert {key: structured[key] for key in PUBLIC} == {key: getattr(trimmed, key) for key in PUBLIC}
    assert structured["images_at_most"] == [list(pair) for pair in trimmed.images_at_most]
    for keys, given in ((WITH_PREVIOUS, trimmed.strategy is not None), (WITH_CLEARING, trimmed.cleared is not None)):
        for key in keys:
            assert (key in structured) == given and structured.get(key) == getattr(trimmed, key), key


def fixture_arguments():
    """Every valid messages fixture as the tool's arguments (its input's keys; a Responses input is messages)."""
    found = []
    for path in sorted((ROOT / "fixtures" / "messages").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data.get("input", data)
        arguments = {("messages" if key == "input" else key): value for key, value in data.items() if key not in ("mode", "claim")}
        found.append(pytest.param(arguments, id=path.stem))
    return found


@pytest.mark.parametrize("arguments", fixture_arguments())
def test_each_fixture_trims_as_the_python_call_does(arguments):
    try:
        trimmed = python(arguments)
    except MessagesError as error:
        stable.forget()
        result = call(session(), "trim_messages", arguments)
        assert result["isError"] is True
        first = error.problems[0] if error.problems else None
        assert first is None or f"{first.path}: {first.message}" in result["content"][0]["text"]
        return
    stable.forget()  # (the Python call remembered itself: the tool starts from the same nothing)
    text, structured = tool(arguments)
    assert_same(structured, trimmed)
    assert text.startswith(f"Send {len(trimmed.kept)} of ")


def test_the_anthropic_format_with_its_system_prompt():
    history = [m for m in HISTORY if m["role"] != "system"]
    arguments = {"messages": history, "limit": 40, "format": "anthropic", "system": "Be brief."}
    text, structured = tool(arguments)
    assert structured["format"] == "anthropic" and structured["messages"] == [history[-1]]
    assert_same(structured, python(arguments))  # counted by estimate, as the Python call counts Claude by default
    assert "tokenizer" not in arguments and structured["tokens"] == python({**arguments, "tokenizer": "estimate"}).tokens


def test_the_responses_format_with_its_instructions():
    items = [{"role": "user", "content": "Where is my order?"}, {"type": "message", "role": "assistant", "content": "Friday."}]
    items.append({"role": "user", "content": "And the invoice?"})
    arguments = {"messages": items, "limit": 1000, "format": "responses", "instructions": "Be brief.", "tokenizer": "gpt-4o"}
    text, structured = tool(arguments)
    assert structured["format"] == "responses" and structured["kept"] == [0, 1, 2]
    assert_same(structured, python(arguments))


def long_history(turns, words=30):
    history = [{"role": "system", "content": "Be brief."}]
    for number in range(turns):
        history += [
            {"role": "user", "content": f"question {number} " + "word " * words},
            {"role": "assistant", "content": f"answer {number} " + "word " * words},
        ]
    return history + [{"role": "user", "content": "and now?"}]


def test_strategy_stable_keeps_its_cut_through_previous_and_caching_says_what_is_billed():
    opened = session()
    first_arguments = {"messages": long_history(8), "limit": 300, "strategy": "stable", "caching": {"provider": "openai"}}
    text, first = tool(first_arguments, opened)
    assert first["strategy"] == "stable" and first["as_previous"]["messages"] == 18 and first["previous"] is None
    assert "Give as_previous back as previous on the next call." in text and "Billed: " in text
    grown = first_arguments["messages"] + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more?"}]
    arguments = {**first_arguments, "messages": grown, "previous": first["as_previous"]}
    text, second = tool(arguments, opened)
    assert second["cut"] == first["cut"] and second["previous"] == first["as_previous"]
    assert second["reuse"]["prefix_messages"] > 0 and second["reuse"]["cached_tokens"] >= 0
    stable.forget()
    assert_same(second, python(arguments))


def test_without_previous_the_server_remembers_the_last_call():
    opened = session()
    history = long_history(8)
    _, first = tool({"messages": history, "limit": 300, "strategy": "stable"}, opened)
    grown = history + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more?"}]
    _, second = tool({"messages": grown, "limit": 300, "strategy": "stable"}, opened)
    assert second["previous"] == first["as_previous"] and second["cut"] == first["cut"]


def test_a_conversation_id_keys_the_memory():
    opened = session()
    history = long_history(6)
    _, first = tool({"messages": history, "limit": 300, "strategy": "stable", "conversation": "c1"}, opened)
    grown = history + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more?"}]
    _, other = tool({"messages": grown, "limit": 300, "strategy": "stable", "conversation": "c2"}, opened)
    assert other["previous"] is None
    _, same = tool({"messages": grown, "limit": 300, "strategy": "stable", "conversation": "c1"}, opened)
    assert same["previous"] == first["as_previous"]


def test_a_call_the_memory_let_go_of_is_a_warning_in_the_result():
    opened = session()
    histories = [[{"role": "user", "content": f"conversation {number} " + "word " * 40}] for number in range(20)]
    for history in histories:
        tool({"messages": history, "limit": 4000, "strategy": "stable"}, opened)
    grown = histories[0] + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "and?"}]
    text, structured = tool({"messages": grown, "limit": 4000, "strategy": "stable"}, opened)
    assert structured["previous"] is None and len(structured["warnings"]) == 1
    assert "pass previous=" in structured["warnings"][0] and "\nwarning: this history extends a call" in text


def test_clear_clears_old_tool_results_before_dropping_turns():
    history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "read the files"}]
    for number in range(4):
        call_id = f"call_{number}"
        history.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
            }
        )
        history.append({"role": "tool", "tool_call_id": call_id, "content": "line of a file " * 60})
    history.append({"role": "user", "content": "summarise them"})
    arguments = {"messages": history, "limit": 500, "clear": {"keep": 1}}
    text, structured = tool(arguments)
    assert structured["dropped"] == [] and len(structured["cleared"]) == 3 and structured["clearing"]["freed"] > 0
    assert f"Cleared 3 tool results ({structured['clearing']['freed']} tokens freed now)." in text
    assert structured["as_previous"]["cleared"] and structured["summary_span"] is None
    stable.forget()
    assert_same(structured, python(arguments))
    assert tool({**arguments, "clear": True})[1]["clearing"]["keep"] == 3  # true: the defaults


@pytest.mark.parametrize(
    "arguments, says",
    [
        ({"strategy": "stabel"}, '$.strategy: expected one of newest, stable, got "stabel"; did you mean "stable"?'),
        ({"format": "openai"}, '$.format: expected one of chat, anthropic, responses, got "openai"'),
        (
            {"previous": 5},
            "$.previous: expected the previous call's as_previous, an object {messages, cut, history, head}, got a number: 5",
        ),
        ({"clear": False}, "$.clear: expected an object of clearing options ({} for the defaults), got a boolean: false"),
        ({"caching": {"provider": "anthropic"}}, '$.caching.min_tokens: missing key "min_tokens"'),
        ({"format": "anthropic", "system": 5}, "$.system: expected a string or an array of content blocks (text), got a number: 5"),
        ({"conversation": 5}, "$.conversation: expected a non-empty string (an id of yours for this conversation), got 5"),
        ({"tools": {"type": "function"}}, '$.tools: expected a list of tool definitions (objects), got {"type": "function"}'),
        ({"context_management": {"edits": []}}, "$.context_management: "),
    ],
)
def test_bad_options_are_a_tool_error_naming_the_path_and_the_value(arguments, says):
    opened = session()
    result = call(opened, "trim_messages", {"messages": HISTORY, "limit": 100, **arguments})
    assert result["isError"] is True and says in result["content"][0]["text"], result["content"][0]["text"]
    assert call(opened, "count_tokens", {"text": "still serving"})["isError"] is False


def test_an_older_client_reads_the_same_result_as_text():
    arguments = {"messages": HISTORY, "limit": 100, "strategy": "stable"}
    result = call(session("2025-03-26"), "trim_messages", arguments)
    stable.forget()
    structured = json.loads(result["content"][1]["text"])
    assert structured["strategy"] == "stable" and "as_previous" in structured
    assert LATEST > "2025-03-26" and "structuredContent" not in result
