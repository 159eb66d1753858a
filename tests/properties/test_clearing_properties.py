"""Clearing on random tool histories with random options: the limit, the pairing and the live turn
always hold, every check passes, and clearing only replaces a tool result's content (and, asked
for, its call's arguments), with the placeholder that names the tool and the result's size."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fitproof import count_tokens, evaluate

TOOLS = ("read_file", "search", "run")


@st.composite
def histories(draw):
    history = [{"role": "system", "content": "You are an agent."}]
    turns = draw(st.integers(1, 7))
    call = 0
    for turn in range(turns):
        history.append({"role": "user", "content": f"task {turn} " * draw(st.integers(1, 20)), "pinned": draw(st.booleans()) or None})
        for _ in range(draw(st.integers(0, 3))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                calls.append(
                    {
                        "id": f"call_{call}",
                        "type": "function",
                        "function": {
                            "name": draw(st.sampled_from(TOOLS)),
                            "arguments": json.dumps({"n": call, "q": "x" * draw(st.integers(0, 60))}),
                        },
                    }
                )
                call += 1
            history.append({"role": "assistant", "content": None, "tool_calls": calls})
            for made in calls:
                size = draw(st.integers(0, 400))
                history.append({"role": "tool", "tool_call_id": made["id"], "content": "result text " * size})
        if draw(st.booleans()) or turn == turns - 1:
            history.append({"role": "assistant", "content": "done " * draw(st.integers(1, 30))})
    history.append({"role": "user", "content": "and now?"})
    for message in history:
        if message.get("pinned") is None:
            message.pop("pinned", None)
    return history


options = st.fixed_dictionaries(
    {},
    optional={
        "trigger": st.integers(0, 6000),
        "keep": st.integers(0, 5),
        "clear_at_least": st.integers(0, 3000),
        "exclude_tools": st.lists(st.sampled_from(TOOLS), max_size=2),
        "clear_tool_inputs": st.one_of(st.booleans(), st.lists(st.sampled_from(TOOLS), max_size=2)),
        "low_watermark": st.sampled_from([0.3, 0.5, 0.7, 0.9, 1]),
    },
)


@settings(max_examples=120, deadline=None)
@given(histories(), options, st.integers(200, 6000), st.sampled_from(["newest", "stable"]))
def test_clearing_keeps_the_limit_the_pairing_and_the_live_turn(history, clear, limit, strategy):
    report = evaluate({"mode": "messages", "limit": limit, "messages": history, "clear": clear, "strategy": strategy})
    assert report["pass"] or report["shortfall"] > 0, [check for check in report["checks"] if not check["pass"]]
    assert all(check["pass"] for check in report["checks"]), [check for check in report["checks"] if not check["pass"]]
    if report["shortfall"]:
        return
    assert report["tokens"] <= limit
    live = max(index for index, message in enumerate(history) if message["role"] == "user")
    assert set(range(live, len(history))) <= set(report["kept"])
    cleared = {row["index"]: row for row in report["cleared"]}
    inputs = {
        history.index(next(m for m in history if any(c["id"] == row["id"] for c in m.get("tool_calls") or ())))
        for row in report["cleared"]
        if row["input"]
    }
    for index, sent in zip(report["kept"], report["messages"]):
        given_message = {key: value for key, value in history[index].items() if key != "pinned"}
        if index in cleared:
            row = cleared[index]
            assert index < live and history[index]["role"] == "tool"
            assert sent == {**given_message, "content": f"[cleared: {row['tool']} result, {row['tokens_before']:,} tokens]"}
            assert row["tokens_before"] == count_tokens(history[index]["content"])
        elif index in inputs:
            assert sent["tool_calls"] != given_message["tool_calls"]
            assert {key: value for key, value in sent.items() if key != "tool_calls"} == {
                key: value for key, value in given_message.items() if key != "tool_calls"
            }
            for made, original in zip(sent["tool_calls"], given_message["tool_calls"]):
                assert made["id"] == original["id"] and made["function"]["name"] == original["function"]["name"]
                assert made["function"]["arguments"] in ("{}", original["function"]["arguments"])
        else:
            assert sent == given_message
