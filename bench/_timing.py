"""Median wall time of a few runs, each after a full collection; how far a median of rounds can move."""

import gc
import random
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


def median_interval(values: list, resamples: int = 2000) -> tuple[float, float]:
    """A 90 % bootstrap interval for the median of ``values`` (fixed seed: the same values give the same
    interval): how far the median of this many rounds can move on this machine's noise alone."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[resamples // 20], medians[resamples - resamples // 20 - 1]
