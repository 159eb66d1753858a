"""Items (Responses) and blocks (Anthropic) this mode does not count, accepted with the caller's
count as ``"tokens"``: kept or dropped with their turn, costing the count given plus the framing
of any item, never sent with the key, listed in ``given_counts`` and on their trace rows; the
checks re-derive the same costs and units and fail a corrupted report; each bad input refused at
its path with the value received."""

import datetime

import pytest

from fitproof import MessagesError, count_tokens, evaluate, trim_messages
from fitproof.modes.messages import formats

SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "refund policy"}}
USE = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "refund policy"}}
RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}


def given(item: dict, tokens: object) -> dict:
    return {**item, "tokens": tokens}


def responses_history() -> list:
    return [
        {"role": "user", "content": "what is the refund policy? " * 20},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "search it"}]},
        given(SEARCH, 500),
        {"role": "assistant", "content": "30 days."},
        {"role": "user", "content": "and for a gift?"},
    ]


def anthropic_history() -> list:
    return [
        {"role": "user", "content": "what is the refund policy? " * 20},
        {"role": "assistant", "content": [given(USE, 20), given(RESULT, 480), {"type": "text", "text": "30 days."}]},
        {"role": "user", "content": "and for a gift?"},
    ]


def report(fmt: str, items: list, limit: int = 10_000, **keys) -> dict:
    data = {"mode": "messages", "format": fmt, "limit": limit, "messages": items, **keys}
    result = evaluate(data)
    assert "problems" not in result, result.get("problems")
    assert result["pass"], result["checks"]
    return result


def row(result: dict, index: int) -> dict:
    return next(row for row in result["trace"] if row["index"] == index)


def problems_of(fmt: str, items: list) -> list:
    with pytest.raises(MessagesError) as caught:
        trim_messages(items, 10_000, format=fmt)
    return [(problem.path, problem.code, problem.message) for problem in caught.value.problems]


# ---------------------------------------------------------------- accepted, counted, listed, not sent


def test_a_responses_item_with_its_count_costs_it_plus_an_items_framing_and_is_sent_without_the_key():
    result = report("responses", responses_history())
    framing = 3 + count_tokens("assistant", "o200k_base")
    assert row(result, 2)["tokens"] == framing + 500 and row(result, 2)["given_tokens"] == 500
    assert "given_tokens" not in row(result, 1)
    assert result["given_counts"] == [{"index": 2, "block": None, "type": "web_search_call", "tokens": 500}]
    assert result["messages"][2] == SEARCH and "tokens" not in result["messages"][2]


def test_an_anthropic_block_with_its_count_is_part_of_its_messages_cost_and_is_sent_without_the_key():
    result = report("anthropic", anthropic_history())
    plain = report("anthropic", [anthropic_history()[0], {"role": "assistant", "content": [{"type": "text", "text": "30 days."}]}])
    assert row(result, 1)["tokens"] == row(plain, 1)["tokens"] + 500  # the message's framing counted once
    assert row(result, 1)["given_tokens"] == 500
    assert result["given_counts"] == [
        {"index": 1, "block": 0, "type": "server_tool_use", "tokens": 20},
        {"index": 1, "block": 1, "type": "web_search_tool_result", "tokens": 480},
    ]
    assert result["messages"][1]["content"][:2] == [USE, RESULT]


def test_a_report_without_given_counts_says_so_with_an_empty_list():
    assert report("responses", [{"role": "user", "content": "hi"}])["given_counts"] == []
    assert report("anthropic", [{"role": "user", "content": "hi"}])["given_counts"] == []


@pytest.mark.parametrize("tokens", [0, 7, 4.0])
def test_a_count_is_any_integer_from_zero(tokens):
    result = report("responses", [{"role": "user", "content": "hi"}, given({"type": "item_reference", "id": "msg_1"}, tokens)])
    assert row(result, 1)["given_tokens"] == tokens and result["messages"][1] == {"type": "item_reference", "id": "msg_1"}


# ---------------------------------------------------------------- units


def test_a_responses_given_item_is_in_the_unit_of_the_item_before_it_and_dropped_with_its_turn():
    items = responses_history()
    result = report("responses", items)
    assert [row(result, index)["unit"] for index in range(5)] == [0, 1, 1, 3, 4]
    unit = row(result, 1)["unit_tokens"]
    tight = report("responses", items, limit=result["tokens"] - unit)  # the turn with the search does not fit
    assert 1 not in tight["kept"] and 2 not in tight["kept"] and 4 in tight["kept"]


def test_a_given_item_never_starts_a_turn_of_its_own_and_first_is_its_own_unit():
    items = [
        given(SEARCH, 5),
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yes"},
        {"role": "user", "content": "ok"},
    ]
    result = report("responses", items)
    assert row(result, 0)["unit"] == 0 and row(result, 1)["unit"] == 1
    assert result["live_turn"] == [3] and result["kept"] == [1, 2, 3] and row(result, 0)["reason"] == "history_must_start_with_user"
    pinned = report("responses", [{**items[0], "pinned": True}, *items[1:]])
    assert pinned["kept"] == [0, 1, 2, 3] and "pinned" not in pinned["messages"][0] and "tokens" not in pinned["messages"][0]
    after_user = report("responses", [{"role": "user", "content": "hi"}, given(SEARCH, 5)])
    assert row(after_user, 1)["unit"] == 0 and after_user["live_turn"] == [0, 1]


def test_calls_and_outputs_around_a_given_item_stay_one_unit():
    call = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
    other = {"type": "function_call", "call_id": "c2", "name": "lookup", "arguments": "{}"}
    items = [
        {"role": "user", "content": "q"},
        call,
        given({"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "code": "1+1", "container_id": "c"}, 40),
        {"type": "function_call_output", "call_id": "c1", "output": "r"},
        {"type": "message", "role": "assistant", "content": "a"},
        {"role": "user", "content": "next"},
        other,
        {"type": "function_call_output", "call_id": "c2", "output": "r"},
        given({"type": "mcp_call", "id": "mcp_1", "name": "f", "arguments": "{}", "server_label": "s"}, 30),
        {"type": "function_call", "call_id": "c3", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c3", "output": "r"},
        {"role": "user", "content": "last"},
    ]
    result = report("responses", items)
    assert [row(result, index)["unit"] for index in range(len(items))] == [0, 1, 1, 1, 4, 5, 6, 6, 6, 6, 6, 11]


def test_results_split_around_a_given_item_pass_the_pairing_check():
    calls = [{"type": "function_call", "call_id": f"c{n}", "name": "f", "arguments": "{}"} for n in (1, 2)]
    outputs = [{"type": "function_call_output", "call_id": f"c{n}", "output": "r"} for n in (1, 2)]
    items = [{"role": "user", "content": "q"}, *calls, outputs[0], given(SEARCH, 9), outputs[1], {"role": "user", "content": "z"}]
    result = report("responses", items)
    assert {row(result, index)["unit"] for index in range(1, 6)} == {1}


def test_an_anthropic_given_block_stays_with_its_message_and_its_tool_use():
    items = [
        {"role": "user", "content": "q " * 50},
        {"role": "assistant", "content": [given(USE, 300), {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"}]},
        {"role": "assistant", "content": [given(RESULT, 200), {"type": "text", "text": "done"}]},
        {"role": "user", "content": "now"},
    ]
    result = report("anthropic", items)
    assert [row(result, index)["unit"] for index in range(5)] == [0, 1, 1, 3, 4]
    tight = report("anthropic", items, limit=result["tokens"] - row(result, 0)["unit_tokens"] - row(result, 1)["unit_tokens"])
    assert 1 not in tight["kept"] and 2 not in tight["kept"] and 4 in tight["kept"]


# ---------------------------------------------------------------- the checks


def _verdicts(data: dict, result: dict) -> dict:
    return {check["name"]: check["pass"] for check in formats.verify(data, result)}


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_checks_fail_a_report_whose_given_counts_or_copies_were_changed(fmt):
    items = anthropic_history() if fmt == "anthropic" else responses_history()
    index = 1 if fmt == "anthropic" else 2
    data = {"mode": "messages", "format": fmt, "limit": 10_000, "messages": items}
    result = formats.select(formats.parse(data))
    assert all(_verdicts(data, result).values())
    leaked = [dict(message) for message in result["messages"]]
    if fmt == "anthropic":
        leaked[index] = {**leaked[index], "content": [given(USE, 20), *leaked[index]["content"][1:]]}
    else:
        leaked[index] = given(leaked[index], 500)
    assert not _verdicts(data, {**result, "messages": leaked})["kept messages re-counted"]
    cheaper = {**result, "tokens": result["tokens"] - 500, "remaining": result["remaining"] + 500}
    assert not _verdicts(data, cheaper)["kept messages re-counted"]
    trace = [dict(entry, tokens=entry["tokens"] - 500) if entry["index"] == index else entry for entry in result["trace"]]
    assert not _verdicts(data, {**result, "trace": trace})["no holes"]
    if fmt == "responses":  # the given item dropped alone, out of its unit
        kept = [position for position in result["kept"] if position != index]
        split = {
            **result,
            "kept": kept,
            "dropped": [index],
            "messages": [result["messages"][p] for p in range(len(kept) + 1) if p != index],
        }
        assert not all(_verdicts(data, split).values())


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad, shown", [(-1, "-1"), (1.5, "1.5"), ("10", '"10"'), (True, "true"), (None, "null")])
def test_a_count_that_is_no_integer_from_zero_is_refused_at_its_path(bad, shown):
    items = responses_history()
    items[2] = given(SEARCH, bad)
    message = f"expected a token count (an integer) from 0 to 2^53-1, got {shown}"
    assert problems_of("responses", items) == [("$.messages[2].tokens", "invalid_value", message)]
    items = anthropic_history()
    items[1]["content"][1] = given(RESULT, bad)
    assert problems_of("anthropic", items) == [("$.messages[1].content[1].tokens", "invalid_value", message)]


def test_a_count_on_what_this_mode_counts_itself_is_refused_as_it_would_be_ignored():
    problems = problems_of("responses", [{"role": "user", "content": "hi", "tokens": 5}])
    assert [problem[:2] for problem in problems] == [("$.messages[0].tokens", "invalid_value")]
    assert 'counts an item of type "message" itself' in problems[0][2] and problems[0][2].endswith("got 5")
    problems = problems_of("anthropic", [{"role": "user", "content": [{"type": "text", "text": "hi", "tokens": 3}]}])
    assert [problem[:2] for problem in problems] == [("$.messages[0].content[0].tokens", "invalid_value")]
    assert "counts a text block itself" in problems[0][2] and problems[0][2].endswith("got 3")
    problems = problems_of("anthropic", [{"role": "user", "content": "hi", "tokens": 3}])
    assert [problem[:2] for problem in problems] == [("$.messages[0].tokens", "invalid_value")]


def test_without_a_count_the_item_stays_refused_and_the_message_says_how_to_give_one():
    items = responses_history()
    items[2] = dict(SEARCH)
    ((path, code, message),) = problems_of("responses", items)
    assert (path, code) == ("$.messages[2].type", "not_text") and 'or its count as "tokens"' in message
    items = anthropic_history()
    items[1]["content"][0] = dict(USE)
    ((path, code, message),) = problems_of("anthropic", items)
    assert (path, code) == ("$.messages[1].content[0].type", "not_text") and 'or its count as "tokens"' in message


def test_a_given_block_inside_a_tool_result_or_a_system_message_stays_refused():
    nested = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [given({"type": "search_result"}, 5)]}]},
    ]
    ((path, code, message),) = problems_of("anthropic", [{"role": "user", "content": "q"}, *nested])
    assert (path, code) == ("$.messages[2].content[0].content[0].type", "not_text") and '"tokens"' not in message
    ((path, code, _),) = problems_of("anthropic", [{"role": "system", "content": [given(USE, 5)]}, {"role": "user", "content": "q"}])
    assert (path, code) == ("$.messages[0].content[0].type", "not_text")


@pytest.mark.parametrize(
    "value, where",
    [(datetime.date(2026, 1, 1), ()), ({1, 2}, ()), (b"x", ()), ({"at": datetime.datetime(2026, 1, 1)}, ("at",))],
)
def test_a_given_items_other_fields_must_be_json_values(value, where):
    tail = "".join(f".{key}" for key in where)
    items = [{"role": "user", "content": "hi"}, {**given(SEARCH, 5), "extra": value}]
    ((path, code, _),) = problems_of("responses", items)
    assert (path, code) == (f"$.messages[1].extra{tail}", "wrong_type")
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{**given(USE, 5), "extra": value}]}]
    ((path, code, _),) = problems_of("anthropic", items)
    assert (path, code) == (f"$.messages[1].content[0].extra{tail}", "wrong_type")


def test_a_given_item_that_contains_itself_is_refused():
    looped: dict = given(SEARCH, 5)
    looped["action"] = {"self": looped}
    ((path, code, _),) = problems_of("responses", [{"role": "user", "content": "hi"}, looped])
    assert path.startswith("$.messages[1].action") and code == "wrong_type"


# ---------------------------------------------------------------- trim_messages


def test_trim_messages_takes_given_counts_in_each_format_and_sends_valid_requests():
    pydantic = pytest.importorskip("pydantic")
    anthropic_types = pytest.importorskip("anthropic.types")
    responses_types = pytest.importorskip("openai.types.responses")
    forbid = pydantic.ConfigDict(extra="forbid")
    adapters = {
        "anthropic": pydantic.TypeAdapter(anthropic_types.MessageParam, config=forbid),
        "responses": pydantic.TypeAdapter(responses_types.ResponseInputItemParam, config=forbid),
    }
    for fmt, items in (("anthropic", anthropic_history()), ("responses", responses_history())):
        full = trim_messages(items, 10_000, format=fmt)
        assert full.kept == list(range(len(items))) and sum(row["tokens"] for row in full.given_counts) == 500
        assert full.tokens == report(fmt, items)["tokens"]
        for message in full:
            assert "tokens" not in message and all(
                "tokens" not in block for block in message.get("content") or () if isinstance(block, dict)
            )
            adapters[fmt].validate_python(message)
        tight = trim_messages(items, full.tokens - 400, format=fmt)
        assert tight.dropped and tight.kept[-1] == len(items) - 1
    assert trim_messages([{"role": "user", "content": "hi"}], 100).given_counts == []


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_given_counts_pass_the_stable_and_clearing_checks(fmt):
    items = anthropic_history() if fmt == "anthropic" else responses_history()
    first = report(fmt, items, strategy="stable")
    later = report(fmt, [*items, {"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}], previous=first["as_previous"])
    assert later["reuse"]["prefix_messages"] == len(items)
    report(fmt, items, clear=True)


def _mixed_history(fmt: str, rng) -> list:
    """A random conversation with given-count items or blocks between its turns and inside them."""
    items: list = []
    for turn in range(rng.randint(1, 6)):
        items.append({"role": "user", "content": "question " * rng.randint(1, 40)})
        if fmt == "responses":
            if rng.random() < 0.5:
                items.append({"type": "reasoning", "id": f"rs_{turn}", "summary": []})
            if rng.random() < 0.6:
                items.append(given({**SEARCH, "id": f"ws_{turn}"}, rng.randint(0, 400)))
            if rng.random() < 0.5:
                items.append({"type": "function_call", "call_id": f"c{turn}", "name": "f", "arguments": "{}"})
                if rng.random() < 0.5:
                    items.append(given({"type": "item_reference", "id": f"ref_{turn}"}, rng.randint(0, 50)))
                items.append({"type": "function_call_output", "call_id": f"c{turn}", "output": "r " * rng.randint(1, 60)})
            items.append({"role": "assistant", "content": "answer " * rng.randint(1, 40)})
        else:
            blocks = [given({**USE, "id": f"srvtoolu_{turn}"}, rng.randint(0, 100))] if rng.random() < 0.6 else []
            blocks.append({"type": "text", "text": "answer " * rng.randint(1, 40)})
            if rng.random() < 0.5:
                blocks.append(given({**RESULT, "tool_use_id": f"srvtoolu_{turn}"}, rng.randint(0, 400)))
            items.append({"role": "assistant", "content": blocks})
    items.append({"role": "user", "content": "now"})
    return items


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_random_histories_with_given_counts_pass_their_checks_at_every_limit(fmt):
    import random

    rng = random.Random(11)
    for _ in range(40):
        items = _mixed_history(fmt, rng)
        whole = report(fmt, items)
        assert sum(row["tokens"] for row in whole["given_counts"]) == sum(row.get("given_tokens", 0) for row in whole["trace"])
        for limit in (whole["tokens"], whole["tokens"] * 2 // 3, whole["tokens"] // 3):
            result = evaluate({"mode": "messages", "format": fmt, "limit": limit, "messages": items})
            assert result["pass"] or result.get("shortfall"), result["checks"]
            for kept in result.get("kept", []):
                unit = row(result, kept)["unit"]
                assert all(index in result["kept"] for index in range(len(items)) if row(result, index)["unit"] == unit)


def test_a_claim_is_judged_with_the_given_counts():
    items = responses_history()
    result = report("responses", items, claim={"kept": [0, 1, 2, 3, 4]})
    assert result["claim"]["pass"]
    limit = report("responses", items)["tokens"] - 100
    result = evaluate({"mode": "messages", "format": "responses", "limit": limit, "messages": items, "claim": {"kept": [0, 1, 2, 3, 4]}})
    assert all(check["pass"] for check in result["checks"]) and not result["claim"]["pass"]


def test_the_text_report_says_which_counts_were_given():
    from fitproof.cli._report_text import report_text

    text = report_text(report("responses", responses_history()))
    assert '(500 of them given as "tokens")' in text
