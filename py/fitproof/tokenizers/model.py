"""Exact tokenizers from a model's own files, in the standard library only.

- A Hugging Face ``tokenizer.json`` with a byte-level BPE model (Llama 3, Qwen 3, DeepSeek V3/R1,
  GPT-OSS...): counts equal ``len(tokenizers.Tokenizer.from_file(path).encode(text,
  add_special_tokens=False).ids)``, in this order, as ``tokenizers`` does it:

  1. added tokens (special or not) are cut out first, leftmost-longest, each one token: text such as
     ``<|im_start|>`` in the input *is* that special token, as in ``tokenizers``' default (those whose
     ``normalized`` flag is set are looked for after normalization);
  2. the normalizer (NFC for Qwen 3, on the Unicode 9.0 tables ``tokenizers`` uses: ``normalize.py``);
  3. the pre-tokenizer's ``Split`` patterns, run on the frozen Unicode 16.0 categories (``regex.py``),
     then ``ByteLevel`` (UTF-8 bytes as its 256 characters);
  4. BPE by the rank of each *pair* (the order of ``merges``), lowest first, leftmost on ties; with
     ``ignore_merges`` a piece that is itself in the vocabulary is one token. Long pieces merge
     through a heap (no quadratic piece).

  ``add_special_tokens=False`` because a count is of text, not of one request: no BOS is added (a
  chat template writes its own). Lone surrogates, which ``tokenizers`` cannot receive, count as U+FFFD.
- Mistral's tekken file (``tekken_*.json``): tiktoken-format ranks in JSON; counts equal
  mistral-common's ``Tekkenizer.encode(text, bos=False, eos=False)`` (control-token text is ordinary
  text there, as in tiktoken's ``encode_ordinary``).
- ``o200k_harmony`` (GPT-OSS): o200k_base's ranks and pattern with the harmony special tokens, which
  are matched in the text: tiktoken's ``encode(text, allowed_special="all")``.

Every tokenizer has ``count(text)`` (as above), ``count_prompt(text)`` (a rendered chat prompt: the
special/control tokens' text is those tokens, for tekken too) and ``tokens(text)`` (each token's
bytes). ``sha256`` is the digest of the file it was read from, for reports to record.
"""

from __future__ import annotations

import heapq
import operator
import re
from bisect import bisect_left, bisect_right
from itertools import accumulate, repeat
from typing import Callable, Iterable

from .._base.errors import TokenizerFileError
from . import exact
from .normalize import nfc
from .regex import PatternUnsupported, Patterns

MAX_FILE_BYTES = 256 * 1024 * 1024  # a tokenizer file larger than this is refused (not read whole)
HEAP_FROM = 96
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def _byte_alphabet() -> dict[str, int]:
    """GPT-2's ``bytes_to_unicode``: the character ``ByteLevel`` writes for each byte."""
    printable = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = printable[:]
    shown = set(printable)
    extra = 0
    for byte in range(256):
        if byte not in shown:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars)}


BYTE_OF_CHAR = _byte_alphabet()
CHAR_OF_BYTE = {b: c for c, b in BYTE_OF_CHAR.items()}
_UNBYTE = str.maketrans({c: chr(b) for c, b in BYTE_OF_CHAR.items()})
_LEVEL = str.maketrans({chr(b): c for c, b in BYTE_OF_CHAR.items()})  # latin-1 text of bytes -> byte-level text
_BYTE_LEVEL_CHARS = frozenset(BYTE_OF_CHAR)


def _level_bytes(token: str) -> bytes | None:
    """The bytes a byte-level token string stands for (None: not a byte-level string)."""
    if not _BYTE_LEVEL_CHARS.issuperset(token):
        return None
    return token.translate(_UNBYTE).encode("latin-1")


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


class BPETokenizer(Tokenizer):
    """A Hugging Face ``tokenizer.json`` with a byte-level BPE model."""

    kind = "tokenizer.json (byte-level BPE)"
    chat_template: str | None  # set on a GGUF file's tokenizer only (gguf.py)

    def __init__(self, data: dict, name: str, sha256: str, source: str):
        super().__init__(name, sha256, source)
        where = f"{source}"
        model = data.get("model")
        if not isinstance(model, dict):
            raise TokenizerFileError(f"{where}: no \"model\" object, not a Hugging Face tokenizer.json")
        kind = model.get("type", "BPE" if "merges" in model else None)
        if kind != "BPE":
            raise TokenizerFileError(f"{where}: model type {kind!r} is not supported (only byte-level BPE is; "
                                     f"Unigram and WordPiece tokenizers are refused, not approximated)")
        for key, allowed in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                             ("end_of_word_suffix", (None, ""))):
            if model.get(key) not in allowed:
                raise TokenizerFileError(f"{where}: model.{key} = {model.get(key)!r} is not supported")
        self.ignore_merges = bool(model.get("ignore_merges", False))
        self._read_normalizer(data.get("normalizer"), where)
        self._read_pre_tokenizer(data.get("pre_tokenizer"), where)
        self._read_vocabulary(model, where)
        self._read_added(data.get("added_tokens") or [], where)

    # --- the file's parts ---

    def _read_normalizer(self, spec, where: str) -> None:
        steps: list[Callable[[str], str]] = []

        def walk(node):
            if node is None:
                return
            kind = node.get("type") if isinstance(node, dict) else None
            if kind == "Sequence":
                for inner in node.get("normalizers", []):
                    walk(inner)
            elif kind == "NFC":
                steps.append(nfc)
            else:
                raise TokenizerFileError(f"{where}: normalizer {kind!r} is not supported (NFC and Sequence are)")

        walk(spec)
        self.normalize = (lambda text, steps=steps: _apply(steps, text)) if steps else None

    def _read_pre_tokenizer(self, spec, where: str) -> None:
        splits: list[tuple[str, str]] = []  # (pattern source, behavior)
        byte_level: list[dict] = []

        def literal_pattern(text: str) -> str:
            return "".join(f"\\x{{{ord(c):X}}}" for c in text)

        def walk(node):
            kind = node.get("type") if isinstance(node, dict) else None
            if kind == "Sequence":
                for inner in node.get("pretokenizers", []):
                    walk(inner)
            elif kind == "Split":
                if byte_level:
                    raise TokenizerFileError(f"{where}: a Split after ByteLevel is not supported")
                pattern = node.get("pattern") or {}
                if "Regex" in pattern:
                    source = pattern["Regex"]
                elif "String" in pattern:
                    source = literal_pattern(pattern["String"])
                else:
                    raise TokenizerFileError(f"{where}: a Split without a pattern")
                behavior = node.get("behavior", "Isolated")
                if behavior not in ("Isolated", "Removed") or node.get("invert"):
                    raise TokenizerFileError(f"{where}: Split behavior {behavior!r}"
                                             f"{' inverted' if node.get('invert') else ''} is not supported")
                splits.append((source, behavior))
            elif kind == "ByteLevel":
                byte_level.append(node)
            else:
                raise TokenizerFileError(f"{where}: pre-tokenizer {kind!r} is not supported "
                                         "(Split, ByteLevel and Sequence are), or not a byte-level BPE tokenizer")

        if spec is None:
            raise TokenizerFileError(f"{where}: no pre-tokenizer: not a byte-level BPE tokenizer (ByteLevel is needed)")
        walk(spec)
        if len(byte_level) != 1:
            raise TokenizerFileError(f"{where}: not a byte-level BPE tokenizer (its pre-tokenizer has no ByteLevel step)")
        # ByteLevel's own steps, on each piece the Splits made: a space in front (add_prefix_space) of
        # a piece that has none, then (use_regex) GPT-2's pattern.
        self.prefix_space = bool(byte_level[0].get("add_prefix_space", False))
        self.byte_level_regex = bool(byte_level[0].get("use_regex", True))
        if self.byte_level_regex:
            splits.append((GPT2_PATTERN, "Isolated"))
        try:
            self.patterns = Patterns(source for source, _ in splits)
        except PatternUnsupported as error:
            raise TokenizerFileError(f"{where}: its split pattern is not supported: {error}") from None
        self.splits = [(compiled, behavior == "Removed") for compiled, (_, behavior) in zip(self.patterns.compiled, splits)]

    def _read_vocabulary(self, model: dict, where: str) -> None:
        vocab = model.get("vocab")
        merges = model.get("merges")
        if not isinstance(vocab, dict) or not isinstance(merges, (list, MergePairs)):
            raise TokenizerFileError(f"{where}: model.vocab must be an object and model.merges a list")
        if not set(map(type, vocab.values())) <= {int} or min(vocab.values(), default=0) < 0:
            token, bad = next((t, i) for t, i in vocab.items() if type(i) is not int or i < 0)
            raise TokenizerFileError(f"{where}: model.vocab[{token!r}] is {bad!r}, not a token id")
        size = max(vocab.values(), default=-1) + 1
        byte_ids = []
        for byte in range(256):
            token_id = vocab.get(CHAR_OF_BYTE[byte])
            if token_id is None:
                raise TokenizerFileError(f"{where}: byte 0x{byte:02X} has no token: not a byte-level BPE vocabulary")
            byte_ids.append(token_id)
        self.size = size
        self.vocab = vocab
        self.byte_ids = byte_ids
        self.pair_ranks = _pair_ranks(vocab, merges, size, where)
        self._texts = getattr(self.pair_ranks, "texts", None)  # id -> its text (None: ids shared, see _token_bytes)
        self._tables: dict = {}  # made on first use, shared with named copies

    @property
    def by_bytes(self) -> "IdsOfBytes":
        """A byte-level token's bytes -> its id (``.get``), read from the vocabulary itself."""
        return IdsOfBytes(self.vocab)

    def _token_bytes(self, ids: list[int]) -> list[bytes]:
        texts = self._texts
        if texts is not None:  # each id has one text, and a merged token's text is byte-level
            return [texts[token_id].translate(_UNBYTE).encode("latin-1") for token_id in ids]
        table = self._tables.get("token bytes")
        if table is None:  # two texts share an id: the byte-level one's bytes, as a table of them all
            table = self._tables["token bytes"] = _vocabulary_bytes(self.vocab)
        return [table[token_id] for token_id in ids]

    def _read_added(self, added: list, where: str) -> None:
        raw: list[str] = []
        normalized: list[str] = []
        for index, token in enumerate(added):
            if not isinstance(token, dict) or not isinstance(token.get("content"), str) or not token["content"]:
                raise TokenizerFileError(f"{where}: added_tokens[{index}] has no content")
            for flag in ("lstrip", "rstrip", "single_word"):
                if token.get(flag):
                    raise TokenizerFileError(f"{where}: added_tokens[{index}] ({token['content']!r}) sets {flag}, not supported")
            (normalized if token.get("normalized", not token.get("special", False)) else raw).append(token["content"])
        self.added = raw + normalized
        self._raw_specials = _Special(raw)
        self._normalized_specials = _Special(normalized)

    # --- the pipeline ---

    def split(self, text: str) -> list[tuple[str, bool]]:
        """``text`` (already free of lone surrogates) as (part, is an added token), parts normalized."""
        result = []
        for part, special in self._raw_specials.split(text):
            if special:
                result.append((part, True))
                continue
            if self.normalize is not None:
                part = self.normalize(part)
            result.extend(self._normalized_specials.split(part))
        return result

    def _ordinary_pieces(self, text: str) -> Iterable[str]:
        if not self.prefix_space:
            return [text[a:b] for a, b in self._spans(text, self.splits)]
        own = 1 if self.byte_level_regex else 0
        pieces: list[str] = []
        for a, b in self._spans(text, self.splits[:len(self.splits) - own]):
            piece = text[a:b] if text.startswith(" ", a) else " " + text[a:b]
            spans = self._spans(piece, self.splits[len(self.splits) - own:])
            pieces.extend(piece[c:d] for c, d in spans)
        return pieces

    def _spans(self, text: str, splits) -> list[tuple[int, int]]:
        codes = self.patterns.codes(text)
        spans = [(0, len(text))] if text else []
        for compiled, removed in splits:
            new = []
            for start, end in spans:
                done = start
                for match in compiled.finditer(codes, start, end):
                    a, b = match.span()
                    if a == b:
                        continue
                    if a > done:
                        new.append((done, a))
                    if not removed:  # Removed: the matches are dropped, the gaps kept
                        new.append((a, b))
                    done = b
                if done < end:
                    new.append((done, end))
            spans = new
        return spans

    def _piece_count(self, piece: bytes) -> int:
        if self.ignore_merges and piece.decode("latin-1").translate(_LEVEL) in self.vocab:  # the piece is a token
            return 1
        return len(self._merge(piece))

    def _piece_tokens(self, piece: bytes) -> list[bytes]:
        if self.ignore_merges and piece.decode("latin-1").translate(_LEVEL) in self.vocab:
            return [piece]
        return self._token_bytes(self._merge(piece))

    def _merge(self, piece: bytes) -> list[int]:
        return merge_ids(self.pair_ranks, self.size, [self.byte_ids[b] for b in piece])

    def _merge_with_heap(self, ids: list[int]) -> list[int]:
        return merge_ids_with_heap(self.pair_ranks, self.size, ids)

    def count(self, text: str) -> int:
        text = exact.without_lone_surrogates(text)
        return sum(1 if special else self._count_text(part) for part, special in self.split(text))

    count_prompt = count

    def tokens(self, text: str) -> list[bytes]:
        text = exact.without_lone_surrogates(text)
        result: list[bytes] = []
        for part, special in self.split(text):
            result.extend([part.encode("utf-8")] if special else self._text_tokens(part))
        return result



def merge_ids(ranks, size: int, ids: list[int]) -> list[int]:
    """BPE on token ids: the pair of the lowest rank merged first, the leftmost of equal ones, until
    no pair has a rank. ``ranks`` maps ``left * size + right`` to ``rank * size + merged id`` (or
    ``NO_MERGE``). ``ids`` is changed in place."""
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


def _vocabulary_bytes(vocab: dict[str, int]) -> dict[int, bytes]:
    """id -> bytes for the vocabulary's byte-level tokens (others, such as added tokens written in
    plain text, are left out: no byte-level piece can equal them). One translate for all of them,
    then slices."""
    tokens = list(vocab)
    if not _BYTE_LEVEL_CHARS.issuperset("".join(tokens)):
        tokens = list(filter(_BYTE_LEVEL_CHARS.issuperset, tokens))
    data = "".join(tokens).translate(_UNBYTE).encode("latin-1")
    ends = list(accumulate(map(len, tokens)))
    pieces = map(data.__getitem__, map(slice, [0, *ends[:-1]], ends))
    return dict(zip(map(vocab.__getitem__, tokens), pieces))


class IdsOfBytes:
    """bytes -> the id of the byte-level token that stands for them, or None (``.get``): the bytes
    written as ``ByteLevel`` writes them, looked up in the vocabulary (no table of their own)."""

    def __init__(self, vocab: dict[str, int]):
        self.vocab = vocab

    def get(self, piece: bytes, default=None):
        return self.vocab.get(piece.decode("latin-1").translate(_LEVEL), default)

    def __contains__(self, piece: bytes) -> bool:
        return self.get(piece) is not None


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
        lefts = [merge[:merge.index(" ")] for merge in merges]
        rights = [merge[merge.index(" ") + 1:] for merge in merges]
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
    except TypeError:  # a part that is a list (a merge written wrong): _pair_ranks names it
        return None
    return parts


def _pair_ranks(vocab: dict[str, int], merges: list | MergePairs, size: int, where: str,
                sides: tuple[list, list] | None = None, parts: set[str] | None = None) -> MergeRanks:
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
        rank = next(i for i, (left, right) in enumerate(zip(lefts, rights))
                    if left not in vocab or right not in vocab or left + right not in vocab)
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


def _apply(steps: list[Callable[[str], str]], text: str) -> str:
    for step in steps:
        text = step(text)
    return text


class RankTokenizer(Tokenizer):
    """tiktoken's rule on a rank file: pieces of a split pattern, bytes merged by the rank of the merged bytes."""

    def __init__(self, name: str, sha256: str, source: str, ranks: dict[bytes, int], pattern: str,
                 text_specials: Iterable[str], prompt_specials: Iterable[str]):
        super().__init__(name, sha256, source)
        self.ranks = ranks
        try:
            self.patterns = Patterns([pattern])
        except PatternUnsupported as error:
            raise TokenizerFileError(f"{source}: its split pattern is not supported: {error}") from None
        self.pattern = self.patterns.compiled[0]
        self._text_specials = _Special(text_specials)
        self._prompt_specials = _Special(prompt_specials)

    def _ordinary_pieces(self, text: str) -> Iterable[str]:
        codes = self.patterns.codes(text)
        return [text[m.start():m.end()] for m in self.pattern.finditer(codes)]

    def _piece_count(self, piece: bytes) -> int:
        return 1 if piece in self.ranks else len(exact.merge(piece, self.ranks)) - 1

    def _piece_tokens(self, piece: bytes) -> list[bytes]:
        if piece in self.ranks:
            return [piece]
        bounds = exact.merge(piece, self.ranks)
        return [piece[a:b] for a, b in zip(bounds, bounds[1:])]


# Mistral's control tokens when a tekken file lists none (mistral-common's DEPRECATED_SPECIAL_TOKENS).
TEKKEN_DEFAULT_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                           "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
                           "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
                           "[TOOL_CONTENT]")


def tekken(data: dict, name: str, sha256: str, source: str) -> RankTokenizer:
    config = data.get("config")
    vocab = data.get("vocab")
    if not isinstance(config, dict) or not isinstance(vocab, list):
        raise TokenizerFileError(f"{source}: a tekken file needs \"config\" and \"vocab\"")
    try:
        pattern = config["pattern"]
        specials_count = int(config["default_num_special_tokens"])
        inner = int(config["default_vocab_size"]) - specials_count
    except (KeyError, TypeError, ValueError) as error:
        raise TokenizerFileError(f"{source}: tekken config lacks or mistypes {error}") from None
    listed = data.get("special_tokens")
    specials = [t["token_str"] for t in listed] if listed else list(TEKKEN_DEFAULT_SPECIALS)
    import base64  # here, as hashlib below: importing the package costs the page's start-up

    ranks: dict[bytes, int] = {}
    decode = base64.b64decode
    for entry in vocab[:inner]:
        ranks[decode(entry["token_bytes"])] = entry["rank"]
    if len(ranks) != inner:
        raise TokenizerFileError(f"{source}: tekken vocab has {len(ranks)} distinct tokens, expected {inner}")
    tokenizer = RankTokenizer(name, sha256, source, ranks, pattern, (), specials)
    tokenizer.kind = "tekken"
    return tokenizer


HARMONY_SPECIALS = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|return|>": 200002,
                    "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007,
                    "<|message|>": 200008, "<|call|>": 200012, "<|endofprompt|>": 200018}
HARMONY_SPECIALS.update({f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011, *range(200013, 201088))
                         if i != 200018})


def o200k_harmony() -> RankTokenizer:
    """GPT-OSS's tokenizer: o200k_base (its verified rank file) with the harmony special tokens."""
    base = exact.ENCODINGS["o200k_base"]
    sha = exact.RANK_FILES["o200k_base"].sha256
    tokenizer = RankTokenizer("o200k_harmony", sha, "o200k_base.tiktoken", base.ranks, O200K_PATTERN,
                              HARMONY_SPECIALS, HARMONY_SPECIALS)
    tokenizer.kind = "o200k_base + harmony special tokens"
    # Between special tokens the text is o200k_base's: its tuned counter (tests prove the two equal).
    # (mypy refuses assigning to a method; this instance attribute shadowing it is the point)
    tokenizer._count_text = base.count  # type: ignore[method-assign]
    tokenizer._text_tokens = base.tokens  # type: ignore[method-assign]
    return tokenizer


O200K_PATTERN = ("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
                 "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
                 "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
