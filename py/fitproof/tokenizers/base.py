"""What every tokenizer read from a model's files shares: the ``Tokenizer`` base class and the
matcher that cuts added (special) tokens out of a text.

Every tokenizer has ``count(text)``, ``count_prompt(text)`` (a rendered chat prompt: the
special/control tokens' text is those tokens, for tekken too) and ``tokens(text)`` (each token's
bytes). ``sha256`` is the digest of the file it was read from, for reports to record. The kinds:
``byte_level_json`` (a tokenizer.json's byte-level BPE), ``sentencepiece_json`` (a tokenizer.json's
SentencePiece BPE or Unigram), ``sentencepiece_model_file`` (a ``.model`` file), ``tekken`` and
``rank_tokenizer`` (a rank file: tekken, ``o200k_harmony``).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from .._base.errors import TokenizerFileError
from . import exact

MAX_FILE_BYTES = 256 * 1024 * 1024  # a tokenizer file larger than this is refused (not read whole)

__all__ = ["MAX_FILE_BYTES", "Tokenizer", "TokenizerFileError"]


class _Special:
    """Cuts out special tokens, leftmost-longest (a regex alternation, longest first)."""

    def __init__(self, texts: Iterable[str]):
        texts = sorted(set(texts), key=lambda t: (-len(t), t))
        self.pattern = re.compile("|".join(map(re.escape, texts))) if texts else None
        # Their first characters: a text with none of them (most) is not searched with the long alternation.
        self.first = re.compile("[" + "".join(sorted({re.escape(t[0]) for t in texts})) + "]") if texts else None

    def split(self, text: str) -> list[tuple[str, bool]]:
        # first is None exactly when pattern is (both from texts); no check added on this hot path
        if self.pattern is None or not text or not self.first.search(text):  # type: ignore[union-attr]
            return [(text, False)] if text else []
        parts = []
        done = 0
        for match in self.pattern.finditer(text):
            if match.start() > done:
                parts.append((text[done:match.start()], False))
            parts.append((match.group(0), True))
            done = match.end()
        if done < len(text):
            parts.append((text[done:], False))
        return parts


class Tokenizer:
    """What every loaded tokenizer offers; see the module's docstring."""

    kind = "tokenizer"
    CACHE_LIMIT = 1 << 16
    CACHED_LENGTH = 64

    def __init__(self, name: str, sha256: str, source: str):
        self.name = name
        self.sha256 = sha256
        self.source = source
        self._counts: dict[str, int] = {}  # piece -> its count (bounded)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} ({self.kind}) sha256={self.sha256[:12]}>"

    # subclasses: _ordinary_pieces(text) -> iterable of str, _piece_tokens(bytes) -> list[bytes],
    # _piece_count(bytes) -> int, and the special-token splitters (declared here for the type checker)
    _ordinary_pieces: Callable[[str], Iterable[str]]
    _piece_tokens: Callable[[bytes], list[bytes]]
    _piece_count: Callable[[bytes], int]
    _text_specials: _Special
    _prompt_specials: _Special

    def _count_piece(self, piece: str) -> int:
        counts = self._counts
        known = counts.get(piece)
        if known is None:
            known = self._piece_count(piece.encode("utf-8"))
            if len(piece) <= self.CACHED_LENGTH:
                if len(counts) >= self.CACHE_LIMIT:
                    counts.clear()
                counts[piece] = known
        return known

    def _count_text(self, text: str) -> int:
        count = self._count_piece
        return sum(count(piece) for piece in self._ordinary_pieces(text))

    def _text_tokens(self, text: str) -> list[bytes]:
        result: list[bytes] = []
        for piece in self._ordinary_pieces(text):
            result.extend(self._piece_tokens(piece.encode("utf-8")))
        return result

    def count(self, text: str) -> int:
        text = exact.without_lone_surrogates(text)
        return sum(1 if special else self._count_text(part) for part, special in self._text_specials.split(text))

    def count_prompt(self, text: str) -> int:
        text = exact.without_lone_surrogates(text)
        return sum(1 if special else self._count_text(part) for part, special in self._prompt_specials.split(text))

    def tokens(self, text: str) -> list[bytes]:
        text = exact.without_lone_surrogates(text)
        result: list[bytes] = []
        for part, special in self._text_specials.split(text):
            result.extend([part.encode("utf-8")] if special else self._text_tokens(part))
        return result

