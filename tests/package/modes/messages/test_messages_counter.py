"""A caller's ``token_counter`` is asked about each text once, across calls: a second trim of the
same history asks it nothing, a history grown by two turns asks about the new texts only, and the
memory is bounded (by counters, held weakly, and by characters) and never changes a count."""

import gc
import json

import pytest

from fitproof import count_messages, count_tokens, trim_messages
from fitproof.modes.messages import accounting


def history(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "You look things up."}]
    for n in range(turns):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": f"item {n}"})}}
        messages += [
            {"role": "user", "content": f"What about item {n}?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": f"item {n}: " + "in stock, " * (n % 7 + 3)},
            {"role": "assistant", "content": f"Item {n} is in stock."},
        ]
    return messages + [{"role": "user", "content": "Anything else?"}]


class Counter:
    """A pure counter that records every text it was asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, text: str) -> int:
        self.asked.append(text)
        return count_tokens(text, "o200k_base")


def test_the_same_trim_again_asks_nothing_and_two_new_turns_ask_about_their_texts_only():
    counter = Counter()
    messages = history(30)  # 122 messages
    first = trim_messages(messages, 1500, token_counter=counter)
    asked_first = len(counter.asked)
    assert first.counter_calls == asked_first == len(set(counter.asked)) > 50
    again = trim_messages(messages, 1500, token_counter=counter)
    assert again.counter_calls == 0 and len(counter.asked) == asked_first
    assert (list(again), again.tokens, again.kept) == (list(first), first.tokens, first.kept)
    grown = messages + [{"role": "assistant", "content": "Nothing else."}, {"role": "user", "content": "Thanks, bye."}]
    later = trim_messages(grown, 1500, token_counter=counter)
    assert counter.asked[asked_first:] == ["Nothing else.", "Thanks, bye."]
    assert later.counter_calls == 2
    # The counts are the counter's: the same as a fresh counter's, and as the tokenizer's own.
    assert later.tokens == trim_messages(grown, 1500, token_counter=Counter()).tokens == trim_messages(grown, 1500).tokens


def test_count_messages_shares_the_memory():
    counter = Counter()
    messages = history(5)
    total = count_messages(messages, token_counter=counter)
    asked = len(counter.asked)
    assert count_messages(messages, token_counter=counter) == total and len(counter.asked) == asked
    assert trim_messages(messages, 10_000, token_counter=counter).counter_calls == 0


class Slotted:
    """A counter that cannot be held weakly (``__slots__`` without ``__weakref__``)."""

    __slots__ = ("asked",)

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, text: str) -> int:
        self.asked += 1
        return len(text)


def test_a_bound_method_is_remembered_by_its_object_and_one_not_held_weakly_within_the_call_only():
    counter = Counter()
    messages = history(3)
    trim_messages(messages, 10_000, token_counter=counter.__call__)
    assert trim_messages(messages, 10_000, token_counter=counter.__call__).counter_calls == 0  # a new bound method each time
    slotted = Slotted()
    first = trim_messages(messages, 10_000, token_counter=slotted).counter_calls
    assert first == slotted.asked > 0
    assert trim_messages(messages, 10_000, token_counter=slotted).counter_calls == first  # asked again, once per text
    assert trim_messages(messages, 10_000).counter_calls is None


def test_the_memory_holds_the_newest_counters_weakly_and_a_bounded_number_of_characters(monkeypatch):
    messages = history(2)
    counters = [Counter() for _ in range(accounting.MAX_COUNTERS + 2)]
    for counter in counters:
        trim_messages(messages, 10_000, token_counter=counter)
    assert len(accounting._MEMORY) <= accounting.MAX_COUNTERS
    assert trim_messages(messages, 10_000, token_counter=counters[0]).counter_calls > 0  # the oldest was let go of
    assert trim_messages(messages, 10_000, token_counter=counters[-1]).counter_calls == 0
    held = len(accounting._MEMORY)
    del counters, counter
    gc.collect()
    assert len(accounting._MEMORY) < held  # let go of by the caller, let go of here
    monkeypatch.setattr(accounting, "MAX_REMEMBERED_CHARACTERS", 40)
    small = Counter()
    trim_messages(messages, 10_000, token_counter=small)
    (answers,) = accounting._MEMORY[small].values()
    assert 0 < answers.characters == sum(map(len, answers)) <= 40


def test_a_counter_that_answers_no_count_is_an_error_and_is_not_remembered():
    calls = []

    def bad(text):
        calls.append(text)
        return -1

    for _ in range(2):
        with pytest.raises(ValueError, match="token_counter must return a count"):
            trim_messages(history(1), 1000, token_counter=bad)
    assert len(calls) == 2
