"""Median wall time of a few runs, each after a full collection."""

import gc
import statistics
import time


def fastest(function, runs: int) -> float:
    """The fastest of ``runs`` calls: on a shared machine the others measure its neighbours."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def median_time(function, runs: int) -> tuple[float, object]:
    """The median seconds of ``runs`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(runs):
        result = None  # the previous result's teardown is not part of this run
        gc.collect()
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result
