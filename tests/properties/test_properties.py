"""Property tests: the promises of ``evaluate`` for random inputs (500 examples each by default)."""

import copy
import json
import functools
import math

from hypothesis import given, strategies as st

from fitproof import evaluate
from fitproof._fixtures.case import first_difference

# Ids drawn from characters whose UTF-16 order differs from code point order, plus
# whitespace that JavaScript's trim does or does not remove.
ID_CHARS = st.sampled_from(["a", "b", "B", "\uff5e", "\U0001f600", "\U00010000", "\u00e9", "\u0085", " ", "\ud800"])
IDS = st.text(ID_CHARS, min_size=1, max_size=3).filter(lambda text: text.strip(" ") != "")
SCORES = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -0.0, 2.5, 1e300, 9007199254740993]))
COUNTS = st.one_of(st.integers(0, 12), st.sampled_from([0.0, 4.0]))


def unique_by_id(items):
    seen = {}
    for item in items:
        seen.setdefault(item["id"], item)
    return list(seen.values())


RELEVANCE_ITEMS = st.lists(st.fixed_dictionaries({"id": IDS, "relevance": SCORES, "tokens": COUNTS}), max_size=12).map(unique_by_id)
REQUIRED_ITEMS = st.lists(
    st.fixed_dictionaries({"id": IDS, "cost": COUNTS, "priority": SCORES}, optional={"required": st.booleans()}), max_size=12
).map(unique_by_id)
RELEVANCE_INPUTS = st.fixed_dictionaries({"budget": st.integers(0, 40), "items": RELEVANCE_ITEMS})
REQUIRED_INPUTS = st.fixed_dictionaries({"mode": st.just("required"), "budget": st.integers(0, 40), "items": REQUIRED_ITEMS})
VALID_INPUTS = st.one_of(RELEVANCE_INPUTS, REQUIRED_INPUTS)

# Any JSON value a Python caller could pass, with the awkward parts over-represented.
STRINGS = st.one_of(st.text(), st.sampled_from(["\ud800", "a\udfffb", "", " \u3000", "mode", "relevance", "required"]))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**60),
    st.floats(allow_nan=False),
    STRINGS,
    st.sampled_from([10**400, 2**53, 2**53 - 1, 4.0, -0.0]),
    st.just(5000).map(lambda digits: -(10**digits)),  # past CPython's int-to-text limit
)
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(STRINGS, inner, max_size=4)), max_leaves=20
)
NEAR_VALID = st.one_of(
    VALID_INPUTS,
    st.fixed_dictionaries(
        {
            "budget": JSON_VALUES,
            "items": st.lists(
                st.one_of(
                    JSON_VALUES,
                    st.dictionaries(st.sampled_from(["id", "relevance", "tokens", "cost", "priority", "required", "content"]), JSON_VALUES),
                ),
                max_size=5,
            ),
        },
        optional={"mode": st.one_of(STRINGS, JSON_VALUES)},
    ),
    JSON_VALUES,
)


@given(NEAR_VALID)
def test_never_raises_and_never_mutates(data):
    """It never raises, for any such value, and never mutates it."""
    before = copy.deepcopy(data)
    report = evaluate(data)
    assert first_difference(before, data) is None
    assert isinstance(report["pass"], bool) and isinstance(report["summary"], str)
    assert report["checks"] and all(check["pass"] or check.get("detail") for check in report["checks"])
    assert "internal error" not in [check["name"] for check in report["checks"]], report
    json.dumps(report, allow_nan=False)  # the report is always valid JSON
    if "errors" in report:
        assert report["pass"] is False and 1 <= len(report["errors"]) <= 50


@given(VALID_INPUTS, st.randoms(use_true_random=False))
def test_same_report_for_any_permutation(data, random):
    """The same input in any item order gives the same report.

    In `required`, selected and omitted (and so the summary that lists them) follow input order.
    """
    shuffled = dict(data, items=random.sample(data["items"], len(data["items"])))
    first, second = evaluate(data), evaluate(shuffled)
    if data.get("mode") == "required":
        for report, source in ((first, data), (second, shuffled)):
            order = [item["id"] for item in source["items"]]
            assert report["selected"] == [i for i in order if i in set(report["selected"])]
        for key in ("selected", "omitted", "summary"):
            assert sorted(first.pop(key)) == sorted(second.pop(key))
    assert first_difference(first, second) is None


@given(VALID_INPUTS)
def test_never_exceeds_budget_and_left_out_items_did_not_fit(data):
    """The selected costs add up to at most the budget; every left-out item did not fit at its turn."""
    report = evaluate(data)
    cost_key = "cost" if data.get("mode") == "required" else "tokens"
    costs = {item["id"]: int(item[cost_key]) for item in data["items"]}
    assert sum(costs[i] for i in report["selected"]) == report["used"] <= data["budget"]
    if report.get("shortfall"):
        assert report["selected"] == [] and report["pass"] is False
        return
    assert report["pass"] is True
    for row in report["trace"]:
        if not row["kept"]:
            assert costs[row["id"]] > row["remaining_before"]


def js_compare_ids(a, b):
    """JavaScript's `<` on strings: UTF-16 code units, written out one unit at a time."""

    def units(text):
        encoded = text.encode("utf-16-be", "surrogatepass")
        return [int.from_bytes(encoded[i : i + 2], "big") for i in range(0, len(encoded), 2)]

    return -1 if units(a) < units(b) else 1 if units(a) > units(b) else 0


def seed_000_reference(data):
    """The JavaScript loop of seed 000, the teaching note mode relevance adapts, transcribed: sort with
    its comparator, take what fits."""

    def compare(a, b):
        difference = float(b["relevance"]) - float(a["relevance"]) if math.isfinite(float(a["relevance"])) else 0
        return (1 if difference > 0 else -1) if difference else js_compare_ids(a["id"], b["id"])

    remaining, selected = data["budget"], []
    for item in sorted(data["items"], key=functools.cmp_to_key(compare)):
        if item["tokens"] <= remaining:
            selected.append(item["id"])
            remaining -= item["tokens"]
    return selected


@given(RELEVANCE_INPUTS)
def test_relevance_matches_the_seed_reference(data):
    """Selected in the order the teaching note's comparator and loop give (a port selects the same items)."""
    assert evaluate(data)["selected"] == seed_000_reference(data)


# ---------------------------------------------------------------- blocks
INSTANTS = st.sampled_from(
    [
        "2026-03-13T12:00:00Z",
        "2026-03-13T15:00:00+03:00",
        "2026-03-13T09:00:00-03:00",
        "2026-03-13T12:00:00.5Z",
        "2025-12-31T23:59:59+00:00",
    ]
)
CONTENT = st.text(st.sampled_from(["a", "b", " ", "\n", "\u3000", "\U0001f600", "\u0085", "."]), max_size=30)
BLOCKS = st.lists(
    st.fixed_dictionaries(
        {"id": IDS, "source": st.just("s"), "content": CONTENT, "priority": st.integers(0, 3), "observed_at": INSTANTS},
        optional={"required": st.booleans(), "tokens": st.integers(0, 9)},
    ),
    max_size=10,
).map(unique_by_id)
BLOCKS_INPUTS = st.fixed_dictionaries(
    {
        "mode": st.just("blocks"),
        "window": st.fixed_dictionaries(
            {"context_tokens": st.integers(1, 60), "reserved_output_tokens": st.just(0), "fixed_prompt_tokens": st.just(0)}
        ),
        "blocks": BLOCKS,
    },
    optional={"system": st.text(max_size=5), "task": st.text(max_size=5)},
)


@given(BLOCKS_INPUTS, st.randoms(use_true_random=False))
def test_blocks_same_report_for_any_permutation(data, random):
    """Stable selection when the input order changes, for the whole report (the first test of seed
    001, the C# pipeline mode blocks adapts)."""
    shuffled = dict(data, blocks=random.sample(data["blocks"], len(data["blocks"])))
    assert first_difference(evaluate(data), evaluate(shuffled)) is None


@given(BLOCKS_INPUTS)
def test_blocks_accounting_and_proceeding(data):
    """available = used + remaining; can_proceed exactly when every required block is included."""
    report = evaluate(data)
    assert report["used"] + report["remaining"] == report["available"] == data["window"]["context_tokens"]
    assert report["used"] == sum(entry["tokens"] for entry in report["included"])
    included = {entry["id"] for entry in report["included"]}
    required = {block["id"] for block in data["blocks"] if block.get("required")}
    assert report["can_proceed"] == required.issubset(included)
    rendered_fits = report["rendered_tokens"] <= data["window"]["context_tokens"] - data["window"]["reserved_output_tokens"]
    assert report["pass"] == (report["can_proceed"] and rendered_fits)
    checks = {check["name"]: check["pass"] for check in report["checks"]}
    assert checks.pop("required blocks included") == report["can_proceed"]
    assert checks.pop("rendered prompt fits window") == rendered_fits
    assert all(checks.values())


def seed_estimate(text):
    """EstimateTokens of seed 001, the C# pipeline mode blocks adapts, with JavaScript's whitespace,
    written character by character."""
    whitespace = set(
        "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
    )
    start, end = 0, len(text)
    while start < end and text[start] in whitespace:
        start += 1
    while end > start and text[end - 1] in whitespace:
        end -= 1
    trimmed = text[start:end]
    if not trimmed:
        return 0
    length = sum(2 if ord(char) > 0xFFFF else 1 for char in trimmed)
    words, in_word = 0, False
    for char in trimmed:
        if char in whitespace:
            in_word = False
        elif not in_word:
            words, in_word = words + 1, True
    return max(1, max(math.ceil(length / 4.0), math.ceil(words * 1.2)) + trimmed.count("\n"))


@given(st.one_of(CONTENT, st.text()))
def test_estimate_matches_the_seed(text):
    """The rule: the estimate of any text is the C# pipeline's EstimateTokens of it."""
    from fitproof.tokenizers.estimate import estimate_tokens

    assert estimate_tokens(text) == seed_estimate(text)


PASSAGES_INPUTS = st.fixed_dictionaries(
    {
        "mode": st.just("passages"),
        "question": st.text(max_size=5),
        "limit": st.integers(0, 40),
        "counter": st.sampled_from(["words", "estimate"]),
        "passages": st.lists(st.fixed_dictionaries({"id": IDS, "text": CONTENT}), max_size=6).map(unique_by_id),
    },
    optional={"margin": st.sampled_from([0, 0.15, 0.5])},
)


def spoil(value, data):
    """Replace one field somewhere in a valid input with an arbitrary JSON value."""
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value)))
        return {**value, key: data.draw(st.one_of(JSON_VALUES, st.just(spoil(value[key], data))))}
    if isinstance(value, list) and value:
        index = data.draw(st.integers(0, len(value) - 1))
        return value[:index] + [spoil(value[index], data)] + value[index + 1 :]
    return data.draw(JSON_VALUES)


@given(st.one_of(BLOCKS_INPUTS, PASSAGES_INPUTS), st.data())
def test_blocks_and_passages_never_raise_or_mutate(valid, data):
    """Valid and spoilt inputs of the two text modes: a report every time, the input untouched."""
    for candidate in (valid, spoil(valid, data)):
        before = copy.deepcopy(candidate)
        report = evaluate(candidate)
        assert first_difference(before, candidate) is None
        assert "internal error" not in [check["name"] for check in report["checks"]], report
        json.dumps(report, allow_nan=False)
        if "errors" not in report and report["mode"] == "passages":
            assert report["pass"] is True, report["checks"]
