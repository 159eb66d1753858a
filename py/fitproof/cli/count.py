"""``fitproof count``: the number of tokens in a text."""

from __future__ import annotations

import argparse
from typing import IO

from .. import tokenizers
from .._base.values import closest_name
from ..tokenizers.model_names import EXAMPLES, MODEL_ENCODINGS, uncounted_reason
from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._arguments import tokenizer_registry
from ._input import read_input
from ._ticker import Ticker, size


def run(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    """The token count of the file's text exactly as it is (line endings and a BOM included)."""
    data = read_input(arguments.file, stdin, "count a smaller file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        what = "standard input" if arguments.file == "-" else arguments.file
        raise UsageError(f"cannot read {what}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    registry = tokenizer_registry(arguments.tokenizer_file)
    name = arguments.tokenizer or (registry.names()[0] if registry.names() else "o200k_base")
    try:
        with Ticker(stderr, f"counting the tokens of {size(len(data))}"), tokenizers.using_tokenizers(registry):
            if tokenizers.resolve(name) not in tokenizers.TOKENIZERS and tokenizers.named_tokenizer(name) is None:
                reason = uncounted_reason(name)
                if reason:
                    raise UsageError(f"count: argument --tokenizer: {reason}")
                names = (*tokenizers.TOKENIZERS, "o200k_harmony", *registry.names())
                known = ", ".join(names)
                guess = closest_name(name, (*names, *EXAMPLES, *MODEL_ENCODINGS))
                hint = f"; did you mean {guess!r}?" if guess else ""
                raise UsageError(f"count: argument --tokenizer: expected one of {known} or a model name such as gpt-4o, got {name!r}{hint}")
            tokens = tokenizers.count_tokens(text, name)
    except tokenizers.TokenizerUnavailable as error:
        stderr.write(f"fitproof: {error}\n")
        return EXIT_FAIL
    except tokenizers.TokenizerFileError as error:  # a file found broken only while it counted this text
        raise UsageError(f"--tokenizer {name}: its file cannot count this text: {error}") from None
    stdout.write(f"{tokens}\n")
    return EXIT_PASS
