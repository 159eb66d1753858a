"""The registry of modes: one module each, found by name.

A mode module provides ``NAME``, ``parse(data)`` (raising ``InvalidInput``),
``select(parsed)``, ``run(data)``, ``succeeded(result)``, ``summarize(result)`` and
``verify(data, result)`` (the independent checks), and optionally
``beyond_the_rule(parsed, result)``: what the rule's choice cost (``optimal``,
``sensitivity``), which never changes the selection or the checks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from types import ModuleType

DEFAULT_MODE = "relevance"


class _Registry(Mapping):
    """Mode name -> its module, imported the first time it is asked for: a process or a page
    that checks relevance inputs never compiles the other modes (in Pyodide, where the
    package is compiled from source at each cold start, they were two thirds of its import)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names
        self._modules: dict[str, ModuleType] = {}

    def __getitem__(self, name: str) -> ModuleType:
        module = self._modules.get(name)
        if module is None:
            if name not in self._names:
                raise KeyError(name)
            module = self._modules[name] = import_module(f"{__name__}.{name}")
        return module

    def __contains__(self, name: object) -> bool:  # without importing the module
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


MODES = _Registry(("relevance", "required", "blocks", "passages", "messages"))
