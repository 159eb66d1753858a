"""What modes ``relevance`` and ``required`` share: their items read as columns, and the keys of
their reports.

They read their items into columns (one list per field, in input order); their parsed inputs
derive from :class:`Identified`, so that the checks, the optimum and the claims' judges look ids
up in one table, built on first use (at 100,000 items each table costs tens of milliseconds).
Their results derive from :class:`Selected`, their trace rows from :class:`Considered`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypedDict

from .._base.values import read_count, read_text
from .shape import Field

INPUT_SUMMARY = "Input needs a non-negative integer budget and items array."
# The top level of both inputs. "tokenizer" is read (and taken out) before the mode sees the input
# (_shared/counted.py); declared here so that a misspelt one gets its suggestion and every message lists it.
TOP = (
    Field("mode", read_text, optional=True),
    Field("budget", read_count),
    Field("items", lambda value: value),
    Field("tokenizer", read_text, optional=True),
)


@dataclass(frozen=True)
class Identified:
    """The budget, and the items' ids: unique (validated), in input order."""

    budget: int
    ids: list[str]

    @cached_property
    def positions(self) -> dict[str, int]:
        """Each id's position in the input."""
        return dict(zip(self.ids, range(len(self.ids))))


class Considered(TypedDict):
    """A trace row's keys in both modes: one item, in the order the rule considered it."""

    position: int
    id: str
    remaining_before: int
    kept: bool
    reason: str


class Selected(TypedDict):
    """A report's keys in both modes: the budget, what the kept items cost, and who is in and out."""

    budget: int
    used: int
    remaining: int
    selected: list[str]
    omitted: list[str]
