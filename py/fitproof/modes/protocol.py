"""What a mode provides: the interface ``evaluate`` relies on, checked by mypy (tests/package/modes/test_modes_protocol.py).

A mode is a module; a module satisfies this protocol when it defines every member below
with a compatible type (the constants are read-only, so a module's own narrower type fits).
The optional capabilities are explicit members with a neutral value (``None``, or a
``beyond_the_rule`` that returns ``{}``), so ``evaluate`` never probes for them.

The protocol is generic in what the mode reads and what it decides: ``Mode[Parsed, Result]``,
where ``Parsed`` is the mode's validated input (a frozen dataclass of the mode's own) and
``Result`` the report's mode-specific keys (a TypedDict). The registry holds ``Mode[Any, Any]``
(``evaluate`` hands a mode's parse output back to the same mode only); the conformance test
binds each module to its own types, so mypy checks every read of another module's parse output
or result by its declared fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Protocol, TypeVar

from .._shared.checks import Check
from .._shared.shape import InputShape

Parsed = TypeVar("Parsed")
Result = TypeVar("Result", bound=Mapping[str, object])


@dataclass(frozen=True)
class Words:
    """What one mode's report calls its ideas, declared once in the mode: ``select``, the claims,
    the fixture runner and the MCP tools read them here instead of keeping a table of their own."""

    kept: str  # the report's list of what the rule kept, also the claim's key ("selected")
    left_out: str  # the list of what it left out ("omitted")
    used: str  # the cost of what it kept ("used")
    limit: str  # what that cost is measured against ("budget")
    listed: str  # what the kept list holds, in words ("item ids")


class Mode(Protocol[Parsed, Result]):
    @property
    def NAME(self) -> str:
        """The value of the input's ``mode`` key."""

    @property
    def WORDS(self) -> Words:
        """The report's names for what was kept and left out, the cost and the limit."""

    @property
    def INPUT_SUMMARY(self) -> str:
        """The report's summary for an input whose top level is wrong."""

    @property
    def SHAPE(self) -> InputShape | None:
        """The declarative input shape, or None for a mode with its own reader; ``evaluate``
        uses it to tell whether an input meant for another mode fits this one."""

    @property
    def COUNTED_COST(self) -> str | None:
        """The item key a top-level ``tokenizer`` fills from an item's ``content``; None when
        the mode takes no such tokenizer."""

    @property
    def DEFAULT_TOKENIZER(self) -> str | None:
        """The tokenizer used when the input names none; None when the input must name one (or needs none)."""

    def parse(self, data: object) -> Parsed:
        """The validated input, or raise ``InvalidInput`` with every problem."""

    def select(self, parsed: Parsed) -> Result:
        """The rule's result: the report's mode-specific keys, with a ``trace``."""

    def run(self, data: object) -> Result:
        """``select(parse(data))``."""

    def succeeded(self, result: Result) -> bool:
        """Whether the rule could succeed (required items that do not fit: it could not)."""

    def summarize(self, result: Result) -> str:
        """The report's one-sentence summary."""

    def verify(self, data: object, result: Result, parsed: Parsed | None = None) -> list[Check]:
        """The independent checks, each ``{name, pass, detail?}``: never calls the rule."""

    def beyond_the_rule(self, parsed: Parsed, result: Result) -> dict[str, object]:
        """What the rule's choice cost (``optimal``, ``sensitivity``), added to the report;
        ``{}`` when the mode reports nothing beyond its rule. Never changes the selection."""
