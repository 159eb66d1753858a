"""Mode messages' clearing (``clear``): the oldest tool results cleared before turns are dropped, its
options, sticky through ``previous``, with strategy stable, ``trim_messages(clear=...)``, and the input
errors at their paths."""

import copy
import json

import pytest

from fitproof import MessagesError, count_messages, evaluate, trim_messages
from fitproof.modes.messages import stable

BIG = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 40


def agent(turns: int = 8, tools=("read_file", "search")) -> list[dict]:
    """A system message, then turns of: a question, a tool call, its long result, an answer; a last question."""
    history = [{"role": "system", "content": "You are a careful assistant."}]
    for turn in range(turns):
        tool = tools[turn % len(tools)]
        history.append({"role": "user", "content": f"Question {turn}: what does file {turn} say?"})
        history.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"call_{turn}", "type": "function", "function": {"name": tool, "arguments": json.dumps({"n": turn})}}
                ],
            }
        )
        history.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": f"{turn}: {BIG}"})
        history.append({"role": "assistant", "content": f"File {turn} is about lorem ipsum."})
    history.append({"role": "user", "content": "Thanks. And what next?"})
    return history


def run(history, limit=2000, **keys):
    report = evaluate({"mode": "messages", "limit": limit, "messages": history, **keys})
    assert report["pass"], (report["summary"], [check for check in report["checks"] if not check["pass"]], report.get("errors"))
    return report


def non_tool(report, history):
    return sum(history[index]["role"] != "tool" for index in report["kept"])


def test_clearing_keeps_more_turns_than_dropping_alone():
    history = agent()
    before = copy.deepcopy(history)
    dropped = run(history)
    cleared = run(history, clear={})
    assert history == before  # the input is never changed
    assert non_tool(cleared, history) > non_tool(dropped, history)
    assert cleared["tokens"] <= 2000
    rows = cleared["cleared"]
    assert rows and all(row["reason"] == "cleared_over_trigger" and row["kind"] == "result" for row in rows)
    sent = dict(zip(cleared["kept"], cleared["messages"]))
    for row in rows:
        assert row["tokens_after"] < row["tokens_before"]
        if row["index"] in sent:
            message = sent[row["index"]]
            assert message["content"] == f"[cleared: {row['tool']} result, {row['tokens_before']:,} tokens]"
            assert message["tool_call_id"] == history[row["index"]]["tool_call_id"]  # the call's id and pairing stay
    # The newest 3 tool results are never cleared (keep), nor the live turn.
    results = [index for index, message in enumerate(history) if message["role"] == "tool"]
    assert not {row["index"] for row in rows} & set(results[-3:])
    assert cleared["clearing"]["triggered"] and cleared["clearing"]["freed"] > 0
    assert [row["index"] for row in cleared["trace"] if row.get("cleared")] == sorted({row["index"] for row in rows}, reverse=True)


def test_under_the_trigger_nothing_is_cleared():
    history = agent(2)
    report = run(history, limit=100_000, clear={})
    assert report["cleared"] == [] and not report["clearing"]["triggered"]
    report = run(agent(), limit=2000, clear={"trigger": 1_000_000})
    assert report["cleared"] == []


def test_keep_exclude_tools_and_the_watermark():
    history = agent()
    every = run(history, clear={"keep": 0})
    assert len(every["cleared"]) == 8  # all of them but none of the live turn (which has no result)
    search_kept = run(history, clear={"keep": 0, "exclude_tools": ["search"]})
    assert {row["tool"] for row in search_kept["cleared"]} == {"read_file"}
    some = run(history, clear={"keep": 0, "low_watermark": 0.9})
    assert 0 < len(some["cleared"]) < len(every["cleared"])
    assert [row["index"] for row in some["cleared"]] == [row["index"] for row in every["cleared"]][: len(some["cleared"])]  # oldest first
    assert some["clearing"]["tokens_after"] <= 1800 < some["clearing"]["tokens_after"] + some["cleared"][-1]["tokens_before"]


def test_clear_at_least_refuses_a_small_clearing():
    history = agent()
    report = run(history, clear={"clear_at_least": 10**6})
    assert report["cleared"] == [] and report["clearing"]["triggered"]
    assert report["kept"] == run(history)["kept"]


def test_clear_tool_inputs_empties_the_calls_arguments():
    history = agent()
    report = run(history, clear={"clear_tool_inputs": True})
    sent = dict(zip(report["kept"], report["messages"]))
    row = report["cleared"][0]
    assert row["input"] is True
    call = sent[row["index"] - 1]["tool_calls"][0]
    assert call["function"]["arguments"] == "{}" and call["id"] == row["id"]
    only = run(history, clear={"clear_tool_inputs": ["search"]})
    assert {row["tool"] for row in only["cleared"] if row["input"]} == {"search"}


def test_never_the_live_turn_or_a_pinned_message():
    history = agent()
    history[3]["pinned"] = True  # the first tool result, pinned (its unit with it)
    live = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "live", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
    }
    history += [live, {"role": "tool", "tool_call_id": "live", "content": BIG}]
    report = run(history, limit=2500, clear={"keep": 0})
    cleared = {row["index"] for row in report["cleared"]}
    assert 3 not in cleared and len(history) - 1 not in cleared
    assert report["messages"][-1]["content"] == BIG


def test_a_placeholder_no_shorter_than_its_result_is_left():
    history = agent()
    history[3]["content"] = "ok"
    report = run(history, clear={"keep": 0})
    assert 3 not in {row["index"] for row in report["cleared"]}


def test_sticky_through_previous_the_same_bytes_and_the_previous_prompt_extended():
    history = agent(12)
    first = run(history[:30], clear={})
    assert first["cleared"]
    then = history[:30] + [
        {"role": "assistant", "content": "Next, the plan."},
        {"role": "user", "content": "Go on."},
    ]
    second = run(then, clear={}, previous=first["as_previous"])
    before = {row["index"]: row for row in first["cleared"]}
    again = {row["index"]: row for row in second["cleared"]}
    assert set(before) <= set(again)
    assert all(again[index]["reason"] == "cleared_as_before" for index in before)
    sent_before = dict(zip(first["kept"], first["messages"]))
    sent_now = dict(zip(second["kept"], second["messages"]))
    for index in before:
        if index in sent_now:
            assert json.dumps(sent_now[index]) == json.dumps(sent_before[index])


def test_with_strategy_stable_the_prompt_is_the_previous_plus_the_new_turns():
    history = agent(30)
    previous, previous_kept, extended = None, None, 0
    for end in range(9, len(history), 4):  # each window ends with a question
        window = history[:end]
        keys = {"clear": {"clear_at_least": 200, "low_watermark": 0.7}, "strategy": "stable"}
        if previous:
            keys["previous"] = previous
        report = run(window, limit=4000, **keys)
        if previous and report["cut_from"] == "previous" and not report["clearing"]["cleared_now"]:
            assert report["reuse"]["prefix_messages"] == len(previous_kept)  # the whole previous prompt, then the new turns
            assert report["kept"][: len(previous_kept)] == previous_kept
            extended += 1
        previous, previous_kept = report["as_previous"], report["kept"]
    assert extended


def test_trim_messages_clear_is_evaluates_and_remembers_the_previous_call():
    history = agent(12)
    stable.forget()
    trimmed = trim_messages(history[:30], 2000, clear={})
    report = run(history[:30], clear={})
    assert list(trimmed) == report["messages"] and trimmed.cleared == report["cleared"]
    longer = history[:30] + [{"role": "assistant", "content": "Next."}, {"role": "user", "content": "Go on."}]
    again = trim_messages(longer, 2000, clear={})
    assert again.previous == trimmed.as_previous
    assert again == run(longer, clear={}, previous=trimmed.as_previous)["messages"]
    # The same history again: the memory holds one call a conversation (the longer one replaced it), so it is given.
    same = trim_messages(history[:30], 2000, clear=True, previous=trimmed.as_previous)
    assert [row["index"] for row in same.cleared] == [row["index"] for row in trimmed.cleared]
    assert {row["reason"] for row in same.cleared} == {"cleared_as_before"}


def test_an_excluded_tool_no_definition_names_is_a_warning():
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {}}}}]
    report = run(agent(), limit=2100, tools=tools, clear={"exclude_tools": ["read_file", "grep"]})
    assert report["clearing"]["warnings"] == ["exclude_tools names 'grep', which no tool definition names"]


@pytest.mark.parametrize(
    "clear, path",
    [
        ({"trigger": "1000"}, "$.clear.trigger"),
        ({"trigger": 1.5}, "$.clear.trigger"),
        ({"keep": -1}, "$.clear.keep"),
        ({"keep": True}, "$.clear.keep"),
        ({"clear_at_least": None, "low_watermark": 0}, "$.clear.low_watermark"),
        ({"low_watermark": 1.5}, "$.clear.low_watermark"),
        ({"exclude_tools": ["a", 3]}, "$.clear.exclude_tools[1]"),
        ({"clear_tool_inputs": "yes"}, "$.clear.clear_tool_inputs"),
        ({"kep": 3}, "$.clear.kep"),
        ([], "$.clear"),
    ],
)
def test_bad_options_are_input_errors_at_their_path(clear, path):
    report = evaluate({"mode": "messages", "limit": 2000, "messages": agent(), "clear": clear})
    assert not report["pass"]
    assert path in [error["path"] for error in report["errors"]], report["errors"]
    with pytest.raises(MessagesError) as raised:
        trim_messages(agent(), 2000, clear=clear)
    assert path in [problem.path for problem in raised.value.problems]


def test_a_previous_whose_cleared_items_do_not_match_is_an_input_error():
    history = agent(12)
    first = run(history[:30], clear={})
    previous = copy.deepcopy(first["as_previous"])
    previous["cleared"][0]["index"] = 1  # a user message: no tool result there
    report = evaluate({"mode": "messages", "limit": 2000, "messages": history[:30], "clear": {}, "previous": previous})
    assert [error["path"] for error in report["errors"]] == ["$.previous.cleared[0]"]
    previous["cleared"] = "all"
    report = evaluate({"mode": "messages", "limit": 2000, "messages": history[:30], "clear": {}, "previous": previous})
    assert [error["path"] for error in report["errors"]] == ["$.previous.cleared"]


def test_clear_with_a_template_is_refused():
    report = evaluate(
        {"mode": "messages", "limit": 2000, "messages": agent(), "clear": {}, "template": "llama3", "tokenizer": "o200k_base"}
    )
    assert not report["pass"] and report["errors"]


def test_a_claim_says_which_messages_are_cleared_and_is_judged():
    history = agent()
    data = {"mode": "messages", "limit": 2000, "messages": history, "clear": {}}
    report = run(history, clear={})
    cleared = [row["index"] for row in report["cleared"] if row["index"] in report["kept"]]
    holds = evaluate({**data, "claim": {"kept": report["kept"], "cleared": cleared}})
    assert holds["claim"] == {"pass": True, "failures": []}
    short = evaluate({**data, "claim": {"kept": report["kept"], "cleared": cleared[1:]}})
    assert [failure["index"] for failure in short["claim"]["failures"]] == [cleared[0]]
    assert short["claim"]["failures"][0]["check"] == "cleared as the rule clears"
    extra = evaluate({**data, "claim": {"kept": report["kept"], "cleared": [*cleared, 1]}})
    assert extra["claim"]["failures"][0]["detail"] == "message 1 is claimed cleared, but the rule sends it as it is"
    bad = evaluate({**data, "claim": {"kept": report["kept"], "cleared": ["3"]}})
    assert [error["path"] for error in bad["errors"]] == ["$.claim.cleared[0]"]


def test_the_summary_hook_names_the_dropped_span_and_sends_a_given_summary_in_its_place():
    history = agent(14)
    named = run(history, clear={"summary": {"tokens": 200}})
    span = named["summary_span"]
    assert span["from"] == named["dropped"][0] and span["to"] == named["dropped"][-1] and span["allowance"] == 200
    assert not span["sent"] and len(named["messages"]) == len(named["kept"])
    text = "The user asked about files 0-2; each was lorem ipsum."
    summarized = run(history, clear={"summary": {"tokens": 200, "text": text}})
    span = summarized["summary_span"]
    assert span["sent"] and span["summary_tokens"] > 0
    sent = summarized["messages"][span["position"]]
    assert sent == {"role": "user", "content": "Summary of the earlier conversation: " + text}
    assert summarized["messages"][: span["position"]] == [history[0]]  # after the system message, in the span's place
    assert summarized["tokens"] <= 2000 and summarized["pinned_tokens"] == named["pinned_tokens"] + span["summary_tokens"]
    assert summarized["tokens"] == count_messages(summarized["messages"])
    trimmed = trim_messages(history, 2000, clear={"summary": {"text": text}})
    assert list(trimmed) == summarized["messages"]
    fits = run(agent(2), clear={"summary": {"text": text}})  # nothing dropped: no summary sent
    assert fits["summary_span"] is None and all(message.get("content") != sent["content"] for message in fits["messages"])


@pytest.mark.parametrize(
    "summary, path",
    [
        ({"text": ""}, "$.clear.summary.text"),
        ({"tokens": -3}, "$.clear.summary.tokens"),
        ("short", "$.clear.summary"),
        ({"size": 3}, "$.clear.summary.size"),
    ],
)
def test_a_bad_summary_is_an_input_error_at_its_path(summary, path):
    report = evaluate({"mode": "messages", "limit": 2000, "messages": agent(14), "clear": {"summary": summary}})
    assert path in [error["path"] for error in report["errors"]], report.get("errors")


def test_a_summary_with_previous_is_refused():
    history = agent(14)
    first = run(history[:30], clear={})
    report = evaluate(
        {"mode": "messages", "limit": 2000, "messages": history, "clear": {"summary": {"text": "s"}}, "previous": first["as_previous"]}
    )
    assert [error["path"] for error in report["errors"]] == ["$.clear.summary.text"]


def test_the_shipped_agent_example_clears_old_file_reads_and_keeps_the_test_runs():
    """examples/agent-clearing.json (``fitproof check --example agent-clearing``): six tool uses, keep 2,
    run_tests excluded; the three older read_file results are cleared and nothing is dropped."""
    from conftest import ROOT

    report = evaluate(json.loads((ROOT / "examples" / "agent-clearing.json").read_text(encoding="utf-8")))
    assert report["pass"] and report["dropped"] == [], report["summary"]
    assert [(item["index"], item["tool"]) for item in report["cleared"]] == [(3, "read_file"), (5, "read_file"), (10, "read_file")]
    sent = report["messages"]
    assert sent[3]["content"] == "[cleared: read_file result, 1,454 tokens]" and "PASSED" in sent[7]["content"]
