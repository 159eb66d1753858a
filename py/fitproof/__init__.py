"""fitproof: choose the context that fits a token budget, explain it, and verify it.

- ``evaluate(input) -> Report``: the report for one JSON input (any mode), a TypedDict that
  declares every key; never raises.
- ``select(input) -> Selection``: the same, typed; raises ``InvalidInputError``.
- ``trim_messages(messages, limit)`` / ``count_messages(messages)``: chat histories (``as_sent``:
  one message as a request takes it).
- ``pack_passages(question, passages, limit, count)``: passages against any counter.
- ``count_tokens(text, tokenizer)``: OpenAI's exact counts (``o200k_base``, ``cl100k_base``).
- ``load_tokenizer(path) -> Tokenizer``: a model's own tokenizer file; ``register_tokenizer(name,
  path)``, or a ``TokenizerRegistry`` in ``with using_tokenizers(registry)``, names it for every
  mode (``named_tokenizer(name)``: the tokenizer a name stands for); ``TokenizerFileError``.
- ``verify_claim(input, claim) -> ClaimVerdict``: whether a claimed selection is the rule's.
- ``fitproof.fixtures``: your own cases as pytest tests; ``fitproof.batch``:
  many requests, one envelope per line.

Every exception raised on purpose derives from ``FitproofError``; an argument a call cannot take
is an ``ArgumentError`` (``argument``, ``value``, ``suggestion``; ``ArgumentTypeError`` for a wrong
type). The contract (every input, field and message): docs/contract.md in the project.
"""

from typing import TYPE_CHECKING

from ._base.errors import ArgumentError, ArgumentTypeError, FitproofError, InputProblem, InvalidInputError, TokenizerFileError
from ._evaluation.evaluate import evaluate
from ._evaluation.report import Report
from ._passages import PackError, Packed, pack_passages
from ._selection import Check, Decision, Selection, select
from ._verify_claim import ClaimFailure, ClaimVerdict, verify_claim
from .modes.messages import MessagesDoNotFit, MessagesError, RememberedCallLost, TrimmedMessages, as_sent, count_messages, trim_messages
from .tokenizers import TokenizerRegistry, TokenizerUnavailable, count_tokens, named_tokenizer, register_tokenizer, using_tokenizers

if TYPE_CHECKING:
    from .tokenizers.files import load_tokenizer
    from .tokenizers.base import Tokenizer

__version__ = "0.5.0"  # CHANGELOG.md; the wheel's version is read from here

__all__ = [
    "evaluate",
    "Report",
    "select",
    "Selection",
    "Check",
    "Decision",
    "InvalidInputError",
    "InputProblem",
    "count_tokens",
    "TokenizerUnavailable",
    "load_tokenizer",
    "Tokenizer",
    "TokenizerFileError",
    "register_tokenizer",
    "TokenizerRegistry",
    "using_tokenizers",
    "named_tokenizer",
    "pack_passages",
    "Packed",
    "PackError",
    "trim_messages",
    "count_messages",
    "TrimmedMessages",
    "MessagesError",
    "RememberedCallLost",
    "MessagesDoNotFit",
    "as_sent",
    "verify_claim",
    "ClaimVerdict",
    "ClaimFailure",
    "FitproofError",
    "ArgumentError",
    "ArgumentTypeError",
    "__version__",
]


def __getattr__(name: str):
    """``load_tokenizer`` and ``Tokenizer``, imported on first use (from ``tokenizers``, which
    imports them lazily too): importing the package is the page's start-up, and most inputs never
    read a tokenizer file."""
    if name in _LAZY:
        from . import tokenizers

        return getattr(tokenizers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LAZY = ("load_tokenizer", "Tokenizer")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
