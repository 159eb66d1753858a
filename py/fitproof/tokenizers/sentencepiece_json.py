"""SentencePiece tokenizers (Gemma 3, Llama 2, early Mistral, the T5 family), standard library only.

Two ways a SentencePiece model is written down, each counted as its own reference library counts it:

- A Hugging Face ``tokenizer.json`` whose model is BPE with ``byte_fallback`` (Gemma 3, Llama 2) or
  Unigram (T5): counts equal ``len(tokenizers.Tokenizer.from_file(path).encode(text,
  add_special_tokens=False).ids)``. The steps, as ``tokenizers`` runs them:

  1. added tokens (special or not) cut out first, leftmost-longest (a set of prefixes, not an
     alternation of Gemma's 6,415 texts); those with ``normalized`` set are looked for after normalization;
  2. the normalizer and 3. the pre-tokenizer, as ``pipeline.py`` reads them;
  4. the model. BPE: each character its token, or its UTF-8 bytes as ``<0xXX>`` tokens (byte
     fallback), or the unknown token (fused); then merges by rank, lowest first, leftmost on ties.
     Unigram: the Viterbi path by score over every vocabulary entry (scores added in the same
     order, so the same floating-point sums), unknown characters scored ``min - 10`` and fused,
     then byte fallback for them.

  Gemma's and Llama 2's files have no pre-tokenizer that splits: the whole text is one BPE word.
  It is cut, without changing a single merge, before each ``▁`` that no merge can join to the
  character before it (a merge whose left part ends in that character and whose right part starts
  with ``▁``: Gemma has two such characters, Llama 2 one); the pieces are merged (through a heap
  when long: no quadratic piece) and their counts remembered.

- The ``.model`` protobuf the ``sentencepiece`` library reads (``sentencepiece_model_file.py``, read by the bounded
  reader in ``protobuf.py``): counts equal ``len(SentencePieceProcessor(model_file=path).encode(text))``.

A file this module cannot count exactly is refused with a ``TokenizerFileError`` that names the
file and the JSON path (or byte offset) of what is not supported; nothing is approximated.
"""

from __future__ import annotations

import operator
import re
from itertools import compress, repeat
from typing import Iterable

from . import exact
from .base import Tokenizer, TokenizerFileError
from .merges import MergePairs, merge_ids, merge_ids_with_heap, merge_parts, merge_sides, pair_ranks
from .base import MAX_TOKEN_ID, read_flag, read_token_id, short
from .pipeline import META, read_normalizer, read_pre_tokenizer
from .piece_index import SHORT, PieceIndex

UNK_PENALTY = 10.0  # an unknown character's score below the lowest piece's (sentencepiece and tokenizers)
MAX_PIECES = 4_000_000  # a vocabulary larger than this is refused (Gemma 3 has 262,144)
MAX_PIECE_CHARS = 4096  # one vocabulary entry longer than this is refused


def byte_token(byte: int) -> str:
    """The text of byte fallback's token for ``byte``: ``<0x0A>``."""
    return f"<0x{byte:02X}>"


class JSONSentencePiece(Tokenizer):
    """A Hugging Face ``tokenizer.json`` of a SentencePiece model: BPE with byte fallback, or Unigram."""

    def __init__(self, data: dict, name: str, sha256: str, source: str):
        super().__init__(name, sha256, source)
        where = source
        model = data["model"]
        self.model_type = model.get("type", "BPE" if "merges" in model else None)
        self.normalize = read_normalizer(data.get("normalizer"), where)
        self.pre_tokenize, meta = read_pre_tokenizer(data.get("pre_tokenizer"), where)
        normalizer = data.get("normalizer")
        self.meta = meta or (META if META in short_enough(normalizer) else None)  # ▁ written by a Replace or a Prepend
        if self.model_type == "BPE":
            self.kind = (
                "tokenizer.json (SentencePiece BPE, byte fallback)" if model.get("byte_fallback") else "tokenizer.json (SentencePiece BPE)"
            )
            self._read_bpe(model, where)
        else:
            self.kind = "tokenizer.json (SentencePiece Unigram)"
            self._read_unigram(model, where)
        self._read_added(data.get("added_tokens"), where)

    # --- the file's parts ---

    def _read_vocab_dict(self, model: dict, where: str) -> dict[str, int]:
        vocab = model.get("vocab")
        if not isinstance(vocab, dict):
            raise TokenizerFileError(f"{where}: $.model.vocab is {type(vocab).__name__}, not an object")
        if len(vocab) > MAX_PIECES:
            raise TokenizerFileError(f"{where}: $.model.vocab has {len(vocab):,} entries (more than {MAX_PIECES:,})")
        if (
            not set(map(type, vocab.values())) <= {int}
            or min(vocab.values(), default=0) < 0
            or max(vocab.values(), default=0) > MAX_TOKEN_ID
        ):
            token, bad = next((t, i) for t, i in vocab.items() if type(i) is not int or not 0 <= i <= MAX_TOKEN_ID)
            read_token_id(bad, where, f"$.model.vocab[{short(token)}]")
        return vocab

    def _read_bpe(self, model: dict, where: str) -> None:
        for key, allowed in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")), ("end_of_word_suffix", (None, ""))):
            if model.get(key) not in allowed:
                raise TokenizerFileError(f"{where}: $.model.{key} is {short(model.get(key))}, not supported")
        vocab = self._read_vocab_dict(model, where)
        merges = model.get("merges")
        if not isinstance(merges, (list, MergePairs)):
            raise TokenizerFileError(f"{where}: $.model.merges is {type(merges).__name__}, not a list")
        self.vocab = vocab
        self.size = max(vocab.values(), default=-1) + 1
        self.ignore_merges = read_flag(model, "ignore_merges", False, where, "$.model")
        self.byte_fallback = read_flag(model, "byte_fallback", False, where, "$.model")
        self.fuse_unk = read_flag(model, "fuse_unk", False, where, "$.model")
        unk = model.get("unk_token")
        if unk is not None and not isinstance(unk, str):
            raise TokenizerFileError(f"{where}: $.model.unk_token is {short(unk)}, not a token's text")
        if unk is not None and unk not in vocab:
            raise TokenizerFileError(f"{where}: $.model.unk_token {unk!r} is not in the vocabulary")
        self.unk_id = vocab.get(unk) if unk is not None else None
        self.byte_ids = [vocab.get(byte_token(b)) for b in range(256)] if self.byte_fallback else [None] * 256
        sides = merge_sides(merges, where + ": $")
        parts = merge_parts(*sides)
        self.pair_ranks = pair_ranks(vocab, merges, self.size, where + ": $", sides, parts)
        texts = getattr(self.pair_ranks, "texts", None)  # id -> text, made by pair_ranks when ids are unique
        self._texts = texts if texts is not None else {token_id: text for text, token_id in vocab.items()}
        self._cut = self._safe_cuts(*sides, parts or set())

    def _safe_cuts(self, lefts: list[str], rights: list[str], parts: set[str]):
        """A regex whose zero-width matches are places no merge can cross (before a ``▁`` that no
        merge joins to the character before it), or None: the word is merged whole."""
        meta = self.meta
        if meta is None or meta not in self.vocab:
            return None
        if None in self.byte_ids and self.unk_id is not None and self.fuse_unk:
            return None  # unknown characters on both sides of a cut would fuse into one token
        specials = {byte_token(b) for b in range(256)} | ({self._texts[self.unk_id]} if self.unk_id is not None else set())
        if not specials.isdisjoint(parts):  # (parts: the texts of lefts and rights)
            return None  # byte tokens merge on: a character's fallback bytes could join a neighbour
        starts_meta = map(str.startswith, rights, repeat(meta))
        joining = sorted(set(map(operator.itemgetter(-1), filter(None, compress(lefts, starts_meta)))))
        if meta in joining:
            joining.remove(meta)
            before = "(?<![" + "".join(map(re.escape, joining)) + re.escape(meta) + "])" if joining else "(?<!" + re.escape(meta) + ")"
        else:
            before = "(?<![" + "".join(map(re.escape, joining)) + "])" if joining else ""
        return re.compile(before + "(?=" + re.escape(meta) + ")")

    def _read_unigram(self, model: dict, where: str) -> None:
        vocab = model.get("vocab")
        if not isinstance(vocab, list):
            raise TokenizerFileError(f"{where}: $.model.vocab is {type(vocab).__name__}, not a list of [piece, score]")
        if len(vocab) > MAX_PIECES:
            raise TokenizerFileError(f"{where}: $.model.vocab has {len(vocab):,} entries (more than {MAX_PIECES:,})")
        pieces, scores = [], []
        for index, entry in enumerate(vocab):
            if (
                not isinstance(entry, list)
                or len(entry) != 2
                or not isinstance(entry[0], str)
                or type(entry[1]) not in (int, float)
                or entry[1] != entry[1]
                or abs(entry[1]) == float("inf")
            ):
                raise TokenizerFileError(f"{where}: $.model.vocab[{index}] is {short(entry)}, not [piece, score] with a finite number")
            if len(entry[0]) > MAX_PIECE_CHARS:
                raise TokenizerFileError(f"{where}: $.model.vocab[{index}] is a piece of {len(entry[0]):,} characters")
            pieces.append(entry[0])
            scores.append(float(entry[1]))
        unk_id = model.get("unk_id")
        if type(unk_id) is not int or not 0 <= unk_id < len(pieces):
            raise TokenizerFileError(
                f"{where}: $.model.unk_id is {short(unk_id)}, not an index into $.model.vocab "
                "(tokenizers cannot encode an unknown character without it)"
            )
        self.byte_fallback = read_flag(model, "byte_fallback", False, where, "$.model")
        self.lattice = Lattice(pieces, scores, unk_id, self.byte_fallback, where=where)
        self.vocab = self.lattice.ids

    # --- the pipeline ---

    def split(self, text: str) -> list[tuple[str, bool, bool]]:
        """(part, is an added token, begins the input), the parts normalized."""
        result = []
        first = True
        for part, special in self._raw_specials.split(text):
            if special:
                result.append((part, True, False))
                first = False
                continue
            if self.normalize is not None:
                part = self.normalize(part)
            for inner, inner_special in self._normalized_specials.split(part):
                result.append((inner, inner_special, first and not inner_special))
                first = False
            first = False
        return result

    # (not the base's _count_text: its one caller, the base's count, is overridden below)
    def _count_text(self, part: str, first: bool) -> int:  # type: ignore[override]
        count = self._count_word
        return sum(count(piece) for piece in self.pre_tokenize(part, first))

    def count(self, text: str) -> int:
        text = exact.without_lone_surrogates(text)
        return sum(1 if special else self._count_text(part, first) for part, special, first in self.split(text))

    count_prompt = count

    def tokens(self, text: str) -> list[bytes]:
        text = exact.without_lone_surrogates(text)
        result: list[bytes] = []
        for part, special, first in self.split(text):
            if special:
                result.append(part.encode("utf-8"))
                continue
            for piece in self.pre_tokenize(part, first):
                result.extend(map(self._token_bytes, self._word_ids(piece)))
        return result

    def ids(self, text: str) -> list[int]:
        """The token ids, as ``encode(text, add_special_tokens=False).ids`` gives them."""
        text = exact.without_lone_surrogates(text)
        result: list[int] = []
        for part, special, first in self.split(text):
            if special:
                result.append(self._added_ids[part])
                continue
            for piece in self.pre_tokenize(part, first):
                result.extend(self._word_ids(piece))
        return result

    def _token_bytes(self, token_id: int) -> bytes:
        text = self._texts[token_id] if self.model_type == "BPE" else self.lattice.pieces[token_id]
        if len(text) == 6 and text.startswith("<0x") and text.endswith(">") and self._is_byte_token(token_id, text):
            return bytes([int(text[3:5], 16)])
        if self.meta is not None:
            text = text.replace(self.meta, " ")
        return text.encode("utf-8")

    def _is_byte_token(self, token_id: int, text: str) -> bool:
        try:
            value = int(text[3:5], 16)
        except ValueError:
            return False
        return self.vocab.get(byte_token(value)) == token_id

    @property
    def by_bytes(self) -> "_IdsOfBytes":
        return _IdsOfBytes(self)

    # --- the model ---

    def _count_word(self, word: str) -> int:
        if self.model_type != "BPE":
            return self.lattice.count(word)
        if self.ignore_merges and word in self.vocab:
            return 1
        counts = self._counts
        total = 0
        chunks = self._cut.split(word) if self._cut is not None else (word,)
        for chunk in chunks:
            known = counts.get(chunk)
            if known is None:
                if not chunk:
                    continue
                known = self._remember(chunk, len(self._merge(self._symbols(chunk))))
            total += known
        return total

    def _word_ids(self, word: str) -> list[int]:
        if self.model_type != "BPE":
            return self.lattice.ids_of(word)
        if self.ignore_merges and word in self.vocab:
            return [self.vocab[word]]
        chunks = self._cut.split(word) if self._cut is not None else (word,)
        return [token_id for chunk in chunks if chunk for token_id in self._merge(self._symbols(chunk))]

    def _symbols(self, chunk: str) -> list[int]:
        """Each character's token; else its bytes' tokens (byte fallback); else the unknown token, fused."""
        ids: list = list(map(self.vocab.get, chunk))  # ints when None is not in it
        if None not in ids:
            return ids
        result: list[int] = []
        pending_unknown = None  # an unknown token that the next unknown character may fuse into
        byte_ids = self.byte_ids
        for char, token_id in zip(chunk, ids):
            if token_id is not None:
                if pending_unknown is not None:
                    result.append(pending_unknown)
                    pending_unknown = None
                result.append(token_id)
                continue
            fallback: list = [byte_ids[b] for b in char.encode("utf-8")]  # ints when None is not in it
            if self.byte_fallback and None not in fallback:
                result.extend(fallback)  # (tokenizers adds a pending unknown token after these)
                continue
            if self.unk_id is None:
                continue  # tokenizers drops a character it has no token for
            if pending_unknown is not None and not self.fuse_unk:
                result.append(pending_unknown)
            pending_unknown = self.unk_id
        if pending_unknown is not None:
            result.append(pending_unknown)
        return result

    def _merge(self, ids: list[int]) -> list[int]:
        return merge_ids(self.pair_ranks, self.size, ids)

    def _merge_with_heap(self, ids: list[int]) -> list[int]:
        return merge_ids_with_heap(self.pair_ranks, self.size, ids)


class _IdsOfBytes:
    """A token's bytes (as ``tokens`` gives them) -> its id, for the page's token view."""

    def __init__(self, tokenizer: JSONSentencePiece):
        self.tokenizer = tokenizer

    def get(self, piece: bytes, default=None):
        vocab = self.tokenizer.vocab
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            meta = self.tokenizer.meta
            for candidate in (text.replace(" ", meta), text) if meta else (text,):
                if candidate in vocab:
                    return vocab[candidate]
        if len(piece) == 1:
            return vocab.get(byte_token(piece[0]), default)
        return default


class Lattice:
    """Unigram's best segmentation by score (the Viterbi path), as ``tokenizers`` and ``sentencepiece``
    compute it: for each end position the best-scoring path, a later candidate replacing an earlier
    one only when strictly better; the candidates ending at a position are met in order of their
    start, shortest first. Scores are added as they do (piece score + the path's score so far)."""

    def __init__(
        self,
        pieces: list[str],
        scores: list[float],
        unk_id: int,
        byte_fallback: bool,
        matched: Iterable[int] | None = None,
        where: str = "<tokenizer>",
    ):
        self.pieces = pieces
        self.scores = scores
        self.unk_id = unk_id
        self.ids = {piece: index for index, piece in enumerate(pieces)}  # a later duplicate's id wins, as in tokenizers' map
        # the pieces a path may use: every entry (tokenizers), or those sentencepiece matches
        usable = range(len(pieces)) if matched is None else matched
        self.score_of: dict[str, float] = {}
        self.id_of: dict[str, int] = {}
        for index in usable:
            piece = pieces[index]
            if piece:
                self.score_of[piece] = scores[index]
                self.id_of[piece] = self.ids[piece]
        self.index = PieceIndex(self.score_of, where, "$.model.vocab")
        self.prefixes = self.index.prefixes
        self.unk_score = min(scores, default=0.0) - UNK_PENALTY
        self.byte_fallback = byte_fallback
        self.byte_ids = [self.ids.get(byte_token(b)) for b in range(256)]
        self.has_bytes = byte_fallback and None not in self.byte_ids
        self._counts: dict[str, int] = {}

    def best_path(self, text: str) -> list[tuple[int, int, bool]]:
        """(start, end, unknown) of each token of the best path, unknown runs fused."""
        n = len(text)
        score = [0.0] * (n + 1)
        start = [-1] * (n + 1)
        unknown = [False] * (n + 1)
        score_of, prefixes, unk_score, longer = self.score_of, self.prefixes, self.unk_score, self.index.longer
        for s in range(n):
            here = score[s]
            single = False
            end = s + 1
            limit = min(n, s + SHORT)
            while end <= limit:
                piece = text[s:end]
                value = score_of.get(piece)
                if value is not None:
                    candidate = value + here
                    if start[end] < 0 or candidate > score[end]:
                        score[end], start[end], unknown[end] = candidate, s, False
                    if end == s + 1:
                        single = True
                if piece not in prefixes:
                    break
                end += 1
            else:  # SHORT characters, all a prefix: the longer pieces that begin here, by their heads
                if limit == s + SHORT:
                    for end in longer(text, s, score_of):
                        candidate = score_of[text[s:end]] + here
                        if start[end] < 0 or candidate > score[end]:
                            score[end], start[end], unknown[end] = candidate, s, False
            if not single:
                candidate = unk_score + here
                if start[s + 1] < 0 or candidate > score[s + 1]:
                    score[s + 1], start[s + 1], unknown[s + 1] = candidate, s, True
        path: list[tuple[int, int, bool]] = []
        end = n
        while end > 0:
            s = start[end]
            if unknown[end] and path and path[-1][2]:
                path[-1] = (s, path[-1][1], True)
            else:
                path.append((s, end, unknown[end]))
            end = s
        path.reverse()
        return path

    def count(self, text: str) -> int:
        known = self._counts.get(text)
        if known is not None:
            return known
        total = 0
        for s, e, unknown in self.best_path(text):
            if not unknown or text[s:e] in self.id_of:
                total += 1
            elif self.has_bytes:
                total += len(text[s:e].encode("utf-8"))
            else:
                total += 1
        if len(text) <= 64:
            if len(self._counts) >= 1 << 16:
                self._counts.clear()
            self._counts[text] = total
        return total

    def ids_of(self, text: str) -> list[int]:
        result: list = []  # ints: with has_bytes, every byte has its token
        for s, e, unknown in self.best_path(text):
            piece = text[s:e]
            if not unknown or piece in self.id_of:
                result.append(self.id_of[piece])
            elif self.has_bytes:
                result.extend(self.byte_ids[b] for b in piece.encode("utf-8"))
            else:
                result.append(self.unk_id)
        return result


def from_json(data: dict, name: str, sha256: str, source: str) -> Tokenizer | None:
    """The SentencePiece tokenizer a parsed tokenizer.json describes, or None when it is not one
    (byte-level BPE: byte_level_json.py reads it)."""
    model = data.get("model")
    if not isinstance(model, dict):
        return None
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind == "Unigram":
        return JSONSentencePiece(data, name, sha256, source)
    if kind == "BPE" and (model.get("byte_fallback") or _is_metaspace(data)):
        return JSONSentencePiece(data, name, sha256, source)
    return None


def _is_metaspace(data: dict) -> bool:
    """No ByteLevel step and ▁ written by the normalizer or pre-tokenizer: a SentencePiece BPE."""
    text = short_enough(data.get("normalizer")) + short_enough(data.get("pre_tokenizer"))
    return "ByteLevel" not in text and META in text


def short_enough(value) -> str:
    """``repr(value)``, or "" for a value nested too deep for it (the readers then refuse it by its path)."""
    try:
        return repr(value)
    except RecursionError:
        return ""
