"""The cheapest plans for a recorded conversation under a prompt cache: a dynamic program, its brute
force, and the frontier of cost against average context (bench/clearing.py's yardstick).

The plan space. Before every model call ``t`` (the history then has ``calls[t]`` messages, append
only) a plan chooses

- a cut ``c``: the prompt is the system message (index 0, always kept) and every message from
  ``c`` on, where ``c`` is a user message no later than the live turn's (the newest user message),
  so the prompt starts at a user turn, keeps the live turn whole and never splits a tool call from
  its results;
- a clearing ``k``: the oldest ``k`` clearable tool results of the history (``tools``, oldest
  first) are sent as their placeholder (their call, id and pairing kept); sticky, so ``k`` never
  decreases from one call to the next; and only results an earlier call has sent (``k`` is at most
  the number of clearable results before ``calls[t - 1]``): a call never clears what the model has
  not yet read;

such that the prompt's tokens (3 priming + the kept messages' tokens) are at most ``limit``. The cut
is not required to move forward (the dynamic program is exact over this space, with no monotone
restriction); ``monotone=True`` restricts it to cuts that never move back, for comparison.

The bill. A message of the prompt is ``(index, cleared)``; the prefix a call shares with the
previous call's prompt is the longest common prefix of whole messages, in tokens. Each call is billed
as bench/cache_cost.py's ``billed`` bills it (``bill`` here is the same arithmetic in integer units
of 1e-8 dollars, tests/properties/test_frontier.py checks it against ``billed``): OpenAI caches
``prefix // 128 * 128`` tokens when the prefix has at least 1,024; Anthropic reads the previous
call's breakpoint (its prompt less the priming) when it is at least 1,024 and the prefix covers it,
and writes the rest of this call's breakpoint (when that is at least 1,024).

The dynamic program. State: the previous call's ``(c, k)``; value: the least ``cost - lam * tokens``
(``lam`` >= 0, a Lagrangian weight on context) of a plan up to this call ending there. A call's cost
depends on the previous state only through three cases, each a prefix minimum over ``k``:

- the cut moved (``c`` differs): the shared prefix is the system message alone;
- same cut, no result newly cleared inside the prompt (``k`` equal, or every newly cleared result
  before the cut): the whole previous prompt is the prefix (a cache read under both rules);
- same cut, results newly cleared inside the prompt: the prefix ends at the first of them, the
  ``max(k', tb(c))``-th result (``tb(c)``: the clearable results before the cut); Anthropic reads
  nothing, OpenAI's cached tokens depend on that prefix alone, so the term separates.

So a call costs O(cuts x clearings) vector operations (a matrix per call: a row per feasible cut,
a column per ``k``), about 0.1-0.3 s for 400 calls. ``brute_force`` enumerates every plan and is
what the dynamic program is tested against (tests/properties/test_frontier.py: equal values, with
and without ``monotone``, on small random conversations of 3-6 calls). No restriction is needed for
tractability, and none is made; ``monotone`` is measured instead: on 300 small random conversations
(3 weights, both rules) cuts that never move back lost something in 11 of 1,776 optima (a long live
turn forces the cut forward and a later call would take older turns back); on bench/clearing.py's
three conversations the bound at the strategies' contexts rises by at most 0.3 % (``--monotone``).
What the space leaves out: keeping a non-contiguous set of turns, clearing other than the oldest
first (``exclude_tools`` is modelled by leaving those results out of ``tools``), clearing a call's
arguments (``clear_tool_inputs``), and a prompt that starts other than at a user turn.

The frontier. ``D(lam)`` = the least ``cost - lam * tokens`` over all plans; for any plan of total
tokens ``X``, ``cost >= D(lam) + lam * X`` for every ``lam``, so ``max over lam of D(lam) + lam * X``
is a lower bound on the cost at average context ``X / calls``: the lower convex hull, evaluated
between hull vertices. ``Frontier.bound`` sweeps ``lam`` and refines it at each queried ``X``
(``lam`` = the slope of the chord of the two vertices around ``X``, until that chord is a hull edge).
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

PRIMING = 3
INF = float("inf")
UNIT = 100  # prices are per million tokens; a cost unit is 1e-8 dollars, so a token costs price * UNIT units


def units(prices: dict) -> dict[str, int]:
    """Prices per million tokens as integer units (1e-8 dollars) per token."""
    converted = {}
    for key, value in prices.items():
        price = Fraction(repr(value)) * UNIT
        assert price.denominator == 1, f"{key} price {value} is not a whole number of 1e-8 dollars a token"
        converted[key] = int(price)
    return converted


def bill(provider: str, prices: dict[str, int], tokens: int, prefix: int, breakpoint_now: int, previous_breakpoint: int) -> int:
    """One call's cost in units: bench/cache_cost.py's ``billed``, in integers."""
    if provider == "openai":
        cached = prefix // 128 * 128 if prefix >= 1024 else 0
        written = 0
    else:
        cached = previous_breakpoint if 1024 <= previous_breakpoint <= prefix else 0
        written = breakpoint_now - cached if breakpoint_now >= 1024 else 0
    plain = tokens - cached - written
    return prices["input"] * plain + prices["cached_input"] * cached + prices.get("cache_write", 0) * written


@dataclass
class Problem:
    """A recorded conversation as the plans see it.

    ``costs``: every message's tokens (index 0 the system message), without the priming;
    ``starts``: the user messages' indices; ``tools``: the clearable tool results' indices, oldest
    first, and ``savings``: the tokens clearing each saves; ``calls``: the history's length before
    each call; ``limit``: the most tokens a prompt may have.
    """

    costs: list[int]
    starts: list[int]
    tools: list[int]
    savings: list[int]
    calls: list[int]
    limit: int
    _pre: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._pre = [0, *itertools.accumulate(self.costs)]
        self._saved = [0, *itertools.accumulate(self.savings)]
        self.pre = np.array(self._pre, dtype=float)
        self.saved = np.array(self._saved, dtype=float)
        self.positions = np.array(self.tools, dtype=np.int64)
        self._cuts: dict[tuple[int, int], list[int]] = {}

    def live(self, call: int) -> int:
        length = self.calls[call]
        return self.starts[bisect.bisect_left(self.starts, length) - 1]

    def most_cleared(self, call: int) -> int:
        """How many clearable results call ``call`` may clear (those an earlier call sent)."""
        return 0 if call == 0 else bisect.bisect_left(self.tools, self.calls[call - 1])

    def before(self, cut: int) -> int:
        """The clearable results before ``cut``."""
        return bisect.bisect_left(self.tools, cut)

    def tokens(self, call: int, cut: int, cleared: int) -> int:
        """The prompt's tokens: priming, the system message, messages ``cut`` on, ``cleared`` results cleared."""
        low = self.before(cut)
        return PRIMING + self.costs[0] + self._pre[self.calls[call]] - self._pre[cut] - (self._saved[max(cleared, low)] - self._saved[low])

    def cuts(self, call: int) -> list[int]:
        """Every cut the call may use (with the most clearing, the prompt fits), remembered per limit."""
        key = (call, self.limit)
        if key not in self._cuts:
            live, most = self.live(call), self.most_cleared(call)
            self._cuts[key] = [cut for cut in self.starts if cut <= live and self.tokens(call, cut, most) <= self.limit]
        return self._cuts[key]

    def keys(self, call: int, cut: int, cleared: int) -> list[tuple[int, bool]]:
        """The prompt's messages as ``(index, cleared)``."""
        gone = set(self.tools[:cleared])
        return [(0, False)] + [(index, index in gone) for index in range(cut, self.calls[call])]


def plan_cost(problem: Problem, provider: str, prices: dict[str, int], plan: list[tuple[int, int]]) -> tuple[int, int]:
    """(cost in units, total prompt tokens) of a plan, billed message by message (no shortcut)."""
    saving = dict(zip(problem.tools, problem.savings))
    previous: list[tuple[int, bool]] = []
    previous_breakpoint = 0
    total = tokens_total = 0
    for call, (cut, cleared) in enumerate(plan):
        keys = problem.keys(call, cut, cleared)
        sizes = [problem.costs[index] - (saving[index] if gone else 0) for index, gone in keys]
        tokens = PRIMING + sum(sizes)
        assert tokens == problem.tokens(call, cut, cleared)
        shared = 0
        for old, new in zip(previous, keys):
            if old != new:
                break
            shared += 1
        total += bill(provider, prices, tokens, sum(sizes[:shared]), tokens - PRIMING, previous_breakpoint)
        tokens_total += tokens
        previous, previous_breakpoint = keys, tokens - PRIMING
    return total, tokens_total


def plans(problem: Problem, monotone: bool = False):
    """Every plan: per call a feasible (cut, k) with k never decreasing (and cuts never moving back)."""
    choices = []
    for call in range(len(problem.calls)):
        most = problem.most_cleared(call)
        choices.append(
            [
                (cut, cleared)
                for cut in problem.starts
                if cut <= problem.live(call)
                for cleared in range(most + 1)
                if problem.tokens(call, cut, cleared) <= problem.limit
            ]
        )

    def extend(call, plan):
        if call == len(choices):
            yield list(plan)
            return
        for cut, cleared in choices[call]:
            if plan and (cleared < plan[-1][1] or (monotone and cut < plan[-1][0])):
                continue
            plan.append((cut, cleared))
            yield from extend(call + 1, plan)
            plan.pop()

    yield from extend(0, [])


def points(problem: Problem, provider: str, prices: dict[str, int], monotone: bool = False) -> list[tuple[int, int, list]]:
    """(cost, tokens, plan) of every plan, billed one by one."""
    return [(*plan_cost(problem, provider, prices, plan), plan) for plan in plans(problem, monotone)]


def brute_force(problem: Problem, provider: str, prices: dict[str, int], lam: float, monotone: bool = False, every=None):
    """The least ``cost - lam * tokens`` over every plan, as (value, cost, tokens, plan); None if no plan fits.
    ``every``: the ``points`` already billed."""
    best = None
    for cost, tokens, plan in every if every is not None else points(problem, provider, prices, monotone):
        value = cost - lam * tokens
        if best is None or value < best[0]:
            best = (value, cost, tokens, plan)
    return best


class DoesNotFit(ValueError):
    """A call's live turn (with the system message) does not fit the limit even with every result cleared."""


def _prefix_min(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The running minimum along the last axis and, at each position, an index attaining it."""
    running = np.minimum.accumulate(values, axis=-1)
    index = np.maximum.accumulate(np.where(values == running, np.arange(values.shape[-1]), 0), axis=-1)
    return running, index


def solve(problem: Problem, provider: str, prices: dict[str, int], lam: float, monotone: bool = False) -> tuple[float, int, int]:
    """The least ``cost - lam * tokens`` over every plan, as (value, cost, tokens) of a plan attaining it.

    Per call, the states are a matrix: a row per feasible cut, a column per clearing ``k``."""
    pin, pcached, pwrite = prices["input"], prices["cached_input"], prices.get("cache_write", 0)
    system = problem.costs[0]
    openai = provider == "openai"
    pre, saved, positions = problem.pre, problem.saved, problem.positions
    system_cached = system // 128 * 128 if system >= 1024 else 0

    def no_read(tokens):  # Anthropic, nothing read: the breakpoint written whole (from 1,024)
        breakpoint_now = tokens - PRIMING
        written = np.where(breakpoint_now >= 1024, breakpoint_now, 0)
        return pin * (tokens - written) + pwrite * written

    def openai_cached(prefix):
        return np.where(prefix >= 1024, prefix // 128 * 128, 0)

    def prompt(length, cuts, low, ks):  # the prompt's tokens per (cut, k)
        return PRIMING + system + pre[length] - pre[cuts][:, None] - (saved[np.maximum(ks[None, :], low[:, None])] - saved[low][:, None])

    old_cuts = old_values = old_tokens = None
    for call in range(len(problem.calls)):
        length, most = problem.calls[call], problem.most_cleared(call)
        size = most + 1
        ks = np.arange(size)
        cuts = np.array(problem.cuts(call), dtype=np.int64)
        if not len(cuts):
            raise DoesNotFit(f"call {call}: the live turn does not fit {problem.limit} tokens")
        low = np.searchsorted(positions, cuts, "left") if len(positions) else np.zeros(len(cuts), dtype=np.int64)
        tokens = prompt(length, cuts, low, ks)
        fits = tokens <= problem.limit
        if call == 0:
            value = (pin * tokens if openai else no_read(tokens)) - lam * tokens
            total = tokens.copy()
        else:
            rows = len(old_cuts)
            kept = np.full((rows, size), INF)
            kept[:, : old_values.shape[1]] = old_values
            kept_tokens = np.zeros((rows, size))
            kept_tokens[:, : old_tokens.shape[1]] = old_tokens
            running, index = _prefix_min(kept)
            running_tokens = np.take_along_axis(kept_tokens, index, axis=1)
            # The cut moved: the best previous state with another cut (an earlier one if monotone) and k' <= k.
            place = np.searchsorted(old_cuts, cuts, "left")
            same = (place < rows) & (old_cuts[np.minimum(place, rows - 1)] == cuts)
            if monotone:
                best = np.minimum.accumulate(running, axis=0)
                at = np.maximum.accumulate(np.where(running == best, np.arange(rows)[:, None], 0), axis=0)
                best_tokens = running_tokens[at, ks]
                earlier = place > 0
                source = np.where(earlier[:, None], best[np.maximum(place - 1, 0)], INF)
                source_tokens = best_tokens[np.maximum(place - 1, 0)]
            else:
                first = np.argmin(running, axis=0)
                first_value, first_tokens = running[first, ks], running_tokens[first, ks]
                others = running.copy()
                others[first, ks] = INF
                second = np.argmin(others, axis=0)
                second_value, second_tokens = others[second, ks], running_tokens[second, ks]
                mine = same[:, None] & (first[None, :] == place[:, None])
                source = np.where(mine, second_value[None, :], first_value[None, :])
                source_tokens = np.where(mine, second_tokens[None, :], first_tokens[None, :])
            move_cost = pin * tokens - (pin - pcached) * system_cached if openai else no_read(tokens)
            value = source + move_cost - lam * tokens
            total = source_tokens + tokens
            if same.any():
                mine_rows = np.flatnonzero(same)
                old_rows = place[same]
                here, low_here, tokens_here = cuts[same], low[same], tokens[same]
                previous_prompt = prompt(problem.calls[call - 1], here, low_here, ks)
                prefix = previous_prompt - PRIMING
                below = ks[None, :] <= low_here[:, None]
                # Same cut, nothing newly cleared inside the prompt: k' = k, or any k' <= k <= tb(cut).
                stay_source = np.where(below, running[old_rows], kept[old_rows])
                stay_tokens = np.where(below, running_tokens[old_rows], kept_tokens[old_rows])
                if openai:
                    stay_cost = pin * tokens_here - (pin - pcached) * openai_cached(prefix)
                else:
                    cached = np.where(prefix >= 1024, prefix, 0)
                    breakpoint_now = tokens_here - PRIMING
                    written = np.where(breakpoint_now >= 1024, breakpoint_now - cached, 0)
                    stay_cost = pin * (tokens_here - cached - written) + pcached * cached + pwrite * written
                best_here = stay_source + stay_cost - lam * tokens_here
                best_here_tokens = stay_tokens + tokens_here
                # Same cut, results newly cleared inside the prompt (k > tb(cut), k' < k): the prefix ends
                # at result max(k', tb(cut)).
                if most > 0:
                    first_new = np.maximum(ks[None, :], low_here[:, None])
                    clipped = np.minimum(first_new, len(positions) - 1)
                    shared = system + pre[positions[clipped]] - pre[here][:, None] - (saved[first_new] - saved[low_here][:, None])
                    weighed = kept[old_rows] - ((pin - pcached) * openai_cached(shared) if openai else 0)
                    least, at = _prefix_min(weighed)
                    exclusive = np.concatenate([np.full((len(here), 1), INF), least[:, :-1]], axis=1)
                    exclusive_tokens = np.take_along_axis(kept_tokens[old_rows], at, axis=1)
                    exclusive_tokens = np.concatenate([np.zeros((len(here), 1)), exclusive_tokens[:, :-1]], axis=1)
                    clear_cost = pin * tokens_here if openai else no_read(tokens_here)
                    clear = np.where(~below, exclusive + clear_cost - lam * tokens_here, INF)
                    better = clear < best_here
                    best_here = np.where(better, clear, best_here)
                    best_here_tokens = np.where(better, exclusive_tokens + tokens_here, best_here_tokens)
                better = best_here < value[mine_rows]
                value[mine_rows] = np.where(better, best_here, value[mine_rows])
                total[mine_rows] = np.where(better, best_here_tokens, total[mine_rows])
        value = np.where(fits, value, INF)
        if monotone:  # k below tb(cut) is one state once the cut never moves back: keep its best at tb(cut)
            head_mask = ks[None, :] <= low[:, None]
            head = np.argmin(np.where(head_mask, value, INF), axis=1)
            every = np.arange(len(cuts))
            head_value, head_tokens = value[every, head], total[every, head]
            value = np.where(ks[None, :] < low[:, None], INF, value)
            value[every, low], total[every, low] = head_value, head_tokens
        alive = np.isfinite(value).any(axis=1)
        if not alive.any():
            raise DoesNotFit(f"call {call}: no plan reaches it")
        old_cuts, old_values, old_tokens = cuts[alive], value[alive], total[alive]
    at = np.unravel_index(np.argmin(old_values), old_values.shape)
    best_value, tokens_total = float(old_values[at]), int(round(old_tokens[at]))
    return best_value, int(round(best_value + lam * tokens_total)), tokens_total


@dataclass
class Frontier:
    """The lower convex hull of (total tokens, cost) over every plan, found by solving for ``lam``."""

    problem: Problem
    provider: str
    prices: dict[str, int]
    monotone: bool = False
    points: dict[float, tuple[float, int, int]] = field(default_factory=dict)  # lam -> (D(lam), cost, tokens)
    solves: int = 0

    def at(self, lam: float) -> tuple[float, int, int]:
        if lam not in self.points:
            self.points[lam] = solve(self.problem, self.provider, self.prices, lam, self.monotone)
            self.solves += 1
        return self.points[lam]

    def sweep(self, lams) -> None:
        for lam in lams:
            self.at(lam)

    def vertices(self) -> list[tuple[int, int]]:
        """The (tokens, cost) points found, on the lower hull, by tokens."""
        lowest: dict[int, int] = {}
        for _value, cost, tokens in self.points.values():
            lowest[tokens] = min(cost, lowest.get(tokens, cost))
        found = sorted(lowest.items())
        hull: list[tuple[int, int]] = []
        for point in found:
            while len(hull) >= 2:
                (x1, y1), (x2, y2) = hull[-2], hull[-1]
                if (y2 - y1) * (point[0] - x1) >= (point[1] - y1) * (x2 - x1):  # hull[-1] not below the chord
                    hull.pop()
                else:
                    break
            hull.append(point)
        return hull

    def bound(self, tokens_total: float, rounds: int = 8) -> float:
        """A lower bound on the cost of any plan with ``tokens_total`` prompt tokens in all:
        max over the lams solved of D(lam) + lam * tokens_total, refined around it."""
        if not self.points:
            self.sweep([0.0, 10_000_000.0])
        for _ in range(rounds):
            hull = self.vertices()
            right = bisect.bisect_left([x for x, _ in hull], tokens_total)
            if right == 0 or right == len(hull):
                break
            (x1, y1), (x2, y2) = hull[right - 1], hull[right]
            lam = (y2 - y1) / (x2 - x1)
            if lam in self.points or lam < 0:
                break
            value, _cost, _tokens = self.at(lam)
            if value >= y1 - lam * x1 - 1e-6 * max(1.0, abs(y1)):
                break  # the chord is a hull edge: the bound there is exact
        return max(value + lam * tokens_total for lam, (value, _cost, _tokens) in self.points.items())
