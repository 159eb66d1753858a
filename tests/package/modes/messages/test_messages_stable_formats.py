"""Strategy ``stable``, ``previous`` and ``caching`` in the Anthropic and Responses formats: the same
conversation as the chat format's, converted, keeps the same cuts; the reuse counts the system
prompt or instructions in what leads the prompt; each stable check fails on a corrupted report;
clearing is sticky through ``previous`` in each format; and a ``previous`` from another history or
another system prompt is an input error or shares nothing."""

import copy
import random

import pytest

from fitproof import evaluate, trim_messages
from fitproof.modes import messages as mode
from test_messages_stable import CORRUPTIONS, tamper

WORDS = "the order shipped late because the carrier lost the parcel refund credit ticket photo claim".split()
ANTHROPIC = {"provider": "anthropic", "min_tokens": 1024, "prices": {"input": 3, "cached_input": 0.3, "cache_write": 3.75}}
OPENAI = {"provider": "openai", "prices": {"input": 2, "cached_input": 0.5}}
SYSTEM = "You are a support agent. Answer briefly and cite the ticket. " * 6


def conversation(fmt: str, turns: int, seed: int = 5):
    """The history before each model call, in the format (one list, appended to), with tool calls."""
    rng = random.Random(seed)

    def text(low, high):
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    history: list = []
    for turn in range(turns):
        history.append({"role": "user", "content": text(5, 60)})
        yield history
        call = f"call_{turn}"
        if rng.random() < 0.3:
            if fmt == "anthropic":
                history.append({"role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "lookup", "input": {"q": "x"}}]})
                history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": text(20, 120)}]})
            elif fmt == "responses":
                history.append({"type": "function_call", "call_id": call, "name": "lookup", "arguments": '{"q":"x"}'})
                history.append({"type": "function_call_output", "call_id": call, "output": text(20, 120)})
            else:
                history.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": call, "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}],
                    }
                )
                history.append({"role": "tool", "tool_call_id": call, "content": text(20, 120)})
        history.append({"role": "assistant", "content": text(10, 80)})


def data_of(fmt: str, history: list, limit: int, **keys) -> dict:
    data = {"mode": "messages", "format": fmt, "limit": limit, "messages": copy.deepcopy(history), **keys}
    if fmt != "chat":
        data["system" if fmt == "anthropic" else "instructions"] = SYSTEM
    return data


def run(fmt: str, limit: int = 4000, turns: int = 80, caching: dict | None = None, **keys) -> list[tuple[dict, dict]]:
    previous, reports = None, []
    for history in conversation(fmt, turns):
        data = data_of(fmt, history, limit, strategy="stable", caching=caching or ANTHROPIC, **keys)
        if previous is not None:
            data["previous"] = previous
        report = evaluate(data)
        assert "errors" not in report, report["errors"]
        assert all(check["pass"] for check in report["checks"]), [check for check in report["checks"] if not check["pass"]]
        reports.append((data, report))
        previous = report["as_previous"]
    return reports


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_stable_strategy_keeps_its_cut_and_reads_the_cache_in_each_format(fmt):
    reports = run(fmt)
    froms = {report["cut_from"] for _, report in reports}
    assert {"previous", "low_watermark"} <= froms, froms
    cached = sum(report["reuse"]["cached_tokens"] for _, report in reports)
    total = sum(report["tokens"] for _, report in reports)
    assert cached > total / 2, (cached, total)  # most of what is sent is read from the cache
    for _, report in reports:
        assert report["tokens"] <= report["limit"]
        if report["cut_from"] == "previous":  # the prompt is the previous one with the new turns appended
            assert report["reuse"]["prefix_tokens"] == report["reuse"]["previous_tokens"] - mode.REPLY_PRIMING


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_system_prompt_leads_the_prompt_and_another_shares_nothing(fmt):
    reports = run(fmt, turns=30)
    data, report = reports[-1]
    assert report["reuse"]["prefix_tokens"] >= report["system_tokens"] > 0
    changed = dict(data)
    changed["system" if fmt == "anthropic" else "instructions"] = "Another prompt."
    other = evaluate(changed)
    assert all(check["pass"] for check in other["checks"])
    assert other["reuse"]["prefix_tokens"] == 0 and other["reuse"]["cached_tokens"] == 0


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_a_previous_from_another_history_is_an_input_error_in_each_format(fmt):
    reports = run(fmt, turns=20)
    data, report = reports[-1]
    edited = copy.deepcopy(data)
    edited["messages"][0]["content"] = "edited"
    edited["previous"] = report["as_previous"]
    errors = evaluate(edited)["errors"]
    assert [error["path"] for error in errors] == ["$.previous.history"]


def _case(fmt: str):
    for data, report in run(fmt):
        if report["cut_from"] == "previous" and report["reuse"]["cached_tokens"] and report["cut"] > 0:
            return data, report
    raise AssertionError("no call kept a cut with a cache read")


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
@pytest.mark.parametrize("path, value, failing", [*CORRUPTIONS, (("as_previous", "head"), "sha256:" + "0" * 64, "stable cut")])
def test_each_stable_check_fails_on_a_corrupted_report_in_each_format(fmt, path, value, failing):
    data, report = _case(fmt)
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    assert all(check["pass"] for check in mode.verify(data, fields))
    checks = {check["name"]: check for check in mode.verify(data, tamper(fields, path, value))}
    assert not checks[failing]["pass"], checks[failing]


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_replay_fails_a_turn_kept_before_the_cut_in_each_format(fmt):
    data, report = _case(fmt)
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    tampered = copy.deepcopy(fields)
    dropped = tampered["dropped"][-1]
    tampered["kept"] = [dropped, *tampered["kept"]]
    tampered["dropped"] = tampered["dropped"][:-1]
    checks = {check["name"]: check for check in mode.verify(data, tampered)}
    assert not all(check["pass"] for check in checks.values())


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_openai_rule_in_each_format(fmt):
    reports = run(fmt, caching=OPENAI, turns=60)
    for _, report in reports:
        reuse = report["reuse"]
        assert reuse["cached_tokens"] % 128 == 0 and reuse["written_tokens"] == 0
    assert sum(report["reuse"]["cached_tokens"] for _, report in reports) > 0


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_newest_and_a_caching_rule_alone_are_read_in_each_format(fmt):
    history = next(iter(conversation(fmt, 1)))
    for keys in ({"strategy": "newest"}, {"caching": OPENAI}, {"low_watermark": 0.5, "strategy": "stable"}):
        report = evaluate(data_of(fmt, history, 1000, **keys))
        assert "errors" not in report and report["pass"], (keys, report)
        assert report["as_previous"]["messages"] == 1


def clearing_calls(fmt: str):
    """(input, report) of each call of a 60-turn conversation under strategy stable with clearing,
    each given the call before's as_previous."""
    previous = None
    for history in conversation(fmt, 60, seed=9):
        data = data_of(fmt, history, 3000, strategy="stable", clear={"trigger": 1500, "keep": 1})
        if previous is not None:
            data["previous"] = previous
        report = evaluate(data)
        yield data, report
        previous = report["as_previous"]


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_clearing_is_sticky_through_previous_in_each_format(fmt):
    """A result cleared by one call is cleared again, byte for byte, by the next, given its as_previous."""
    cleared_before = set()
    saw_sticky = False
    for _, report in clearing_calls(fmt):
        assert "errors" not in report, report["errors"]
        assert all(check["pass"] for check in report["checks"]), [check for check in report["checks"] if not check["pass"]]
        now = {(row["index"], row["block"]) for row in report["cleared"] if row["kind"] == "result"}
        assert cleared_before <= now or report["cut_from"] == "low_watermark"
        saw_sticky |= any(row["reason"] == "cleared_as_before" for row in report["cleared"])
        cleared_before = now
    assert saw_sticky


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_trim_messages_remembers_the_last_call_in_each_format(fmt):
    calls = []
    for history in conversation(fmt, 50):
        system = {"system": SYSTEM} if fmt == "anthropic" else {"instructions": SYSTEM}
        trimmed = trim_messages(history, 4000, format=fmt, strategy="stable", caching=ANTHROPIC, **system)
        given = evaluate(data_of(fmt, history, 4000, strategy="stable", caching=ANTHROPIC, previous=trimmed.previous))
        assert given["kept"] == trimmed.kept and given["reuse"] == trimmed.reuse
        calls.append(trimmed)
    assert sum(trimmed.reuse["cached_tokens"] for trimmed in calls) > 0


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_sticky_check_fails_a_result_sent_otherwise_than_the_previous_call_sent_it(fmt):
    for data, report in clearing_calls(fmt):
        again = [row["index"] for row in report["cleared"] if row["reason"] == "cleared_as_before" and row["index"] in report["kept"]]
        if again:
            break
    else:
        raise AssertionError("no result cleared again")
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    assert all(check["pass"] for check in mode.verify(data, fields))
    tampered = copy.deepcopy(fields)
    sent = tampered["messages"][tampered["kept"].index(again[0])]
    if fmt == "responses":
        sent["output"] = sent["output"] + " "
    else:
        block = next(block for block in sent["content"] if block.get("type") == "tool_result")
        block["content"] = str(block["content"]) + " "
    checks = {check["name"]: check for check in mode.verify(data, tampered)}
    assert not checks["cleared as before"]["pass"], checks["cleared as before"]


# ---------------------------------------------------------------- previous over the history as sent


@pytest.mark.parametrize("fmt", ["chat", "anthropic", "responses"])
def test_a_null_field_is_the_same_history_as_the_field_left_out(fmt):
    """A history stored with ``model_dump(exclude_none=True)`` and one stored with its nulls are one history."""
    text = "Where is my order? " * 20
    if fmt == "chat":
        history, nulls = [{"role": "user", "content": text}], [{"role": "user", "content": text, "name": None}]
    elif fmt == "anthropic":
        block = {"type": "text", "text": text}
        history, nulls = [{"role": "user", "content": [block]}], [{"role": "user", "content": [{**block, "cache_control": None}]}]
    else:
        part = {"type": "input_text", "text": text}
        history = [{"type": "message", "role": "user", "content": [part]}]
        nulls = [{"type": "message", "role": "user", "content": [part], "status": None}]
    first = evaluate(data_of(fmt, history, 4000, strategy="stable"))
    assert "errors" not in first, first["errors"]
    grown = nulls + [{"role": "assistant", "content": "Sure."}, {"role": "user", "content": "Thanks."}]
    report = evaluate(data_of(fmt, grown, 4000, strategy="stable", previous=first["as_previous"]))
    assert "errors" not in report, report["errors"]
    assert all(check["pass"] for check in report["checks"])
    assert report["cut_from"] == "previous" and report["reuse"]["prefix_messages"] == 1


def test_a_tool_inputs_null_is_its_own_value():
    history = [
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": None}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "found"}]},
    ]
    first = evaluate(data_of("anthropic", history, 4000, strategy="stable"))
    edited = copy.deepcopy(history)
    edited[1]["content"][0]["input"] = {}
    errors = evaluate(data_of("anthropic", edited, 4000, strategy="stable", previous=first["as_previous"]))["errors"]
    assert [error["path"] for error in errors] == ["$.previous.history"]


def test_past_the_16th_conversation_a_lost_call_warns_and_a_conversation_id_keeps_it():
    from fitproof.modes.messages import stable

    stable.forget()
    histories = [[{"role": "user", "content": f"conversation {number} " + "word " * 40}] for number in range(20)]
    for history in histories:
        trim_messages(history, 4000, strategy="stable")
    grown = histories[0] + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "and?"}]
    with pytest.warns(stable.RememberedCallLost):
        assert trim_messages(grown, 4000, strategy="stable").previous is None
    latest = histories[-1] + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "and?"}]
    assert trim_messages(latest, 4000, strategy="stable").previous is not None  # one entry a conversation: the newest 16 kept
    stable.forget()
    for number, history in enumerate(histories):
        trim_messages(history, 4000, strategy="stable", conversation=f"c{number}")
    kept = trim_messages(grown, 4000, strategy="stable", conversation="c0")
    assert kept.previous is not None and kept.previous["messages"] == 1
    assert trim_messages(grown, 4000, strategy="stable", conversation="c5").previous is None  # another conversation's call
    stable.forget()


def test_a_history_with_the_sdk_s_blocks_in_its_content_finds_its_remembered_call():
    """Anthropic's loop appends ``reply.content`` as the SDK gives it: the remembered call is looked
    up on the history as the parse reads it (the blocks dumped), so the next call reuses its prefix."""
    anthropic_types = pytest.importorskip("anthropic.types")
    history = [{"role": "user", "content": "Audit every log file."}]
    calls = []
    for n in range(6):
        calls.append(trim_messages(history, 4000, "o200k_base", format="anthropic", system="You audit logs.", strategy="stable"))
        block = anthropic_types.ToolUseBlock(type="tool_use", id=f"toolu_{n}", name="read_log", input={"file": f"app{n}.log"})
        history.append({"role": "assistant", "content": [block]})
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": block.id, "content": "no errors; " * 40}]})
    assert calls[0].previous is None
    assert all(call.previous is not None and call.reuse["prefix_messages"] > 0 for call in calls[1:])
