"""BPE's merges: a tokenizer.json's ``merges`` read and checked as ``tokenizers`` checks them, the
merge map made from them pair by pair as BPE asks (``MergeRanks``), and BPE on token ids by that map.
"""

from __future__ import annotations

import heapq
import operator
from bisect import bisect_left, bisect_right
from itertools import repeat

from .._base.errors import TokenizerFileError

HEAP_FROM = 96  # symbols; below this, the scan (quadratic, but tiny) is faster than the heap in Python


def merge_ids(ranks, size: int, ids: list[int]) -> list[int]:
    """BPE on token ids: the pair of the lowest rank merged first, the leftmost of equal ones, until
    no pair has a rank. ``ranks`` maps ``left * size + right`` to ``rank * size + merged id`` (or
    ``NO_MERGE``). ``ids`` is changed in place.

    The same loop as ``exact.merge`` on purpose, not a copy to fold: a tokenizer.json ranks each
    *pair* (two merges can make one token at different ranks), a rank file ranks the merged
    *bytes*, so neither can run the other's files; and ``exact.merge`` on bytes is the faster for a
    rank file (o200k_base, 48,000 distinct pieces: 0.31 s against 0.39 s through ids and a pair map;
    "a" * 100,000: 0.33 s against 0.51 s), while ids are what a pair-ranked merge map needs."""
    if len(ids) >= HEAP_FROM:
        return merge_ids_with_heap(ranks, size, ids)
    pairs = [ranks[ids[i] * size + ids[i + 1]] for i in range(len(ids) - 1)]
    while pairs:
        best = min(pairs)
        if best == NO_MERGE:
            break
        i = pairs.index(best)  # leftmost of the lowest rank
        ids[i] = best % size
        del ids[i + 1]
        del pairs[i]
        if i < len(pairs):
            pairs[i] = ranks[ids[i] * size + ids[i + 1]]
        if i:
            pairs[i - 1] = ranks[ids[i - 1] * size + ids[i]]
    return ids


def merge_ids_with_heap(ranks, size: int, ids: list[int]) -> list[int]:
    """The same rule in O(n log n): candidates (rank, position) in a heap, stale ones skipped.

    An entry is current when its position still starts a symbol and the pair there is still the
    one it was made for (the pair's rank names it). Entries are packed into one integer, which
    orders as (rank, position) would.
    """
    n = len(ids)
    span = n + 1
    following = list(range(1, n + 1))
    preceding = list(range(-1, n - 1))
    alive = bytearray(b"\x01") * n
    heap = []
    for i in range(n - 1):
        value = ranks[ids[i] * size + ids[i + 1]]
        if value != NO_MERGE:
            heap.append(value * span + i)
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        value, i = divmod(pop(heap), span)
        if not alive[i]:
            continue
        j = following[i]
        if j >= n or ranks[ids[i] * size + ids[j]] != value:
            continue
        ids[i] = value % size
        alive[j] = 0
        after = following[j]
        following[i] = after
        if after < n:
            preceding[after] = i
            found = ranks[ids[i] * size + ids[after]]
            if found != NO_MERGE:
                push(heap, found * span + i)
        before = preceding[i]
        if before >= 0:
            found = ranks[ids[before] * size + ids[i]]
            if found != NO_MERGE:
                push(heap, found * span + before)
    return [ids[i] for i in range(n) if alive[i]]


NO_MERGE = 1 << 62  # MergeRanks' value for a pair that is not a merge: above every real value


class MergeRanks(dict):
    """(left id * size + right id) -> rank * size + merged id, or ``NO_MERGE``: ``tokenizers``' merge
    map, each pair's entry made the first time it is asked for (a dict lookup afterwards).

    A pair (x, y) can only be a merge of the token whose text is x's then y's, and among that
    token's merges the length of x's text names it; the merges are kept as two lists (the merged
    id, the left part's length) ordered by merged id, so the entry is found by bisecting for that
    token and reading its few merges. A dict of every pair made up front cost
    GPT-OSS's load ~0.2 s and tens of MB more. Entries seen are kept up to ``LIMIT`` (then the table
    starts again): pieces repeat, so few pairs are ever asked for.
    """

    LIMIT = 1 << 16

    def __init__(self, vocab: dict[str, int], texts: dict[int, str], size: int, splits: list[int], merged: list[int]):
        super().__init__()
        self.vocab, self.texts, self.size = vocab, texts, size
        self.ranks = None  # position -> rank, or None: the position is the rank
        if not all(map(operator.le, merged, merged[1:])):  # not in merged-id order: sort them so
            ranks = sorted(range(len(merged)), key=merged.__getitem__)  # stable: ranks rise within a token
            reorder = operator.itemgetter(*ranks)  # (two or more: a single merge is in order)
            splits, merged = list(reorder(splits)), list(reorder(merged))
            self.ranks = ranks
        self.splits, self.merged = splits, merged

    def __missing__(self, key: int) -> int:
        size, texts = self.size, self.texts
        left, right = divmod(key, size)
        value = NO_MERGE
        if left in texts and right in texts:
            head = texts[left]
            token = self.vocab.get(head + texts[right])
            if token is not None:
                merged, splits, split = self.merged, self.splits, len(head)
                start = bisect_left(merged, token)
                for position in range(start, bisect_right(merged, token, start)):
                    if splits[position] == split:  # the last (highest) rank wins
                        value = (position if self.ranks is None else self.ranks[position]) * size + token
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        return value

    def __contains__(self, key) -> bool:
        return self[key] != NO_MERGE

    def get(self, key, default=None):
        value = self[key]
        return default if value == NO_MERGE else value


class EveryPair(MergeRanks):
    """The same map made whole up front: for a vocabulary where two texts share an id (no text then
    names a pair's id)."""

    def __init__(self, size: int, lefts: list[int], rights: list[int], merged: list[int]):
        dict.__init__(self)
        keys = map(operator.add, map(operator.mul, lefts, repeat(size)), rights)
        self.update(zip(keys, map(operator.add, map(operator.mul, range(len(merged)), repeat(size)), merged)))

    def __missing__(self, key: int) -> int:
        return NO_MERGE


class MergePairs:
    """A file's merges, ``[left, right]`` pairs, kept as the two lists of their parts (what
    ``files.read_json`` reads a pretty-printed file's merges into); a pair is made when asked for."""

    def __init__(self, lefts: list[str], rights: list[str]):
        self.lefts, self.rights = lefts, rights

    def __len__(self) -> int:
        return len(self.lefts)

    def __getitem__(self, index: int) -> list[str]:
        return [self.lefts[index], self.rights[index]]

    def __iter__(self):
        return map(list, zip(self.lefts, self.rights))


def merge_sides(merges: list | MergePairs, where: str) -> tuple[list, list]:
    """The left and the right parts of every merge (``"left right"`` or ``["left", "right"]``)."""
    if isinstance(merges, MergePairs):
        return merges.lefts, merges.rights
    if not merges:
        return [], []
    if set(map(type, merges)) <= {str} and set(map(str.count, merges, repeat(" "))) <= {1}:
        flat = " ".join(merges).split(" ")  # "left right", one space each: left, right, left, right...
        lefts, rights = flat[0::2], flat[1::2]
    elif all(isinstance(merge, str) and " " in merge for merge in merges):  # more spaces: cut at the first
        lefts = [merge[: merge.index(" ")] for merge in merges]
        rights = [merge[merge.index(" ") + 1 :] for merge in merges]
    else:  # ["left", "right"], checked with C-level maps too (a Python loop cost GPT-OSS ~0.6 s)
        well_formed = set(map(type, merges)) <= {list} and set(map(len, merges)) <= {2}
        if not well_formed:
            _check_pairs(merges, where)
        lefts = list(map(operator.itemgetter(0), merges))
        rights = list(map(operator.itemgetter(1), merges))
    return lefts, rights


def merge_parts(lefts: list, rights: list) -> set[str] | None:
    """The distinct texts the merges are made of, or None when one of them is not a text."""
    try:
        parts = set(lefts)
        parts.update(rights)
    except TypeError:  # a part that is a list (a merge written wrong): pair_ranks names it
        return None
    return parts


def pair_ranks(
    vocab: dict[str, int],
    merges: list | MergePairs,
    size: int,
    where: str,
    sides: tuple[list, list] | None = None,
    parts: set[str] | None = None,
) -> MergeRanks:
    """The merge map of ``tokenizers`` (a pair listed twice keeps its last rank, as its map does),
    every merge checked as it checks them: both tokens and their concatenation are in the
    vocabulary. With C-level maps only, and one lookup per merge (its concatenation): the parts are
    checked as a set of distinct texts, and a merge is kept as its merged id and the length of its
    left part, which names the pair (GPT-OSS's 446,189 merges, Gemma 3's 514,906: ~0.2 s each)."""
    if not merges:
        return EveryPair(size, [], [], [])
    lefts, rights = sides if sides is not None else merge_sides(merges, where)
    if parts is None:
        parts = merge_parts(lefts, rights)
    try:
        new = list(map(vocab.__getitem__, map(operator.add, lefts, rights)))
        known = parts is not None and vocab.keys() >= parts
    except (KeyError, TypeError):  # a concatenation not in the vocabulary; a part not a string
        known = False
    if not known:
        if not isinstance(merges[0], str):
            _check_pairs(merges, where)
        rank = next(
            i for i, (left, right) in enumerate(zip(lefts, rights)) if left not in vocab or right not in vocab or left + right not in vocab
        )
        raise TokenizerFileError(f"{where}: model.merges[{rank}] ({lefts[rank]!r} {rights[rank]!r}) names a token not in the vocabulary")
    texts = dict(zip(vocab.values(), vocab))
    if len(texts) < len(vocab):
        get = vocab.__getitem__
        return EveryPair(size, list(map(get, lefts)), list(map(get, rights)), new)
    return MergeRanks(vocab, texts, size, list(map(len, lefts)), new)


def _check_pairs(merges: list | MergePairs, where: str) -> None:
    for rank, pair in enumerate(merges):
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(part, str) for part in pair):
            raise TokenizerFileError(f"{where}: model.merges[{rank}] is {merges[rank]!r}, not a pair of tokens")
