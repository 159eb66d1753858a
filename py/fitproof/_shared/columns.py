"""A parsed input's id column, and its id table built once.

Modes ``relevance`` and ``required`` read their items into columns (one list per field, in
input order); their parsed inputs derive from :class:`Identified`, so that the checks, the
optimum and the claims' judges look ids up in one table, built on first use (at 100,000 items
each table costs tens of milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Identified:
    ids: list[str]  # unique (validated), in input order

    @cached_property
    def positions(self) -> dict[str, int]:
        """Each id's position in the input."""
        return dict(zip(self.ids, range(len(self.ids))))
