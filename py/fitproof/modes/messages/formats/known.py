"""Histories of the Anthropic and Responses formats remembered across calls, as ``memory.py`` does
for the chat format: a call whose items start with a remembered history reads only the items it
appends (their validation and their costs); the pairing and the rule run over the whole history
again. A remembered history is a copy (lists and objects copied, strings shared; a number or a
boolean equals only its own type; a tool use's ``input`` and a call's JSON compared with their key
order, since they are counted as JSON text). Only valid histories, only the package's own
tokenizers; the report's checks never read it. Bounded: ``MAX_HISTORIES`` histories and
``MAX_ITEMS`` items in all, the oldest let go first.
"""

from __future__ import annotations

import threading

from ..memory import _frozen

MAX_HISTORIES = 16
MAX_ITEMS = 200_000
MAX_CHARS = 32_000_000
ORDERED = frozenset(("input", "input_schema", "arguments"))


def _freeze(value: object, chars: list[int]) -> object:
    if isinstance(value, dict):
        return {key: (_frozen(item, True, chars) if key in ORDERED else _freeze(item, chars)) for key, item in value.items()}
    if isinstance(value, list):
        return [_freeze(item, chars) for item in value]
    return _frozen(value, False, chars)


class Known:
    __slots__ = ("key", "snapshot", "records", "costs", "grouping", "chars")

    def __init__(self, key: tuple, snapshot: list, records: list, costs: list, grouping: object, chars: int) -> None:
        self.key, self.snapshot, self.records, self.costs, self.grouping, self.chars = key, snapshot, records, costs, grouping, chars


class Histories:
    def __init__(self) -> None:
        self._known: tuple[Known, ...] = ()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._known = ()

    def find(self, key: tuple, items: list) -> Known | None:
        best = None
        for known in self._known:
            size = len(known.snapshot)
            if known.key == key and size <= len(items) and (best is None or size > len(best.snapshot)) and items[:size] == known.snapshot:
                best = known
        return best

    def keep(self, key: tuple, items: list, records: list, costs: list, grouping: object, known: Known | None) -> None:
        first = len(known.snapshot) if known else 0
        chars = [0]
        appended = [_freeze(item, chars) for item in items[first:]]
        total = (known.chars if known else 0) + chars[0]
        if len(items) > MAX_ITEMS or total > MAX_CHARS:
            return
        remembered = Known(key, (known.snapshot if known else []) + appended, records, costs, grouping, total)
        with self._lock:
            kept = [other for other in self._known if other is not known] + [remembered]
            while len(kept) > MAX_HISTORIES or sum(len(other.snapshot) for other in kept) > MAX_ITEMS \
                    or sum(other.chars for other in kept) > MAX_CHARS:
                kept.pop(0)
            self._known = tuple(kept)


HISTORIES = Histories()
