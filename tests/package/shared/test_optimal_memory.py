"""The optimum's work bound bounds memory too: a dynamic program whose table would hold
gigabytes of wide integers is not run; the report gives the sound bound instead."""

import tracemalloc

from fitproof import evaluate

MOST_BYTES = 200 << 20


def test_a_wide_table_is_not_built():
    # 10,000 items, even costs 2..198 equal to their relevance, budget 199: 2,000,000 cells of
    # 10,000-bit integers (1.27 GB before the fix).
    items = [{"id": f"i{n}", "relevance": c, "tokens": c} for n, c in enumerate((2 + 2 * (n % 99) for n in range(10_000)))]
    tracemalloc.start()
    try:
        report = evaluate({"mode": "relevance", "budget": 199, "items": items})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    optimal = report["optimal"]
    assert optimal["exact"] is False and optimal["upper_bound"] >= 198
    assert peak < MOST_BYTES, peak
