"""tiktoken's rule on a rank file, as a loaded ``Tokenizer`` (``RankTokenizer``: Mistral's tekken
files, ``tekken.py``), and ``o200k_harmony`` (GPT-OSS): o200k_base's ranks and pattern with the
harmony special tokens, which are matched in the text: tiktoken's ``encode(text, allowed_special="all")``.
"""

from __future__ import annotations

from typing import Iterable

from .._base.errors import TokenizerFileError
from . import exact
from .base import AddedTokens, Tokenizer
from .regex import PatternUnsupported, Patterns


class RankTokenizer(Tokenizer):
    """tiktoken's rule on a rank file: pieces of a split pattern, bytes merged by the rank of the merged bytes."""

    def __init__(
        self,
        name: str,
        sha256: str,
        source: str,
        ranks: dict[bytes, int],
        pattern: str,
        text_specials: Iterable[str],
        prompt_specials: Iterable[str],
    ):
        super().__init__(name, sha256, source)
        self.ranks = ranks
        if not isinstance(pattern, str):
            raise TokenizerFileError(f"{source}: its split pattern is {type(pattern).__name__}, not a string")
        try:
            self.patterns = Patterns([pattern])
        except PatternUnsupported as error:
            raise TokenizerFileError(f"{source}: its split pattern is not supported: {error}") from None
        self.pattern = self.patterns.compiled[0]
        self._text_specials = AddedTokens(text_specials)
        self._prompt_specials = AddedTokens(prompt_specials)

    def _ordinary_pieces(self, text: str) -> Iterable[str]:
        codes = self.patterns.codes(text)
        return [text[m.start() : m.end()] for m in self.pattern.finditer(codes)]

    def _piece_count(self, piece: bytes) -> int:
        return exact.piece_count(piece, self.ranks)

    def _piece_tokens(self, piece: bytes) -> list[bytes]:
        return exact.piece_tokens(piece, self.ranks)


HARMONY_SPECIALS = {
    "<|startoftext|>": 199998,
    "<|endoftext|>": 199999,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|call|>": 200012,
    "<|endofprompt|>": 200018,
}
HARMONY_SPECIALS.update(
    {f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011, *range(200013, 201088)) if i != 200018}
)


def o200k_harmony() -> RankTokenizer:
    """GPT-OSS's tokenizer: o200k_base (its verified rank file) with the harmony special tokens."""
    base = exact.ENCODINGS["o200k_base"]
    sha = exact.RANK_FILES["o200k_base"].sha256
    tokenizer = RankTokenizer("o200k_harmony", sha, "o200k_base.tiktoken", base.ranks, O200K_PATTERN, HARMONY_SPECIALS, HARMONY_SPECIALS)
    tokenizer.kind = "o200k_base + harmony special tokens"
    # Between special tokens the text is o200k_base's: its tuned counter (tests prove the two equal).
    # (mypy refuses assigning to a method; this instance attribute shadowing it is the point)
    tokenizer._count_text = base.count  # type: ignore[method-assign]
    tokenizer._text_tokens = base.tokens  # type: ignore[method-assign]
    return tokenizer


O200K_PATTERN = (
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
)
