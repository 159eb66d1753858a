"""One exception tree: every exception class the package defines derives from FitproofError,
so ``except fitproof.FitproofError`` catches whatever the package raises on purpose
(PatternUnsupported, TemplateError, WorkerLost and the plugin's CaseFailed stood outside it)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import fitproof
from fitproof import FitproofError


def package_modules():
    for info in pkgutil.walk_packages(fitproof.__path__, "fitproof."):
        if info.name != "fitproof.__main__":  # importing it runs the command line
            yield importlib.import_module(info.name)


def exception_classes():
    for module in package_modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_every_exception_the_package_defines_derives_from_the_root():
    found = dict(exception_classes())
    assert len(found) >= 20, sorted(found)  # the walk reached every layer (tokenizers, templates, cli, _site...)
    for expected in ("fitproof.tokenizers.regex.PatternUnsupported", "fitproof.templates._common.TemplateError",
                     "fitproof.batch.WorkerLost", "fitproof.pytest_plugin.CaseFailed"):
        assert expected in found
    outside = sorted(name for name, kind in found.items() if not issubclass(kind, FitproofError))
    assert outside == []


def test_bad_input_errors_are_value_errors_too():
    """Callers who catch ValueError keep working: each bad-input error is both."""
    from fitproof.templates import TemplateError
    from fitproof.tokenizers.regex import PatternUnsupported

    for kind in (fitproof.InvalidInputError, fitproof.MessagesError, fitproof.PackError,
                 fitproof.TokenizerUnavailable, TemplateError, PatternUnsupported):
        assert issubclass(kind, ValueError) and issubclass(kind, FitproofError), kind
