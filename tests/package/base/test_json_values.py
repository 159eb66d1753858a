"""``json_value_problem``: a value from Python is a JSON value exactly when JSON text could hold it,
read without recursion at any depth."""

import datetime
import json

from hypothesis import given, strategies as st

from fitproof._base.values import JSON_DEPTH, json_value_problem

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)


@given(JSON)
def test_every_value_json_text_holds_is_one(value):
    assert json_value_problem(value) is None
    assert json_value_problem(json.loads(json.dumps(value))) is None


def test_each_kind_of_non_json_is_named_at_its_path():
    cycle = []
    cycle.append({"back": cycle})
    assert json_value_problem({"a": [1, {"b": datetime.date(2026, 1, 1)}]}) == (("a", 1, "b"), "expected a JSON value, got a Python date")
    assert json_value_problem(cycle) == ((0, "back"), "expected a JSON value, got a structure that contains itself (a cycle)")
    assert json_value_problem({1: "x"})[0] == ()
    assert json_value_problem([float("nan")])[0] == (0,)
    shared = [1]
    assert json_value_problem([shared, shared]) is None  # the same list twice is no cycle


def test_the_depth_bound_is_the_strict_readers():
    def nested(depth):
        value = []
        for _ in range(depth - 1):
            value = [value]
        return value

    assert json_value_problem(nested(JSON_DEPTH)) is None
    assert "at most 512 levels" in json_value_problem(nested(JSON_DEPTH + 1))[1]
    assert json_value_problem(nested(100_000)) is not None  # no recursion, however deep
