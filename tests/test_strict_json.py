"""Strict JSON reading: the nesting limit, checked before parsing, agrees with the real depth."""

import json

from hypothesis import given, strategies as st

from context_budget import _strict_json
from context_budget._envelope import check_document

# Strings full of the characters the depth scan has to see through.
TRICKY = st.text(st.sampled_from(['[', ']', '{', '}', '"', '\\', 'a', '\n', 'é']), max_size=6)
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
    assert envelope == {"ok": False, "error": "JSON nests arrays and objects more than 512 levels deep"}
    assert check_document("[" * 512 + "]" * 512)["result"]["errors"][0]["path"] == "$"
