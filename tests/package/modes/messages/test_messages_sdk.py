"""Mode ``messages`` with the OpenAI SDK's own types (openai in the test extra; objects built
locally, never a request): what the SDK returns goes into the history as it is, and what comes
out is what the SDK's request type takes."""

import json

import pytest

from fitproof import MessagesDoNotFit, TrimmedMessages, as_sent, count_messages, evaluate, trim_messages

openai_chat = pytest.importorskip("openai.types.chat")
pydantic = pytest.importorskip("pydantic")

REQUEST = pydantic.TypeAdapter(openai_chat.ChatCompletionMessageParam)


def completion(message: dict) -> object:
    """A chat completion as the API would send it, read by the SDK's own model."""
    return openai_chat.ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1764547200,
            "model": "gpt-4o-2024-08-06",
            "choices": [
                {"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop", "logprobs": None, "message": message}
            ],
        }
    )


CALLING = (
    completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"order":"A-1042"}'}},
                {"id": "call_2", "type": "custom", "custom": {"name": "sql", "input": "SELECT status FROM orders"}},
            ],
        }
    )
    .choices[0]
    .message
)
REPLY = (
    completion(
        {
            "role": "assistant",
            "content": "It shipped on the 20th.",
            "annotations": [
                {
                    "type": "url_citation",
                    "url_citation": {"url": "https://example.invalid/track", "title": "Tracking", "start_index": 0, "end_index": 10},
                }
            ],
        }
    )
    .choices[0]
    .message
)
REFUSAL = completion({"role": "assistant", "content": None, "refusal": "I can't help with that."}).choices[0].message


def history(dump) -> list:
    return [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": "Where is my order A-1042?"},
        dump(CALLING),
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped 2026-11-20"},
        {"role": "tool", "tool_call_id": "call_2", "content": "in transit"},
        dump(REPLY),
        {"role": "user", "content": "Say something rude."},
        dump(REFUSAL),
        {"role": "user", "content": "Sorry. Thanks!"},
    ]


DUMPS = {
    "model_dump": lambda message: message.model_dump(),
    "to_dict": lambda message: message.to_dict(),
    "model_dump_exclude_none": lambda message: message.model_dump(exclude_none=True),
    "the object itself": lambda message: message,
}


@pytest.mark.parametrize("how", DUMPS)
def test_what_the_sdk_returns_is_accepted_and_what_comes_out_is_a_request(how):
    messages = history(DUMPS[how])
    trimmed = trim_messages(messages, 500, "gpt-4o")
    assert isinstance(trimmed, TrimmedMessages) and trimmed.kept == list(range(9)) and trimmed.tokens == count_messages(messages, "gpt-4o")
    for message in trimmed:
        REQUEST.validate_python(message)  # the SDK's own request type takes each one
        assert "annotations" not in message and None not in [value for key, value in message.items() if key != "content"]
    assert trimmed[2]["tool_calls"][1] == {
        "id": "call_2",
        "custom": {"input": "SELECT status FROM orders", "name": "sql"},
        "type": "custom",
    }
    assert (
        trimmed[7] == {"content": None, "refusal": "I can't help with that.", "role": "assistant"}
        if how != "model_dump_exclude_none"
        else trimmed[7] == {"refusal": "I can't help with that.", "role": "assistant"}
    )


def test_the_same_history_counts_the_same_whichever_way_it_was_dumped():
    counts = {how: count_messages(history(dump), "o200k_base") for how, dump in DUMPS.items()}
    # model_dump and the object give pydantic's key order; to_dict drops the nulls: the compact
    # JSON of the tool calls is the same text in every case, and nulls and annotations count nothing.
    assert len(set(counts.values())) == 1, counts


def test_evaluate_takes_a_model_dump_and_its_report_passes_every_check():
    data = {"mode": "messages", "limit": 400, "tokenizer": "gpt-4o", "messages": json.loads(json.dumps(history(DUMPS["model_dump"])))}
    report = evaluate(data)
    assert report["pass"] is True, report.get("errors") or report["checks"]
    assert report["model"] == "gpt-4o" and report["tokenizer"] == "o200k_base"
    assert report["messages"] == [as_sent(message) for message in data["messages"]]


def test_a_refusal_counts_as_text_and_annotations_count_nothing():
    base = [{"role": "user", "content": "hi"}]
    refusal = count_messages(base + [{"role": "assistant", "refusal": "No."}], "o200k_base")
    assert refusal == count_messages(base + [{"role": "assistant", "content": "No."}], "o200k_base")
    annotated = count_messages(base + [{"role": "assistant", "content": "x", "annotations": [{"type": "url_citation"}]}], "o200k_base")
    assert annotated == count_messages(base + [{"role": "assistant", "content": "x"}], "o200k_base")


def test_the_live_turn_of_the_current_tool_step_is_never_dropped():
    messages = history(DUMPS["model_dump"])[:5]  # the user question, the calls and their results: the live turn
    with pytest.raises(MessagesDoNotFit) as raised:
        trim_messages(messages, 40, "gpt-4o")
    error = raised.value
    assert error.live_turn == [1, 2, 3, 4] and error.pinned == [0] and error.shortfall == error.needed - 40 > 0
    assert str(error).startswith("The live turn (messages 1-4, from the newest user message on), the pinned message (#0)")
    import pickle

    again = pickle.loads(pickle.dumps(error))
    assert (again.shortfall, again.live_turn, str(again)) == (error.shortfall, error.live_turn, str(error))


def test_an_sdk_object_without_a_list_is_named():
    from fitproof import MessagesError

    with pytest.raises(MessagesError, match="one message"):
        trim_messages(REPLY, 100)
