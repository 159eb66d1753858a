"""context-budget: choose the context that fits a token budget, explain it, and verify it."""

from ._evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from ._tokenizer import TokenizerUnavailable, count_tokens

__version__ = "0.1.0"
__all__ = ["evaluate", "count_tokens", "TokenizerUnavailable", "pack_passages", "Packed", "PackError", "__version__"]
