"""``clear.live_turn``: an agent's one long request. Every step of an agent run is in the live turn
(the newest user message and everything after it), which the rule never drops and clearing, by
default, never touches; so a run whose own tool results outgrow the limit cannot be sent. With
``live_turn: true`` the live turn's older results are cleared too (never the newest ``keep``), in
the three formats, the checks re-derive it, and a corrupted report fails them."""

import copy
import json

import pytest

from fitproof import MessagesDoNotFit, evaluate, trim_messages

RESULT = "line of the log, nothing wrong here; " * 20


def agent_run(steps: int) -> list[dict]:
    """One user request, then ``steps`` tool calls each with its result: all of it the live turn."""
    messages = [{"role": "system", "content": "You audit logs."}, {"role": "user", "content": "Audit every log file."}]
    for n in range(steps):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "read_log", "arguments": json.dumps({"file": f"app{n}.log"})}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": RESULT},
        ]
    return messages


def as_anthropic(messages: list[dict]) -> list[dict]:
    out = []
    for message in messages[1:]:
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": call["id"], "name": "read_log", "input": json.loads(call["function"]["arguments"])}
                    ],
                }
            )
        elif message["role"] == "tool":
            out.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}],
                }
            )
        else:
            out.append(message)
    return out


def as_responses(messages: list[dict]) -> list[dict]:
    out = []
    for message in messages:
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            out.append({"type": "function_call", "call_id": call["id"], "name": "read_log", "arguments": call["function"]["arguments"]})
        elif message["role"] == "tool":
            out.append({"type": "function_call_output", "call_id": message["tool_call_id"], "output": message["content"]})
        else:
            out.append(message)
    return out


def inputs(limit: int, clear: dict) -> dict[str, dict]:
    messages = agent_run(12)
    return {
        "chat": {"mode": "messages", "limit": limit, "messages": messages, "clear": clear},
        "anthropic": {
            "mode": "messages",
            "format": "anthropic",
            "tokenizer": "o200k_base",
            "limit": limit,
            "system": "You audit logs.",
            "messages": as_anthropic(messages),
            "clear": clear,
        },
        "responses": {"mode": "messages", "format": "responses", "limit": limit, "input": as_responses(messages), "clear": clear},
    }


@pytest.mark.parametrize("fmt", ["chat", "anthropic", "responses"])
def test_a_long_agent_run_fits_only_when_its_own_older_results_may_be_cleared(fmt):
    refused = evaluate(inputs(1500, {"keep": 2})[fmt])
    assert refused["pass"] is False and refused["shortfall"] > 0  # the live turn alone is over the limit
    report = evaluate(inputs(1500, {"keep": 2, "live_turn": True})[fmt])
    assert report["pass"] is True, [check for check in report["checks"] if not check["pass"]]
    assert report["tokens"] <= 1500 and report["dropped"] == []
    cleared = [row["index"] for row in report["cleared"]]
    results = [row["index"] for row in report["trace"] if row["role"] == "tool"]
    newest = sorted(results)[-2:]
    assert cleared and not set(cleared) & set(newest)  # keep 2: the two newest results stay as they are
    assert report["clearing"]["live_turn"] is True
    assert all(row["reason"] == "cleared_over_trigger" for row in report["cleared"])


def test_trim_messages_lets_an_agent_run_go_on_and_stays_sticky():
    with pytest.raises(MessagesDoNotFit):
        trim_messages(agent_run(12), 1500, clear={"keep": 2})
    first = trim_messages(agent_run(12), 1500, clear={"keep": 2, "live_turn": True})
    grown = trim_messages(agent_run(13), 1500, clear={"keep": 2, "live_turn": True}, previous=first.as_previous)
    assert grown.tokens <= 1500
    again = {row["index"] for row in grown.cleared if row["reason"] == "cleared_as_before"}
    assert again == {row["index"] for row in first.cleared}  # the same bytes as the last call sent


@pytest.mark.parametrize("fmt", ["chat", "anthropic", "responses"])
def test_the_replay_fails_a_report_that_clears_otherwise(fmt):
    data = inputs(1500, {"keep": 2, "live_turn": True})[fmt]
    report = evaluate(data)
    as_if_not_allowed = copy.deepcopy(report)
    as_if_not_allowed["cleared"] = as_if_not_allowed["cleared"][1:]
    from fitproof.modes.messages import formats

    failed = {check["name"] for check in formats.verify(data, as_if_not_allowed) if not check["pass"]}
    assert "tool results cleared" in failed


def test_live_turn_is_true_or_false():
    report = evaluate({**inputs(1500, {})["chat"], "clear": {"live_turn": "yes"}})
    assert report["errors"] == [
        {
            "path": "$.clear.live_turn",
            "message": 'expected true or false, whether the live turn\'s tool results may be cleared too, got "yes"',
        }
    ]
