"""Clearing in Anthropic's Messages and OpenAI's Responses formats: tool_result blocks, function call
outputs, the calls' inputs, the thinking blocks of older turns, Anthropic's own context_management
read as the same options, and the checks failing on corrupted reports."""

import copy
import json

import pytest

from fitproof import evaluate, trim_messages
from fitproof.modes import messages as mode

BIG = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 40


def anthropic_history(turns: int = 8) -> list[dict]:
    history = []
    for turn in range(turns):
        history.append({"role": "user", "content": f"Question {turn}?"})
        history.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Let me look at the file. " * 10, "signature": "sig"},
                    {"type": "tool_use", "id": f"toolu_{turn}", "name": "read_file", "input": {"n": turn}},
                ],
            }
        )
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": BIG}]})
        history.append({"role": "assistant", "content": [{"type": "text", "text": f"File {turn} is lorem."}]})
    history.append({"role": "user", "content": "What next?"})
    return history


def responses_history(turns: int = 8) -> list[dict]:
    history = []
    for turn in range(turns):
        history.append({"role": "user", "content": f"Question {turn}?"})
        history.append({"type": "function_call", "call_id": f"call_{turn}", "name": "read_file", "arguments": json.dumps({"n": turn})})
        history.append({"type": "function_call_output", "call_id": f"call_{turn}", "output": BIG})
        history.append({"role": "assistant", "content": f"File {turn} is lorem."})
    history.append({"role": "user", "content": "What next?"})
    return history


def run(data):
    report = evaluate({"mode": "messages", "limit": 2000, **data})
    assert report["pass"], (report["summary"], [check for check in report["checks"] if not check["pass"]], report.get("errors"))
    return report


def fields_of(report):
    return {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}


def failing(data, fields):
    full = {"mode": "messages", "limit": 2000, **data}
    return {check["name"] for check in mode.verify(full, fields) if not check["pass"]}


def test_anthropic_tool_results_cleared_in_their_blocks():
    history = anthropic_history()
    before = copy.deepcopy(history)
    data = {"format": "anthropic", "messages": history, "clear": {"clear_tool_inputs": True, "keep": 1}}
    report = run(data)
    assert history == before
    dropped = run({"format": "anthropic", "messages": history})
    assert len(report["kept"]) > len(dropped["kept"])
    sent = dict(zip(report["kept"], report["messages"]))
    for row in report["cleared"]:
        assert row["kind"] == "result" and row["block"] == 0
        if row["index"] in sent:
            block = sent[row["index"]]["content"][0]
            assert block == {
                "type": "tool_result",
                "tool_use_id": row["id"],
                "content": f"[cleared: read_file result, {row['tokens_before']:,} tokens]",
            }
            assert sent[row["index"] - 1]["content"][1]["input"] == {}


def test_anthropic_thinking_of_older_turns_removed():
    history = anthropic_history()
    report = run({"format": "anthropic", "messages": history, "clear": {"keep_thinking": 2, "trigger": 10**6}})
    thinking = [row for row in report["cleared"] if row["kind"] == "thinking"]
    assert [row["index"] for row in thinking] == [1 + 4 * turn for turn in range(6)]  # all but the newest two turns'
    sent = dict(zip(report["kept"], report["messages"]))
    for row in thinking:
        if row["index"] in sent:
            assert [block["type"] for block in sent[row["index"]]["content"]] == ["tool_use"]
    kept_all = run({"format": "anthropic", "messages": history, "clear": {"keep_thinking": "all", "trigger": 10**6}})
    assert kept_all["cleared"] == []


def test_responses_outputs_and_arguments_cleared():
    history = responses_history()
    report = run({"format": "responses", "input": history, "clear": {"clear_tool_inputs": True}})
    assert report["cleared"]
    sent = dict(zip(report["kept"], report["messages"]))
    for row in report["cleared"]:
        assert sent[row["index"]]["output"].startswith("[cleared: read_file result, ")
        assert sent[row["index"] - 1]["arguments"] == "{}"
    trimmed = trim_messages(history, 2000, format="responses", clear={"clear_tool_inputs": True})
    assert list(trimmed) == report["messages"] and trimmed.cleared == report["cleared"]


def test_context_management_as_given():
    history = anthropic_history()
    edits = {
        "edits": [
            {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 1500},
                "keep": {"type": "tool_uses", "value": 2},
                "clear_at_least": {"type": "input_tokens", "value": 100},
                "exclude_tools": ["web_search"],
            },
        ]
    }
    report = run({"format": "anthropic", "messages": history, "context_management": edits})
    same = run(
        {
            "format": "anthropic",
            "messages": history,
            "clear": {"keep_thinking": 1, "trigger": 1500, "keep": 2, "clear_at_least": 100, "exclude_tools": ["web_search"]},
        }
    )
    assert report["cleared"] == same["cleared"] and report["messages"] == same["messages"]
    assert report["clearing"]["source"] == "context_management"
    assert report["clearing"]["warnings"] == ["exclude_tools names 'web_search', which no tool definition names"]
    # Anthropic's default trigger is 100,000 input tokens: nothing to clear at this size.
    quiet = run({"format": "anthropic", "messages": history, "context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}})
    assert quiet["cleared"] == [] and quiet["clearing"]["trigger"] == 100_000
    by_uses = run(
        {
            "format": "anthropic",
            "messages": history,
            "context_management": {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 4}}]},
        }
    )
    assert len(by_uses["cleared"]) == 5  # 8 tool uses over the 4 that trigger: all but the newest 3


@pytest.mark.parametrize(
    "management, path",
    [
        ({"edits": [{"type": "compact_20260112"}]}, "$.context_management.edits[0].type"),
        ({"edits": [{"type": "clear_tool_uses_20250919", "keep": 3}]}, "$.context_management.edits[0].keep"),
        (
            {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": "x"}}]},
            "$.context_management.edits[0].trigger.value",
        ),
        (
            {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "turns", "value": 1}}]},
            "$.context_management.edits[0].keep.type",
        ),
        ({"edits": {}}, "$.context_management.edits"),
        ({"edit": []}, "$.context_management.edit"),
    ],
)
def test_bad_context_management_is_an_input_error_at_its_path(management, path):
    report = evaluate(
        {"mode": "messages", "limit": 2000, "format": "anthropic", "messages": anthropic_history(), "context_management": management}
    )
    assert path in [error["path"] for error in report["errors"]], report.get("errors")


def test_context_management_belongs_to_the_anthropic_format():
    history = [{"role": "user", "content": "hi"}]
    report = evaluate({"mode": "messages", "limit": 2000, "messages": history, "context_management": {"edits": []}})
    assert [error["path"] for error in report["errors"]] == ["$.context_management"]


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda fields: fields["cleared"].pop(0),
        lambda fields: next(row for row in fields["cleared"] if row["kind"] == "thinking").update(tokens_before=1),
        lambda fields: fields["cleared"].remove(next(row for row in fields["cleared"] if row["kind"] == "thinking")),
        lambda fields: fields["cleared"][-1].update(block=1),
        lambda fields: fields["clearing"].update(tokens_after=fields["clearing"]["tokens_after"] + 7),
    ],
)
def test_the_checks_fail_on_a_corrupted_anthropic_report(corrupt):
    data = {"format": "anthropic", "messages": anthropic_history(), "clear": {"keep_thinking": 1}}
    fields = fields_of(run(data))
    assert failing(data, fields) == set()
    tampered = copy.deepcopy(fields)
    corrupt(tampered)
    assert "tool results cleared" in failing(data, tampered)


def test_a_cleared_block_sent_as_it_was_fails_the_recount():
    data = {"format": "anthropic", "messages": anthropic_history(), "clear": {"keep": 1}}
    fields = fields_of(run(data))
    tampered = copy.deepcopy(fields)
    row = next(row for row in tampered["cleared"] if row["index"] in tampered["kept"])
    position = tampered["kept"].index(row["index"])
    tampered["messages"][position] = copy.deepcopy(data["messages"][row["index"]])
    assert "kept messages re-counted" in failing(data, tampered)
    responses = {"format": "responses", "input": responses_history(), "clear": {}}
    fields = fields_of(run(responses))
    tampered = copy.deepcopy(fields)
    position = tampered["kept"].index(tampered["cleared"][0]["index"])
    tampered["messages"][position]["output"] = "[cleared]"
    assert "kept messages re-counted" in failing(responses, tampered)
