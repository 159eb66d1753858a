"""One exception tree: every exception class the package defines derives from ContextBudgetError,
so ``except context_budget.ContextBudgetError`` catches whatever the package raises on purpose
(PatternUnsupported, TemplateError, WorkerLost and the plugin's CaseFailed stood outside it)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import context_budget
from context_budget import ContextBudgetError


def package_modules():
    for info in pkgutil.walk_packages(context_budget.__path__, "context_budget."):
        if info.name != "context_budget.__main__":  # importing it runs the command line
            yield importlib.import_module(info.name)


def exception_classes():
    for module in package_modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_every_exception_the_package_defines_derives_from_the_root():
    found = dict(exception_classes())
    assert len(found) >= 20, sorted(found)  # the walk reached every layer (tokenizers, templates, cli, _site...)
    for expected in ("context_budget.tokenizers.regex.PatternUnsupported", "context_budget.templates._common.TemplateError",
                     "context_budget.batch.WorkerLost", "context_budget.pytest_plugin.CaseFailed"):
        assert expected in found
    outside = sorted(name for name, kind in found.items() if not issubclass(kind, ContextBudgetError))
    assert outside == []


def test_bad_input_errors_are_value_errors_too():
    """Callers who catch ValueError keep working: each bad-input error is both."""
    from context_budget.templates import TemplateError
    from context_budget.tokenizers.regex import PatternUnsupported

    for kind in (context_budget.InvalidInputError, context_budget.MessagesError, context_budget.PackError,
                 context_budget.TokenizerUnavailable, TemplateError, PatternUnsupported):
        assert issubclass(kind, ValueError) and issubclass(kind, ContextBudgetError), kind
