"""Token counts remembered across calls, in bounded memory.

A chat application trims its history before every model call, and each call's history is the
last one plus a turn or two: counting every text again makes each call cost the whole history.
``COUNTS`` remembers the count of each text already counted, keyed by ``(tokenizer, text)``, so
a call counts only the texts it has not seen.

Bounded: two generations of at most ``max_chars`` characters (and ``max_entries`` texts) each.
New counts go into the young generation; a text found in the old one moves to the young one;
when the young one is full it becomes the old one and the oldest is let go. So the memory holds
at most ``2 * max_chars`` characters of text (16 million by default, the texts themselves
usually shared with the caller's own history), and a text used on every call stays.

Results never change: a count is a pure function of the tokenizer and the text, so a count
remembered is the count a new count would give. Only this package's own tokenizers are
remembered, never a caller's ``token_counter`` (it may count differently from one call to the next).
Thread-safe: each step is one dictionary operation, and a generation change happens under a
lock; a race can at worst count a text twice. The report's checks never read this memory:
they re-count with the tokenizer itself.
"""

from __future__ import annotations

import threading
from typing import Callable

Counter = Callable[[str], int]


class CountMemory:
    def __init__(self, max_chars: int = 8_000_000, max_entries: int = 200_000) -> None:
        self.max_chars, self.max_entries = max_chars, max_entries
        self._young: dict[tuple[str, str], int] = {}
        self._old: dict[tuple[str, str], int] = {}
        self._young_chars = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def clear(self) -> None:
        with self._lock:
            self._young, self._old, self._young_chars = {}, {}, 0

    def get(self, tokenizer: str, text: str) -> int | None:
        key = (tokenizer, text)
        tokens = self._young.get(key)
        if tokens is None:
            tokens = self._old.get(key)
            if tokens is not None:
                self._remember(key, tokens)
        return tokens

    def put(self, tokenizer: str, text: str, tokens: int) -> None:
        self._remember((tokenizer, text), tokens)

    def _remember(self, key: tuple[str, str], tokens: int) -> None:
        size = len(key[1])
        if size > self.max_chars:
            return  # larger than a generation: counting it again is the only bounded choice
        if self._young_chars + size > self.max_chars or len(self._young) >= self.max_entries:
            with self._lock:
                if self._young_chars + size > self.max_chars or len(self._young) >= self.max_entries:
                    self._old, self._young, self._young_chars = self._young, {}, 0
        self._young[key] = tokens
        self._young_chars += size

    def counter(self, tokenizer: str, count: Counter) -> Counter:
        """``count`` for ``tokenizer`` (a name), through this memory."""
        young_get = self._young.get

        def remembered(text: str) -> int:
            tokens = young_get((tokenizer, text))  # the young generation of when the call began: a fast first look
            if tokens is None:
                tokens = self.get(tokenizer, text)
                if tokens is None:
                    tokens = count(text)
                    self._remember((tokenizer, text), tokens)
            return tokens

        return remembered


# The process's one memory: every call of evaluate, trim_messages and count_messages, and each
# batch worker process (long-lived: its lines share it).
COUNTS = CountMemory()
