"""`optimal` against brute force over every subset, and the upper bound against the true optimum."""

import itertools
import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from fitproof import evaluate
from fitproof._shared.optimal import best_subset
from fitproof._base.ordinal import utf16_units

VALUES = st.one_of(st.integers(-3, 20), st.sampled_from([0.5, 2.25, 1e-3, 7.75]))
ENTRIES = st.lists(st.tuples(st.integers(0, 12), VALUES), max_size=12).map(
    lambda pairs: [(f"i{index:02d}", cost, float(value)) for index, (cost, value) in enumerate(pairs)]
)


def columns(entries):
    return [list(column) for column in zip(*entries)] if entries else [[], [], []]


def brute_force(entries, capacity):
    """The best value over all 2^n subsets (non-positive items add nothing, so they are left out)."""
    best = 0.0
    for size in range(len(entries) + 1):
        for subset in itertools.combinations(entries, size):
            if sum(cost for _, cost, _ in subset) <= capacity:
                best = max(best, math.fsum(value for _, _, value in subset if value > 0))
    return best


@given(ENTRIES, st.integers(0, 40))
def test_exact_value_and_feasibility_match_brute_force(entries, capacity):
    """The exact search finds the best total value, and its subset fits and is worth exactly that."""
    result = best_subset(*columns(entries), capacity)
    assert result["exact"] is True
    chosen = [entry for entry in entries if entry[0] in result["selected"]]
    assert sum(cost for _, cost, _ in chosen) == result["cost"] <= capacity
    assert result["value"] == brute_force(entries, capacity)
    assert all(value > 0 for _, _, value in chosen)
    assert result["selected"] == sorted(result["selected"], key=utf16_units)


@given(ENTRIES, st.integers(0, 40))
def test_upper_bound_is_never_below_the_optimum(entries, capacity):
    """Beyond the work bound the report gives a sound upper bound, never a guess."""
    result = best_subset(*columns(entries), capacity, work_bound=0)
    truth = brute_force(entries, capacity)
    if result["exact"]:  # everything worth having fits: exact without any search
        assert result["value"] == truth
    else:
        assert result["upper_bound"] >= truth


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(-2, 9)), max_size=12), st.integers(0, 30))
def test_report_optimal_is_at_least_greedy_and_verified(pairs, budget):
    items = [{"id": f"x{index}", "relevance": value, "tokens": cost} for index, (cost, value) in enumerate(pairs)]
    report = evaluate({"budget": budget, "items": items})
    optimal = report["optimal"]
    assert optimal["exact"] and optimal["verified"]
    assert optimal["value"] >= optimal["greedy_value"]
    assert optimal["value"] == brute_force([(i["id"], i["tokens"], float(i["relevance"])) for i in items], budget)
    assert report["selected"] == evaluate({"budget": budget, "items": items[::-1]})["selected"]  # the selection is unchanged by all this


def lexicographic_best(entries, capacity):
    """The ids of the best subset by exact sums; on ties, each item in ordinal id order is
    taken whenever a best subset allows it (the subset with the greatest membership vector)."""
    useful = [entry for entry in entries if entry[2] > 0 and entry[1] <= capacity]
    best = None
    for mask in range(2 ** len(useful)):
        subset = [entry for bit, entry in enumerate(useful) if mask >> bit & 1]
        if sum(cost for _, cost, _ in subset) <= capacity:
            value = sum(Fraction(value) for _, _, value in subset)
            membership = [bool(mask >> bit & 1) for bit in range(len(useful))]  # ids are in ordinal order
            if best is None or (value, membership) > best[:2]:
                best = (value, membership, [entry[0] for entry in subset])
    return best[2]


@given(ENTRIES, st.integers(0, 40), st.sampled_from([0, 1, 20_000]))
@settings(max_examples=60)
def test_ties_go_to_the_first_items_in_ordinal_order(entries, capacity, work_bound):
    """Among best subsets, the one a reconstruction in ordinal order takes; the same whether
    the branch and bound finishes (20,000 nodes) or the dynamic program takes over (0, 1)."""
    result = best_subset(*columns(entries), capacity, work_bound=work_bound)
    assert result["exact"] is True
    assert result["selected"] == lexicographic_best(entries, capacity)


def test_hard_large_inputs_get_an_upper_bound_marked_inexact():
    """Every item has the same value per token, the costs are even and the budget odd: the
    fractional bound is never reached, so proving the optimum needs a search beyond the bounds."""
    items = [{"id": f"i{index}", "relevance": 2 + (index * 26) % 98, "tokens": 2 + (index * 26) % 98} for index in range(3000)]
    optimal = evaluate({"budget": 20_001, "items": items})["optimal"]
    assert optimal["exact"] is False
    assert optimal["upper_bound"] >= 20_000 >= optimal["greedy_value"]
    assert optimal["work"] > optimal["work_bound"]


def test_large_easy_inputs_are_exact():
    """The reduction fixes most items, so thousands of items are solved exactly."""
    items = [{"id": f"i{index:04d}", "relevance": (index * 37) % 101, "tokens": 1 + (index * 13) % 50} for index in range(3000)]
    optimal = evaluate({"budget": 20_000, "items": items})["optimal"]
    assert optimal["exact"] is True and optimal["verified"] is True
    assert optimal["value"] >= optimal["greedy_value"]


def test_the_dynamic_program_agrees_with_the_search():
    """Hundreds of items with many ties: the search and the dynamic program that takes over
    when it runs out (work_bound=0) choose the same subset, by the same tie rule."""
    items = [(f"i{index:03d}", 1 + (index * 13) % 50, float((index * 37) % 11)) for index in range(300)]
    ids, costs, values = columns(items)
    searched, tabled = best_subset(ids, costs, values, 2_000), best_subset(ids, costs, values, 2_000, work_bound=0)
    assert searched["exact"] and tabled["exact"]
    assert searched["selected"] == tabled["selected"] and searched["value"] == tabled["value"]


def test_scores_too_large_to_add():
    """The best subset is still found exactly; only its sum past the float range is null."""
    report = evaluate({"budget": 2, "items": [{"id": c, "relevance": 1e308, "tokens": 1} for c in "abc"]})
    optimal = report["optimal"]
    assert optimal["exact"] is True and optimal["selected"] == ["a", "b"] and optimal["verified"] is True
    assert optimal["value"] is None and optimal["greedy_value"] is None
    json.dumps(report, allow_nan=False)  # still valid JSON
    # A best sum inside the range is given, though all the scores together are past it (was a null bound).
    optimal = evaluate({"budget": 1, "items": [{"id": c, "relevance": 1e308, "tokens": 1} for c in "abc"]})["optimal"]
    assert optimal["exact"] is True and optimal["value"] == 1e308 and optimal["selected"] == ["a"]


def test_a_bound_past_the_float_range_is_null_not_a_crash(monkeypatch):
    """ldexp raises OverflowError where a product would give inf: the bound is null (the report
    said "The checker failed on this input")."""
    from fitproof._shared import optimal as _optimal

    items = [{"id": f"i{index:03d}", "relevance": 1.7e308, "tokens": 1 + index % 7} for index in range(40)]
    for patch in ({"EXACT_ITEMS": 0, "DP_CELLS": 0}, {"WORK_BOUND": 0, "DP_CELLS": 0}):
        for name, value in patch.items():
            monkeypatch.setattr(_optimal, name, value)
        if "WORK_BOUND" in patch:  # best_subset's default was bound at import: pass it through report_optimal's call
            monkeypatch.setattr(_optimal.best_subset, "__defaults__", (None, 0))
        report = evaluate({"budget": 30, "items": items})
        assert report["pass"] is True, report["checks"]
        assert report["optimal"]["exact"] is False and report["optimal"]["upper_bound"] is None


HUGE = st.lists(st.tuples(st.integers(1, 12), st.sampled_from([1e308, 9e307, 4.5e307, 1.7e308, 3.0, 1e-300])), min_size=1, max_size=14).map(
    lambda pairs: [(f"i{index:02d}", cost, value) for index, (cost, value) in enumerate(pairs)]
)


@given(HUGE, st.integers(0, 40), st.sampled_from([0, 20_000]))
@settings(max_examples=150)
def test_scores_near_the_float_limit_still_give_the_exact_best_subset(entries, capacity, work_bound):
    """The reduction and the bounds run on scaled values; the subset is the brute force's,
    by exact sums and the same tie rule (14 items: the reduction takes part)."""
    result = best_subset(*columns(entries), capacity, work_bound=work_bound)
    if result["exact"]:
        assert result["selected"] == lexicographic_best(entries, capacity)
        chosen = [value for name, _, value in entries if name in result["selected"]]
        try:
            expected = math.fsum(chosen)
        except OverflowError:  # past the float range: null in the report
            expected = None
        assert result["value"] == expected
    else:
        truth = sum(Fraction(value) for value in [value for name, _, value in entries if name in lexicographic_best(entries, capacity)])
        assert result["upper_bound"] is None or Fraction(result["upper_bound"]) >= truth


def test_the_verification_inside_optimal_can_fail(monkeypatch):
    """`verified` re-adds the best subset from the input; a search that lies is caught."""
    from fitproof._shared import optimal as _optimal

    def lying_search(ids, costs, values, capacity, candidates=None, work_bound=0):
        return {"exact": True, "value": 99.0, "selected": ["B", "C"], "cost": 3}

    monkeypatch.setattr(_optimal, "best_subset", lying_search)
    optimal = evaluate(
        {
            "budget": 10,
            "items": [
                {"id": "A", "relevance": 10, "tokens": 6},
                {"id": "B", "relevance": 9, "tokens": 5},
                {"id": "C", "relevance": 9, "tokens": 5},
            ],
        }
    )["optimal"]
    assert optimal["verified"] is False
    assert "costs 10 (reported 3" in optimal["detail"] and "worth 18.0, reported 99.0" in optimal["detail"]


@pytest.mark.parametrize("selected", [["B", "B"], ["B", "Z"], ["b"]])
@pytest.mark.parametrize(
    "data",
    [
        {"budget": 10, "items": [{"id": "A", "relevance": 10, "tokens": 6}, {"id": "B", "relevance": 9, "tokens": 5}]},
        {
            "mode": "required",
            "budget": 10,
            "items": [{"id": "A", "priority": 1, "cost": 6, "required": True}, {"id": "B", "priority": 9, "cost": 4}],
        },
        {
            "mode": "blocks",
            "window": {"context_tokens": 100, "reserved_output_tokens": 0, "fixed_prompt_tokens": 0},
            "blocks": [
                {"id": "A", "source": "t", "content": "a", "priority": 90, "required": True, "observed_at": "2026-03-13T12:00:00Z"},
                {"id": "B", "source": "t", "content": "b", "priority": 10, "observed_at": "2026-03-13T12:00:00Z"},
            ],
        },
    ],
    ids=["relevance", "required", "blocks"],
)
def test_the_verification_names_an_unknown_or_repeated_id(monkeypatch, data, selected):
    from fitproof._shared import optimal as _optimal

    def lying_search(ids, costs, values, capacity, candidates=None, work_bound=0):
        return {"exact": True, "value": 9.0, "selected": selected, "cost": 4}

    monkeypatch.setattr(_optimal, "best_subset", lying_search)
    optimal = evaluate(data)["optimal"]
    assert (optimal["verified"], optimal["detail"]) == (False, "the best subset names an unknown id or one id twice")


@given(ENTRIES, st.integers(0, 40))
@settings(max_examples=50)
def test_beyond_the_exact_size_the_fractional_bound_is_sound(entries, capacity):
    """Inputs larger than EXACT_ITEMS (and than the table) get the fractional bound alone."""
    from fitproof._shared import optimal as _optimal

    saved = _optimal.EXACT_ITEMS, _optimal.DP_CELLS
    _optimal.EXACT_ITEMS, _optimal.DP_CELLS = 0, 0
    try:
        result = best_subset(*columns(entries), capacity)
    finally:
        _optimal.EXACT_ITEMS, _optimal.DP_CELLS = saved
    truth = brute_force(entries, capacity)
    if result["exact"]:  # everything worth having fits
        assert result["value"] == truth
    else:
        assert result["upper_bound"] >= truth and result["exact_items"] == 0


@given(ENTRIES, st.integers(0, 40))
@settings(max_examples=150)
def test_the_reduction_keeps_the_best_subset(entries, capacity):
    """With the reduction on for every size (it normally starts above a dozen items), the
    items it fixes and the core it leaves still give the brute force's best subset."""
    from fitproof._shared import optimal as _optimal

    saved = _optimal.SMALL
    _optimal.SMALL = 0
    try:
        result = best_subset(*columns(entries), capacity)
    finally:
        _optimal.SMALL = saved
    assert result["exact"] is True
    assert result["selected"] == lexicographic_best(entries, capacity)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 50), st.one_of(st.sampled_from([0.25, 1.0, 3.0]), st.integers(1, 999).map(lambda k: k / 37))),
        min_size=1,
        max_size=120,
    ),
    st.integers(0, 3000),
    st.integers(1, 8),
    st.integers(0, 3),
)
def test_the_fractional_fill_takes_the_best_ratios_that_fit(pairs, capacity, sample, margin):
    """Large inputs locate the break item from a sample instead of sorting everything (a small
    SAMPLE and MARGIN here make small inputs take that path, and miss the bracket now and then): the
    items taken whole must be best-ratio items that fit, and the break item the next one."""
    from fitproof._shared import optimal as _optimal

    weights = [weight for weight, _ in pairs]
    gains = [weight * ratio for weight, ratio in pairs]
    saved = _optimal.SAMPLE, _optimal.MARGIN
    _optimal.SAMPLE, _optimal.MARGIN = sample, margin
    try:
        flags, part = _optimal._fractional_fill(list(map(lambda g, w: g / w, gains, weights)), weights, capacity)
    finally:
        _optimal.SAMPLE, _optimal.MARGIN = saved
    assert len(flags) == len(pairs)
    whole = [index for index, taken in enumerate(flags) if taken]
    assert len(set(whole)) == len(whole) and part not in whole
    used = sum(weights[index] for index in whole)
    assert used <= capacity
    if part is None:
        assert len(whole) == len(pairs)
        return
    assert used + weights[part] > capacity
    rest = set(range(len(pairs))) - set(whole)
    float_ratio = [gain / weight for gain, weight in zip(gains, weights)]
    # In the floats the fill compares: every whole item ranks at or above the break item, which ranks at or above the rest.
    assert all(float_ratio[index] >= float_ratio[part] for index in whole)
    assert all(float_ratio[part] >= float_ratio[index] for index in rest)
