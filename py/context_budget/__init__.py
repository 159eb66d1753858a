"""context-budget: choose the context that fits a token budget, explain it, and verify it."""

from ._evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from ._tokenizer import TokenizerUnavailable, count_tokens

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._selection import Check, Decision, InputProblem, InvalidInputError, Selection, select
    from .modes.messages import MessagesError, count_messages, trim_messages

__version__ = "0.1.0"
# The typed API is imported on first use: its dataclasses pull in `dataclasses` and
# `inspect`, tens of milliseconds at start-up that a process calling evaluate() never needs.
_TYPED = ("select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem")


# The messages mode's functions too: the largest mode, compiled only when it is used.
_MESSAGES = ("trim_messages", "count_messages", "MessagesError")


def __getattr__(name: str):
    if name in _TYPED:
        from . import _selection

        return getattr(_selection, name)
    if name in _MESSAGES:
        from .modes import messages

        return getattr(messages, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
__all__ = [
    "evaluate",
    "select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem",
    "count_tokens", "TokenizerUnavailable",
    "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "MessagesError",
    "__version__",
]
