"""Counts remembered across calls (``_count_memory``): bounded, never changing a result, and never
read by the report's checks."""

import threading

import pytest

from fitproof import count_tokens, evaluate, trim_messages
from fitproof._shared.count_memory import COUNTS, CountMemory
from fitproof.modes.messages.memory import HISTORIES


def test_the_memory_stays_within_its_bound_and_keeps_what_is_used():
    memory = CountMemory(max_chars=1000, max_entries=50)
    counted = []

    def count(text):
        counted.append(text)
        return len(text)

    remembered = memory.counter("t", count)
    texts = [f"text number {index} " * 3 for index in range(400)]
    for text in texts:
        assert remembered(text) == len(text)
        assert memory._young_chars <= 1000 and len(memory._young) <= 50 and len(memory._old) <= 50
        assert sum(len(key[1]) for key in memory._old) <= 1000
        assert remembered("the system prompt") == 17  # used on every call: it stays
    assert counted.count("the system prompt") == 1
    assert memory.counter("t", count)(texts[-1]) == len(texts[-1]) and counted.count(texts[-1]) == 1
    assert memory.counter("t", count)(texts[0]) == len(texts[0]) and counted.count(texts[0]) == 2  # let go, counted again
    memory.put("t", "x" * 2000, 1)  # larger than a generation: not kept
    assert memory.get("t", "x" * 2000) is None


def test_counts_are_remembered_by_tokenizer_and_text():
    memory = CountMemory()
    assert memory.counter("a", len)("hello") == 5 and memory.counter("b", lambda text: 1)("hello") == 1
    assert memory.get("a", "hello") == 5 and memory.get("b", "hello") == 1


def history(turns):
    messages = [{"role": "system", "content": "You are terse."}]
    for turn in range(turns):
        messages += [
            {"role": "user", "content": f"question {turn} " + "about the parcel " * (turn % 7)},
            {"role": "assistant", "content": f"answer {turn} " + "it shipped " * (turn % 5)},
        ]
    return messages + [{"role": "user", "content": "and now?"}]


def test_a_second_call_counts_only_the_new_texts(monkeypatch):
    HISTORIES.clear()  # the counts' memory alone (a history read before is not even looked at again)
    from fitproof.modes.messages import reading

    messages = history(40)
    trim_messages(messages, 300)
    seen = []
    honest = reading.counter("o200k_base")
    monkeypatch.setattr(reading, "counter", lambda name: lambda text: seen.append(text) or honest(text))
    messages.append({"role": "assistant", "content": "a new reply nobody counted yet"})
    messages.append({"role": "user", "content": "and a new question"})
    assert trim_messages(messages, 300) == trim_messages(messages, 300)
    assert seen == ["a new reply nobody counted yet", "and a new question"]


def test_results_do_not_depend_on_what_is_remembered():
    messages = history(30)
    data = {"mode": "messages", "limit": 250, "messages": messages}
    COUNTS.clear()
    cold = evaluate(data)
    warm = evaluate(data)
    assert cold == warm and cold["pass"]
    assert trim_messages(messages, 250) == cold["messages"]


def test_the_checks_recount_without_the_memory():
    """A wrong count in the memory packs by it, and the checks, counting on their own, say so."""
    messages = history(10)
    data = {"mode": "messages", "limit": 1000, "messages": messages}
    text = messages[3]["content"]
    evaluate(data)
    HISTORIES.clear()
    COUNTS.put("o200k_base", text, count_tokens(text) + 5)  # a corrupted memory
    try:
        report = evaluate(data)
        failing = {check["name"] for check in report["checks"] if not check["pass"]}
        assert report["pass"] is False and "kept messages re-counted" in failing, report["checks"]
    finally:
        COUNTS.clear()
        HISTORIES.clear()  # it kept the costs the corrupted counts gave
    assert evaluate(data)["pass"] is True


def test_concurrent_calls_agree_with_one_at_a_time():
    histories = [history(turns) for turns in range(5, 45, 4)]
    expected = [trim_messages(messages, 200).kept for messages in histories]
    COUNTS.clear()
    results: dict = {}
    errors = []

    def work(worker):
        try:
            for round_ in range(3):
                for index, messages in enumerate(histories):
                    results.setdefault((worker, round_, index), trim_messages(messages, 200).kept)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert all(kept == expected[index] for (_, _, index), kept in results.items()) and len(results) == 4 * 3 * len(histories)


@pytest.fixture(autouse=True)
def _fresh_memory():
    yield
    COUNTS.clear()
    HISTORIES.clear()


# ---------------------------------------------------------------- histories remembered


def test_a_corrupted_history_memory_fails_the_checks():
    messages = history(10)
    data = {"mode": "messages", "limit": 1000, "messages": messages}
    evaluate(data)
    (known,) = HISTORIES._known
    known.costs[3] -= 1
    report = evaluate(data)
    assert report["pass"] is False and "kept messages re-counted" in {check["name"] for check in report["checks"] if not check["pass"]}


def test_an_appended_history_reads_only_the_new_messages(monkeypatch):
    from fitproof.modes.messages import reading

    messages = history(30)
    first = trim_messages(messages, 400)
    read = []
    honest = reading._read_message
    monkeypatch.setattr(reading, "_read_message", lambda message, *rest: read.append(message) or honest(message, *rest))
    messages.append({"role": "assistant", "content": "new"})
    messages.append({"role": "user", "content": "newer"})
    again = trim_messages(messages, 400)
    assert read == messages[-2:] and again.kept[-2:] == [len(messages) - 2, len(messages) - 1] and first.kept != again.kept


CHANGES = {
    "content edited": lambda messages: messages[5].update(content="something else entirely, and longer than before"),
    "pinned True -> 1": lambda messages: messages[5].update(pinned=1),
    "pinned added": lambda messages: messages[5].update(pinned=True),
    "message removed": lambda messages: messages.pop(3),
    "message replaced": lambda messages: messages.__setitem__(4, {"role": "user", "content": "a new one"}),
    "tool call keys reordered": lambda messages: messages[2]["tool_calls"].__setitem__(
        0, dict(reversed(list(messages[2]["tool_calls"][0].items())))
    ),
    "tool call arguments edited": lambda messages: messages[2]["tool_calls"][0]["function"].update(
        arguments='{"q":"a much longer argument"}'
    ),
    "image size int -> float": lambda messages: messages[1]["content"][1].update(size=[1024.0, 1024]),
    "image size -> bool": lambda messages: messages[1]["content"][1].update(size=[True, 1024]),
}


def tool_history():
    messages = history(6)
    messages[1]["content"] = [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}, "size": [1024, 1024]},
    ]
    messages[2:2] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"q":"x"}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "result"},
    ]
    return messages


@pytest.mark.parametrize("change", CHANGES)
def test_a_history_changed_in_place_is_read_afresh(change):
    from copy import deepcopy

    messages = tool_history()
    data = {"mode": "messages", "limit": 1000, "messages": messages}
    assert evaluate(data)["pass"]
    CHANGES[change](messages)
    remembered = evaluate(data)
    HISTORIES.clear()
    COUNTS.clear()
    fresh = evaluate(deepcopy(data))
    assert remembered == fresh


def test_the_histories_stay_within_their_bounds():
    from fitproof.modes.messages.memory import Histories, Known

    memory = Histories(max_histories=3, max_messages=10, max_chars=100)

    def known(size, chars):
        entry = Known("o200k_base", [{}] * size, [], None, {}, [], [], None, [], [], [])
        entry.chars = chars
        return entry

    for size, chars in [(4, 10), (4, 10), (4, 10), (2, 10), (11, 0), (1, 101), (1, 60), (1, 60)]:
        memory.keep(known(size, chars), None)
        assert len(memory) <= 3 and sum(len(entry.snapshot) for entry in memory._known) <= 10
        assert sum(entry.chars for entry in memory._known) <= 100
    assert [entry.chars for entry in memory._known] == [60]


def test_a_batch_of_one_growing_chat_reads_each_message_once(monkeypatch):
    """check --jsonl (and each --jobs worker, a long-lived process) shares the memories across lines."""
    import json

    from fitproof import batch
    from fitproof.modes.messages import reading

    read = []
    honest = reading._read_message
    monkeypatch.setattr(reading, "_read_message", lambda message, *rest: read.append(message) or honest(message, *rest))
    messages = history(20)
    sizes = range(3, len(messages) + 1, 2)
    lines = [json.dumps({"mode": "messages", "limit": 300, "messages": messages[:size]}) for size in sizes]
    envelopes = [json.loads(line) for line in batch.check_lines(lines)]
    assert all(envelope["ok"] for envelope in envelopes)
    assert len(read) == sizes[-1]  # every line's history extends the last one: only its new messages are read
