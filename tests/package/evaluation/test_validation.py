"""Invalid input: pass false, the fixed summaries, every bad path with the value received."""

import copy
import json

import pytest

from conftest import ROOT
from fitproof import evaluate


def deeply_nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "data",
    [
        None,
        True,
        0,
        1.5,
        "text",
        [],
        {},
        {"budget": None},
        {"budget": 10**5000, "items": []},
        {"budget": 1, "items": [{"id": "\ud800", "relevance": -(10**400), "tokens": 2**53}]},
        {"mode": ["required"], "budget": 1, "items": []},
        {"mode": "required", "budget": 1, "items": [None, [], "x", {"id": 5}]},
        {1: 2, "budget": 1, "items": []},
        {"budget": 1, "items": [{"id": "a", "relevance": float("nan"), "tokens": float("inf")}]},
    ],
)
def test_invalid_inputs_get_errors_not_exceptions(data):
    before = copy.deepcopy(data)
    report = evaluate(data)
    assert report["pass"] is False
    assert report["errors"] and all(error["path"].startswith("$") and error["message"] for error in report["errors"])
    assert report["checks"][0]["name"] in ("input shape", "item shape")
    assert data == before


@pytest.mark.parametrize("where", ["content", "items", "unknown key"])
def test_deep_nesting_is_reported_not_raised(where):
    nested = deeply_nested(100_000)
    item = {"id": "a", "relevance": 1, "tokens": 1}
    data = {
        "content": {"budget": 1, "items": [dict(item, content=nested)]},
        "items": {"budget": 1, "items": nested},
        "unknown key": {"budget": 1, "items": [dict(item, extra=nested)]},
    }[where]
    report = evaluate(data)
    assert report["pass"] is False and report["errors"]
    assert "internal error" not in report["checks"][0]["name"]
    inner = data["items"][0] if where != "items" else data
    assert (inner.get("content") or inner.get("extra") or inner["items"]) is nested


def test_errors_name_the_path_and_the_value():
    report = evaluate({"budget": "7", "items": [{"id": "a", "relevance": "high", "tokens": -1}]})
    assert report["errors"] == [
        {"path": "$.budget", "message": 'expected an integer from 0 to 2^53-1, got "7"'},
        {"path": "$.items[0].relevance", "message": 'expected a number, got "high"'},
        {"path": "$.items[0].tokens", "message": "expected an integer from 0 to 2^53-1, got -1"},
    ]
    assert report["summary"] == "Input needs a non-negative integer budget and items array."


def test_huge_and_surrogate_values_are_shown_safely():
    report = evaluate({"budget": 1, "items": [{"id": "\ud800", "relevance": 10**5000, "tokens": 1}]})
    assert report["errors"] == [
        {"path": "$.items[0].relevance", "message": "expected a number that is finite as a 64-bit float, got an integer of 16610 bits"}
    ]


def test_messages_say_what_was_received_once_and_plainly():
    """A message names a null once (never "got null: null") and 1e400 as written (never "got Infinity")."""
    from fitproof._base.strict_json import loads

    assert evaluate(None)["errors"] == [{"path": "$", "message": "expected an object, got null"}]
    assert evaluate({"budget": 1, "items": None})["errors"] == [{"path": "$.items", "message": "expected an array, got null"}]
    assert evaluate({"budget": 1, "items": "x"})["errors"] == [{"path": "$.items", "message": 'expected an array, got a string: "x"'}]
    report = evaluate(loads('{"budget": 1e400, "items": [{"id": "a", "relevance": -1e400, "tokens": 1}]}'))
    assert report["errors"] == [
        {"path": "$.budget", "message": "expected an integer from 0 to 2^53-1, got Infinity (past the 64-bit float range)"},
        {
            "path": "$.items[0].relevance",
            "message": "expected a number that is finite as a 64-bit float, got -Infinity (past the 64-bit float range)",
        },
    ]


def test_errors_are_capped_and_the_detail_says_how_many():
    report = evaluate({"budget": 1, "items": [{"id": "", "relevance": 1, "tokens": 1}] * 80})
    assert len(report["errors"]) == 50
    assert "and 79 more problems; the first 50 are listed in errors" in report["checks"][0]["detail"]


def test_every_message_about_many_problems_gives_the_same_total():
    """The envelope and InvalidInputError said "(and 49 more)" of 80 problems: the listed ones only."""
    from fitproof import InvalidInputError, select
    from fitproof._envelope import failure_text

    data = {"budget": 1, "items": [{"id": "", "relevance": 1, "tokens": 1}] * 80}
    assert failure_text(evaluate(data)).endswith("(and 79 more problems; the first 50 are listed in errors)")
    with pytest.raises(InvalidInputError, match=r"\(and 79 more problems; the first 50 are listed in \.problems\)$"):
        select(data)
    with pytest.raises(InvalidInputError, match=r"\(and 1 more problem, listed in \.problems\)$"):
        select({"budget": 1, "items": [{"id": "", "relevance": 1, "tokens": 1}] * 2})


def test_unknown_mode_lists_every_mode():
    report = evaluate({"mode": "knapsack"})
    assert report["errors"] == [
        {"path": "$.mode", "message": 'expected one of relevance, required, blocks, passages, messages, got "knapsack"'}
    ]
    assert report["mode"] is None


def test_unusual_keys_get_bracket_paths():
    report = evaluate({"budget": 1, "items": [{"id": "a", "relevance": 1, "tokens": 1, "my key": 1}]})
    assert report["errors"][0]["path"] == '$.items[0]["my key"]'


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000", "\ufeff", "\u2028", "\u00a0 "])
def test_javascript_trim_whitespace_ids_are_blank(blank):
    report = evaluate({"budget": 1, "items": [{"id": blank, "relevance": 1, "tokens": 1}]})
    assert report["errors"][0]["path"] == "$.items[0].id"


@pytest.mark.parametrize("kept", ["\u0085", "\u001c", "\u200b", "\u180e"])
def test_characters_javascript_does_not_trim_make_valid_ids(kept):
    assert evaluate({"budget": 1, "items": [{"id": kept, "relevance": 1, "tokens": 1}]})["selected"] == [kept]


def test_booleans_are_not_numbers():
    report = evaluate({"budget": True, "items": [{"id": "a", "relevance": False, "tokens": True}]})
    assert [error["path"] for error in report["errors"]] == ["$.budget", "$.items[0].relevance", "$.items[0].tokens"]


def test_integral_floats_count_as_integers_and_are_reported_as_integers():
    report = evaluate({"budget": 7.0, "items": [{"id": "a", "relevance": 1, "tokens": 4.0}]})
    assert report["budget"] == 7 and type(report["budget"]) is int
    assert type(report["trace"][0]["tokens"]) is int


def test_messages_show_other_scripts_as_written_and_what_cannot_be_seen_as_escapes():
    """Every non-ASCII character was a JSON escape: "\\u00e9lev\\u00e9", a CJK id unreadable."""
    report = evaluate(
        {
            "budget": 7,
            "items": [
                {"id": "東京", "relevance": "élevé", "tokens": 1},
                {"id": "東京", "relevance": 1, "tokens": 1},
                {"id": "c", "relevance": "\ud800", "tokens": "a\u00a0b\u202e\u200b\u3000"},
            ],
        }
    )
    messages = {error["path"]: error["message"] for error in report["errors"]}
    assert messages["$.items[0].relevance"] == 'expected a number, got "élevé"'
    assert messages["$.items[1].id"] == 'duplicate id "東京" (first used at $.items[0])'
    assert messages["$.items[2].relevance"] == 'expected a number, got "\\ud800"'  # an unpaired surrogate
    # a no-break space, a direction override, a zero-width space and an ideographic space: escapes
    assert messages["$.items[2].tokens"] == 'expected an integer from 0 to 2^53-1, got "a\\u00a0b\\u202e\\u200b\\u3000"'
    # a Cyrillic letter among ASCII ones passes for one: escaped, or "іtems" reads as "items"
    lookalike = evaluate({"budget": 7, "\u0456tems": []})["errors"][0]["message"]
    assert lookalike.startswith('unknown key "\\u0456tems" (did you mean "items"?'), lookalike
    assert (
        evaluate({"budget": 7, "items": [{"id": "a", "relevance": "Москва", "tokens": 1}]})["errors"][0]["message"]
        == 'expected a number, got "Москва"'
    )


def test_a_problem_carries_its_path_as_data_and_a_code():
    """Code branches on codes and paths as data, never on a message's words."""
    from fitproof import InvalidInputError, select

    items = [{"id": "a", "relevance": 1, "tokns": 4}, {"id": "a", "relevance": "high", "tokens": 1}]
    with pytest.raises(InvalidInputError) as raised:
        select({"budget": 5, "items": items})
    found = [(problem.code, problem.at, problem.path) for problem in raised.value.problems]
    assert found == [
        ("unknown_key", ("items", 0, "tokns"), "$.items[0].tokns"),
        ("missing_key", ("items", 0), "$.items[0]"),
        ("wrong_type", ("items", 1, "relevance"), "$.items[1].relevance"),
        ("duplicate_id", ("items", 1, "id"), "$.items[1].id"),
    ]


def test_every_bad_input_is_one_shape_under_one_base():
    from fitproof import FitproofError, InvalidInputError, MessagesError, PackError, TokenizerUnavailable, pack_passages, trim_messages

    assert issubclass(MessagesError, InvalidInputError) and issubclass(PackError, InvalidInputError)
    assert all(
        issubclass(cls, FitproofError) and issubclass(cls, ValueError)
        for cls in (InvalidInputError, MessagesError, PackError, TokenizerUnavailable)
    )
    with pytest.raises(MessagesError) as raised:
        trim_messages([{"role": "usr", "content": "x"}], 10, "estimate")
    problem = raised.value.problems[0]
    assert (problem.code, problem.at, problem["path"]) == ("invalid_value", ("messages", 0, "role"), "$.messages[0].role")
    with pytest.raises(PackError) as packed:
        pack_passages("q", [("a", "x"), ("a", "y")], 99, len)
    problem = packed.value.problems[0]
    assert (problem.code, problem.at, problem.message) == ("duplicate_id", ("passages", 1, "id"), str(packed.value))


@pytest.mark.parametrize("observed_at", ["２０２６-03-13T13:18:00Z", "2026-03-13T13:18:٠٠Z", "2026-03-13T13:18:00+０1:00"])
def test_observed_at_takes_ascii_digits_only(observed_at):
    report = evaluate(
        {
            "mode": "blocks",
            "window": {"context_tokens": 900, "reserved_output_tokens": 100, "fixed_prompt_tokens": 0},
            "blocks": [{"id": "a", "source": "s", "content": "c", "priority": 1, "observed_at": observed_at}],
        }
    )
    assert report["pass"] is False and report["errors"][0]["path"] == "$.blocks[0].observed_at"


def test_the_shipped_schema_pattern_is_ascii_only():
    schema = json.loads((ROOT / "py" / "fitproof" / "schemas" / "blocks.schema.json").read_text())
    assert "\\d" not in json.dumps(schema)


@pytest.mark.parametrize("mode", ["relevance", "passages"])
def test_ids_equal_as_utf16_are_duplicates(mode):
    split, joined = "\ud83d\ude00", "😀"
    if mode == "relevance":
        document = {"budget": 9, "items": [{"id": split, "relevance": 1, "tokens": 1}, {"id": joined, "relevance": 2, "tokens": 1}]}
        path = "$.items[1].id"
    else:
        document = {
            "mode": "passages",
            "question": "q",
            "limit": 99,
            "counter": "words",
            "passages": [{"id": split, "text": "a"}, {"id": joined, "text": "b"}],
        }
        path = "$.passages[1].id"
    report = evaluate(document)
    assert report["pass"] is False and [error["path"] for error in report["errors"]] == [path]
    assert "UTF-16 code units" in report["errors"][0]["message"]
    # Many ids take the column-wise fast path: the same answer.
    if mode == "relevance":
        document["items"] += [{"id": f"x{n}", "relevance": 1, "tokens": 1} for n in range(2000)]
        assert [error["path"] for error in evaluate(document)["errors"]] == [path]
