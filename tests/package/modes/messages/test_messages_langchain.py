"""Differential proof: mode ``messages`` against LangChain's ``trim_messages``.

On histories without tool calls or pinned turns (a system message only first), the kept
messages equal ``langchain_core.messages.trim_messages(..., strategy="last",
include_system=True, start_on="human", allow_partial=False)`` given a counter that sums the
per-message costs without the priming and ``max_tokens = limit - 3`` (LangChain calls the
counter on partial lists, so a counter that adds the priming would count it twice). The one
intended differences: when the system message, the live turn (the newest user message and what
follows it) or the priming does not fit, LangChain still returns what fits without the live turn;
this mode fails with the shortfall. A history without a user message is invalid here.
"""

import pytest
from hypothesis import event, given, strategies as st

from fitproof import evaluate
from fitproof.modes import messages as mode

langchain = pytest.importorskip("langchain_core.messages")

TOKENIZERS = [name for name in ("o200k_base", "estimate") if name in mode.TOKENIZERS]
WORDS = st.sampled_from(["hello", " world", "\n", " Paris", "é", "🙂", " the", "1234", "  ", "naïve", " réservation", "!"])
TEXT = st.lists(WORDS, max_size=12).map("".join)
CONTENT = st.one_of(TEXT, st.lists(TEXT.map(lambda text: {"type": "text", "text": text}), min_size=1, max_size=3))
ROLE_OF = {"human": "user", "ai": "assistant", "system": "system"}


@st.composite
def plain_histories(draw):
    messages = [{"role": "system", "content": draw(CONTENT)}] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0 if messages else 1, 16))):
        message = {"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(CONTENT)}
        if draw(st.integers(0, 3)) == 0:
            message["name"] = draw(st.sampled_from(["ana", "bot_1"]))
        messages.append(message)
    return messages


def as_langchain(messages):
    kinds = {"system": langchain.SystemMessage, "user": langchain.HumanMessage, "assistant": langchain.AIMessage}
    return [
        kinds[message["role"]](content=message["content"], name=message.get("name"), id=str(index))
        for index, message in enumerate(messages)
    ]


def counter_for(tokenizer):
    """OpenAI's per-message accounting over LangChain's own message objects, without the priming."""

    def count(text):
        return mode.count_tokens(text, tokenizer)

    def counter(messages):
        total = 0
        for message in messages:
            parts = message.content if isinstance(message.content, list) else [{"text": message.content}]
            total += 3 + count(ROLE_OF[message.type]) + sum(count(part["text"]) for part in parts)
            if message.name is not None:
                total += count(message.name) + 1
        return total

    return counter


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@given(history=plain_histories(), slack=st.integers(-5, 200), fraction=st.floats(0.1, 1.2))
def test_kept_messages_equal_langchains(tokenizer, history, slack, fraction):
    counter = counter_for(tokenizer)
    total = counter(as_langchain(history)) + 3
    limit = max(0, int(total * fraction) + (slack if fraction > 1 else slack % 40))
    report = evaluate({"mode": "messages", "limit": limit, "tokenizer": tokenizer, "messages": history})
    if not any(message["role"] == "user" for message in history):
        # An intended difference: a history without a user message has no turn to answer.
        event("differs as intended: no user message")
        assert [error["path"] for error in report["errors"]] == ["$.messages"]
        return
    assert "errors" not in report, report["errors"]
    converted = as_langchain(history)
    assert report["tokens"] == (3 + counter([converted[index] for index in report["kept"]]) if report["kept"] else 0)
    theirs = langchain.trim_messages(
        converted,
        max_tokens=limit - 3,
        token_counter=counter,
        strategy="last",
        include_system=True,
        start_on="human",
        allow_partial=False,
    )
    their_kept = [int(message.id) for message in theirs]
    if report["shortfall"]:
        # The intended difference: the system message, the live turn (the newest user message and
        # the replies after it) and the priming are over the limit. LangChain sends what fits of
        # them, the question lost; this mode fails with the shortfall.
        event("differs as intended: pinned or live turn over the limit")
        assert report["pass"] is False and report["kept"] == []
        live = report["live_turn"]
        assert not set(live) <= set(their_kept)
        return
    assert report["kept"] == their_kept
    event("kept all" if not report["dropped"] else "kept none but the system" if report["kept"] in ([], [0]) else "kept some")
    if any(row["reason"] == "history_must_start_with_user" for row in report["trace"]):
        event("the user start dropped a turn")
