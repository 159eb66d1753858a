"""Names for tokenizers loaded from files, so that every mode's ``tokenizer``/``counter`` can use them.

A ``TokenizerRegistry`` is plain state the caller creates and owns::

    registry = TokenizerRegistry()
    registry.register("qwen3", "models/qwen3/tokenizer.json")
    with using_tokenizers(registry):          # scoped: this thread/task only, undone on exit
        report = evaluate({"mode": "blocks", "tokenizer": "qwen3", ...})

``register_tokenizer(name, path)`` registers into the one process-wide default registry instead:
that is the library's single deliberate global, changed only by that call (documented as such).
A name resolves in the scoped registry first, then the default one; ``o200k_harmony`` (GPT-OSS) is
always known. ``evaluate`` stays pure for a given registry: the same input and the same registered
files give the same report.
"""

from __future__ import annotations

import contextvars
import os
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from .._base.errors import ArgumentError, ArgumentTypeError

if TYPE_CHECKING:
    from .base import Tokenizer

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
RESERVED = ("o200k_base", "cl100k_base", "estimate", "words", "o200k_harmony")
BUILT_IN_FILES = ("o200k_harmony",)


class TokenizerRegistry:
    """Name -> loaded tokenizer."""

    def __init__(self) -> None:
        self._named: dict[str, Tokenizer] = {}

    def register(self, name: str, path_or_tokenizer: "str | os.PathLike | Tokenizer") -> Tokenizer:
        """Load (a path) or take (a ``Tokenizer``) and name it. A bad name is an ``ArgumentError``
        (``argument == "name"``; a name that is no string also a ``TypeError``), a bad file a
        ``TokenizerFileError``: both ``ValueError``."""
        if not isinstance(name, str) or not NAME.fullmatch(name):
            kind = ArgumentError if isinstance(name, str) else ArgumentTypeError
            raise kind(f"a tokenizer name is 1 to 64 letters, digits or _.:- (starting with a letter or digit), got {name!r}", "name", name)
        if name in RESERVED:
            raise ArgumentError(f"{name!r} is a built-in tokenizer name; choose another", "name", name)
        from .files import load_tokenizer
        from .base import Tokenizer

        tokenizer = path_or_tokenizer if isinstance(path_or_tokenizer, Tokenizer) else load_tokenizer(path_or_tokenizer, name)
        self._named[name] = tokenizer
        return tokenizer

    def get(self, name: str) -> "Tokenizer | None":
        return self._named.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._named)

    def __contains__(self, name: object) -> bool:
        return name in self._named


_DEFAULT = TokenizerRegistry()
_SCOPED: contextvars.ContextVar["TokenizerRegistry | None"] = contextvars.ContextVar("fitproof_tokenizers", default=None)
_BUILT_IN: dict[str, Tokenizer] = {}  # o200k_harmony, built on first use (a memo of constant data)


def default_registry() -> TokenizerRegistry:
    return _DEFAULT


def register_tokenizer(name: str, path_or_tokenizer, registry: "TokenizerRegistry | None" = None) -> Tokenizer:
    """Name a tokenizer file (or a loaded ``Tokenizer``) in ``registry``, by default the process-wide one."""
    return (registry or _DEFAULT).register(name, path_or_tokenizer)


@contextmanager
def using_tokenizers(registry: TokenizerRegistry) -> Iterator[TokenizerRegistry]:
    """Resolve names in ``registry`` (before the default one) inside the ``with`` block only."""
    token = _SCOPED.set(registry)
    try:
        yield registry
    finally:
        _SCOPED.reset(token)


def named_tokenizer(name: str) -> "Tokenizer | None":
    """The loaded tokenizer a name stands for, or None."""
    scoped = _SCOPED.get()
    if scoped is not None and name in scoped:
        return scoped.get(name)
    if name in _DEFAULT:
        return _DEFAULT.get(name)
    if name == "o200k_harmony":
        if name not in _BUILT_IN:
            from .rank_tokenizer import o200k_harmony

            _BUILT_IN[name] = o200k_harmony()
        return _BUILT_IN[name]
    from .model_names import gemini_tokenizer

    stands_for = gemini_tokenizer(name)  # a Gemini model: the tokenizer registered as "gemma3", if any
    return named_tokenizer(stands_for) if stands_for is not None else None


def registered_names() -> tuple[str, ...]:
    """The names registered in the registry in use and the default one (not the built-in ones)."""
    scoped = _SCOPED.get()
    return tuple(dict.fromkeys((*(scoped.names() if scoped is not None else ()), *_DEFAULT.names())))


def file_record(name: object) -> "dict | None":
    """What a report records about a tokenizer read from a file: ``{name, kind, sha256}``, or None."""
    tokenizer = named_tokenizer(name) if isinstance(name, str) else None
    if tokenizer is None:
        return None
    record = {"name": name, "kind": tokenizer.kind, "sha256": tokenizer.sha256}
    from .model_names import gemini_tokenizer

    stands_for = gemini_tokenizer(name)
    if stands_for is not None and named_tokenizer(stands_for) is tokenizer:
        record["via"] = stands_for  # a Gemini model counted with the file registered as "gemma3"
    return record


__all__ = [
    "TokenizerRegistry",
    "register_tokenizer",
    "using_tokenizers",
    "named_tokenizer",
    "registered_names",
    "default_registry",
    "file_record",
    "BUILT_IN_FILES",
]
