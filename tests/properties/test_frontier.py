"""bench/_frontier.py's dynamic program against brute force (every combination of choices per call)
on small random conversations, and its frontier as a lower bound for bench/clearing.py's strategies."""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import _frontier
from cache_cost import PRICES, billed

PROVIDERS = ("openai", "anthropic")
UNITS = {provider: _frontier.units(PRICES[provider]) for provider in PROVIDERS}
LAMS = (0, 1, 40, 150, 280, 400, 10_000_000)  # integers: every value the program adds is a whole number, so exact


@st.composite
def problems(draw):
    """3-6 calls over a few messages: user turns, tool rounds of 1-2 results, replies; sizes around
    the caching thresholds (1,024 tokens, steps of 128); a limit between what the live turns need and
    the whole history."""
    costs = [draw(st.sampled_from([40, 300, 1030, 1500]))]
    starts, tools, savings, calls = [], [], [], []
    count = draw(st.integers(3, 6))
    while len(calls) < count:
        starts.append(len(costs))
        costs.append(draw(st.integers(10, 900)))
        calls.append(len(costs))
        while len(calls) < count and draw(st.booleans()):  # tool rounds, each a call
            costs.append(draw(st.integers(10, 200)))
            for _ in range(draw(st.integers(1, 2))):
                size = draw(st.integers(20, 1500))
                tools.append(len(costs))
                costs.append(size)
                savings.append(size - draw(st.integers(5, 15)))
            calls.append(len(costs))
        costs.append(draw(st.integers(10, 700)))
    problem = _frontier.Problem(costs, starts, tools, savings, calls, 10**9)
    need = max(problem.tokens(call, problem.live(call), problem.most_cleared(call)) for call in range(count))
    whole = max(problem.tokens(call, starts[0], 0) for call in range(count))
    problem.limit = need + int(draw(st.floats(0.25, 1.0)) * (max(need, whole) - need))
    return problem


def plan_count(problem, monotone=False):
    """How many plans brute force would bill (counted by the same choices, without billing)."""
    ways = None
    for call in range(len(problem.calls)):
        most = problem.most_cleared(call)
        states = [
            (cut, k)
            for cut in problem.starts
            if cut <= problem.live(call)
            for k in range(most + 1)
            if problem.tokens(call, cut, k) <= problem.limit
        ]
        if ways is None:
            ways = dict.fromkeys(states, 1)
        else:
            ways = {
                (cut, k): sum(n for (old_cut, old_k), n in ways.items() if old_k <= k and (not monotone or old_cut <= cut))
                for cut, k in states
            }
    return sum(ways.values())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(problems())
def test_dynamic_program_equals_brute_force(problem):
    assume(plan_count(problem) <= 1500)
    for provider in PROVIDERS:
        for monotone in (False, True):
            every = _frontier.points(problem, provider, UNITS[provider], monotone)
            for lam in LAMS:
                value, cost, tokens = _frontier.solve(problem, provider, UNITS[provider], lam, monotone)
                best = _frontier.brute_force(problem, provider, UNITS[provider], lam, every=every)
                assert value == best[0], (provider, monotone, lam)
                # the (cost, tokens) reported is a plan's, and an optimal one
                assert any((c, t) == (cost, tokens) for c, t, _plan in every if c - lam * t == value)
        # the cuts' monotone restriction loses nothing here... or says how much (measured, not assumed)
        free = _frontier.brute_force(problem, provider, UNITS[provider], 0)
        restricted = _frontier.brute_force(problem, provider, UNITS[provider], 0, monotone=True)
        assert restricted[0] >= free[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(problems())
def test_frontier_is_the_lower_hull_of_every_plan(problem):
    assume(plan_count(problem) <= 1500)
    for provider in PROVIDERS:
        every = _frontier.points(problem, provider, UNITS[provider])
        frontier = _frontier.Frontier(problem, provider, UNITS[provider])
        hull = _hull([(tokens, cost) for cost, tokens, _plan in every])
        for cost, tokens, _plan in every:
            bound = frontier.bound(tokens)
            assert bound <= cost + 1e-6 * max(1, cost)  # a lower bound for every plan
            exact = _on_hull(hull, tokens)
            assert bound <= exact + 1e-6 * max(1, exact)
            if hull[0][0] <= tokens:  # right of the cheapest plan, refined to the hull itself
                assert bound >= exact - 1e-6 * max(1, exact)


def _hull(points):
    lowest = {}
    for x, y in points:
        lowest[x] = min(y, lowest.get(x, y))
    hull = []
    for x, y in sorted(lowest.items()):
        while len(hull) >= 2 and (hull[-1][1] - hull[-2][1]) * (x - hull[-2][0]) >= (y - hull[-2][1]) * (hull[-1][0] - hull[-2][0]):
            hull.pop()
        hull.append((x, y))
    while len(hull) >= 2 and hull[1][1] <= hull[0][1]:  # the part a non-negative weight on context sees
        hull.pop(0)
    return hull


def _on_hull(hull, x):
    if x <= hull[0][0]:
        return hull[0][1]
    for (x1, y1), (x2, y2) in itertools.pairwise(hull):
        if x1 <= x <= x2:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    return hull[-1][1]


@given(st.integers(0, 40_000), st.integers(0, 40_000), st.integers(0, 40_000), st.integers(0, 40_000))
@settings(max_examples=300, deadline=None)
def test_bill_is_cache_costs_billed(tokens, prefix, breakpoint_now, previous_breakpoint):
    prefix, breakpoint_now = min(prefix, tokens), min(breakpoint_now, tokens)
    prefix = min(prefix, breakpoint_now)
    for provider in PROVIDERS:
        theirs = billed(provider, tokens, prefix, breakpoint_now, previous_breakpoint)[3]
        ours = _frontier.bill(provider, UNITS[provider], tokens, prefix, breakpoint_now, previous_breakpoint)
        assert Fraction(ours, 100_000_000) == theirs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["chatty", "agent", "documents"]), st.integers(3, 6), st.integers(0, 10**6), st.floats(0, 1))
def test_every_strategy_is_above_the_frontier(shape, calls, seed, where):
    """bench/clearing.py's strategies on small recorded conversations: each sends plans of the plan
    space, billed alike by the bench and the program, and costs at least the frontier at its context."""
    pytest.importorskip("langchain_core")
    import _shapes
    import clearing

    recorded = _shapes.SHAPES[shape](calls, seed)
    whole = max(clearing.PRIMING + sum(recorded.costs[:length]) for length in recorded.calls)
    need = max(
        clearing.PRIMING + recorded.costs[0] + sum(recorded.costs[recorded.live_start(call) : length])
        for call, length in enumerate(recorded.calls)
    )
    limit = need + int(where * (max(whole, need) - need))
    runs = clearing.run_strategies(recorded, limit, check_every=1)
    for run in runs.values():
        assert run.plan is not None, (run.name, run.outside)
        placeholder = run.placeholder or clearing.named_placeholder
        problem = clearing.problem_for(recorded, limit, placeholder)
        for provider in PROVIDERS:
            again, tokens = _frontier.plan_cost(problem, provider, UNITS[provider], run.plan)
            assert (Fraction(again, 100_000_000), tokens) == (run.cost[provider], run.tokens)
            bound = _frontier.Frontier(problem, provider, UNITS[provider]).bound(run.tokens)
            assert bound <= again + 1e-6 * max(1, again), (run.name, provider)


def test_transcribed_clear_tool_uses_is_langchains():
    """The bench's transcription of ClearToolUsesEdit.apply edits as langchain 1.5.0's class does."""
    pytest.importorskip("langchain_core")
    context_editing = pytest.importorskip("langchain.agents.middleware.context_editing")
    import _shapes
    import clearing

    recorded = _shapes.agent(60, 3)
    lc = clearing._LangChain(recorded)
    rng = random.Random(5)
    for options in (
        {"trigger": 6000, "keep": 3},
        {"trigger": 9000, "keep": 1, "clear_at_least": 2000},
        {"trigger": 4000, "keep": 0, "exclude_tools": ("grep",)},
    ):
        theirs = context_editing.ClearToolUsesEdit(**options)
        ours = clearing.TranscribedClearToolUses(**options)
        for call in sorted(rng.sample(range(len(recorded.calls)), 15)):
            messages = lc.messages[: recorded.calls[call]]
            edited_theirs, edited_ours = list(messages), list(messages)
            theirs.apply(edited_theirs, count_tokens=lc.counter)
            ours.apply(edited_ours, count_tokens=lc.counter)
            assert lc.as_dicts(edited_theirs) == lc.as_dicts(edited_ours)
