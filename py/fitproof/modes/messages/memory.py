"""Histories remembered across calls: a chat application sends the same history again with a turn
or two appended, so what was read of it (each message's validation, its cost, the pairing of tool
calls) is kept, and a call that extends a remembered history reads only the messages it appends.

A remembered history is a copy of the messages as they were (their lists and objects copied; the
strings, which cannot change, shared), compared with the call's first messages at the speed of
Python's own ``==``: a message changed in place, replaced or removed no longer matches, and the
history is read afresh. The comparison is exact where the result depends on it: a number or a
boolean matches only a value of the same type (``True`` is not ``1``), and inside ``tool_calls``,
``function_call`` and ``audio`` (counted as their JSON text) the keys must come in the same order.

Bounded (``Bounded``, the mode's one kind of bounded memory): at most ``MAX_HISTORIES`` histories, ``MAX_MESSAGES`` messages and ``MAX_CHARS`` characters
of text in all (the oldest let go first). Only histories that were valid are kept, only for this package's own tokenizers (never
a caller's ``token_counter``), and the report's checks never read them. Thread-safe: a remembered
history is never changed once kept; the list of them changes under a lock.
"""

from __future__ import annotations

import threading
from typing import Any, Generic, Iterator, Protocol, Sequence, TypeVar

MAX_HISTORIES = 16
MAX_MESSAGES = 200_000
MAX_CHARS = 32_000_000  # the text the copies hold (shared with the caller's history while it keeps it)
ORDERED = frozenset(("tool_calls", "function_call", "audio"))


class Entry(Protocol):
    """What a bounded memory reads of an entry: its key, its copy of the items, the characters it holds."""

    @property
    def key(self) -> object: ...

    @property
    def snapshot(self) -> Sequence[object]: ...

    @property
    def chars(self) -> int: ...


E = TypeVar("E", bound=Entry)


class _Same:
    """A number or boolean that equals only a value of its own type."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self.value) and other == self.value

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]


class _InOrder(dict):
    """An object that equals only an object with the same keys in the same order."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dict) and len(other) == len(self) and list(self.items()) == list(other.items())

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]


def _frozen(value: object, ordered: bool, chars: list[int]) -> object:
    if isinstance(value, str):
        chars[0] += len(value)
        return value
    if value is None:
        return value
    if isinstance(value, list):
        return [_frozen(item, ordered, chars) for item in value]
    if isinstance(value, dict):
        copied = {key: _frozen(item, ordered, chars) for key, item in value.items()}
        return _InOrder(copied) if ordered else copied
    return _Same(value)


def _frozen_deep(value: object, ordered: bool, chars: list[int]) -> object:
    """``_frozen`` without recursion, for a value nested deeper than the recursion allows (a tool's
    input may nest 512 levels deep, as JSON text may): slots are made first, then filled."""
    holder: list[object] = [None]
    stack: list[tuple[object, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, target, slot = stack.pop()
        if isinstance(item, list):
            copy: Any = [None] * len(item)
            stack.extend((inner, copy, index) for index, inner in enumerate(item))
        elif isinstance(item, dict):
            copy = (_InOrder if ordered else dict).fromkeys(item)
            stack.extend((inner, copy, key) for key, inner in item.items())
        else:
            copy = _frozen(item, ordered, chars)  # a string, null, a number or a boolean: no recursion
        target[slot] = copy
    return holder[0]


def frozen_value(value: object, ordered: bool, chars: list[int]) -> object:
    """``value`` as it is compared on the next call, its text's characters added to ``chars``: by
    recursion (the fast way), or with a stack when it nests deeper than the recursion allows."""
    counted = chars[0]
    try:
        return _frozen(value, ordered, chars)
    except RecursionError:
        chars[0] = counted
        return _frozen_deep(value, ordered, chars)


def frozen(messages: list[dict]) -> tuple[list[dict], int]:
    """What the messages are compared with on the next call, and the characters of text they hold."""
    chars = [0]
    return [{key: frozen_value(value, key in ORDERED, chars) for key, value in message.items()} for message in messages], chars[0]


def _same(items: list, snapshot: Sequence[object]) -> bool:
    """``items == snapshot``; a value nested deeper than the comparison's recursion allows is taken
    as a difference (the history is then read afresh: slower, never wrong)."""
    try:
        return items == snapshot
    except RecursionError:
        return False


class Bounded(Generic[E]):
    """The newest entries, bounded: at most ``max_entries``, and with ``max_items`` and ``max_chars``
    at most that many items (the entries' ``snapshot`` lengths) and characters (their ``chars``) in
    all, the oldest let go first; an entry over a bound alone is not kept. Thread-safe: an entry is
    never changed once kept, and the tuple of them is replaced under a lock. Every memory of the mode
    is one: the histories of each format, ``reuse.py``'s digests, ``stable.py``'s last calls."""

    def __init__(self, max_entries: int, max_items: int | None = None, max_chars: int | None = None) -> None:
        self.max_entries, self.max_items, self.max_chars = max_entries, max_items, max_chars
        self._known: tuple[E, ...] = ()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._known)

    def __iter__(self) -> Iterator[E]:
        return iter(self._known)

    def clear(self) -> None:
        with self._lock:
            self._known = ()

    def _over(self, entries: Sequence[E]) -> bool:
        return (
            len(entries) > self.max_entries
            or (self.max_items is not None and sum(len(entry.snapshot) for entry in entries) > self.max_items)
            or (self.max_chars is not None and sum(entry.chars for entry in entries) > self.max_chars)
        )

    def find(self, items: list, key: object = None) -> E | None:
        """The entry with the longest snapshot that ``items`` starts with (its ``key`` equal to ``key``)."""
        best, best_size = None, -1
        for known in self._known:
            size = len(known.snapshot)
            if size <= len(items) and size > best_size and known.key == key and _same(items[:size], known.snapshot):
                best, best_size = known, size
        return best

    def keep(self, entry: E, replaces: E | None = None) -> None:
        """``entry`` kept as the newest, instead of ``replaces`` (the entry it extends)."""
        if self._over((entry,)):
            return
        with self._lock:
            kept = [other for other in self._known if other is not replaces] + [entry]
            while self._over(kept):
                kept.pop(0)
            self._known = tuple(kept)


class Known:
    """A valid history as it was read: its copy, and what was read of each message."""

    __slots__ = (
        "tokenizer",
        "snapshot",
        "records",
        "pairing",
        "call_sites",
        "costs",
        "images",
        "last_user",
        "roles",
        "pinned",
        "flat",
        "chars",
    )

    def __init__(
        self,
        tokenizer: str,
        snapshot: list,
        records: list,
        pairing: object,
        call_sites: dict,
        costs: list[int],
        images: list[dict],
        last_user: int | None,
        roles: list[str],
        pinned: list[bool],
        flat: list[bool],
    ) -> None:
        self.tokenizer, self.snapshot, self.records, self.pairing = tokenizer, snapshot, records, pairing
        self.call_sites, self.costs, self.images, self.last_user = call_sites, costs, images, last_user
        self.roles, self.pinned, self.flat = roles, pinned, flat
        self.chars = 0

    @property
    def key(self) -> str:
        return self.tokenizer


def Histories(max_histories: int = MAX_HISTORIES, max_messages: int = MAX_MESSAGES, max_chars: int = MAX_CHARS) -> Bounded[Known]:
    """A memory of chat histories, by tokenizer (``Known.key``)."""
    return Bounded(max_histories, max_messages, max_chars)


# The process's one memory of histories (each batch worker process has its own).
HISTORIES = Histories()
