"""context-budget: choose the context that fits a token budget, explain it, and verify it."""

from ._evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from ._selection import Check, Decision, InputProblem, InvalidInputError, Selection, select
from ._tokenizer import TokenizerUnavailable, count_tokens
from .modes.messages import MessagesError, count_messages, trim_messages

__version__ = "0.1.0"
__all__ = [
    "evaluate",
    "select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem",
    "count_tokens", "TokenizerUnavailable",
    "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "MessagesError",
    "__version__",
]
