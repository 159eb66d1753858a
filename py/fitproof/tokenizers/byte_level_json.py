"""A Hugging Face ``tokenizer.json`` with a byte-level BPE model (Llama 3, Qwen 3, DeepSeek V3/R1,
GPT-OSS...), in the standard library only.

Counts equal ``len(tokenizers.Tokenizer.from_file(path).encode(text, add_special_tokens=False).ids)``,
in this order, as ``tokenizers`` does it:

1. added tokens (special or not) are cut out first, leftmost-longest, each one token: text such as
   ``<|im_start|>`` in the input *is* that special token, as in ``tokenizers``' default (those whose
   ``normalized`` flag is set are looked for after normalization);
2. the normalizer (NFC for Qwen 3, on the Unicode 9.0 tables ``tokenizers`` uses: ``normalize.py``);
3. the pre-tokenizer's ``Split`` patterns, run on the frozen Unicode 16.0 categories (``regex.py``),
   then ``ByteLevel`` (UTF-8 bytes as its 256 characters);
4. BPE by the rank of each *pair* (the order of ``merges``), lowest first, leftmost on ties; with
   ``ignore_merges`` a piece that is itself in the vocabulary is one token. Long pieces merge
   through a heap (no quadratic piece): ``merges.py``.

``add_special_tokens=False`` because a count is of text, not of one request: no BOS is added (a
chat template writes its own). Lone surrogates, which ``tokenizers`` cannot receive, count as U+FFFD.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Iterable

from .._base.errors import TokenizerFileError
from . import exact
from .base import MAX_TOKEN_ID, Tokenizer, read_flag, read_token_id, short
from .merges import MergePairs, merge_ids, merge_ids_with_heap, pair_ranks
from .pipeline import read_byte_level_pre_tokenizer, read_normalizer
from .regex import PatternUnsupported, Patterns

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


class BPETokenizer(Tokenizer):
    """A Hugging Face ``tokenizer.json`` with a byte-level BPE model."""

    kind = "tokenizer.json (byte-level BPE)"
    chat_template: str | None  # set on a GGUF file's tokenizer only (gguf.py)

    def __init__(self, data: dict, name: str, sha256: str, source: str):
        super().__init__(name, sha256, source)
        where = f"{source}"
        model = data.get("model")
        if not isinstance(model, dict):
            raise TokenizerFileError(f'{where}: no "model" object, not a Hugging Face tokenizer.json')
        kind = model.get("type", "BPE" if "merges" in model else None)
        if kind != "BPE":
            raise TokenizerFileError(
                f"{where}: model type {short(kind)} is not supported (only byte-level BPE is; "
                f"Unigram and WordPiece tokenizers are refused, not approximated)"
            )
        for key, allowed in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")), ("end_of_word_suffix", (None, ""))):
            if model.get(key) not in allowed:
                raise TokenizerFileError(f"{where}: model.{key} = {short(model.get(key))} is not supported")
        self.ignore_merges = read_flag(model, "ignore_merges", False, where, "$.model")
        self._read_normalizer(data.get("normalizer"), where)
        self._read_pre_tokenizer(data.get("pre_tokenizer"), where)
        self._read_vocabulary(model, where)
        self._read_added(data.get("added_tokens"), where)

    # --- the file's parts ---

    def _read_normalizer(self, spec, where: str) -> None:
        self.normalize = read_normalizer(spec, where, kinds=("NFC",))

    def _read_pre_tokenizer(self, spec, where: str) -> None:
        splits, byte_level = read_byte_level_pre_tokenizer(spec, where)
        # ByteLevel's own steps, on each piece the Splits made: a space in front (add_prefix_space) of
        # a piece that has none, then (use_regex) GPT-2's pattern.
        self.prefix_space = read_flag(byte_level, "add_prefix_space", False, where, byte_level["at"])
        self.byte_level_regex = read_flag(byte_level, "use_regex", True, where, byte_level["at"])
        read_flag(byte_level, "trim_offsets", True, where, byte_level["at"])  # (offsets only: no count changes)
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
        if (
            not set(map(type, vocab.values())) <= {int}
            or min(vocab.values(), default=0) < 0
            or max(vocab.values(), default=0) > MAX_TOKEN_ID
        ):
            token, bad = next((t, i) for t, i in vocab.items() if type(i) is not int or not 0 <= i <= MAX_TOKEN_ID)
            read_token_id(bad, where, f"model.vocab[{short(token)}]")
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
        self.pair_ranks = pair_ranks(vocab, merges, size, where)
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
        for a, b in self._spans(text, self.splits[: len(self.splits) - own]):
            piece = text[a:b] if text.startswith(" ", a) else " " + text[a:b]
            spans = self._spans(piece, self.splits[len(self.splits) - own :])
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
