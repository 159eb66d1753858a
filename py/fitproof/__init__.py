"""fitproof: choose the context that fits a token budget, explain it, and verify it.

- ``evaluate(input) -> dict``: the report for one JSON input (any mode); never raises.
- ``select(input) -> Selection``: the same, typed; raises ``InvalidInputError``.
- ``trim_messages(messages, limit)`` / ``count_messages(messages)``: chat histories (``as_sent``:
  one message as a request takes it).
- ``pack_passages(question, passages, limit, count)``: passages against any counter.
- ``count_tokens(text, tokenizer)``: OpenAI's exact counts (``o200k_base``, ``cl100k_base``).
- ``verify_claim(input, claim) -> ClaimVerdict``: whether a claimed selection is the rule's.
- ``fitproof.fixtures``: your own cases as pytest tests; ``fitproof.batch``:
  many requests, one envelope per line.

Every exception raised on purpose derives from ``FitproofError``. The contract (every
input, field and message): docs/contract.md in the project.
"""

from ._base.errors import FitproofError, InputProblem, InvalidInputError
from ._evaluation.evaluate import evaluate
from ._passages import PackError, Packed, pack_passages
from ._selection import Check, Decision, Selection, select
from ._verify_claim import ClaimFailure, ClaimVerdict, verify_claim
from .modes.messages import MessagesDoNotFit, MessagesError, TrimmedMessages, as_sent, count_messages, trim_messages
from .tokenizers import TokenizerUnavailable, count_tokens

__version__ = "0.4.0"  # CHANGELOG.md; the wheel's version is read from here

__all__ = [
    "evaluate",
    "select", "Selection", "Check", "Decision", "InvalidInputError", "InputProblem",
    "count_tokens", "TokenizerUnavailable",
    "pack_passages", "Packed", "PackError",
    "trim_messages", "count_messages", "TrimmedMessages", "MessagesError", "MessagesDoNotFit", "as_sent",
    "verify_claim", "ClaimVerdict", "ClaimFailure",
    "FitproofError",
    "__version__",
]
