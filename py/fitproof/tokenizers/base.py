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
from .piece_index import SHORT, PieceIndex

MAX_FILE_BYTES = 256 * 1024 * 1024  # a tokenizer file larger than this is refused (not read whole)

__all__ = ["MAX_FILE_BYTES", "MAX_TOKEN_ID", "AddedTokens", "Tokenizer", "TokenizerFileError", "read_flag", "read_token_id", "short"]


class AddedTokens:
    """Leftmost-longest matching of many literal texts (added tokens, user-defined pieces), as
    ``tokenizers``' Aho-Corasick does. A position is a candidate when its character starts some text
    (one character class searched at C speed); from there the text is extended while it is a prefix
    of some text (a set of prefixes, not a regex alternation: Gemma has 6,415 added tokens, and
    ``re`` would try each at every candidate and take seconds to compile them).

    The prefixes and the longer texts' heads are a ``piece_index.PieceIndex`` (memory linear in the
    texts: one text of 60,000 characters costs its length, not every prefix of it, 1.8 GB). Up to
    ``ALTERNATION_UP_TO`` texts (a byte-level model's few hundred, harmony's 1,088) the same rule
    runs as a regex alternation, longest first, which ``re`` searches faster than the walk on text
    full of their first characters (HTML's ``<``); the walk is for Gemma's thousands, and both give
    the same parts."""

    ALTERNATION_UP_TO = 2048
    SHORT = SHORT

    def __init__(self, texts: Iterable[str], where: str = "<tokenizer>"):
        self.texts = frozenset(texts)
        self.pattern: re.Pattern | None = None
        self.index: PieceIndex | None = None
        if len(self.texts) <= self.ALTERNATION_UP_TO:
            if self.texts:
                self.pattern = re.compile("|".join(map(re.escape, sorted(self.texts, key=lambda t: (-len(t), t)))))
        else:
            self.index = PieceIndex(self.texts, where, "the added tokens", self.SHORT)
        firsts = sorted({text[0] for text in self.texts})
        self.first = re.compile("[" + "".join(map(_class_escape, firsts)) + "]") if firsts else None

    def split(self, text: str) -> list[tuple[str, bool]]:
        """``text`` as (part, is an added token), in order."""
        if self.first is None or not text:
            return [(text, False)] if text else []
        if self.index is None:  # (a text with none of their first characters, most, is not searched with it)
            assert self.pattern is not None  # (texts there are: their first characters are)
            return self._split_by_pattern(text, self.pattern) if self.first.search(text) else [(text, False)]
        search, texts, prefixes, longer, short = self.first.search, self.texts, self.index.prefixes, self.index.longer, self.SHORT
        n = len(text)
        parts = []
        done = position = 0
        while True:
            match = search(text, position)
            if match is None:
                break
            start = match.start()
            end = start + 1
            found = -1
            limit = min(n, start + short)
            while end <= limit:
                piece = text[start:end]
                if piece in texts:
                    found = end
                if piece not in prefixes:
                    break
                end += 1
            else:  # SHORT characters, all a prefix: a longer text may start here
                if limit == start + short:
                    ends = longer(text, start, texts)
                    if ends:
                        found = ends[-1]
            if found < 0:
                position = start + 1
                continue
            if start > done:
                parts.append((text[done:start], False))
            parts.append((text[start:found], True))
            done = position = found
        if done < n:
            parts.append((text[done:], False))
        return parts

    @staticmethod
    def _split_by_pattern(text: str, pattern: re.Pattern) -> list[tuple[str, bool]]:
        parts = []
        done = 0
        for match in pattern.finditer(text):
            if match.start() > done:
                parts.append((text[done : match.start()], False))
            parts.append((match.group(0), True))
            done = match.end()
        if done < len(text):
            parts.append((text[done:], False))
        return parts


def _class_escape(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


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
    _text_specials: AddedTokens
    _prompt_specials: AddedTokens

    def _read_added(self, added, where: str) -> None:
        """A tokenizer.json's ``added_tokens``: ``added`` (their texts), the matchers of those looked
        for before normalization and after it, and each one's id."""
        if added is None:
            added = []
        if not isinstance(added, list):
            raise TokenizerFileError(f"{where}: $.added_tokens is {short(added)}, not a list")
        raw: list[str] = []
        normalized: list[str] = []
        self._added_ids: dict[str, int] = {}
        for index, token in enumerate(added):
            at = f"$.added_tokens[{index}]"
            if not isinstance(token, dict) or not isinstance(token.get("content"), str) or not token["content"]:
                raise TokenizerFileError(f"{where}: {at} has no content")
            for flag in ("lstrip", "rstrip", "single_word"):
                if read_flag(token, flag, False, where, at):
                    raise TokenizerFileError(f"{where}: {at}.{flag} is set ({short(token['content'])}), not supported")
            special = read_flag(token, "special", False, where, at)
            (normalized if read_flag(token, "normalized", not special, where, at) else raw).append(token["content"])
            self._added_ids[token["content"]] = read_token_id(token.get("id"), where, f"{at}.id")
        self.added = raw + normalized
        self._raw_specials = AddedTokens(raw, where)
        self._normalized_specials = AddedTokens(normalized, where)

    def _count_piece(self, piece: str) -> int:
        counts = self._counts
        known = counts.get(piece)
        if known is None:
            known = self._remember(piece, self._piece_count(piece.encode("utf-8")))
        return known

    def _remember(self, piece: str, known: int) -> int:
        """``known``, kept as ``piece``'s count when the piece is short (``CACHE_LIMIT`` of them at most)."""
        if len(piece) <= self.CACHED_LENGTH:
            counts = self._counts
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


def short(value) -> str:
    """``repr(value)``, cut to 60 characters: a file's bad value named in an error (a value nested
    too deep for ``repr``, by its type)."""
    try:
        text = repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deep to show"
    return text if len(text) <= 60 else text[:57] + "..."


MAX_TOKEN_ID = (1 << 32) - 1  # as tokenizers (its ids are u32): the merge map's packed values need ids this small


def read_flag(node: dict, key: str, default: bool, where: str, at: str) -> bool:
    """``node[key]``, which must be true or false (absent or null: ``default``)."""
    value = node.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise TokenizerFileError(f"{where}: {at}.{key} is {short(value)}, not true or false")
    return value


def read_token_id(value, where: str, at: str) -> int:
    """A token id: a whole number from 0 to ``MAX_TOKEN_ID``."""
    if type(value) is not int or not 0 <= value <= MAX_TOKEN_ID:
        raise TokenizerFileError(f"{where}: {at} is {short(value)}, not a token id (a whole number from 0 to {MAX_TOKEN_ID:,})")
    return value
