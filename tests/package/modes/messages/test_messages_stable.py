"""Mode ``messages``, strategy ``stable`` and the reuse: the cut kept across calls (``previous`` given
back as input), the prefix shared with the previous prompt, the providers' caching rules, the costs,
the checks (each fed a corrupted report) and the input errors."""

import copy
import random

import pytest

from fitproof import evaluate, trim_messages
from fitproof.modes import messages as mode
from fitproof.modes.messages import stable
from fitproof.modes.messages.rule import BEFORE_CUT

WORDS = "the order shipped late because the carrier lost the parcel refund credit ticket photo claim".split()
OPENAI = {"provider": "openai", "prices": {"input": 2, "cached_input": 0.5}}
ANTHROPIC = {"provider": "anthropic", "min_tokens": 1024, "prices": {"input": 3, "cached_input": 0.3, "cache_write": 3.75}}


def chat(turns: int, seed: int = 3, tools: bool = True):
    """Yield the history before each model call (one list, appended to), as an application does."""
    rng = random.Random(seed)

    def text(low, high):
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    history = [{"role": "system", "content": "You are a support agent. " + text(20, 40)}]
    calls = 0
    for _ in range(turns):
        history.append({"role": "user", "content": text(5, 60)})
        yield history
        if tools and rng.random() < 0.3:
            calls += 1
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": f"call_{calls}", "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}],
                }
            )
            history.append({"role": "tool", "tool_call_id": f"call_{calls}", "content": text(20, 200)})
            yield history
        history.append({"role": "assistant", "content": text(10, 120)})


def run_chat(limit, turns=60, caching=None, strategy="stable", **keys):
    """Every call's report, each given the previous report's as_previous."""
    reports, previous = [], None
    for history in chat(turns):
        data = {"mode": "messages", "limit": limit, "messages": copy.deepcopy(history), "strategy": strategy, **keys}
        if caching:
            data["caching"] = caching
        if previous:
            data["previous"] = previous
        report = evaluate(data)
        assert "errors" not in report, report["errors"]
        reports.append((data, report))
        previous = report["as_previous"]
    return reports


def test_the_default_report_is_unchanged_without_the_new_keys():
    history = next(iter(chat(1)))
    report = evaluate({"mode": "messages", "limit": 500, "messages": history})
    assert not {"strategy", "cut", "as_previous", "reuse", "walk_limit"} & set(report)


def test_stable_appends_to_the_previous_prompt_until_the_limit_then_cuts_to_the_watermark():
    reports = run_chat(1500, low_watermark=0.6)
    cut_again = 0
    for (data, report), (_, before) in zip(reports[1:], reports):
        assert report["pass"], [check for check in report["checks"] if not check["pass"]]
        assert report["tokens"] <= 1500
        assert set(report["live_turn"]) <= set(report["kept"])  # the live turn on every call
        if report["cut_from"] == "previous":
            assert report["messages"][: len(before["messages"])] == before["messages"]  # the previous prompt, then the new turns
            assert report["cut"] == before["cut"]
            assert report["reuse"]["prefix_messages"] == len(before["messages"])
        else:
            assert report["cut_from"] == "low_watermark"
            cut_again += 1
            assert report["walk_limit"] == 900  # 0.6 x 1500
            assert report["tokens"] <= 900
            assert any(row["reason"] == "exceeds_remaining_budget" for row in report["trace"])
    assert cut_again >= 3


def test_a_kept_cut_drops_the_older_turns_with_their_own_reason():
    reports = run_chat(1500)
    kept_cut = [report for _, report in reports if report["cut_from"] == "previous" and report["cut"] > 1]
    assert kept_cut
    reasons = {row["reason"] for row in kept_cut[0]["trace"] if not row["kept"]}
    assert reasons == {BEFORE_CUT}


def test_the_newest_strategy_keeps_the_rule_and_counts_what_it_reuses():
    for data, report in run_chat(1500, strategy="newest", caching=OPENAI):
        plain = {key: value for key, value in data.items() if key not in ("strategy", "previous", "caching")}
        reference = evaluate(plain)
        assert report["kept"] == reference["kept"] and report["trace"] == reference["trace"]
        assert report["pass"]


def test_stable_keeps_at_least_what_newest_would_after_a_cut_and_never_more_than_the_limit():
    stable_reports = run_chat(1500, low_watermark=1)
    for data, report in stable_reports:
        assert report["pass"] and report["tokens"] <= 1500
        if report["cut_from"] == "low_watermark":  # watermark 1: a new cut is the newest strategy's
            plain = {key: value for key, value in data.items() if key not in ("strategy", "previous", "low_watermark")}
            assert report["kept"] == evaluate(plain)["kept"]


def test_openai_caches_the_shared_prefix_in_steps_of_128_from_1024():
    reports = run_chat(4000, turns=80, caching=OPENAI)
    seen_below = seen_above = False
    for _, report in reports[1:]:
        reuse = report["reuse"]
        prefix = reuse["prefix_tokens"]
        if prefix < 1024:
            assert reuse["cached_tokens"] == 0
            seen_below = True
        else:
            assert reuse["cached_tokens"] == prefix - prefix % 128 and reuse["cached_tokens"] % 128 == 0
            seen_above = True
        assert reuse["written_tokens"] == 0
        assert reuse["input_tokens"] == report["tokens"] - reuse["cached_tokens"]
        expected = (2 * reuse["input_tokens"] + 0.5 * reuse["cached_tokens"]) / 1e6
        assert reuse["cost"] == pytest.approx(expected, rel=1e-12)
        assert reuse["cost_without_caching"] == pytest.approx(2 * report["tokens"] / 1e6, rel=1e-12)
    assert seen_below and seen_above


def test_anthropic_reads_the_previous_breakpoint_and_writes_the_rest():
    reports = run_chat(4000, turns=80, caching=ANTHROPIC)
    reads = 0
    for (_, report), (_, before) in zip(reports[1:], reports):
        reuse = report["reuse"]
        assert reuse["breakpoint"] == report["tokens"] - 3  # the end of the last message: before the reply priming
        if report["cut_from"] == "previous" and before["reuse"]["breakpoint"] >= 1024:
            assert reuse["cached_tokens"] == before["reuse"]["breakpoint"]
            reads += 1
        elif report["cut_from"] == "low_watermark":
            assert reuse["cached_tokens"] == 0  # another prompt after the system message: nothing to read
        if reuse["breakpoint"] >= 1024:
            assert reuse["written_tokens"] == reuse["breakpoint"] - reuse["cached_tokens"]
        else:
            assert reuse["written_tokens"] == 0
        assert reuse["input_tokens"] == report["tokens"] - reuse["cached_tokens"] - reuse["written_tokens"]
    assert reads > 10


def test_other_tools_share_nothing_with_the_previous_prompt_and_are_no_error():
    histories = [copy.deepcopy(history) for history in chat(12)]
    first = evaluate({"mode": "messages", "limit": 1500, "messages": histories[5], "strategy": "stable"})
    tools = [{"type": "function", "function": {"name": "lookup", "description": "Look an order up"}}]
    report = evaluate(
        {
            "mode": "messages",
            "limit": 1500,
            "messages": histories[6],
            "strategy": "stable",
            "tools": tools,
            "previous": first["as_previous"],
            "caching": {"provider": "openai"},
        }
    )
    assert report["pass"] and report["cut_from"] == "previous"
    assert report["reuse"]["prefix_tokens"] == 0 and report["reuse"]["cached_tokens"] == 0
    assert report["as_previous"]["head"] != first["as_previous"]["head"]


def test_without_prices_the_reuse_is_tokens_only():
    _, report = run_chat(1500, turns=5, caching={"provider": "openai"})[-1]
    assert "cost" not in report["reuse"] and "cached_tokens" in report["reuse"]


def test_the_reuse_is_exact_with_a_chat_template():
    """harmony with its own tokenizer: the prefix is the two prompts rendered, tokenized and compared."""
    previous = None
    reports = []
    for history in chat(25, tools=False):
        data = {
            "mode": "messages",
            "limit": 1200,
            "tokenizer": "o200k_harmony",
            "template": "harmony",
            "messages": copy.deepcopy(history),
            "strategy": "stable",
            "caching": {"provider": "anthropic", "min_tokens": 256},
        }
        if previous:
            data["previous"] = previous
        report = evaluate(data)
        assert report["pass"], report.get("errors") or [check for check in report["checks"] if not check["pass"]]
        reports.append(report)
        previous = report["as_previous"]
    assert any(report["cut_from"] == "low_watermark" for report in reports)
    assert any(report["reuse"]["prefix_tokens"] > 0 for report in reports)


def test_trim_messages_uses_its_last_call_with_the_result_evaluate_gives():
    stable.forget()
    previous = None
    for history in chat(40):
        trimmed = trim_messages(history, 1500, strategy="stable", caching=OPENAI)
        assert trimmed.previous == previous
        data = {"mode": "messages", "limit": 1500, "tokenizer": "o200k_base", "messages": history, "strategy": "stable", "caching": OPENAI}
        if previous:
            data["previous"] = previous
        report = evaluate(data)
        assert list(trimmed) == report["messages"] and trimmed.kept == report["kept"]
        assert trimmed.reuse == report["reuse"] and trimmed.as_previous == report["as_previous"]
        previous = trimmed.as_previous


def test_trim_messages_takes_previous_explicitly():
    histories = [copy.deepcopy(history) for history in chat(30)]
    first = trim_messages(histories[10], 1500, strategy="stable")
    again = trim_messages(histories[11], 1500, strategy="stable", previous=first.as_previous)
    assert again.previous == first.as_previous


# ---------------------------------------------------------------- the checks, fed corrupted reports


def _stable_case():
    reports = run_chat(4000, turns=80, caching=ANTHROPIC)
    for data, report in reports:
        if report["cut_from"] == "previous" and report["reuse"]["cached_tokens"] and report["cut"] > 0:
            return data, report
    raise AssertionError("no call kept a cut with a cache read")


def tamper(report, path, value):
    report = copy.deepcopy(report)
    target = report
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return report


# Each reuse and stable-cut figure corrupted, and the check that must then fail (the formats' tests take it too).
CORRUPTIONS = [
    (("reuse", "prefix_tokens"), lambda tokens: tokens + 1, "prompt prefix reused"),
    (("reuse", "prefix_messages"), lambda count: count - 1, "prompt prefix reused"),
    (("reuse", "previous_tokens"), lambda tokens: tokens - 3, "prompt prefix reused"),
    (("reuse", "new_tokens"), lambda tokens: tokens + 5, "prompt prefix reused"),
    (("reuse", "cached_tokens"), lambda tokens: tokens + 128, "prompt prefix reused"),
    (("reuse", "written_tokens"), 0, "prompt prefix reused"),
    (("reuse", "input_tokens"), lambda tokens: tokens - 1, "prompt prefix reused"),
    (("reuse", "breakpoint"), lambda tokens: tokens + 3, "prompt prefix reused"),
    (("reuse", "cost"), lambda cost: cost * 0.9, "prompt prefix reused"),
    (("reuse", "cost_without_caching"), lambda cost: cost * 2, "prompt prefix reused"),
    (("cut",), lambda cut: cut + 2, "stable cut"),
    (("cut_from",), "low_watermark", "stable cut"),
    (("walk_limit",), lambda limit: limit - 100, "stable cut"),
    (("as_previous", "history"), "sha256:" + "0" * 64, "stable cut"),
    (("as_previous", "messages"), lambda size: size - 1, "stable cut"),
    (("strategy",), "newest", "stable cut"),
]


@pytest.mark.parametrize("path, value, failing", CORRUPTIONS)
def test_each_reuse_check_fails_on_a_corrupted_report(path, value, failing):
    data, report = _stable_case()
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    assert all(check["pass"] for check in mode.verify(data, fields))
    tampered = tamper(fields, path, value)
    checks = {check["name"]: check for check in mode.verify(data, tampered)}
    assert not checks[failing]["pass"], checks[failing]


def test_the_replay_fails_a_turn_kept_before_the_cut():
    data, report = _stable_case()
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode")}
    row = next(row for row in fields["trace"] if row["reason"] == BEFORE_CUT)
    tampered = copy.deepcopy(fields)
    for each in tampered["trace"]:
        if each["index"] == row["index"]:
            each["reason"] = "older_than_a_dropped_message"
    checks = {check["name"]: check for check in mode.verify(data, tampered)}
    assert not checks["no holes"]["pass"]


def test_a_reuse_report_without_its_fields_fails():
    data, report = _stable_case()
    fields = {key: report[key] for key in report if key not in ("pass", "summary", "checks", "mode", "reuse")}
    checks = {check["name"]: check for check in mode.verify(data, fields)}
    assert not checks["prompt prefix reused"]["pass"]


# ---------------------------------------------------------------- input errors, at their path with the value


def _history_and_previous():
    histories = [copy.deepcopy(history) for history in chat(12)]
    first = evaluate({"mode": "messages", "limit": 1500, "messages": histories[5], "strategy": "stable"})
    return histories, first["as_previous"]


def _errors(**keys):
    histories, previous = _history_and_previous()
    data = {"mode": "messages", "limit": 1500, "messages": histories[8], "strategy": "stable", "previous": previous}
    data.update(keys)
    report = evaluate(data)
    assert not report["pass"] and "errors" in report, report
    return {error["path"]: error["message"] for error in report["errors"]}


def test_a_previous_from_another_history_is_an_input_error():
    histories, previous = _history_and_previous()
    other = copy.deepcopy(histories[8])
    other[1]["content"] = "a different first question"
    report = evaluate({"mode": "messages", "limit": 1500, "messages": other, "strategy": "stable", "previous": previous})
    errors = {error["path"]: error["message"] for error in report["errors"]}
    assert "another history" in errors["$.previous.history"] and previous["history"] in errors["$.previous.history"]


def test_a_previous_longer_than_the_history_is_an_input_error():
    histories, previous = _history_and_previous()
    report = evaluate({"mode": "messages", "limit": 1500, "messages": histories[2], "strategy": "stable", "previous": previous})
    errors = {error["path"]: error["message"] for error in report["errors"]}
    assert str(previous["messages"]) in errors["$.previous.messages"]


@pytest.mark.parametrize("watermark", [0, -0.5, 1.5, 1.0000001, "0.7", True])
def test_a_watermark_outside_0_1_is_an_input_error(watermark):
    errors = _errors(low_watermark=watermark)
    assert "(0, 1]" in errors["$.low_watermark"] and repr(watermark).strip("'").lower() in errors["$.low_watermark"].lower()


def test_a_watermark_without_strategy_stable_is_an_input_error():
    errors = _errors(strategy="newest", low_watermark=0.5)
    assert "stable" in errors["$.low_watermark"]


@pytest.mark.parametrize(
    "caching, path, words",
    [
        ({"provider": "openai", "prices": {"input": -1, "cached_input": 0.5}}, "$.caching.prices.input", "negative, got -1"),
        (
            {"provider": "anthropic", "min_tokens": 1024, "prices": {"input": 3, "cached_input": 0.3, "cache_write": -3.75}},
            "$.caching.prices.cache_write",
            "negative, got -3.75",
        ),
        ({"provider": "openai", "prices": {"input": 2}}, "$.caching.prices.cached_input", "missing"),
        # a price whose cost of a long prompt would overflow a double (an internal error before)
        ({"provider": "openai", "prices": {"input": 1.7e308, "cached_input": 0.5}}, "$.caching.prices.input", "at most 1e+12"),
        ({"provider": "openai", "prices": {"input": 2, "cached_input": 1, "cache_write": 1}}, "$.caching.prices.cache_write", ""),
        ({"provider": "anthropic"}, "$.caching.min_tokens", "minimum"),
        ({"provider": "anthropic", "min_tokens": 0}, "$.caching.min_tokens", "got 0"),
        ({"provider": "gemini"}, "$.caching.provider", 'got "gemini"'),
        ({"provider": "openai", "min_tokens": 512}, "$.caching.min_tokens", ""),
        ("openai", "$.caching", "got a string"),
    ],
)
def test_bad_caching_is_an_input_error(caching, path, words):
    errors = _errors(caching=caching)
    assert path in errors and words in errors[path], errors


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda previous: {**previous, "cut": previous["messages"] + 1}, "$.previous.cut"),
        # no call cuts past its own last message (it keeps its live turn): one past it was accepted, and then
        # dropped turns that fit with every check passing
        (lambda previous: {**previous, "cut": previous["messages"]}, "$.previous.cut"),
        (lambda previous: {**previous, "history": "abc"}, "$.previous.history"),
        (lambda previous: {key: value for key, value in previous.items() if key != "head"}, "$.previous.head"),
        (lambda previous: {**previous, "kept": [1]}, "$.previous.kept"),
        (lambda previous: [previous], "$.previous"),
    ],
)
def test_a_malformed_previous_is_an_input_error(change, path):
    histories, previous = _history_and_previous()
    report = evaluate({"mode": "messages", "limit": 1500, "messages": histories[8], "strategy": "stable", "previous": change(previous)})
    assert path in {error["path"] for error in report["errors"]}, report["errors"]


def test_an_unknown_strategy_is_an_input_error():
    assert 'got "lru"' in _errors(strategy="lru")["$.strategy"]


def test_the_api_raises_with_the_path():
    histories, previous = _history_and_previous()
    with pytest.raises(mode.MessagesError, match=r"\$\.low_watermark"):
        trim_messages(histories[8], 1500, strategy="stable", low_watermark=2)
    with pytest.raises(mode.MessagesError, match=r"\$\.previous\.history"):
        trim_messages(histories[8][:1] + histories[8][2:], 1500, strategy="stable", previous=previous)


# ---------------------------------------------------------------- a claim judged under the strategy


def test_a_claim_is_judged_by_the_stable_cut():
    data, report = _stable_case()
    assert evaluate({**data, "claim": {"kept": report["kept"]}})["claim"]["pass"]
    older = max(report["dropped"])  # the newest message before the cut: fits the limit, but the cut is kept
    claim = evaluate({**data, "claim": {"kept": sorted({*report["kept"], *range(older - 1, older + 1)})}})["claim"]
    assert not claim["pass"]
    assert any("keeps the previous call's cut" in failure["detail"] for failure in claim["failures"]), claim["failures"]


def test_a_claim_of_a_turn_the_watermark_cut_drops_is_told_the_watermark():
    """A new cut goes down to the low watermark: a turn that would fit the limit is dropped, and
    the failure says so instead of blaming a full limit."""

    def newest_too_large(report):
        return max((row["unit"] for row in report["trace"] if row["reason"] == "exceeds_remaining_budget"), default=None)

    def unit_tokens(report, start):
        return next(row["unit_tokens"] for row in report["trace"] if row["unit"] == start)

    data, report = next(
        (data, report)
        for data, report in run_chat(1500, low_watermark=0.6)
        if report["cut_from"] == "low_watermark"
        and newest_too_large(report) is not None
        and report["tokens"] + unit_tokens(report, newest_too_large(report)) <= 1500
    )  # it fits the limit
    unit = [row["index"] for row in report["trace"] if row["unit"] == newest_too_large(report)]
    claim = evaluate({**data, "claim": {"kept": sorted({*report["kept"], *unit})}})["claim"]
    assert not claim["pass"]
    details = [failure["detail"] for failure in claim["failures"]]
    assert any("low watermark, 900 tokens of the limit's 1500" in detail for detail in details), details


def test_the_text_report_says_what_is_reused_and_what_it_costs():
    from fitproof.cli._report_text import report_text

    _, report = _stable_case()
    text = report_text(report)
    assert "strategy stable: cut at message" in text and "the previous call's, kept" in text
    assert f"reused from the previous prompt: {report['reuse']['prefix_tokens']} of {report['tokens']} tokens" in text
    assert f"anthropic caching: {report['reuse']['cached_tokens']} cached" in text and "without caching" in text


def _random_history(rng):
    """A short history with pinned turns, tool units and leading assistant turns, as the rule meets them."""

    def text():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30)))

    history = [{"role": "system", "content": text()}] if rng.random() < 0.8 else []
    if rng.random() < 0.2:
        history.append({"role": "assistant", "content": text()})
    calls = 0
    for _ in range(rng.randint(1, 14)):
        user = {"role": "user", "content": text()}
        if rng.random() < 0.1:
            user["pinned"] = True
        history.append(user)
        if rng.random() < 0.3:
            ids = [f"c{calls + k}" for k in range(rng.randint(1, 2))]
            calls += len(ids)
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}} for call_id in ids],
                }
            )
            history += [{"role": "tool", "tool_call_id": call_id, "content": text()} for call_id in ids]
        if rng.random() < 0.8:
            history.append({"role": "assistant", "content": text()})
    return history


def test_random_histories_trim_and_evaluate_agree_and_pass_every_check():
    """The fast path (trim_messages) and the traced one (evaluate) under the strategy, from a real
    earlier call's cut, on random histories and limits: the same messages, every check passing."""
    rng = random.Random(11)
    seen = set()
    for case in range(300):
        history = _random_history(rng)
        users = [index for index, message in enumerate(history) if message["role"] == "user"]
        if len(users) < 2:
            continue
        earlier = history[: rng.choice(users[:-1]) + 1]
        limit = rng.randint(20, 400)
        keys = {"strategy": "stable", "low_watermark": rng.choice([0.3, 0.5, 0.7, 1])}
        first = evaluate({"mode": "messages", "limit": limit, "messages": earlier, **keys})
        if first.get("as_previous") is None:
            continue
        keys["previous"] = first["as_previous"]
        report = evaluate({"mode": "messages", "limit": limit, "messages": history, **keys, "caching": ANTHROPIC})
        assert report["pass"] or report["shortfall"], (case, [check for check in report["checks"] if not check["pass"]])
        assert all(check["pass"] for check in report["checks"]), (case, report["checks"])
        if report["shortfall"]:
            continue
        seen.add(report["cut_from"])
        trimmed = trim_messages(history, limit, strategy="stable", low_watermark=keys["low_watermark"], previous=keys["previous"])
        assert trimmed.kept == report["kept"] and trimmed.tokens == report["tokens"], case
    assert {"previous", "low_watermark"} <= seen, seen
