"""Index lists in words: ``0-2, 5`` for the messages a report, a claim's verdict or a tool's
answer names.

One job: join consecutive indices into runs, in the order given (callers sort when they mean
ascending order). How many runs are shown, and the dash, are the caller's: a report line shows
four runs and ends in "…", the MCP answer shows every run with an en dash and cuts by width.
"""

from __future__ import annotations


def runs(indices: list[int]) -> list[tuple[int, int]]:
    """``[0, 1, 2, 5]`` -> ``[(0, 2), (5, 5)]``: each run of consecutive indices as (first, last)."""
    joined: list[list[int]] = []
    for index in indices:
        if joined and index == joined[-1][1] + 1:
            joined[-1][1] = index
        else:
            joined.append([index, index])
    return [(first, last) for first, last in joined]


def ranges(indices: list[int], *, shown: int | None = 4, dash: str = "-") -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``; past ``shown`` runs (None: every run) it ends in ``", …"``."""
    every = runs(indices)
    picked = every if shown is None else every[:shown]
    text = ", ".join(f"{first}{dash}{last}" if last > first else str(first) for first, last in picked)
    return text + (", …" if shown is not None and len(every) > shown else "")
