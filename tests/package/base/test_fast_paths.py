"""Instants, word counts, estimates and the rank order, read the fast way, against plain definitions."""

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given, settings, strategies as st

from fitproof.tokenizers.estimate import WORD, word_count
from fitproof._base.instant import read_instant
from fitproof._base.values import Invalid

EPOCH = datetime(1, 1, 1, tzinfo=timezone.utc)


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from([1, 4, 100, 400, 1900, 2000, 2023, 2024, 9999]) | st.integers(1, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 25),
    st.integers(0, 61),
    st.none() | st.integers(0, 61),
    st.none() | st.text("0123456789", min_size=1, max_size=9),
    st.none() | st.tuples(st.sampled_from("+-"), st.integers(0, 25), st.integers(0, 61)),
)
@example(2000, 2, 29, 12, 0, 0, None, None)  # leap: divisible by 400
@example(1900, 2, 29, 12, 0, 0, None, None)  # not leap: divisible by 100
@example(2024, 2, 29, 23, 59, 59, "999999999", ("-", 0, 1))
@example(1, 1, 1, 0, 0, 0, None, ("+", 0, 1))  # before 0001 in UTC
@example(9999, 12, 31, 23, 59, 59, "5", ("-", 0, 1))  # after 9999 in UTC
def test_instants_match_datetime(year, month, day, hour, minute, second, fraction, offset):
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}"
    if second is not None:
        text += f":{second:02d}" + (f".{fraction}" if fraction else "")
    text += "Z" if offset is None else f"{offset[0]}{offset[1]:02d}:{offset[2]:02d}"
    try:
        if offset is not None and (offset[1] > 23 or offset[2] > 59):
            raise ValueError("offset out of range")
        shift = timedelta(0) if offset is None else (1 if offset[0] == "+" else -1) * timedelta(hours=offset[1], minutes=offset[2])
        moment = datetime(year, month, day, hour, minute, second or 0, tzinfo=timezone(shift))
        seconds = (moment - EPOCH) // timedelta(seconds=1)
        expected = seconds * 10**9 + (int(fraction.ljust(9, "0")) if second is not None and fraction else 0)
        if not 0 <= seconds <= (datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc) - EPOCH) // timedelta(seconds=1):
            expected = None  # before 0001 or after 9999 once in UTC
    except (ValueError, OverflowError):  # no such date or time
        expected = None
    if expected is None:
        with pytest.raises(Invalid):
            read_instant(text)
    else:
        assert read_instant(text).nanoseconds == expected


@given(st.text(st.sampled_from("ab é😀\t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u00a0\u3000\ufeff\u2028"), max_size=30))
def test_word_count_is_the_words_the_definition_finds(text):
    """str.split() is used only where its whitespace is JavaScript's (ASCII without U+001C..U+001F)."""
    assert word_count(text) == len(WORD.findall(text))


@given(st.text(st.sampled_from("ab é😀\t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u00a0\u3000\ufeff\u2028"), max_size=30))
def test_the_checks_count_words_and_units_their_own_way_alike(text):
    """The checks' recount (str.split() on plain ASCII, else spaces and split(" ")) agrees with the definition."""
    from fitproof._shared.checks import estimate_parts

    assert estimate_parts(text) == (len(text.encode("utf-16-le", "surrogatepass")) // 2, len(WORD.findall(text)), text.count("\n"))


@given(st.text(st.sampled_from("ab é😀\t\n\r\v\f\x1c\x1f\x85\u00a0\u3000\ufeff"), max_size=40))
def test_the_estimate_is_seed_001s_formula(text):
    """max(1, max(ceil(code units / 4), ceil(words * 1.2)) + newlines) on the trimmed text, 0 when blank."""
    import math

    from fitproof.tokenizers.estimate import estimate_tokens
    from fitproof._base.values import JS_WHITESPACE

    trimmed = text.strip(JS_WHITESPACE)
    units = len(trimmed.encode("utf-16-le", "surrogatepass")) // 2
    expected = max(1, max(math.ceil(units / 4), math.ceil(len(WORD.findall(trimmed)) * 1.2)) + trimmed.count("\n")) if trimmed else 0
    assert estimate_tokens(text) == expected


@given(
    st.lists(
        st.tuples(st.text("ab\U0001f600\uff61", min_size=1, max_size=3), st.integers(0, 40)), max_size=60, unique_by=lambda pair: pair[0]
    ),
    st.sampled_from([2, 5, 41]),
    st.booleans(),
    st.lists(st.booleans(), max_size=60),
)
def test_ranked_order_is_rank_then_ordinal_id(pairs, spread, descending, leave_out):
    """One sort by rank, then runs of equal ranks by ordinal id: the same as sorting by
    (rank, UTF-16 id), on all items or a subset.
    ``spread`` distinct ranks: few give long runs of ties, many give mostly pairs."""
    from fitproof._base.ordinal import ranked_order, utf16_units

    ids, ranks = [pair[0] for pair in pairs], [float(pair[1] % spread) for pair in pairs]
    sign = -1 if descending else 1
    positions = [index for index in range(len(ids)) if not (index < len(leave_out) and leave_out[index])]
    expected = sorted(positions, key=lambda index: (sign * ranks[index], utf16_units(ids[index])))
    assert ranked_order(ids, ranks, descending, positions=iter(positions)) == expected
    assert ranked_order(ids, ranks, descending) == sorted(range(len(ids)), key=lambda index: (sign * ranks[index], utf16_units(ids[index])))


def test_long_integer_columns_share_equal_values():
    """Equal integers of a long column become one object each (the first), values unchanged:
    counts, and scores given as integers; scores with a float among them are left as given."""
    from fitproof._shared.shape import fast_columns
    from fitproof.modes.relevance import SHAPE

    def items(relevance):
        # A new object per value, as JSON gives.
        return [{"id": f"i{index}", "relevance": relevance(index), "tokens": int(str(1000 + index % 300))} for index in range(5000)]

    for relevance, scores_shared in (
        (lambda index: int(str(500 + index % 7)), 7),
        (lambda index: 0.5 if index == 9 else int(str(500 + index % 7)), 5000),
    ):
        elements = items(relevance)
        ids, scores, tokens, _ = fast_columns(elements, SHAPE.item)
        assert tokens == [element["tokens"] for element in elements] and all(type(value) is int for value in tokens)
        assert len(set(map(id, tokens))) == 300 and tokens[300] is elements[0]["tokens"]
        assert scores == [element["relevance"] for element in elements] and len(set(map(id, scores))) == scores_shared


def test_mostly_distinct_integer_columns_are_left_as_given():
    """Sharing gains nothing when the values rarely repeat: such a column is not copied into a dict."""
    from fitproof._shared.shape import SHARE_DISTINCT, fast_columns
    from fitproof.modes.relevance import SHAPE

    elements = [
        {"id": f"i{index}", "relevance": int(str(index)), "tokens": int(str(index % (SHARE_DISTINCT + 1)))} for index in range(5000)
    ]
    ids, scores, tokens, _ = fast_columns(elements, SHAPE.item)
    assert scores == [element["relevance"] for element in elements]
    assert tokens == [element["tokens"] for element in elements]
    # One more distinct value than SHARE_DISTINCT: each element's own object (shared, element 1300 would get element 275's).
    assert all(cost is element["tokens"] for cost, element in zip(tokens, elements))
    # At SHARE_DISTINCT distinct values the column is shared.
    elements = [{**element, "tokens": int(str(index % SHARE_DISTINCT))} for index, element in enumerate(elements)]
    ids, scores, tokens, _ = fast_columns(elements, SHAPE.item)
    assert len(set(map(id, tokens))) == SHARE_DISTINCT


@pytest.mark.parametrize("make", ["relevance_input", "required_input", "blocks_input", "mixed_scores"])
def test_sharing_integers_leaves_every_report_unchanged(monkeypatch, make):
    """Also with scores that mix integers, floats, 0.0 and -0.0 (left as they are: -0.0 is written "-0.0")."""
    from fitproof import evaluate
    from fitproof._shared import shape as _shape
    from fitproof._envelope import to_json

    import _inputs

    if make == "mixed_scores":
        scores = [3, 3.0, 0.0, -0.0, 7, 2.5]
        data = {"budget": 40, "items": [{"id": f"i{n}", "relevance": scores[n % 6], "tokens": n % 9} for n in range(300)]}
    else:
        data = _inputs.as_parsed(getattr(_inputs, make)(300))
    monkeypatch.setattr(_shape, "SHARE_INTEGERS_FROM", 1)
    shared = evaluate(data)
    monkeypatch.setattr(_shape, "SHARE_INTEGERS_FROM", 10**9)
    unshared = evaluate(data)
    assert shared == unshared and shared["pass"]
    assert to_json(shared) == to_json(unshared)  # 3 and 3.0, 0.0 and -0.0 written as given


def test_evaluate_leaves_the_garbage_collector_alone(monkeypatch):
    """A library call changes no process-wide state: the collector runs as the caller set it,
    also when the mode breaks (the internal-error report)."""
    import gc

    from fitproof import evaluate
    from fitproof.modes import relevance

    seen = []
    honest = relevance.select
    monkeypatch.setattr(relevance, "select", lambda parsed: seen.append(gc.isenabled()) or honest(parsed))
    assert gc.isenabled()
    assert evaluate({"budget": 1, "items": []})["pass"] and gc.isenabled() and seen == [True]
    monkeypatch.setattr(relevance, "select", lambda parsed: 1 / 0)
    assert evaluate({"budget": 1, "items": []})["checks"][0]["name"] == "internal error" and gc.isenabled()
    gc.disable()
    try:
        evaluate({"budget": 1, "items": []})
        assert not gc.isenabled()  # a caller's own choice is kept
    finally:
        gc.enable()
