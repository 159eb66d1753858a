"""The tokenizers by name: OpenAI's exact ``o200k_base`` and ``cl100k_base`` (``exact``, on the
frozen character classes of ``unicode_classes``) and the ``estimate`` heuristic (``estimate``).

To add a tokenizer: give it a module here with a ``text -> count`` function, add its name to
``TOKENIZERS`` and a branch to ``count_tokens`` and ``counter``; an exact one also needs its
rank file in ``exact.RANK_FILES`` and a pre-tokenizer pattern in ``exact.PATTERNS``.

Tokenizers read from a model's own files (``files``: a Hugging Face tokenizer.json, a tekken file,
a SentencePiece ``.model``, a GGUF header) are named through a ``TokenizerRegistry`` (see ``named_tokenizer``); the functions
below take such a name, or a loaded ``Tokenizer`` itself, wherever they take a built-in name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .._base.errors import ArgumentError, ArgumentTypeError
from .._base.values import Invalid, Unavailable, closest_name, json_text, preview
from . import exact
from .estimate import estimate_tokens
from .exact import ENCODINGS, EXACT, RANK_FILES, TokenizerUnavailable
from .registry import (
    BUILT_IN_FILES,
    TokenizerRegistry,
    default_registry,
    file_record,
    named_tokenizer,
    register_tokenizer,
    registered_names,
    using_tokenizers,
)
from .model_names import EXAMPLES, MODEL_ENCODINGS, counted_encoding, uncounted_reason

TOKENIZERS = EXACT + ("estimate",)


def resolve(tokenizer: object) -> object:
    """A model name (``gpt-4o``, ``gpt-4o-2024-08-06``; ``model_names.py``) as its encoding; any other value as it is."""
    return counted_encoding(tokenizer) or tokenizer


def check_name(tokenizer: object) -> str:
    """A built-in tokenizer's name (a model name read as its encoding); ``ArgumentError`` otherwise."""
    resolved = resolve(tokenizer)
    if isinstance(resolved, str) and resolved in TOKENIZERS:
        return resolved
    raise unknown_tokenizer(tokenizer)


def unknown_tokenizer(tokenizer: object) -> ArgumentError:
    """The error for a ``tokenizer`` argument that names no tokenizer: why a model tiktoken knows is
    not counted, or the names known and the one a typo most likely meant (``suggestion``)."""
    names = tuple(dict.fromkeys((*TOKENIZERS, *BUILT_IN_FILES, *registered_names())))
    if not isinstance(tokenizer, str):
        return ArgumentTypeError(
            f"unknown tokenizer {tokenizer!r}: a tokenizer is a name (known: {', '.join(names)} or a model "
            "name such as gpt-4o) or a loaded Tokenizer",
            "tokenizer",
            tokenizer,
        )
    reason = uncounted_reason(tokenizer)
    if reason:
        return ArgumentError(reason, "tokenizer", tokenizer)
    guess = closest_name(tokenizer, (*names, *EXAMPLES, *MODEL_ENCODINGS))
    hint = f"; did you mean {guess!r}?" if guess else ""
    return ArgumentError(
        f"unknown tokenizer {tokenizer!r}; known: {', '.join(names)} or a model name such as gpt-4o{hint}", "tokenizer", tokenizer, guess
    )


if TYPE_CHECKING:
    from .files import from_bytes, load_tokenizer
    from .base import Tokenizer, TokenizerFileError

_FROM_MODEL = ("Tokenizer", "TokenizerFileError")
_FROM_FILES = ("from_bytes", "load_tokenizer")


def __getattr__(name: str):
    """``Tokenizer``, ``load_tokenizer``... from ``base`` and ``files``, imported on first use: most inputs never
    read a tokenizer file, and importing the package is the page's start-up."""
    if name in _FROM_MODEL:
        from . import base

        return getattr(base, name)
    if name in _FROM_FILES:
        from . import files

        return getattr(files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def count_tokens(text: str, tokenizer: "str | Tokenizer" = "o200k_base") -> int:
    """The number of tokens in ``text``: exact for ``o200k_base`` and ``cl100k_base``.

    ``tokenizer`` may also be a loaded ``Tokenizer`` (``load_tokenizer(path)``) or a name registered
    with ``register_tokenizer`` / a ``TokenizerRegistry`` in use (``o200k_harmony`` is always known).

    ``estimate`` is the heuristic of the C# pipeline the ``blocks`` mode adapts (seed 001). Raises
    ``ArgumentError`` (a ``ValueError``) for an unknown name, with the name a typo most likely meant as ``suggestion``,
    and ``ArgumentTypeError`` (a ``ValueError`` and a ``TypeError``) for a text that is no string;
    ``TokenizerUnavailable`` (a ``ValueError``) when the rank file is missing or not the published one.
    """
    loaded = _loaded(tokenizer)
    if loaded is not None:
        if not isinstance(text, str):
            raise _not_text(text)
        return loaded.count(text)
    tokenizer = check_name(tokenizer)
    if not isinstance(text, str):
        raise _not_text(text)
    if tokenizer == "estimate":
        return estimate_tokens(text)
    return exact.ENCODINGS[tokenizer].count(text)


def _not_text(text: object) -> ArgumentTypeError:
    return ArgumentTypeError(f"text must be a string, got {type(text).__name__}", "text", text)


def read_tokenizer(value: object, allowed: tuple[str, ...] = TOKENIZERS, *, not_for: str | None = None) -> str:
    """A tokenizer name from an input (or a model name, read as its encoding), its rank file loaded:
    raises ``Invalid`` (a one-line reason) otherwise.

    A name registered in the registry in use (``named_tokenizer``) is accepted too, unless
    ``not_for`` says what such a tokenizer cannot do there (``"count passages"``).
    """
    models = " or a model name such as gpt-4o" if any(name in EXACT for name in allowed) else ""
    if isinstance(value, str) and _loaded(value) is not None:
        if not_for is None:
            return value
        raise Invalid(f"a model's own tokenizer cannot {not_for} yet: expected one of {', '.join(allowed)}{models}, got {preview(value)}")
    encoding = counted_encoding(value)
    if encoding in allowed:
        value = encoding
    if not isinstance(value, str) or value not in allowed:
        reason = uncounted_reason(value)
        if reason:
            raise Invalid(f"{reason}; got {preview(value)}")
        guess = closest_name(value, allowed) if isinstance(value, str) else None
        hint = f"; did you mean {json_text(guess)}?" if guess else ""
        raise Invalid(f"expected one of {', '.join(allowed)}{models}, got {preview(value)}{hint}")
    if value in exact.ENCODINGS:
        try:
            exact.ENCODINGS[value].load()
        except TokenizerUnavailable as error:
            raise Unavailable(str(error)) from None
    return value


def counter(tokenizer: str) -> Callable[[str], int]:
    """``text -> count`` for a known tokenizer name (its rank file already loaded by ``read_tokenizer``)."""
    loaded = _loaded(tokenizer)
    if loaded is not None:
        return loaded.count
    tokenizer = resolve(tokenizer)  # type: ignore[assignment]
    return estimate_tokens if tokenizer == "estimate" else exact.ENCODINGS[tokenizer].count


def _loaded(tokenizer: object) -> "Tokenizer | None":
    """A loaded tokenizer given itself or by a registered name; None for the built-in names."""
    if isinstance(tokenizer, str):
        return named_tokenizer(tokenizer) if tokenizer not in TOKENIZERS else None
    from .base import Tokenizer

    return tokenizer if isinstance(tokenizer, Tokenizer) else None


__all__ = [
    "Tokenizer",
    "TokenizerFileError",
    "TokenizerRegistry",
    "load_tokenizer",
    "from_bytes",
    "register_tokenizer",
    "using_tokenizers",
    "named_tokenizer",
    "default_registry",
    "file_record",
    "BUILT_IN_FILES",
    "TOKENIZERS",
    "EXACT",
    "ENCODINGS",
    "RANK_FILES",
    "TokenizerUnavailable",
    "check_name",
    "unknown_tokenizer",
    "count_tokens",
    "read_tokenizer",
    "counter",
    "estimate_tokens",
    "resolve",
    "registered_names",
]
