"""context-budget: choose the context that fits a token budget, explain it, and verify it."""

from ._evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from .modes.messages import MessagesError, count_messages, trim_messages

__version__ = "0.1.0"
__all__ = [
    "evaluate", "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "MessagesError", "__version__",
]
