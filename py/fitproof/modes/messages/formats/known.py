"""Histories of the Anthropic and Responses formats remembered across calls, as ``memory.py`` does
for the chat format: a call whose items start with a remembered history reads only the items it
appends (their validation and their costs); the pairing and the rule run over the whole history
again. A remembered history is a copy (lists and objects copied, strings shared; a number or a
boolean equals only its own type; a tool use's ``input`` and a call's JSON compared with their key
order, since they are counted as JSON text). Only valid histories, only the package's own
tokenizers; the report's checks never read it. Bounded (``memory.Bounded``): ``MAX_HISTORIES``
histories, ``MAX_ITEMS`` items and ``MAX_CHARS`` characters of text in all, the oldest let go first.
"""

from __future__ import annotations

from ..memory import Bounded, _frozen, frozen_value

MAX_HISTORIES = 16
MAX_ITEMS = 200_000
MAX_CHARS = 32_000_000
ORDERED = frozenset(("input", "input_schema", "arguments"))


def _freeze(value: object, chars: list[int]) -> object:
    if isinstance(value, dict):
        return {key: (frozen_value(item, True, chars) if key in ORDERED else _freeze(item, chars)) for key, item in value.items()}
    if isinstance(value, list):
        return [_freeze(item, chars) for item in value]
    return _frozen(value, False, chars)


class Known:
    __slots__ = ("key", "snapshot", "records", "costs", "grouping", "chars")

    def __init__(self, key: tuple, snapshot: list, records: list, costs: list, grouping: object, chars: int) -> None:
        self.key, self.snapshot, self.records, self.costs, self.grouping, self.chars = key, snapshot, records, costs, grouping, chars


def remembered(key: tuple, items: list, records: list, costs: list, grouping: object, known: Known | None) -> Known:
    """The history as it is now, to keep instead of ``known`` (the one it extends): only the appended items copied."""
    chars = [0]
    appended = [_freeze(item, chars) for item in items[len(known.snapshot) if known else 0 :]]
    return Known(key, (known.snapshot if known else []) + appended, records, costs, grouping, (known.chars if known else 0) + chars[0])


HISTORIES: Bounded[Known] = Bounded(MAX_HISTORIES, MAX_ITEMS, MAX_CHARS)
