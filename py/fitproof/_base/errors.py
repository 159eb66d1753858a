"""The root of every exception the package raises on purpose, the one shape of invalid input, and
the one of an argument a library call cannot take.

``except fitproof.FitproofError`` catches them all; each subclass also derives from
the built-in exception that says what kind of failure it is (``ValueError`` for bad input), so
callers who catch those keep working.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class FitproofError(Exception):
    """Any failure this package reports on purpose (never a bug)."""


class ArgumentError(FitproofError, ValueError):
    """A library call given an argument it cannot take (``count_tokens("hi", "o200k")``); the
    input of ``evaluate`` and the modes is ``InvalidInputError`` instead.

    Data, so that no caller parses the message: ``argument``, the parameter's name
    (``"tokenizer"``); ``value``, what was given; ``suggestion``, the known value a typo most
    likely meant (``"o200k_base"``), or None.
    """

    def __init__(self, message: str, argument: str, value: object, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument
        self.value = value
        self.suggestion = suggestion

    def __reduce__(self):  # pickled whole (a process pool sends it back to the caller)
        return type(self), (str(self), self.argument, self.value, self.suggestion)


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of a type the call cannot take (``count_tokens(5)``): a ``TypeError`` too, and
    still a ``ValueError`` as every ``ArgumentError`` is."""


class TokenizerFileError(FitproofError, ValueError):
    """A tokenizer file that cannot be used: the message names the file and what is wrong.
    (Here, not in ``tokenizers.model``, so that catching it imports no tokenizer.)"""


class InvalidInputError(FitproofError, ValueError):
    """Input that breaks the contract, from ``select``, ``trim_messages`` or ``pack_passages``.

    ``problems``: every problem found (at most 50 from ``select``), each an ``InputProblem``
    with ``path`` (``$.items[2].tokens``), ``message``, ``code`` (``missing_key``...) and
    ``at`` (the path as keys and indices). ``summary``: one sentence; ``report``: the
    report ``evaluate`` gave, for ``select``.
    """

    def __init__(
        self, message: str, problems: Iterable[Any] = (), summary: str | None = None, report: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.problems = tuple(problems)
        self.summary = message if summary is None else summary
        self.report = report

    def __reduce__(self):  # pickled whole (a process pool sends it back to the caller)
        return type(self), (str(self), self.problems, self.summary, self.report)


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with the input: where (a JSON path such as ``$.items[2].tokens``) and what.

    ``code`` says what kind of problem it is (``missing_key``, ``unknown_key``, ``wrong_type``,
    ``invalid_value``, ``duplicate_id``, ``tokenizer_unavailable``...: ``_base/values.py`` lists
    them) and ``at`` is the path as data (``("items", 2, "tokens")``), for code to branch on.
    ``problem["path"]`` and ``problem["message"]`` read as the report's ``{path, message}``.
    """

    path: str
    message: str
    code: str = field(default="", repr=False)
    at: tuple[str | int, ...] = field(default=(), repr=False)

    def __getitem__(self, key: str) -> str:
        if key not in ("path", "message"):
            raise KeyError(key)
        return self.path if key == "path" else self.message


def input_problems(problems: Iterable[Any]) -> tuple[InputProblem, ...]:
    return tuple(InputProblem(problem.path, problem.message, problem.code, problem.at) for problem in problems)
