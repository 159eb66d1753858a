"""Strict JSON reading: the nesting limit, checked before parsing, agrees with the real depth."""

import json

import pytest

from hypothesis import given, strategies as st

from fitproof._base import strict_json as _strict_json
from fitproof._envelope import check_document

# Strings full of the characters the depth scan has to see through.
TRICKY = st.text(st.sampled_from(["[", "]", "{", "}", '"', "\\", "a", "\n", "é"]), max_size=6)
VALUES = st.recursive(
    st.one_of(st.integers(), TRICKY, st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TRICKY, inner, max_size=3)),
    max_leaves=30,
)


def depth(value):
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@given(VALUES, st.integers(0, 6), st.booleans())
def test_nesting_scan_matches_the_real_depth(value, limit, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert _strict_json.nesting_within(text, limit) == (depth(value) <= limit)


def test_too_deep_input_is_refused_the_same_way_everywhere():
    envelope = check_document("[" * 600 + "]" * 600)
    assert envelope == {
        "ok": False,
        "error": "JSON nests arrays and objects more than 512 levels deep at line 1 column 513",
        "line": 1,
        "column": 513,
    }
    assert check_document("[" * 512 + "]" * 512)["result"]["errors"][0]["path"] == "$"


BROKEN = [
    ('{"a":1,}', "trailing comma before '}'", 7),
    ("[1,2,]", "trailing comma before ']'", 5),
    ('{"a" 1}', "expected ':' after an object key", 5),
    ("[1 2]", "expected ',' or ']'", 3),
    ("", "the input holds no JSON value (it is empty or only whitespace)", 0),
    (" \n\t", "the input holds no JSON value (it is empty or only whitespace)", 3),
    ("{", "unexpected end of input", 1),
    ("[tru]", 'expected a value, found "t"', 1),
    ('"abc', "unterminated string", 0),
    ('"a\\x"', "invalid escape in a string", 2),
    ('"a\nb"', "control character in a string (escape it)", 2),
    ('{"a":1}}', "extra data after the JSON value", 7),
    ("[1,-]", "invalid number", 3),
    ("{1:2}", "expected an object key in double quotes", 1),
    ("[NaN, -Infinity, 1,]", "trailing comma before ']'", 19),
    ('{"a":[1,{"b":"\\u12"}]}', "invalid \\u escape in a string", 14),
]


@pytest.mark.parametrize("text, message, index", BROKEN)
def test_syntax_errors_are_described_in_our_own_words(text, message, index):
    """The json module's messages and positions differ between Python versions; ours do not."""
    assert _strict_json.first_syntax_error(text) == (message, index)
    if "NaN" in text:
        return  # the strict reader rejects NaN first, with its own message
    with pytest.raises(_strict_json.JSONInputError) as error:
        _strict_json.loads(text)
    assert str(error.value).startswith(f"invalid JSON: {message} at line ")


@given(VALUES)
def test_the_scan_finds_nothing_wrong_in_valid_json(value):
    assert _strict_json.first_syntax_error(json.dumps(value)) == (None, 0)


@given(VALUES, st.data())
def test_the_scan_agrees_with_the_parser_about_what_is_json(value, data):
    text = json.dumps(value)
    cut = data.draw(st.integers(0, len(text)))
    broken = text[:cut] + data.draw(st.sampled_from(["", ",", "]", "}", ":", '"', "x", "\\"])) + text[cut + 1 :]
    try:
        json.loads(broken)
        parses = True
    except ValueError:
        parses = False
    assert (_strict_json.first_syntax_error(broken)[0] is None) == parses


@pytest.mark.parametrize("limit", [None, 0, 10_000])
def test_over_long_integers_are_refused_whatever_the_interpreters_limit(limit):
    """The rule is ours (4,300 digits), not the running interpreter's: the fast path leans on
    int()'s default limit, so a program that changed the limit gets the checked path."""
    import sys

    saved = sys.get_int_max_str_digits()
    try:
        if limit is not None:
            sys.set_int_max_str_digits(limit)
        with pytest.raises(_strict_json.JSONInputError, match="integer with more than 4300 digits at line 2 column 12"):
            _strict_json.loads('{"a": [1, 2],\n "budget": ' + "9" * 4301 + "}")
        assert _strict_json.loads('{"budget": ' + "9" * 4300 + "}")["budget"] == int("9" * 4300)
        assert _strict_json.loads("[1, -0, 25, 1.5e3]") == [1, 0, 25, 1500.0]
    finally:
        sys.set_int_max_str_digits(saved)
