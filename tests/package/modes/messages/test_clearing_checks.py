"""The checks of clearing, each fed a corrupted report and seen to fail: the cleared set re-derived
(oldest first, keep, exclusions, the watermark, clear_at_least), the pairing, the limit, what is
sent for a cleared result, and the byte-identity with the previous call's cleared items."""

import copy
import json

import pytest

from fitproof import evaluate
from fitproof.modes import messages as mode

from test_clearing import BIG, agent  # noqa: F401  (the same histories)


def _case(**clear):
    history = agent(12)
    first = evaluate({"mode": "messages", "limit": 2000, "messages": history[:30], "clear": clear or {}})
    data = {
        "mode": "messages",
        "limit": 2000,
        "messages": history[:34],
        "clear": clear or {},
        "previous": first["as_previous"],
    }
    report = evaluate(data)
    assert report["pass"], [check for check in report["checks"] if not check["pass"]]
    assert {row["reason"] for row in report["cleared"]} == {"cleared_as_before", "cleared_over_trigger"}
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    return data, fields


def _failing(data, fields):
    return {check["name"] for check in mode.verify(data, fields) if not check["pass"]}


def _row(fields, reason):
    return next(position for position, row in enumerate(fields["cleared"]) if row["reason"] == reason)


def test_the_checks_pass_on_the_report_as_made():
    data, fields = _case()
    assert _failing(data, fields) == set()
    assert {"tool results cleared", "cleared as before"} <= {check["name"] for check in mode.verify(data, fields)}


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda fields: fields["cleared"].pop(),  # one cleared item left out
        lambda fields: fields["cleared"].pop(0),  # the oldest left out
        lambda fields: fields["cleared"][-1].update(tokens_before=fields["cleared"][-1]["tokens_before"] + 1),
        lambda fields: fields["cleared"][-1].update(tokens_after=0),
        lambda fields: fields["cleared"][-1].update(tool="search" if fields["cleared"][-1]["tool"] != "search" else "read_file"),
        lambda fields: fields["cleared"][-1].update(reason="cleared_as_before"),
        lambda fields: fields["cleared"][-1].update(input=True),
        lambda fields: fields["clearing"].update(tokens_after=fields["clearing"]["tokens_after"] - 1),
        lambda fields: fields["clearing"].update(tokens_before=fields["clearing"]["tokens_before"] + 1),
        lambda fields: fields["clearing"].update(freed=0),
        lambda fields: fields["clearing"].update(triggered=False),
        lambda fields: fields["clearing"].update(cleared_now=0),
        lambda fields: fields["clearing"].update(warnings=["made up"]),
        lambda fields: next(row for row in fields["trace"] if row.get("cleared")).pop("cleared"),
    ],
)
def test_the_cleared_set_re_derived_fails_on_a_corrupted_report(corrupt):
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    corrupt(tampered)
    assert "tool results cleared" in _failing(data, tampered)


def test_one_more_cleared_item_claimed_fails():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    cleared = {row["index"] for row in tampered["cleared"]}
    index = next(index for index, message in enumerate(data["messages"]) if message["role"] == "tool" and index not in cleared)
    tampered["cleared"].append({**tampered["cleared"][-1], "index": index})
    assert "tool results cleared" in _failing(data, tampered)


@pytest.mark.parametrize(
    "options",
    [{"keep": 1}, {"keep": 5}, {"exclude_tools": ["search"]}, {"low_watermark": 0.95}, {"clear_at_least": 1}, {"clear_tool_inputs": True}],
)
def test_the_replay_follows_each_option(options):
    """The report made with other options fails against this input: the replay reads each option."""
    data, fields = _case()
    other = dict(data, clear=options)
    report = evaluate(other)
    assert report["pass"]
    made = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    if made["cleared"] != fields["cleared"]:
        assert "tool results cleared" in _failing(data, made)


def test_a_cleared_result_sent_otherwise_fails_the_recount():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    row = tampered["cleared"][_row(tampered, "cleared_over_trigger")]
    position = tampered["kept"].index(row["index"])
    tampered["messages"][position]["content"] = "[cleared]"
    assert "kept messages re-counted" in _failing(data, tampered)
    tampered = copy.deepcopy(fields)
    tampered["messages"][position]["content"] = data["messages"][row["index"]]["content"]  # sent uncleared
    assert "kept messages re-counted" in _failing(data, tampered)


def test_a_changed_call_id_fails_the_pairing():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    row = tampered["cleared"][_row(tampered, "cleared_over_trigger")]
    position = tampered["kept"].index(row["index"])
    tampered["messages"][position]["tool_call_id"] = "call_other"
    assert "tool calls paired" in _failing(data, tampered)


def test_the_limit_holds_on_the_cleared_prompt():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    tampered["tokens"] += 10_000
    tampered["remaining"] -= 10_000
    assert "kept messages re-counted" in _failing(data, tampered)


def test_the_previous_calls_cleared_items_are_sent_as_the_same_bytes():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    row = tampered["cleared"][_row(tampered, "cleared_as_before")]
    sent = dict(zip(tampered["kept"], tampered["messages"]))
    if row["index"] in sent:
        sent[row["index"]]["content"] = sent[row["index"]]["content"].replace("tokens", "tokens ")
        assert "cleared as before" in _failing(data, tampered)
    tampered = copy.deepcopy(fields)
    tampered["cleared"][_row(tampered, "cleared_as_before")]["reason"] = "cleared_over_trigger"
    assert {"cleared as before", "tool results cleared"} <= _failing(data, tampered)


def test_as_previous_carries_the_cleared_items():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    tampered["as_previous"]["cleared"].pop()
    assert "stable cut" in _failing(data, tampered)


def test_the_prefix_counts_a_result_cleared_since_as_changed():
    data, fields = _case()
    tampered = copy.deepcopy(fields)
    tampered["reuse"]["prefix_messages"] += 1
    assert "prompt prefix reused" in _failing(data, tampered)
    assert json.dumps(fields["reuse"])  # (a plain JSON value)


def _summarized():
    data = {
        "mode": "messages",
        "limit": 2000,
        "messages": agent(14),
        "clear": {"summary": {"tokens": 150, "text": "Files 0-2 were lorem ipsum."}},
    }
    report = evaluate(data)
    assert report["pass"] and report["summary_span"]["sent"]
    return data, {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}


@pytest.mark.parametrize(
    "corrupt, check",
    [
        (lambda fields: fields["summary_span"].update(tokens=fields["summary_span"]["tokens"] - 1), "summary in place of the dropped span"),
        (lambda fields: fields["summary_span"].update(allowance=None), "summary in place of the dropped span"),
        (lambda fields: fields["summary_span"].update(sent=False), "summary in place of the dropped span"),
        (
            lambda fields: fields["messages"][fields["summary_span"]["position"]].update(content="Summary: other"),
            "summary in place of the dropped span",
        ),
        (lambda fields: fields["messages"].pop(fields["summary_span"]["position"]), "summary in place of the dropped span"),
        (lambda fields: fields.update(tokens=fields["tokens"] - fields["summary_span"]["summary_tokens"]), "kept messages re-counted"),
        (
            lambda fields: fields.update(pinned_tokens=fields["pinned_tokens"] - fields["summary_span"]["summary_tokens"]),
            "pinned messages kept",
        ),
    ],
)
def test_the_summary_check_fails_on_a_corrupted_report(corrupt, check):
    data, fields = _summarized()
    assert _failing(data, fields) == set()
    tampered = copy.deepcopy(fields)
    corrupt(tampered)
    assert check in _failing(data, tampered)
