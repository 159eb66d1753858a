"""context-budget: choose the context that fits a token budget, explain it, and verify it.

- ``evaluate(input) -> dict``: the report for one JSON input (any mode); never raises.
- ``select(input) -> Selection``: the same, typed; raises ``InvalidInputError``.
- ``trim_messages(messages, limit)`` / ``count_messages(messages)``: chat histories.
- ``pack_passages(question, passages, limit, count)``: passages against any counter.
- ``count_tokens(text, tokenizer)``: OpenAI's exact counts (``o200k_base``, ``cl100k_base``).
- ``context_budget.fixtures``: your own cases as pytest tests; ``context_budget.batch``:
  many requests, one envelope per line.

Every exception raised on purpose derives from ``ContextBudgetError``. The contract (every
input, field and message): docs/contract.md in the project.
"""

from ._errors import ContextBudgetError
from ._evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from ._tokenizer import TokenizerUnavailable, count_tokens
from .modes.messages import MessagesError, count_messages, trim_messages

__version__ = "0.1.0"

# The typed API is imported on first use: its dataclasses import `dataclasses` and `inspect`,
# ~15 ms of a process's ~20 ms start-up (python -X importtime), which `check` never needs.
_TYPED = ("select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem")
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._selection import Check, Decision, InputProblem, InvalidInputError, Selection, select


def __getattr__(name: str) -> object:
    if name not in _TYPED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _selection

    value = getattr(_selection, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_TYPED))


__all__ = [
    "evaluate",
    "select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem",
    "count_tokens", "TokenizerUnavailable",
    "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "MessagesError",
    "ContextBudgetError",
    "__version__",
]
