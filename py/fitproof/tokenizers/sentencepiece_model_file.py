"""SentencePiece's own ``.model`` file (a ``ModelProto``), counted as the ``sentencepiece`` library counts.

Counts equal ``len(sentencepiece.SentencePieceProcessor(model_file=path).encode(text))`` (no BOS or
EOS: the library adds none unless asked). The file is read by the bounded protobuf reader in
``protobuf.py``; what is read of it:

- the pieces (text, score as float32, type: normal, unknown, control, user-defined, unused, byte);
- the trainer spec's model type (Unigram or BPE; word and char models are refused), byte
  fallback and ``treat_whitespace_as_suffix``;
- the normalizer spec: ``add_dummy_prefix``, ``remove_extra_whitespaces``, ``escape_whitespaces`` and
  the precompiled character map (``charsmap.py``; an identity model has none).

The steps, as ``sentencepiece`` runs them: user-defined pieces matched first (longest at each
position, never normalized or merged); the normalizer (spaces collapsed and trimmed, ``▁`` written
for each space, one in front); then the model. BPE: symbols merged by the score of the piece they
make, highest first, leftmost on ties; an unused piece is split back into the pieces that made it.
Unigram: the Viterbi path in float32 arithmetic, as the library adds and compares (its reset of
large scores included). Then an unknown piece is its UTF-8 bytes' pieces (byte fallback), or one
unknown token for each run of unknown pieces. Control pieces (``<s>``, ``</s>``) are never matched
in text, as in the library.
"""

from __future__ import annotations

import heapq
import re
from array import array
import struct
from typing import Any

from .base import AddedTokens, Tokenizer, TokenizerFileError
from .protobuf import DELIMITED, FIXED32, VARINT, ProtobufError, as_bool, as_float, as_int32, fields
from .pipeline import META
from .piece_index import SHORT, PieceIndex
from .sentencepiece_json import byte_token

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE = 1, 2
MAX_PIECES = 4_000_000
MAX_PIECE_BYTES = 8000  # sentencepiece refuses a piece this long
RESEGMENT_DEPTH = 100  # sentencepiece's bound on splitting an unused piece back
SCORE_RESET = 100000.0
_F32 = struct.Struct("<f")


def f32(value: float) -> float:
    """``value`` rounded to float32, as C++ ``float`` arithmetic rounds each sum."""
    return _F32.unpack(_F32.pack(value))[0]


def _read(data: bytes, where: str) -> dict:
    spec: dict[str, Any] = {
        "pieces": [],
        "model_type": UNIGRAM,
        "byte_fallback": False,
        "suffix": False,
        "add_dummy_prefix": True,
        "remove_extra_whitespaces": True,
        "escape_whitespaces": True,
        "charsmap": b"",
        "normalizer": None,
    }
    pieces = spec["pieces"]

    def text(span, at: int, what: str) -> str:
        try:
            return bytes(data[span[0] : span[1]]).decode("utf-8")
        except UnicodeDecodeError:
            raise ProtobufError(at, f"{what} is not UTF-8") from None

    def expect(wire: int, want: int, at: int, what: str) -> None:
        if wire != want:
            raise ProtobufError(at, f"{what} has wire type {wire}, not {want}")

    for number, wire, value, at in fields(data):
        if number == 1:  # pieces
            expect(wire, DELIMITED, at, "a piece")
            if len(pieces) >= MAX_PIECES:
                raise ProtobufError(at, f"more than {MAX_PIECES:,} pieces")
            piece, score, kind = None, 0.0, NORMAL
            for inner, inner_wire, inner_value, inner_at in fields(data, *value):
                if inner == 1:
                    expect(inner_wire, DELIMITED, inner_at, f"piece {len(pieces)}'s text")
                    if inner_value[1] - inner_value[0] >= MAX_PIECE_BYTES:
                        raise ProtobufError(inner_at, f"piece {len(pieces)} is {inner_value[1] - inner_value[0]:,} bytes long")
                    piece = text(inner_value, inner_at, f"piece {len(pieces)}'s text")
                elif inner == 2:
                    expect(inner_wire, FIXED32, inner_at, f"piece {len(pieces)}'s score")
                    score = as_float(inner_value)
                    if score != score or score in (float("inf"), float("-inf")):
                        raise ProtobufError(inner_at, f"piece {len(pieces)}'s score is {score}, not a finite number")
                elif inner == 3:
                    expect(inner_wire, VARINT, inner_at, f"piece {len(pieces)}'s type")
                    kind = inner_value
                    if kind not in (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE):
                        raise ProtobufError(inner_at, f"piece {len(pieces)} has the unknown type {kind}")
            if not piece:
                raise ProtobufError(at, f"piece {len(pieces)} has no text")
            pieces.append((piece, score, kind))
        elif number == 2:  # trainer spec
            expect(wire, DELIMITED, at, "the trainer spec")
            for inner, inner_wire, inner_value, inner_at in fields(data, *value):
                if inner_wire != VARINT:
                    continue
                if inner == 3:
                    spec["model_type"] = as_int32(inner_value)
                elif inner == 35:
                    spec["byte_fallback"] = as_bool(inner_value)
                elif inner == 24:
                    spec["suffix"] = as_bool(inner_value)
        elif number == 3:  # normalizer spec
            expect(wire, DELIMITED, at, "the normalizer spec")
            for inner, inner_wire, inner_value, inner_at in fields(data, *value):
                if inner == 1 and inner_wire == DELIMITED:
                    spec["normalizer"] = text(inner_value, inner_at, "the normalizer's name")
                elif inner == 2 and inner_wire == DELIMITED:
                    spec["charsmap"] = bytes(data[inner_value[0] : inner_value[1]])
                    spec["charsmap_at"] = inner_at
                elif inner_wire == VARINT and inner in (3, 4, 5):
                    key = {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}[inner]
                    spec[key] = as_bool(inner_value)
    return spec


class SentencePieceModel(Tokenizer):
    """A SentencePiece ``.model`` file (BPE or Unigram)."""

    def __init__(self, data: bytes, name: str, sha256: str, source: str):
        super().__init__(name, sha256, source)
        where = source
        try:
            spec = _read(data, where)
        except ProtobufError as error:
            raise TokenizerFileError(f"{where}: not a SentencePiece model that can be read: protobuf {error}") from None
        pieces = spec["pieces"]
        if not pieces:
            raise TokenizerFileError(f"{where}: a SentencePiece model with no pieces (or not a .model file)")
        model_type = spec["model_type"]
        if model_type not in (UNIGRAM, BPE):
            kinds = {3: "word", 4: "char"}
            raise TokenizerFileError(
                f"{where}: a SentencePiece {kinds.get(model_type, str(model_type))} model: only Unigram and BPE models are supported"
            )
        self.model_type = model_type
        self.kind = (
            f"SentencePiece .model ({'BPE' if model_type == BPE else 'Unigram'}{', byte fallback' if spec['byte_fallback'] else ''})"
        )
        self.texts = [piece for piece, _, _ in pieces]
        self.scores = [score for _, score, _ in pieces]
        self.types = [kind for _, _, kind in pieces]
        # pieces_: normal, user-defined and unused pieces (what text can become); the others are reserved
        self.pieces: dict[str, int] = {}
        reserved: dict[str, int] = {}
        for index, (piece, _, kind) in enumerate(pieces):
            target = self.pieces if kind in (NORMAL, USER_DEFINED, UNUSED) else reserved
            if piece in target:
                raise TokenizerFileError(f"{where}: piece {index} ({piece!r}) is already defined")
            target[piece] = index
        unknown = [index for index, kind in enumerate(self.types) if kind == UNKNOWN]
        if len(unknown) != 1:
            raise TokenizerFileError(f"{where}: a SentencePiece model needs exactly one unknown piece, this one has {len(unknown)}")
        self.unk_id = unknown[0]
        self.byte_fallback = spec["byte_fallback"]
        if self.byte_fallback:
            missing = [b for b in range(256) if reserved.get(byte_token(b)) is None or self.types[reserved[byte_token(b)]] != BYTE]
            if missing:
                raise TokenizerFileError(f"{where}: byte fallback is on but the byte piece {byte_token(missing[0])} is missing")
            self.byte_ids = [reserved[byte_token(b)] for b in range(256)]
        self.vocab = {**reserved, **self.pieces}
        self.user_defined = AddedTokens((piece for piece, _, kind in pieces if kind == USER_DEFINED), where)
        self.has_user_defined = any(kind == USER_DEFINED for kind in self.types)
        self.has_unused = any(kind == UNUSED for kind in self.types)
        self._read_normalizer(spec, where)
        if model_type == BPE:
            joining = {piece[i - 1] for piece in self.pieces for i in range(1, len(piece)) if piece[i] == META}
            if META in self.pieces and self.escape:
                before = "(?<![" + "".join(map(re.escape, sorted(joining))) + "])" if joining else ""
                self._cut: re.Pattern[str] | None = re.compile(before + "(?=" + META + ")")
            else:
                self._cut = None
        else:
            normal = [s for s, kind in zip(self.scores, self.types) if kind == NORMAL]
            self.unk_score = f32(min(normal, default=3.4028234663852886e38) - 10.0)
            self.usable = {piece: index for piece, index in self.pieces.items() if self.types[index] != UNUSED}
            # each piece's score in the path (float32); a user-defined piece's is 0.1 per UTF-8 byte past the first
            self.value_of = {
                piece: f32(0.1 * (len(piece.encode("utf-8")) - 1)) if self.types[index] == USER_DEFINED else self.scores[index]
                for piece, index in self.usable.items()
            }
            self.index = PieceIndex(self.usable, where, "the pieces")
            self.prefixes = self.index.prefixes

    def _read_normalizer(self, spec: dict, where: str) -> None:
        self.add_dummy_prefix = spec["add_dummy_prefix"]
        self.remove_extra = spec["remove_extra_whitespaces"]
        self.escape = spec["escape_whitespaces"]
        self.suffix = spec["suffix"]
        self.space = META if self.escape else " "
        self.charsmap = None
        if spec["charsmap"]:
            from .charsmap import CharsMap

            self.charsmap = CharsMap(spec["charsmap"], where, f"the normalizer's character map (byte {spec['charsmap_at']:,})")

    # --- the normalizer ---

    def _chunks(self, text: str) -> list[str]:
        """The text as normalize_prefix cuts it: user-defined pieces whole, else one character
        (or the character map's longest rule)."""
        if self.has_user_defined:
            result = []
            for part, special in self.user_defined.split(text):
                result.extend([part] if special else self._plain_chunks(part))
            return result
        return self._plain_chunks(text)

    def _plain_chunks(self, text: str) -> list[str]:
        if self.charsmap is None:
            return list(text)
        return self.charsmap.chunks(text)

    def normalize(self, text: str) -> str:
        if not text:
            return ""
        if self.charsmap is None and not self.has_user_defined:
            return self._normalize_identity(text)
        chunks = self._chunks(text)
        index = 0
        if self.remove_extra:
            while index < len(chunks) and chunks[index] == " ":
                index += 1
        if index == len(chunks):
            return ""
        space = self.space
        out = []
        if not self.suffix and self.add_dummy_prefix:
            out.append(space)
        previous_space = self.remove_extra
        for chunk in chunks[index:]:
            if previous_space:
                chunk = chunk.lstrip(" ")
            if chunk:
                out.append(chunk.replace(" ", space))
                previous_space = chunk.endswith(" ")
            if not self.remove_extra:
                previous_space = False
        normalized = "".join(out)
        if self.remove_extra:
            normalized = _strip_end(normalized, space)
        if self.suffix and self.add_dummy_prefix:
            normalized += space
        return normalized

    def _normalize_identity(self, text: str) -> str:
        space = self.space
        if self.remove_extra:
            text = text.lstrip(" ")
            if not text:
                return ""
            text = _SPACES.sub(" ", text)
        normalized = text.replace(" ", space) if self.escape else text
        if not self.suffix and self.add_dummy_prefix:
            normalized = space + normalized
        if self.remove_extra:
            normalized = _strip_end(normalized, space)
        if self.suffix and self.add_dummy_prefix:
            normalized += space
        return normalized

    # --- counting ---

    def count(self, text: str) -> int:
        from . import exact

        return self._count_normalized(self.normalize(exact.without_lone_surrogates(text)))

    count_prompt = count

    def ids(self, text: str) -> list[int]:
        from . import exact

        normalized = self.normalize(exact.without_lone_surrogates(text))
        return self._ids(self._encode(normalized))

    def tokens(self, text: str) -> list[bytes]:
        result = []
        for token_id in self.ids(text):
            piece = self.texts[token_id]
            if self.types[token_id] == BYTE:
                result.append(bytes([int(piece[3:5], 16)]))
            else:
                result.append(piece.replace(META, " ").encode("utf-8"))
        return result

    @property
    def by_bytes(self):
        model = self

        class _Ids:
            def get(self, piece: bytes, default=None):
                try:
                    text = piece.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
                if text is not None:
                    for candidate in (text.replace(" ", META), text):
                        if candidate in model.vocab:
                            return model.vocab[candidate]
                if len(piece) == 1 and model.byte_fallback:
                    return model.byte_ids[piece[0]]
                return default

        return _Ids()

    def _ids(self, encoded: list[tuple[str, int]]) -> list[int]:
        result: list[int] = []
        previous_unknown = False
        for piece, token_id in encoded:
            unknown = token_id == self.unk_id
            if unknown and self.byte_fallback:
                result.extend(self.byte_ids[b] for b in piece.encode("utf-8"))
            elif not (unknown and previous_unknown):
                result.append(token_id)
            previous_unknown = unknown
        return result

    def _count_normalized(self, normalized: str) -> int:
        if not normalized:
            return 0
        if self.model_type == BPE and self._cut is not None:
            # a run of unknown pieces never crosses a cut: each chunk after the first starts with ▁, a piece
            total = 0
            counts = self._counts
            for chunk in self._cut.split(normalized):
                if not chunk:
                    continue
                known = counts.get(chunk)
                if known is None:
                    known = self._remember(chunk, len(self._ids(self._bpe(chunk))))
                total += known
            return total
        return len(self._ids(self._encode(normalized)))

    def _encode(self, normalized: str) -> list[tuple[str, int]]:
        if not normalized:
            return []
        if self.model_type == BPE:
            if self._cut is None:
                return self._bpe(normalized)
            return [pair for chunk in self._cut.split(normalized) if chunk for pair in self._bpe(chunk)]
        return self._unigram(normalized)

    # --- BPE ---

    def _bpe(self, text: str) -> list[tuple[str, int]]:
        if self.has_user_defined:
            symbols, frozen = [], []
            for part, special in self.user_defined.split(text):
                if special:
                    symbols.append(part)
                    frozen.append(True)
                else:
                    symbols.extend(part)
                    frozen.extend([False] * len(part))
        else:
            symbols, frozen = list(text), None
        pieces, scores = self.pieces, self.scores
        n = len(symbols)
        following = list(range(1, n)) + [-1]
        preceding = list(range(-1, n - 1))
        agenda: list[tuple[float, int, int, int]] = []  # (-score, left, right, length)
        reverse: dict[str, tuple[str, str]] = {}
        unused = self.has_unused
        types = self.types

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0 or (frozen is not None and (frozen[left] or frozen[right])):
                return
            piece = symbols[left] + symbols[right]
            token_id = pieces.get(piece)
            if token_id is None:
                return
            heapq.heappush(agenda, (-scores[token_id], left, right, len(piece)))
            if unused and types[token_id] == UNUSED:
                reverse[piece] = (symbols[left], symbols[right])

        for i in range(n - 1):
            add(i, i + 1)
        pop = heapq.heappop
        while agenda:
            _, left, right, size = pop(agenda)
            a, b = symbols[left], symbols[right]
            if not a or not b or len(a) + len(b) != size:
                continue
            symbols[left] = a + b
            after = following[right]
            following[left] = after
            if after >= 0:
                preceding[after] = left
            symbols[right] = ""
            add(preceding[left], left)
            add(left, following[left])
        output: list[tuple[str, int]] = []
        index = 0
        while index != -1:
            self._resegment(symbols[index], reverse, output, 0)
            index = following[index]
        return output

    def _resegment(self, piece: str, reverse: dict, output: list, depth: int) -> None:
        token_id = self.pieces.get(piece)
        if depth > RESEGMENT_DEPTH:
            output.append((piece, self.unk_id if token_id is None else token_id))
            return
        if token_id is None:
            output.append((piece, self.unk_id))
            return
        if self.types[token_id] != UNUSED:
            output.append((piece, token_id))
            return
        parts = reverse.get(piece)
        if parts is None:
            output.append((piece, self.unk_id))
            return
        self._resegment(parts[0], reverse, output, depth + 1)
        self._resegment(parts[1], reverse, output, depth + 1)

    # --- Unigram ---

    def _unigram(self, text: str) -> list[tuple[str, int]]:
        n = len(text)
        score = [0.0] * (n + 1)
        start = [-1] * (n + 1)
        value_of, prefixes, longer = self.value_of, self.prefixes, self.index.longer
        unk_score = self.unk_score
        rounded = memoryview(bytearray(4)).cast("f")  # a float32 cell: what is written is rounded as C rounds it
        frontier = 0
        for s in range(n):
            here = score[s]
            if here < -SCORE_RESET or here > SCORE_RESET:
                # the scores from here to the furthest end, less this one in float32 (an unwritten end is never read)
                score[s : frontier + 1] = array("f", [value - here for value in score[s : frontier + 1]]).tolist()
                here = 0.0
            # the piece of one character, or an unknown one in its place
            piece = text[s]
            end = s + 1
            value = value_of.get(piece)
            rounded[0] = (unk_score if value is None else value) + here
            candidate = rounded[0]
            if end > frontier:
                frontier = end
            if start[end] == -1 or candidate > score[end]:
                score[end], start[end] = candidate, s
            if piece not in prefixes:
                continue
            # the longer pieces, while the text so far begins one; past SHORT characters, by their heads
            limit = s + SHORT if s + SHORT < n else n
            while end < limit:
                end += 1
                piece = text[s:end]
                value = value_of.get(piece)
                if value is not None:
                    if end > frontier:
                        frontier = end
                    rounded[0] = value + here
                    candidate = rounded[0]
                    if start[end] == -1 or candidate > score[end]:
                        score[end], start[end] = candidate, s
                if piece not in prefixes:
                    break
            if end == s + SHORT and piece in prefixes:
                for end in longer(text, s, value_of):
                    frontier = max(frontier, end)
                    rounded[0] = value_of[text[s:end]] + here  # (read back: rounded to float32)
                    if start[end] == -1 or rounded[0] > score[end]:
                        score[end], start[end] = rounded[0], s
        # back from the end; a one-character piece not in the model is the unknown piece
        usable, unk_id = self.usable, self.unk_id
        result = []
        end = n
        while end > 0:
            s = start[end]
            piece = text[s:end]
            result.append((piece, usable.get(piece, unk_id)))
            end = s
        result.reverse()
        return result


_SPACES = re.compile(" {2,}")


def _strip_end(text: str, space: str) -> str:
    while text.endswith(space):
        text = text[: -len(space)]
    return text


def from_model_bytes(data: bytes, name: str, sha256: str, source: str) -> SentencePieceModel:
    return SentencePieceModel(data, name, sha256, source)
