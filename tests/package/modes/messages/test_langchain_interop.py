"""LangChain message objects in ``trim_messages``/``count_messages``: read as
``convert_to_openai_messages`` reads them, and given back as the caller's own objects."""

import json

import pytest

import fitproof
from fitproof.modes.messages import langchain_messages

lc = pytest.importorskip("langchain_core.messages")
from langchain_core.messages import convert_to_openai_messages  # noqa: E402


def call(name, args, id):
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def history():
    return [
        lc.SystemMessage("Answer briefly."),
        lc.HumanMessage(
            [
                {"type": "text", "text": "What is the weather in Paris? " * 20},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
            ],
            name="ana",
        ),
        lc.AIMessage("", tool_calls=[call("weather", {"city": "Paris", "note": "naïve"}, "c1")]),
        lc.ToolMessage("sunny " * 200, tool_call_id="c1", name="weather"),
        lc.AIMessage([{"type": "text", "text": "It is sunny."}, {"type": "text", "text": "Anything else?"}]),
        {"role": "user", "content": "And London?"},
        lc.AIMessage(
            [{"type": "text", "text": "Looking."}, {"type": "tool_use", "id": "c2", "name": "weather", "input": {"city": "London"}}],
            tool_calls=[call("weather", {"city": "London"}, "c2")],
        ),
        lc.ToolMessage([{"type": "text", "text": "rain " * 100}], tool_call_id="c2"),
        lc.AIMessage("Rain in London."),
        lc.HumanMessage([{"type": "text", "text": "Thanks."}, "Bye."]),
    ]


def converted(messages):
    """convert_to_openai_messages' dicts, but a tool message without the name a chat request's takes none of."""
    return [
        {key: value for key, value in message.items() if not (message["role"] == "tool" and key == "name")}
        for message in convert_to_openai_messages(messages)
    ]


def test_each_message_reads_as_convert_to_openai_messages_makes_it():
    messages = history()
    read, originals, problems = langchain_messages.read(messages)
    assert problems == [] and originals[5] is None and originals[0] is messages[0]
    assert read == converted(messages) and "name" in convert_to_openai_messages(messages)[3]
    assert json.loads(read[2]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris", "note": "naïve"}


def test_counts_equal_the_converted_histories():
    messages = history()
    chat = converted(messages)
    assert fitproof.count_messages(messages) == fitproof.count_messages(chat)
    assert fitproof.count_messages(messages, "estimate") == fitproof.count_messages(chat, "estimate")


def test_the_kept_are_the_callers_own_objects_in_order():
    messages = history()
    chat = converted(messages)
    limit = fitproof.count_messages(chat) - 150
    trimmed = fitproof.trim_messages(messages, limit)
    plain = fitproof.trim_messages(chat, limit)
    assert trimmed.kept == plain.kept and trimmed.tokens == plain.tokens and trimmed.dropped == plain.dropped
    assert 0 in trimmed.kept and 9 in trimmed.kept and trimmed.dropped
    for message, index in zip(trimmed, trimmed.kept, strict=True):
        if index == 5:
            assert message == messages[5] and message is not messages[5]  # a dict comes back as its copy
        else:
            assert message is messages[index]


def test_a_cleared_tool_result_comes_back_as_a_copy_with_the_placeholder():
    messages = history()
    before = [message.model_copy(deep=True) if not isinstance(message, dict) else dict(message) for message in messages]
    trimmed = fitproof.trim_messages(messages, 2000, clear={"trigger": 100, "keep": 0})
    cleared = {row["index"] for row in trimmed.cleared}
    assert cleared == {3, 7}
    plain = fitproof.trim_messages(converted(messages), 2000, clear={"trigger": 100, "keep": 0})
    assert converted(list(trimmed)) == list(plain) and trimmed.kept == plain.kept
    for message, index in zip(trimmed, trimmed.kept, strict=True):
        if index in cleared:
            assert type(message) is lc.ToolMessage and message is not messages[index]
            assert message.content.startswith("[cleared: weather result") and message.tool_call_id == messages[index].tool_call_id
        elif index != 5:
            assert message is messages[index]
    assert messages == before  # the caller's history unchanged


def test_cleared_tool_inputs_come_back_as_empty_args():
    messages = history()
    trimmed = fitproof.trim_messages(messages, 2000, clear={"trigger": 100, "keep": 0, "clear_tool_inputs": True}, conversation="inputs")
    ai = trimmed[trimmed.kept.index(2)]
    assert ai is not messages[2] and ai.tool_calls[0]["args"] == {} and ai.tool_calls[0]["id"] == "c1"
    assert messages[2].tool_calls[0]["args"]["city"] == "Paris"


def test_strategy_stable_remembers_langchain_histories():
    messages = history()
    limit = fitproof.count_messages(messages) - 150
    first = fitproof.trim_messages(messages, limit, strategy="stable", conversation="lc-thread")
    grown = [*messages, lc.AIMessage("You are welcome."), lc.HumanMessage("Bye.")]
    second = fitproof.trim_messages(grown, limit, strategy="stable", conversation="lc-thread")
    assert second.previous == first.as_previous and second.cut == first.cut


def test_a_summary_comes_back_as_the_users_message_class():
    messages = history()
    trimmed = fitproof.trim_messages(messages, 400, clear={"summary": {"tokens": 50, "text": "Paris was sunny."}})
    assert trimmed.summary_span["sent"]
    summary = trimmed[trimmed.summary_span["position"]]
    assert type(summary) is lc.HumanMessage and summary.content.endswith("Paris was sunny.")
    assert len(trimmed) == len(trimmed.kept) + 1


def test_an_unknown_message_object_is_an_input_error_at_its_path():
    with pytest.raises(fitproof.MessagesError) as caught:
        fitproof.trim_messages([lc.HumanMessage("hi"), lc.RemoveMessage(id="x")], 100)
    assert caught.value.problems[0].path == "$.messages[1]" and "RemoveMessage" in str(caught.value)

    class Strange:
        pass

    with pytest.raises(fitproof.MessagesError, match=r"\$\.messages\[1\]: .*Strange"):
        fitproof.count_messages([lc.HumanMessage("hi"), Strange()])


def test_langchain_messages_take_the_chat_format_only():
    with pytest.raises(fitproof.MessagesError, match="chat format"):
        fitproof.trim_messages([lc.HumanMessage("hi")], 100, format="anthropic")


def test_chat_message_and_chunks_read_by_their_role():
    messages = [lc.ChatMessage("be kind", role="developer"), lc.HumanMessageChunk("hi"), lc.AIMessageChunk("hello"), lc.HumanMessage("bye")]
    read, _, problems = langchain_messages.read(messages)
    assert problems == [] and [message["role"] for message in read] == ["developer", "user", "assistant", "user"]
    assert fitproof.count_messages(messages) == fitproof.count_messages(converted(messages))
