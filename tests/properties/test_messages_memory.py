"""Mode ``messages`` across calls: whatever the sequence of calls (histories appended to, changed
in place, cut, interleaved with others), a report equals the report of a fresh process."""

import copy

from hypothesis import given, settings, strategies as st

from fitproof import evaluate, trim_messages
from fitproof._shared.count_memory import COUNTS
from fitproof.modes.messages.memory import HISTORIES

TEXT = st.sampled_from(["hi", "hello world", "the parcel", "🙂 ok", "1234", "a b c d e f", ""])


@st.composite
def turns(draw, start):
    """One step of a conversation: a user turn, sometimes a tool round, an assistant reply."""
    messages = [{"role": "user", "content": draw(TEXT)}]
    if draw(st.booleans()):
        messages[0]["pinned"] = draw(st.sampled_from([True, False]))
    if draw(st.integers(0, 3)) == 0:
        ids = [f"c{start}_{k}" for k in range(draw(st.integers(1, 2)))]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": draw(st.sampled_from(["function", "custom"])),
                        "function": {"name": "f", "arguments": draw(TEXT)},
                    }
                    for call_id in ids
                ],
            }
        )
        for call in messages[-1]["tool_calls"]:
            if call["type"] == "custom":
                call["custom"] = {"name": "g", "input": call.pop("function")["arguments"]}
        messages += [{"role": "tool", "tool_call_id": call_id, "content": draw(TEXT)} for call_id in ids]
    messages.append({"role": "assistant", "content": draw(TEXT), "refusal": None})
    return messages


EDITS = st.sampled_from(["append", "append", "append", "edit", "pin", "drop_first", "reorder_call", "other_history"])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_remembered_calls_equal_fresh_ones(data):
    history = [{"role": "system", "content": "be brief"}]
    other = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "another chat"}]
    limit = data.draw(st.integers(20, 120))
    for step in range(data.draw(st.integers(1, 8))):
        edit = data.draw(EDITS)
        if edit == "append" or len(history) < 3:
            history += data.draw(turns(step))
        elif edit == "edit":
            target = data.draw(st.integers(1, len(history) - 1))
            if history[target]["role"] != "tool" and isinstance(history[target].get("content"), str):
                history[target]["content"] += " more"
        elif edit == "pin":
            target = data.draw(st.integers(1, len(history) - 1))
            if history[target]["role"] == "user":
                history[target]["pinned"] = data.draw(st.sampled_from([True, 1, False]))
        elif edit == "drop_first":
            del history[1]
        elif edit == "reorder_call":
            for message in history:
                if message.get("tool_calls"):
                    message["tool_calls"][0] = dict(reversed(list(message["tool_calls"][0].items())))
                    break
        else:
            evaluate({"mode": "messages", "limit": limit, "messages": other})
        request = {"mode": "messages", "limit": limit, "messages": history}
        remembered = evaluate(request)
        trimmed = None
        try:
            trimmed = trim_messages(history, limit)
        except ValueError:
            pass
        COUNTS.clear()
        HISTORIES.clear()
        fresh = evaluate(copy.deepcopy(request))
        assert remembered == fresh
        if trimmed is not None:
            assert fresh["pass"] and list(trimmed) == fresh["messages"] and trimmed.tokens == fresh["tokens"]
