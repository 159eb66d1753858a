"""context-budget: choose the context that fits a token budget, explain it, and verify it.

- ``evaluate(input) -> dict``: the report for one JSON input (any mode); never raises.
- ``select(input) -> Selection``: the same, typed; raises ``InvalidInputError``.
- ``trim_messages(messages, limit)`` / ``count_messages(messages)``: chat histories.
- ``pack_passages(question, passages, limit, count)``: passages against any counter.
- ``count_tokens(text, tokenizer)``: OpenAI's exact counts (``o200k_base``, ``cl100k_base``).
- ``verify_claim(input, claim) -> ClaimVerdict``: whether a claimed selection is the rule's.
- ``context_budget.fixtures``: your own cases as pytest tests; ``context_budget.batch``:
  many requests, one envelope per line.

Every exception raised on purpose derives from ``ContextBudgetError``. The contract (every
input, field and message): docs/contract.md in the project.
"""

# typing.TYPE_CHECKING without importing typing: type checkers read the imports below.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._errors import ContextBudgetError, InvalidInputError
    from ._evaluate import evaluate
    from ._passages import PackError, Packed, pack_passages
    from ._selection import Check, Decision, InputProblem, Selection, select
    from ._verify_claim import ClaimFailure, ClaimVerdict, verify_claim
    from .modes.messages import MessagesError, count_messages, trim_messages
    from .tokenizers import TokenizerUnavailable, count_tokens

__version__ = "0.1.0"

# Each public name and the module that defines it, imported when the name is first used.
# Importing them with the package would put ~20 ms (python -X importtime; the typed API's
# dataclasses alone ~15 ms) before the command's entry point (_launch) can catch Ctrl+C,
# and into every process that imports only one submodule (batch workers, the page helper).
_HOMES = {
    "evaluate": "_evaluate",
    "ContextBudgetError": "_errors", "InvalidInputError": "_errors",
    "pack_passages": "_passages", "Packed": "_passages", "PackError": "_passages",
    "count_tokens": "tokenizers", "TokenizerUnavailable": "tokenizers",
    **dict.fromkeys(("select", "Selection", "Check", "Decision", "InputProblem"), "_selection"),
    **dict.fromkeys(("trim_messages", "count_messages", "MessagesError"), "modes.messages"),
    **dict.fromkeys(("verify_claim", "ClaimVerdict", "ClaimFailure"), "_verify_claim"),
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list:
    return sorted((set(globals()) | set(_HOMES)) - {"TYPE_CHECKING"})


__all__ = [
    "evaluate",
    "select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem",
    "count_tokens", "TokenizerUnavailable",
    "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "MessagesError",
    "verify_claim", "ClaimVerdict", "ClaimFailure",
    "ContextBudgetError",
    "__version__",
]
