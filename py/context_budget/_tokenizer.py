"""The tokenizers' names where the command line and the site import them (``tokenizers`` is their home)."""

from .tokenizers import EXACT, RANK_FILES, TOKENIZERS, TokenizerUnavailable, count_tokens

__all__ = ["EXACT", "RANK_FILES", "TOKENIZERS", "TokenizerUnavailable", "count_tokens"]
