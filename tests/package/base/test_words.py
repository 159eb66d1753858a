"""Index lists in words: the runs and the one sentence every report, verdict and MCP answer uses."""

from hypothesis import given, strategies as st

from fitproof._base.words import ranges, runs


def test_consecutive_indices_join_into_runs_in_the_order_given():
    assert runs([0, 1, 2, 5, 7, 8]) == [(0, 2), (5, 5), (7, 8)]
    assert runs([]) == []
    assert runs([5, 4]) == [(5, 5), (4, 4)]  # descending is not a run: callers sort first


def test_four_runs_are_shown_and_more_end_in_an_ellipsis():
    assert ranges([0, 1, 2, 5]) == "0-2, 5"
    assert ranges([0, 2, 4, 6, 8]) == "0, 2, 4, 6, …"
    assert ranges([0, 2, 4, 6, 8], shown=None, dash="–") == "0, 2, 4, 6, 8"
    assert ranges([3, 4], dash="–") == "3–4"


@given(st.sets(st.integers(0, 60)))
def test_the_runs_cover_exactly_the_indices(indices):
    ordered = sorted(indices)
    covered = [index for first, last in runs(ordered) for index in range(first, last + 1)]
    assert covered == ordered
    assert all(later[0] > earlier[1] + 1 for earlier, later in zip(runs(ordered), runs(ordered)[1:]))
