"""Mode ``messages`` in Anthropic's Messages format and OpenAI's Responses format: the same rule as
the chat format on the same conversations converted between formats, the SDKs' own request types
take every trimmed history, errors at their paths in the chat format's words, SDK objects read as
they are (anthropic and openai in the test extra; objects built locally, never a request)."""

import base64
import json
import re
import struct
import zlib

import pytest
from hypothesis import given, strategies as st

from fitproof import MessagesDoNotFit, MessagesError, count_messages, count_tokens, evaluate, trim_messages
from fitproof.modes.messages import formats, reading, rule
from fitproof.modes.messages.formats import anthropic as anthropic_format

pydantic = pytest.importorskip("pydantic")
anthropic_types = pytest.importorskip("anthropic.types")
responses_types = pytest.importorskip("openai.types.responses")
openai_chat = pytest.importorskip("openai.types.chat")

FORBID = pydantic.ConfigDict(extra="forbid")
ANTHROPIC_REQUEST = pydantic.TypeAdapter(anthropic_types.MessageParam, config=FORBID)
RESPONSES_REQUEST = pydantic.TypeAdapter(responses_types.ResponseInputItemParam, config=FORBID)
CHAT_REQUEST = pydantic.TypeAdapter(openai_chat.ChatCompletionMessageParam)


def _forced(value):
    """Every lazily validated iterable (the request types' ``Iterable[...]`` fields) consumed, so each
    block is validated too."""
    if isinstance(value, dict):
        return {key: _forced(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_forced(item) for item in value]
    if type(value).__name__ == "ValidatorIterator":
        return [_forced(item) for item in value]
    return value


def sdk_valid(items, fmt):
    adapter = {"anthropic": ANTHROPIC_REQUEST, "responses": RESPONSES_REQUEST}[fmt]
    for item in items:
        _forced(adapter.validate_python(item))


def trim(items, *args, **kwargs):
    """``trim_messages``, and the history it returns validated against its format's SDK request type."""
    trimmed = trim_messages(items, *args, **kwargs)
    if trimmed.format == "chat":
        for message in trimmed:
            CHAT_REQUEST.validate_python(message)
    else:
        sdk_valid(trimmed, trimmed.format)
    return trimmed


# ---------------------------------------------------------------- converting a chat history


def to_anthropic(chat, system_apart=False, blocks=False):
    """``(items, system, where)``: the chat history as Anthropic's messages; ``where[i]``: the
    indices of the items chat message ``i`` became (a run of tool messages is one user message)."""
    items, where, system = [], [], None
    for index, message in enumerate(chat):
        role = message["role"]
        extra = {"pinned": True} if message.get("pinned") else {}
        if role in ("system", "developer"):
            if system_apart and index == 0:
                system = message["content"] if not blocks else [{"type": "text", "text": message["content"]}]
                where.append([])
                continue
            items.append({"role": "system", "content": message["content"]})
        elif role == "user":
            content = [{"type": "text", "text": message["content"]}] if blocks else message["content"]
            items.append({"role": "user", "content": content, **extra})
        elif role == "assistant":
            if message.get("tool_calls"):
                content = [{"type": "text", "text": message["content"]}] if message.get("content") else []
                content += [
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["function"]["name"],
                        "input": json.loads(call["function"]["arguments"]),
                    }
                    for call in message["tool_calls"]
                ]
                items.append({"role": "assistant", "content": content, **extra})
            else:
                content = [{"type": "text", "text": message["content"]}] if blocks else message["content"]
                items.append({"role": "assistant", "content": content, **extra})
        else:  # tool: into the user message after the assistant message, one block a result
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
            if chat[index - 1]["role"] == "tool":
                items[-1]["content"].append(block)
            else:
                items.append({"role": "user", "content": [block]})
        where.append([len(items) - 1])
    return items, system, where


def to_responses(chat, reasoning=False, typed=False):
    """``(items, instructions, where)``: the chat history as Responses input items."""
    items, where = [], []
    for index, message in enumerate(chat):
        role = message["role"]
        extra = {"pinned": True} if message.get("pinned") else {}
        mine = []
        if role in ("system", "developer", "user"):
            content = [{"type": "input_text", "text": message["content"]}] if typed else message["content"]
            items.append(
                {"type": "message", "role": role, "content": content, **extra} if typed else {"role": role, "content": content, **extra}
            )
            mine.append(len(items) - 1)
        elif role == "assistant":
            if message.get("tool_calls") and reasoning:
                items.append({"type": "reasoning", "id": f"rs_{index}", "summary": [{"type": "summary_text", "text": "checking"}], **extra})
                mine.append(len(items) - 1)
                extra = {}
            if message.get("content"):
                if typed:
                    items.append(
                        {
                            "type": "message",
                            "id": f"msg_{index}",
                            "role": "assistant",
                            "status": "completed",
                            "content": [{"type": "output_text", "text": message["content"], "annotations": []}],
                            **extra,
                        }
                    )
                else:
                    items.append({"role": "assistant", "content": message["content"], **extra})
                mine.append(len(items) - 1)
                extra = {}
            for call in message.get("tool_calls") or ():
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                        **extra,
                    }
                )
                mine.append(len(items) - 1)
                extra = {}
        else:
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"], "output": message["content"]})
            mine.append(len(items) - 1)
        where.append(mine)
    return items, None, where


WORDS = ["order", "refund", "shipped", "the", "parcel", "is", "late", "thanks", "A-1042", "where", "café", "🙂", "tracking", "number"]


@st.composite
def chat_histories(draw):
    """A chat history as an application writes it: a system message or not, turns of a user message,
    sometimes tool rounds (an assistant message calling one to three tools and their results), a reply;
    now and then a pinned user message or a system message in the middle."""

    def text(low=1, high=40):
        return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=low, max_size=high)))

    history = []
    if draw(st.booleans()):
        history.append({"role": "system", "content": text(3, 30)})
    if draw(st.integers(0, 5)) == 0:
        history.append({"role": "assistant", "content": text()})
    calls = 0
    for _ in range(draw(st.integers(1, 7))):
        user = {"role": "user", "content": text()}
        if draw(st.integers(0, 6)) == 0:
            user["pinned"] = True
        history.append(user)
        for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
            ids = [f"call_{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            content = text() if draw(st.booleans()) else None
            history.append(
                {
                    "role": "assistant",
                    "content": content,
                    "tool_calls": [
                        {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": text(1, 4)})}}
                        for call_id in ids
                    ],
                }
            )
            history.extend({"role": "tool", "tool_call_id": call_id, "content": text(1, 80)} for call_id in ids)
        if draw(st.integers(0, 8)) == 0:
            history.append({"role": draw(st.sampled_from(["system", "developer"])), "content": text(1, 10)})
        if draw(st.booleans()) or history[-1]["role"] == "tool":
            history.append({"role": "assistant", "content": text()})
    if draw(st.booleans()):  # the live turn: a question, sometimes with a tool round answered
        history.append({"role": "user", "content": text()})
    return history


def conversions(chat, choice):
    if choice == "anthropic":
        items, system, where = to_anthropic(chat)
    elif choice == "anthropic, system apart, blocks":
        items, system, where = to_anthropic(chat, system_apart=True, blocks=True)
    elif choice == "responses":
        items, system, where = to_responses(chat)
    else:
        items, system, where = to_responses(chat, reasoning=True, typed=True)
    fmt = "anthropic" if choice.startswith("anthropic") else "responses"
    return fmt, items, system, where


CHOICES = ["anthropic", "anthropic, system apart, blocks", "responses", "responses, reasoning, typed"]


def _data(fmt, items, system, limit):
    data = {"mode": "messages", "format": fmt, "limit": limit, "messages": items}
    if system is not None:
        data["system"] = system
    return data


@given(chat=chat_histories(), choice=st.sampled_from(CHOICES), share=st.floats(0, 1.1))
def test_the_rule_keeps_the_same_units_as_the_chat_format_on_the_same_conversation(chat, choice, share):
    fmt, items, system, where = conversions(chat, choice)
    mine = formats.parse(_data(fmt, items, system, 10**9))
    theirs = reading.parse({"mode": "messages", "limit": 10**9, "messages": chat})
    # The same units, pinned and live turn, through the mapping of indices.
    unit_sets = {}
    for index, start in enumerate(theirs["unit_of"]):
        unit_sets.setdefault(start, set()).update(where[index])
    for start, members in unit_sets.items():
        if members:
            assert {mine["unit_of"][index] for index in members} == {min(members)}, (start, members)
            assert set(index for index, unit in enumerate(mine["unit_of"]) if unit == min(members)) == members
    assert mine["live_start"] == (where[theirs["live_start"]][0] if theirs["live_start"] < len(chat) else len(items))
    # The chat history with the format's costs (each chat message the cost of the items it became;
    # a system prompt apart is in the priming): the rule then decides the same for both.
    costs, counted = [], set()
    for index in range(len(chat)):
        new = [item for item in where[index] if item not in counted]
        counted.update(new)
        costs.append(sum(mine["costs"][item] for item in new))
    total = mine["priming"] + mine["tools_tokens"] + sum(mine["costs"])
    limit = int(total * share)
    chat_parsed = {**theirs, "costs": costs, "priming": mine["priming"], "tools_tokens": mine["tools_tokens"], "limit": limit}
    expected = rule.select(chat_parsed)
    mapped = sorted({item for index in expected["kept"] for item in where[index]})
    report = evaluate(_data(fmt, items, system, limit))
    assert all(check["pass"] for check in report["checks"]), report["checks"]
    if expected["shortfall"]:
        assert report["shortfall"] == expected["shortfall"] and report["kept"] == []
        with pytest.raises(MessagesDoNotFit):
            trim(items, limit, format=fmt, system=system)
        return
    assert report["kept"] == mapped
    assert report["tokens"] == expected["tokens"] - rule.REPLY_PRIMING + mine["priming"]
    trimmed = trim(items, limit, format=fmt, system=system)
    assert trimmed.kept == mapped and trimmed.tokens == report["tokens"] and trimmed.format == fmt
    assert rule.kept_fast(chat_parsed) == expected["kept"]
    sdk_valid(trimmed, fmt)
    assert list(trimmed) == report["messages"]


@given(chat=chat_histories(), choice=st.sampled_from(CHOICES))
def test_every_converted_history_is_a_request_of_its_format_and_counts_the_same_whole(chat, choice):
    fmt, items, system, where = conversions(chat, choice)
    trimmed = trim(items, 10**9, format=fmt, system=system)
    sdk_valid(trimmed, fmt)
    whole = count_messages(items, format=fmt, system=system)
    assert (
        whole == trimmed.tokens if trimmed.kept == list(range(len(items))) else whole > trimmed.tokens
    )  # (a reply before the first user turn goes)


# ---------------------------------------------------------------- detection


def test_the_format_is_detected_when_the_input_can_mean_only_one_and_the_report_says_so():
    anthropic_items, _, _ = to_anthropic(CHAT)
    responses_items, _, _ = to_responses(CHAT, typed=True)
    report = evaluate({"mode": "messages", "limit": 10_000, "messages": anthropic_items})
    assert (report["format"], report["format_detected"]) == ("anthropic", True)
    report = evaluate({"mode": "messages", "limit": 10_000, "messages": responses_items})
    assert (report["format"], report["format_detected"]) == ("responses", True)
    report = evaluate({"mode": "messages", "limit": 10_000, "input": responses_items})
    assert (report["format"], report["format_detected"]) == ("responses", True)
    report = evaluate({"mode": "messages", "limit": 10_000, "messages": CHAT})
    assert "format" not in report and report["checks"][0]["pass"]  # a chat history reads as it always did
    report = evaluate({"mode": "messages", "format": "anthropic", "limit": 10_000, "messages": anthropic_items})
    assert report["format"] == "anthropic" and "format_detected" not in report
    assert trim(anthropic_items, 10_000).format == "anthropic"
    assert trim(responses_items, 10_000).format == "responses"
    assert trim(CHAT, 10_000).format == "chat"


def test_an_input_that_reads_as_two_formats_or_an_unknown_format_is_an_error_naming_format():
    both = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]},
        {"type": "function_call_output", "call_id": "b", "output": "y"},
    ]
    report = evaluate({"mode": "messages", "limit": 100, "messages": both})
    assert report["errors"][0]["path"] == "$.format" and "name it" in report["errors"][0]["message"]
    report = evaluate({"mode": "messages", "limit": 100, "format": "antropic", "messages": CHAT})
    assert report["errors"][0]["path"] == "$.format" and 'did you mean "anthropic"?' in report["errors"][0]["message"]


# ---------------------------------------------------------------- errors, in the chat format's words

CHAT = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Where is my order A-1042?"},
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"order":"A-1042"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "track", "arguments": '{"order":"A-1042"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "shipped 2026-11-20"},
    {"role": "tool", "tool_call_id": "call_2", "content": "in transit"},
    {"role": "assistant", "content": "It shipped on the 20th and is in transit."},
    {"role": "user", "content": "Thanks! When will it arrive?"},
]


def _chat_error(messages):
    with pytest.raises(MessagesError) as caught:
        trim(messages, 10_000)
    return [(problem.code, problem.message) for problem in caught.value.problems]


def _format_error(items, fmt):
    with pytest.raises(MessagesError) as caught:
        trim(items, 10_000, format=fmt)
    return [(problem.path, problem.code, problem.message) for problem in caught.value.problems]


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_an_orphaned_result_is_an_error_at_its_path_in_the_chat_formats_words(fmt):
    broken = [message for index, message in enumerate(CHAT) if index != 2]  # the assistant message that made the calls, gone
    convert = to_anthropic if fmt == "anthropic" else to_responses
    items = (
        convert(broken)[0]
        if fmt == "anthropic"
        else [item for item in convert(CHAT)[0] if item.get("type") != "function_call" and item.get("content") != "Let me look."]
    )
    problems = _format_error(items, fmt)
    words = _chat_error(broken)
    assert [(code, message) for _, code, message in problems] == words
    expected = (
        ["$.messages[2].content[0].tool_use_id", "$.messages[2].content[1].tool_use_id"]
        if fmt == "anthropic"
        else ["$.messages[2].call_id", "$.messages[3].call_id"]
    )
    assert [path for path, _, _ in problems] == expected


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_a_tool_use_without_its_result_before_the_live_turn_is_an_error_at_the_call(fmt):
    broken = [message for index, message in enumerate(CHAT) if index != 4]  # the second result, gone
    items = (to_anthropic if fmt == "anthropic" else to_responses)(broken)[0]
    problems = _format_error(items, fmt)
    assert [(code, message) for _, code, message in problems] == _chat_error(broken)
    assert problems[0][0] == ("$.messages[2].content[2].id" if fmt == "anthropic" else "$.messages[4].call_id")


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_a_result_after_another_turn_is_misplaced_in_the_chat_formats_words(fmt):
    broken = CHAT[:3] + [CHAT[5], CHAT[3], CHAT[4], CHAT[6]]
    items = (to_anthropic if fmt == "anthropic" else to_responses)(broken)[0]
    problems = _format_error(items, fmt)
    unindexed = lambda message: re.sub(r"\$\.messages\[\d+\]", "$.messages[_]", message)  # noqa: E731  (the call's own index in the format)
    assert sorted((code, unindexed(message)) for _, code, message in problems) == sorted(
        (code, unindexed(message)) for code, message in _chat_error(broken)
    )


def test_a_block_type_the_format_does_not_have_is_an_error_at_its_type():
    problems = _format_error(
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.invalid/a.png"}}]}], "anthropic"
    )
    assert problems == [
        (
            "$.messages[0].content[0].type",
            "invalid_value",
            'expected one of text, image, document, tool_result, got "image_url"; did you mean "image"?',
        )
    ]
    problems = _format_error(
        [{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "a"}]}, {"role": "user", "content": "q"}], "anthropic"
    )
    assert (
        problems[0][:2] == ("$.messages[0].content[0].type", "not_text")
        and "allowed: text, thinking, redacted_thinking, tool_use" in problems[0][2]
    )
    problems = _format_error(
        [{"role": "user", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]}], "anthropic"
    )
    assert problems[0][:2] == ("$.messages[0].content[0].type", "not_text")
    problems = _format_error([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "responses")
    assert problems[0][0] == "$.messages[0].content[0].type" and "input_text" in problems[0][2]
    problems = _format_error(
        [{"type": "web_search_call", "id": "ws", "status": "completed"}, {"role": "user", "content": "q"}], "responses"
    )
    assert problems[0][:2] == ("$.messages[0].type", "not_text")
    problems = _format_error([{"type": "function_cal", "call_id": "c", "name": "f", "arguments": "{}"}], "responses")
    assert problems[0][0] == "$.messages[0].type" and 'did you mean "function_call"?' in problems[0][2]
    problems = _format_error([{"role": "tool", "content": "x"}], "anthropic")
    assert problems[0][0] == "$.messages[0].role" and "tool_result block" in problems[0][2]


def test_the_json_path_of_responses_items_is_input_when_they_are_given_as_input():
    report = evaluate(
        {
            "mode": "messages",
            "limit": 100,
            "input": [{"role": "user", "content": "q"}, {"type": "function_call_output", "call_id": "x", "output": "y"}],
        }
    )
    assert report["errors"][0]["path"] == "$.input[1].call_id"
    assert report["errors"][0]["message"] == 'no assistant message made a tool call with id "x"'


# ---------------------------------------------------------------- thinking, reasoning, cache_control, a merged user turn


def test_thinking_stays_with_its_assistant_turn_and_cache_control_is_sent_as_given():
    items = [
        {"role": "user", "content": "old question " * 50},
        {"role": "assistant", "content": "old answer " * 50},
        {"role": "user", "content": [{"type": "text", "text": "Where is A-1042?", "cache_control": {"type": "ephemeral"}}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should look it up.", "signature": "c2ln"},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "A-1042", "note": None}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "shipped"}], "is_error": False}
            ],
        },
    ]
    trimmed = trim(items, 60, system=[{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}])
    assert trimmed.kept == [2, 3, 4] and trimmed.format == "anthropic"
    assert trimmed[1] == items[3] and trimmed[0] == items[2]  # the thinking block and a null in a tool's input, as given
    sdk_valid(trimmed, "anthropic")


def test_a_user_message_with_results_and_a_question_is_the_live_turn_with_its_tool_use():
    items = [
        {"role": "user", "content": "first " * 40},
        {"role": "assistant", "content": "reply " * 40},
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}, {"type": "text", "text": "and now?"}]},
    ]
    report = evaluate({"mode": "messages", "format": "anthropic", "limit": 40, "messages": items})
    assert report["live_turn"] == [3, 4] and report["kept"] == [2, 3, 4]  # the question before the tool use fits; the older turns do not
    assert all(check["pass"] for check in report["checks"])


def test_reasoning_items_stay_with_their_calls_and_sdk_outputs_go_back_as_requests():
    output = [
        responses_types.ResponseReasoningItem.model_validate(
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Look it up."}], "encrypted_content": "gAAA"}
        ),
        responses_types.ResponseFunctionToolCall.model_validate(
            {
                "arguments": '{"order":"A-1042"}',
                "call_id": "call_1",
                "name": "lookup",
                "type": "function_call",
                "id": "fc_1",
                "status": "completed",
            }
        ),
    ]
    reply = responses_types.ResponseOutputMessage.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "It shipped.", "annotations": []}],
        }
    )
    for dump in (lambda item: item, lambda item: item.model_dump(), lambda item: item.to_dict()):
        history = [
            {"role": "user", "content": "old " * 80},
            {"role": "assistant", "content": "older reply " * 40},
            {"role": "user", "content": [{"type": "input_text", "text": "Where is A-1042?"}]},
            *map(dump, output),
            {"type": "function_call_output", "call_id": "call_1", "output": "shipped"},
            dump(reply),
            {"role": "user", "content": "Thanks"},
        ]
        trimmed = trim(history, 120, instructions="Be brief.")
        assert trimmed.format == "responses" and trimmed.kept == [2, 3, 4, 5, 6, 7]
        sdk_valid(trimmed, "responses")
        assert trimmed[1] == {
            "id": "rs_1",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Look it up."}],
            "encrypted_content": "gAAA",
        }
        assert "async_" not in trimmed[2] and None not in trimmed[2].values()
        report = evaluate(
            {
                "mode": "messages",
                "limit": 120,
                "instructions": "Be brief.",
                "input": [item if isinstance(item, dict) else item.model_dump() for item in history],
            }
        )
        assert report["kept"] == trimmed.kept and all(check["pass"] for check in report["checks"])
        assert [row["unit"] for row in reversed(report["trace"])][3:6] == [3, 3, 3]  # the reasoning, its call and the output: one unit


def test_anthropic_sdk_blocks_go_into_the_history_as_they_are():
    reply = anthropic_types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
            "content": [
                {"type": "thinking", "thinking": "Check the order.", "signature": "c2ln"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "A-1042"}},
            ],
        }
    )
    for dump in ("objects", "model_dump", "to_dict"):
        content = reply.content if dump == "objects" else [getattr(block, dump)() for block in reply.content]
        history = [
            {"role": "user", "content": "Where is A-1042?"},
            {"role": "assistant", "content": content},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped"}]},
        ]
        trimmed = trim(history, 1_000, format="anthropic", system="Be brief.")
        assert trimmed.kept == [0, 1, 2]
        sdk_valid(trimmed, "anthropic")
        assert trimmed[1]["content"][2] == {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "A-1042"}}
        assert count_messages(history, format="anthropic", system="Be brief.") == trimmed.tokens
        detected = trim(history, 1_000)  # no format named: the SDK's blocks say it is Anthropic's
        assert detected.format == "anthropic" and list(detected) == list(trimmed)


def test_pinned_is_read_and_never_sent():
    items = [
        {"role": "user", "content": "remember: the customer is Ana", "pinned": True},
        {"role": "assistant", "content": "ok " * 200},
        {"role": "user", "content": "q " * 30},
        {"role": "assistant", "content": "a " * 30},
        {"role": "user", "content": "now"},
    ]
    for fmt in ("anthropic", "responses"):
        trimmed = trim(items, 90, format=fmt)
        assert trimmed.kept[0] == 0 and 1 not in trimmed.kept and "pinned" not in trimmed[0]
        sdk_valid(trimmed, fmt)


# ---------------------------------------------------------------- counts


def png(width, height):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "size, tokens",
    [
        ((200, 200), 54),
        ((1092, 1092), 1590),
        ((1000, 1000), 1334),
        ((4000, 2000), 1600),
        ((1568, 100), 210),
        ((3136, 200), 210),
        ((1, 1), 1),
    ],
)
def test_an_image_costs_by_anthropics_rule(size, tokens):
    """width x height / 750 after the resize: the long edge to 1568, the area to 1,600 tokens at most."""
    assert anthropic_format.image_tokens(*size)[0] == tokens
    data = base64.b64encode(png(*size)).decode()
    item = {
        "role": "user",
        "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
            {"type": "text", "text": "what is this"},
        ],
    }
    report = evaluate({"mode": "messages", "format": "anthropic", "limit": 10_000, "messages": [item]})
    assert report["images"] == [{"index": 0, "part": 0, "tokens": tokens, "size": list(size), "at_most": False, "detail": None}]
    assert all(check["pass"] for check in report["checks"])
    remote = {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x.invalid/a.png"}}]}
    assert trim([remote], 10_000, format="anthropic").images_at_most == [(0, 0)]


def test_responses_counts_are_the_chat_accounting_with_o200k_item_by_item():
    tiktoken = pytest.importorskip("tiktoken")
    import _text  # noqa: F401  (tests/: the rank files' reference encoding)

    encoding = _text.reference_encoding("o200k_base")
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "Where is my order?"}]},
        {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": '{"order":"A-1042"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "shipped"},
        {"role": "assistant", "content": "It shipped."},
    ]
    n = lambda text: len(encoding.encode_ordinary(text))  # noqa: E731
    expected = (
        3
        + (3 + n("user") + n("Where is my order?"))
        + (3 + n("assistant") + n('{"call_id":"call_1","name":"lookup","arguments":"{\\"order\\":\\"A-1042\\"}"}'))
        + (3 + n("tool") + n("call_1") + n("shipped"))
        + (3 + n("assistant") + n("It shipped."))
        + (3 + n("developer") + n("Be brief."))
    )
    assert count_messages(items, instructions="Be brief.") == expected
    assert tiktoken is not None


def test_claude_is_counted_by_the_estimate_or_the_callers_counter():
    items, system, _ = to_anthropic(CHAT, system_apart=True)
    estimated = count_messages(items, format="anthropic", system=system)
    by_words = count_messages(items, format="anthropic", system=system, token_counter=lambda text: len(text.split()))
    assert estimated != by_words
    words = sum(
        len(text.split())
        for text in [
            "Where is my order A-1042?",
            "Let me look.",
            "shipped 2026-11-20",
            "in transit",
            "It shipped on the 20th and is in transit.",
            "Thanks! When will it arrive?",
            "You are a support agent.",
        ]
    )
    assert by_words > words
    assert count_tokens("x", "estimate") >= 1


def test_anthropic_tools_are_counted_with_the_tool_use_system_prompt():
    tools = [
        {"name": "lookup", "description": "Find an order.", "input_schema": {"type": "object", "properties": {"order": {"type": "string"}}}}
    ]
    items = [{"role": "user", "content": "hi"}]
    without = count_messages(items, format="anthropic")
    counted = count_messages(items, format="anthropic", tools=tools, token_counter=len)
    assert counted - count_messages(items, format="anthropic", token_counter=len) == anthropic_format.TOOLS_SYSTEM_PROMPT + len(
        anthropic_format.tool_text(tools[0])
    )
    assert without > 0
    report = evaluate({"mode": "messages", "format": "anthropic", "limit": 10_000, "messages": items, "tools": tools})
    assert report["tools_tokens"] > anthropic_format.TOOLS_SYSTEM_PROMPT and all(check["pass"] for check in report["checks"])
    pydantic.TypeAdapter(anthropic_types.ToolParam).validate_python(tools[0])


def test_responses_tools_are_counted_by_the_cookbook_method_of_their_chat_shape():
    tool = {
        "type": "function",
        "name": "lookup",
        "description": "Find an order.",
        "parameters": {"type": "object", "properties": {"order": {"type": "string", "description": "The id."}}},
    }
    chat_tool = {"type": "function", "function": {"name": "lookup", "description": "Find an order.", "parameters": tool["parameters"]}}
    items = [{"role": "user", "content": "hi"}]
    assert trim(items, 10_000, format="responses", tools=[tool]).tools_tokens == trim(items, 10_000, tools=[chat_tool]).tools_tokens
    report = evaluate({"mode": "messages", "format": "responses", "limit": 10_000, "messages": items, "tools": [tool]})
    assert all(check["pass"] for check in report["checks"])


# ---------------------------------------------------------------- the checks see a wrong report


def test_the_checks_fail_a_report_whose_kept_items_or_counts_were_changed():
    items, system, _ = to_anthropic(CHAT, system_apart=True)
    data = {"mode": "messages", "format": "anthropic", "limit": 10_000, "system": system, "messages": items}
    parsed = formats.parse(data)
    result = formats.select(parsed)
    assert all(check["pass"] for check in formats.verify(data, result))
    wrong = {**result, "tokens": result["tokens"] - 1, "remaining": result["remaining"] + 1}
    assert not formats.verify(data, wrong)[0]["pass"]
    wrong = {**result, "messages": [*result["messages"][:-1], {"role": "user", "content": "changed"}]}
    assert not formats.verify(data, wrong)[0]["pass"]
    wrong = {**result, "system_tokens": 0}
    assert not formats.verify(data, wrong)[0]["pass"]


# ---------------------------------------------------------------- remembered histories


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_a_history_read_before_reads_only_what_was_appended_and_a_change_in_place_is_read_afresh(fmt):
    from fitproof.modes.messages.formats import known

    items = (to_anthropic if fmt == "anthropic" else to_responses)(CHAT)[0]
    tokenizer = "o200k_base"
    first = trim(items, 10_000, tokenizer, format=fmt)
    appended = items + [{"role": "assistant", "content": "Tomorrow."}, {"role": "user", "content": "Great."}]
    assert trim(appended, 10_000, tokenizer, format=fmt).tokens == count_messages(
        appended, tokenizer, format=fmt, token_counter=lambda text: count_tokens(text, tokenizer)
    )
    assert any(len(entry.snapshot) == len(appended) for entry in known.HISTORIES._known)
    changed = json.loads(json.dumps(items))
    calls = (
        [block for item in changed if isinstance(item.get("content"), list) for block in item["content"] if block.get("type") == "tool_use"]
        if fmt == "anthropic"
        else [item for item in changed if item.get("type") == "function_call"]
    )
    calls[0]["input" if fmt == "anthropic" else "arguments"] = (
        {"order": "A-1042", "a": 1} if fmt == "anthropic" else '{"order":"A-1042","a":1}'
    )
    assert trim(changed, 10_000, tokenizer, format=fmt).tokens > first.tokens
    changed[-1]["pinned"] = 1  # a value of the wrong type after a valid call: still an error
    with pytest.raises(MessagesError):
        trim(changed, 10_000, tokenizer, format=fmt)
    trimmed = trim(items, 10_000, tokenizer, format=fmt)
    trimmed[0]["content"] = "mutated"
    assert items[0]["content"] != "mutated"


JUNK = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 5000),
        st.text(max_size=6),
        st.sampled_from(
            [
                "text",
                "image",
                "tool_use",
                "tool_result",
                "thinking",
                "document",
                "base64",
                "url",
                "content",
                "function_call",
                "function_call_output",
                "reasoning",
                "input_text",
                "input_image",
                "output_text",
                "message",
                "user",
                "assistant",
                "system",
                "t1",
                "summary_text",
            ]
        ),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "role",
                    "content",
                    "text",
                    "id",
                    "tool_use_id",
                    "input",
                    "name",
                    "source",
                    "data",
                    "media_type",
                    "call_id",
                    "arguments",
                    "output",
                    "summary",
                    "image_url",
                    "detail",
                    "pinned",
                    "signature",
                    "thinking",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=14,
)


@given(items=st.lists(JUNK, max_size=4), fmt=st.sampled_from(["anthropic", "responses", None]), system=JUNK)
def test_near_valid_items_never_raise_and_a_valid_report_passes_its_checks(items, fmt, system):
    data = {"mode": "messages", "limit": 3000, "messages": items}
    if fmt:
        data["format"] = fmt
        data["system" if fmt == "anthropic" else "instructions"] = system
    report = evaluate(data)
    assert "internal error" not in [check["name"] for check in report["checks"]], report
    if "errors" not in report:
        assert all(check["pass"] for check in report["checks"]), report["checks"]
        if report.get("format") in ("anthropic", "responses"):
            sdk_valid(report["messages"], report["format"])
    json.dumps(report)


# ---------------------------------------------------------------- claims


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_a_claim_is_judged_by_the_same_rule_with_the_system_prompt_or_instructions_counted(fmt):
    _, items, system, where = conversions(CHAT, "anthropic, system apart, blocks" if fmt == "anthropic" else "responses")
    data = {
        "mode": "messages",
        "format": fmt,
        "limit": 10_000,
        "messages": items,
        **({"system": system} if fmt == "anthropic" else {"instructions": "Be brief."}),
    }
    report = evaluate(data)
    judged = evaluate({**data, "claim": {"kept": list(reversed(report["kept"])), "used": report["tokens"]}})
    assert judged["pass"] and judged["claim"] == {"pass": True, "failures": []}
    call = where[2][-1]  # the assistant message that made the calls, without its results
    judged = evaluate({**data, "claim": {"kept": [index for index in report["kept"] if index <= call]}})
    assert not judged["pass"] and "tool calls paired" in [failure["check"] for failure in judged["claim"]["failures"]]


def test_the_text_report_names_the_format_and_whether_it_was_detected():
    from fitproof.cli._report_text import report_text

    items = to_anthropic(CHAT)[0]
    assert "(anthropic format, detected)" in report_text(evaluate({"mode": "messages", "limit": 10_000, "messages": items}))
    assert "(responses format)" in report_text(
        evaluate({"mode": "messages", "format": "responses", "limit": 10_000, "messages": to_responses(CHAT)[0]})
    )
    assert "format" not in report_text(evaluate({"mode": "messages", "limit": 10_000, "messages": CHAT})).split("\n")[1]


def test_sdk_blocks_are_refused_by_evaluate_in_every_format_and_taken_by_trim_messages():
    # One behaviour for the three formats: evaluate reads JSON (an SDK object is refused at its path,
    # saying what to do), the Python calls dump SDK objects first, blocks of a reply appended as it came too.
    from anthropic.types import TextBlock, ThinkingBlock
    from openai.types.chat import ChatCompletionMessage

    from fitproof import trim_messages

    reply = [ThinkingBlock(type="thinking", thinking="hmm", signature="s"), TextBlock(type="text", text="hello")]
    anthropic = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": reply}, {"role": "user", "content": "more"}]
    chat = [{"role": "user", "content": "hi"}, ChatCompletionMessage(role="assistant", content="yo"), {"role": "user", "content": "q"}]
    for fmt, messages, path in (("anthropic", anthropic, "$.messages[1].content[0]"), ("chat", chat, "$.messages[1]")):
        report = evaluate({"mode": "messages", "format": fmt, "limit": 1000, "messages": messages})
        assert "internal error" not in [check["name"] for check in report["checks"]]
        first = report["errors"][0]
        assert first["path"] == path and "model_dump()" in first["message"], first
        assert trim_messages(messages, 1000, format=fmt).kept == [0, 1, 2]


def _nested(depth):
    inner = value = {}
    for _ in range(depth - 1):
        value["a"] = {}
        value = value["a"]
    return inner


@pytest.mark.parametrize("depth", [500, 512])
def test_a_tool_input_as_deep_as_json_text_may_nest_is_read(depth):
    # 512 levels: what the strict JSON reader takes; the memories' copies and comparisons go deeper
    # than Python's recursion would.
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": _nested(depth)}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
    ]
    for _ in range(2):  # the second call finds the first one's remembered history
        report = evaluate({"mode": "messages", "format": "anthropic", "limit": 100_000, "messages": messages})
        assert report["pass"], report["checks"]


def _with_tool_input(value):
    return {
        "mode": "messages",
        "format": "anthropic",
        "limit": 100_000,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": value}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        ],
    }


def test_a_value_from_python_that_is_no_json_is_an_input_error_at_its_path():
    import datetime

    cycle = {}
    cycle["me"] = cycle
    cases = [
        (cycle, "$.messages[1].content[0].input.me", "contains itself"),
        ({"when": datetime.date(2026, 1, 1)}, "$.messages[1].content[0].input.when", "a Python date"),
        ({"ids": {1, 2}}, "$.messages[1].content[0].input.ids", "a Python set"),
        (_nested(513), "$.messages[1].content[0].input", "at most 512 levels"),
    ]
    for value, path, words in cases:
        errors = evaluate(_with_tool_input(value))["errors"]
        assert [error["path"] for error in errors] == [path] and words in errors[0]["message"], errors
    for fmt, tools, path in (
        ("anthropic", [{"name": "f", "input_schema": {"x": cycle}}], "$.tools[0].input_schema.x.me"),
        ("responses", [{"type": "function", "name": "f", "parameters": {"d": datetime.date(2026, 1, 1)}}], "$.tools[0].parameters.d"),
    ):
        report = evaluate(
            {"mode": "messages", "format": fmt, "limit": 1000, "messages": [{"role": "user", "content": "hi"}], "tools": tools}
        )
        assert [error["path"] for error in report["errors"]] == [path], report
