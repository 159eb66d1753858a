"""Tool calls paired with their results, in all three formats: each item's unit (the index of its
first item), and the chat format's problems in its words: a result must directly follow the item
that made its call, and every call needs its result.

The pairing reads of each item (a record of any reader, or what can be read of an invalid one) only
``calls`` and ``answers`` (``[(id, path)]``), and ``closes`` (the item holds every result of its
unit: Anthropic's one user message). It is fed item by item, so that a remembered history's state
(``memory.py``, ``formats/known.py``) is fed only what was appended. Ids are equal when their UTF-16
code units are (``identity_key``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..._base.ordinal import identity_key
from ..._base.values import (
    DUPLICATE_ID,
    TOOL_CALL_UNANSWERED,
    TOOL_RESULT_MISPLACED,
    TOOL_RESULT_UNMATCHED,
    Key,
    Problem,
    json_text,
    path_text,
)

Record = Mapping[str, Any]


def duplicate_call(call_sites: dict[str, tuple[Key, ...]], call_id: str, call_at: tuple[Key, ...]) -> Problem | None:
    """The problem of a call id used before (``call_sites``: each id's first path, kept here), or None."""
    site = call_sites.setdefault(identity_key(call_id), call_at)
    if site == call_at:
        return None
    first = path_text(site)
    return Problem(call_at, DUPLICATE_ID, f"duplicate tool call id {json_text(call_id)} (first used at {first})", first)


class ToolPairing:
    """The pairing's state after the items fed so far.

    ``joins(item, previous)``: an item without results that belongs to the open unit (a Responses
    call after its reasoning). ``stray_ends_unit``: a result that answers no open call ends the unit
    (an Anthropic or a Responses item); the chat format's tool messages leave it open, since the
    unit's own results may still follow. ``duplicates``: repeated call ids are found here (the chat
    reader finds them itself, with ``duplicate_call``, while it reads each message).
    """

    def __init__(
        self,
        items_key: str,
        joins: Callable[[Record, Record], bool] | None = None,
        *,
        stray_ends_unit: bool = True,
        duplicates: bool = True,
    ) -> None:
        self.items_key, self.joins = items_key, joins
        self.stray_ends_unit, self.duplicates = stray_ends_unit, duplicates
        self.unit_of: list[int] = []
        self.made_at: dict[str, int] = {}  # call id -> index of the item that made it
        self.answered_at: dict[str, int] = {}
        self.call_sites: dict[str, tuple[Key, ...]] = {}
        self.waiting: dict[str, tuple[Key, ...]] = {}  # the open unit's unanswered calls: id -> where
        self.open_unit: int | None = None
        self.orphans: list[tuple[int, tuple[Key, ...], str]] = []  # (index in problems, where, the call id): said once every call is known

    def copy(self) -> ToolPairing:
        other = ToolPairing(self.items_key, self.joins, stray_ends_unit=self.stray_ends_unit, duplicates=self.duplicates)
        other.unit_of, other.made_at, other.answered_at = list(self.unit_of), dict(self.made_at), dict(self.answered_at)
        other.call_sites, other.waiting, other.open_unit = dict(self.call_sites), dict(self.waiting), self.open_unit
        other.orphans = list(self.orphans)
        return other

    def _path(self, index: int) -> str:
        return path_text((self.items_key, index))

    def _close(self, problems: list[Problem]) -> None:
        if not self.waiting:
            return
        for call_id, call_at in self.waiting.items():
            problems.append(
                Problem(
                    call_at,
                    TOOL_CALL_UNANSWERED,
                    f"no tool message answers the call {json_text(call_id)} (its result must directly follow this assistant message)",
                )
            )
        self.waiting.clear()

    def _end(self, problems: list[Problem]) -> None:
        """The open unit ended: its unanswered calls said."""
        self._close(problems)
        self.open_unit = None

    def feed(self, items: Sequence[Record | None], first: int, problems: list[Problem], before: Record | None = None) -> None:
        """The items from index ``first`` on, after the ones fed before (``before``: the item at ``first - 1``)."""
        previous, unit_of, joins = before, self.unit_of, self.joins
        for index, item in enumerate(items, first):
            if item is None:
                self._end(problems)
                unit_of.append(index)
            elif item["answers"]:
                self._results(index, item, problems)
            elif not item["calls"] and joins is None:  # the most common item, a message without calls: its own unit
                if self.waiting:
                    self._close(problems)
                self.open_unit = index
                unit_of.append(index)
            else:
                self._calls(index, item, previous, problems)
            previous = item

    def _results(self, index: int, item: Record, problems: list[Problem]) -> None:
        waiting, answered_at = self.waiting, self.answered_at
        joined = self.open_unit is not None and any(identity_key(call_id) in waiting for call_id, _ in item["answers"])
        for call_id, where in item["answers"]:
            key = identity_key(call_id)
            if joined and key in waiting:
                del waiting[key]
                answered_at[key] = index
            elif key in answered_at:
                problems.append(
                    Problem(
                        where, TOOL_RESULT_UNMATCHED, f"the call {json_text(call_id)} is already answered at {self._path(answered_at[key])}"
                    )
                )
            else:  # made earlier, later (the order swapped) or nowhere: known at the end
                self.orphans.append((len(problems), where, call_id))
                problems.append(None)  # type: ignore[arg-type]  # a place kept: finish() writes the problem
        if joined:
            self.unit_of.append(self.open_unit)  # type: ignore[arg-type]  # joined: a unit is open
            if item["closes"]:
                self._end(problems)
            return
        if self.stray_ends_unit:
            self._end(problems)
        self.unit_of.append(index)

    def _calls(self, index: int, item: Record, previous: Record | None, problems: list[Problem]) -> None:
        unit_of = self.unit_of
        if self.joins is not None and previous is not None and self.open_unit == unit_of[index - 1] and self.joins(item, previous):
            unit_of.append(self.open_unit)
        else:
            self._close(problems)
            self.open_unit = index
            unit_of.append(index)
        for call_id, call_at in item["calls"]:
            if self.duplicates:
                duplicate = duplicate_call(self.call_sites, call_id, call_at)
                if duplicate is not None:
                    problems.append(duplicate)
                    continue
            key = identity_key(call_id)
            self.made_at.setdefault(key, index)
            self.waiting[key] = call_at

    def finish(self, problems: list[Problem]) -> None:
        """The calls still unanswered, and each orphaned result said where its call is, if anywhere.
        The open unit stays open: an item appended later may still join it (``joins``)."""
        self._close(problems)
        for position, where, call_id in self.orphans:
            key = identity_key(call_id)
            if key in self.made_at:
                problems[position] = Problem(
                    where,
                    TOOL_RESULT_MISPLACED,
                    f"answers the call {json_text(call_id)} made at {self._path(self.made_at[key])}, but a tool result must directly follow the assistant message that made the call",
                )
            else:
                problems[position] = Problem(
                    where, TOOL_RESULT_UNMATCHED, f"no assistant message made a tool call with id {json_text(call_id)}"
                )
        self.orphans = []


def pair(
    items: Sequence[Record | None],
    items_key: str,
    problems: list[Problem],
    joins: Callable[[Record, Record], bool] | None = None,
    **options: bool,
) -> list[int]:
    """Each item's unit, every item fed at once."""
    pairing = ToolPairing(items_key, joins, **options)
    pairing.feed(items, 0, problems)
    pairing.finish(problems)
    return pairing.unit_of
