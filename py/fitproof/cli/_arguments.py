"""The command line's grammar: argparse writing to the streams given to ``run``, never
exiting the process, and naming the closest command or option to a mistyped one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, NoReturn

from .. import __version__
from .._base.values import closest_name, did_you_mean
from ..tokenizers import TOKENIZERS
from ._exits import EXIT_USAGE, Exit
from ._settings import DEFAULTS

# One example per command: `fitproof` alone and `--help` list them, so whoever
# runs the command for the first time sees a working command line for each.
EXAMPLES = {
    "check": "fitproof check --example refund-case",
    "fixtures": "fitproof fixtures --shipped",
    "compose": "fitproof compose --example refund-case",
    "count": "fitproof count --example refund-case --tokenizer o200k_base",
    "examples": "fitproof examples --write fitproof-examples",
    "serve": "fitproof serve --port 0",
    "build-site": "fitproof build-site /tmp/fitproof-site",
    "mcp": "fitproof mcp",
}

MAX_INDENT = 16
EXAMPLE_HELP = "a shipped example input instead of FILE (fitproof examples lists them)"
MAX_JOBS = 256


class _Parser(argparse.ArgumentParser):
    """argparse that writes to the streams given to ``run`` and never exits the process."""

    stderr: IO[str] = sys.stderr
    stdout: IO[str] = sys.stdout

    def __init__(self, *args, **kwargs) -> None:
        # No abbreviations: "--forc" must not quietly mean --force (it gets a "did you mean").
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file: object = None) -> None:  # file: only compared with sys.stdout
        if message:
            (self.stdout if file is sys.stdout else self.stderr).write(message)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """argparse's "invalid choice" with the closest choice named."""
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as error:
            guess = closest_name(value, tuple(action.choices or ())) if isinstance(value, str) else None
            if guess:
                error.message = f"{error.message}; did you mean {guess!r}?"
            raise

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self.stderr.write(message)
        raise Exit(status)

    def error(self, message: str) -> NoReturn:
        self.print_usage(self.stderr)
        raise Exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _examples_text() -> str:
    width = max(map(len, EXAMPLES))
    lines = [f"  {name:<{width}}  {example}" for name, example in EXAMPLES.items()]
    return "examples (one per command):\n" + "\n".join(lines) + (f"\n\nThe contract, every mode and the exit codes: {_contract()}")


def _contract() -> str:
    """Where the contract is to be read: the installed package's copy, or the checkout's."""
    package = Path(__file__).resolve().parent.parent
    for path in (package / "_data" / "docs" / "contract.md", package.parent.parent / "docs" / "contract.md"):
        if path.is_file():
            return str(path)
    return "docs/contract.md, in the project's source"


def _bounded_int(low: int, high: int, what: str):
    """An argparse type: an integer written in ASCII digits from ``low`` to ``high``."""

    def read(text: str) -> int:
        digits = text[1:] if text.startswith("-") else text
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 12) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{what} must be an integer from {low} to {high}, got {text!r}")
        return int(text)

    return read


def parser(stdout: IO[str], stderr: IO[str]) -> argparse.ArgumentParser:
    # A class per call, so that the subcommands' parsers write to these streams too and
    # two runs never share them.
    parser_class = type("Parser", (_Parser,), {"stdout": stdout, "stderr": stderr})
    parser = parser_class(
        prog="fitproof",
        description="Choose context under a token budget, explain it, verify it.",
        epilog=_examples_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fitproof {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = commands.add_parser("check", help="evaluate one JSON input and print the report in an envelope")
    check.add_argument(
        "file", nargs="?", default=None, metavar="FILE|-", help="input file, or - for standard input (the default when input is piped)"
    )
    check.add_argument("--example", metavar="NAME", help=EXAMPLE_HELP)
    check.add_argument(
        "--indent",
        type=_bounded_int(0, MAX_INDENT, "--indent"),
        default=None,
        metavar="N",
        help=f"pretty-print the JSON output with N spaces (0 to {MAX_INDENT})",
    )
    check.add_argument("--jsonl", action="store_true", help="one JSON input per line in, one envelope per line out (streaming)")
    check.add_argument(
        "--jobs",
        type=_bounded_int(0, MAX_JOBS, "--jobs"),
        default=None,
        metavar="N",
        help="with --jsonl: check the lines in N processes (0: one per core); envelopes stay in input order",
    )
    check.add_argument(
        "--claim",
        default=None,
        metavar="FILE|-",
        help='judge the claim in FILE (a JSON object such as {"selected": [ids]}; - for standard input) '
        "against the input, replacing any claim the input has",
    )
    check.add_argument(
        "--format",
        choices=("json", "text"),
        default=None,
        help="json: the envelope (the default when the output is not a terminal); text: what a person reads "
        "(the default on a terminal): summary, checks, kept and left-out items with reasons",
    )

    _tokenizer_file_option(check)

    fixtures = commands.add_parser(
        "fixtures",
        help="run every fixture case in DIR (or one case FILE), each report against what its case states; "
        "`fixtures new NAME --input FILE` writes a case",
        usage="fitproof fixtures [DIR|FILE|--shipped] [--update]\n"
        "       fitproof fixtures new NAME --input FILE|- [--expect KEYS] [--description TEXT]",
        epilog="A DIR literally named new is written ./new (`fixtures new` writes a case).",
    )
    fixtures.add_argument(
        "directory",
        nargs="?",
        default=None,
        metavar="DIR|FILE",
        help="fixture directory (default: ./fixtures when there is one), or one case file",
    )
    fixtures.add_argument("name", nargs="?", default=None, help=argparse.SUPPRESS)  # fixtures new NAME
    fixtures.add_argument("--shipped", action="store_true", help="run the fixture cases shipped with the package (the page's)")
    fixtures.add_argument(
        "--update",
        action="store_true",
        help="rewrite the expected report of each snapshot case that fails and print what changed "
        "(never an expect case, a passing case or a file that is not a case)",
    )
    fixtures.add_argument("--input", dest="case_input", default=None, metavar="FILE|-", help="with new: the input the case is about")
    fixtures.add_argument(
        "--expect",
        dest="expect_keys",
        default=None,
        metavar="KEYS",
        help="with new: the report's keys the case states, separated by commas, dotted for a key inside "
        "(default: pass and what was kept, such as pass,selected; claim.pass with a claim)",
    )
    fixtures.add_argument(
        "--description", default=None, metavar="TEXT", help="with new: what the case is about (default: the report's summary)"
    )

    compose = commands.add_parser("compose", help="pack a blocks input, print the composed prompt and the packing report")
    compose.add_argument(
        "file", nargs="?", default=None, metavar="FILE|-", help="a blocks input, or - for standard input (the default when input is piped)"
    )
    compose.add_argument("--example", metavar="NAME", help=EXAMPLE_HELP)
    compose.add_argument("--config", metavar="FILE", help=f"JSON settings: {', '.join(DEFAULTS)}")
    compose.add_argument("--call-model", action="store_true", help="post the prompt to the OpenAI-compatible model server in the settings")
    compose.add_argument("--json", action="store_true", help="print the report envelope as JSON instead of text")
    _tokenizer_file_option(compose, " (compose counts the blocks with the first one given)")

    count = commands.add_parser("count", help="print the number of tokens in a text (exact for OpenAI's encodings)")
    count.add_argument(
        "file",
        nargs="?",
        default=None,
        metavar="FILE|-",
        help="a UTF-8 text file, or - for standard input (the default when text is piped)",
    )
    count.add_argument("--example", metavar="NAME", help="count the text of a shipped example input's file instead of FILE")
    count.add_argument(
        "--tokenizer",
        default=None,
        metavar="NAME",
        help=f"{', '.join(TOKENIZERS)} or o200k_harmony, a model name such as gpt-4o or gpt-4o-2024-08-06 "
        "(counted by its encoding), or a NAME given by --tokenizer-file "
        "(default: the one --tokenizer-file names, else o200k_base)",
    )
    _tokenizer_file_option(count)

    examples = commands.add_parser("examples", help="list the example inputs and fixture cases shipped with the package, or copy them")
    examples.add_argument("--write", metavar="DIR", help="write them into DIR/examples/ and DIR/fixtures/ (never over an existing file)")

    serve = commands.add_parser("serve", help="serve the web page on 127.0.0.1, offline")
    serve.add_argument(
        "--port", type=_bounded_int(0, 65535, "--port"), default=8000, metavar="N", help="port (default 8000; 0 picks a free one)"
    )
    serve.add_argument("--verbose", action="store_true", help="log every request")

    mcp = commands.add_parser(
        "mcp",
        help="a Model Context Protocol server on standard input and output: check, count_tokens, "
        "trim_messages and verify_claim as tools for an agent",
    )
    _tokenizer_file_option(mcp, " (loaded before the server answers)")

    site = commands.add_parser("build-site", help="write the page as a self-contained static site into DIR")
    site.add_argument("directory", metavar="DIR")
    site.add_argument(
        "--force",
        action="store_true",
        help="write into a directory that holds other files: overwrite the site's own file names, delete nothing else",
    )
    return parser


def _tokenizer_file_option(command: argparse.ArgumentParser, more: str = "") -> None:
    command.add_argument(
        "--tokenizer-file",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a model's own tokenizer (tokenizer.json, tekken JSON, GGUF or SentencePiece .model file) under NAME, "
        "usable wherever a tokenizer is named; repeatable" + more,
    )


def tokenizer_registry(specs: list[str]):
    """The tokenizers of ``--tokenizer-file NAME=PATH`` options, loaded (a ``UsageError`` names a bad one)."""
    from ..tokenizers import TokenizerRegistry
    from ._exits import UsageError

    registry = TokenizerRegistry()
    for spec in specs:
        name, equals, path = spec.partition("=")
        if not equals or not name or not path:
            raise UsageError(f"--tokenizer-file: expected NAME=PATH, got {spec!r}")
        if name in registry:
            raise UsageError(f"--tokenizer-file: {name!r} is given twice")
        try:
            registry.register(name, path)
        except ValueError as error:
            raise UsageError(f"--tokenizer-file {name}: {error}") from None
    return registry


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """parse_args, but an unknown option gets the closest known one named, not "unrecognized arguments"."""
    for word in argv:  # the options before the command are the program's own (--help, --version)
        if not word.startswith("-") or word == "-":
            break
        name = word.split("=", 1)[0]
        owners = [command for command, sub in _subparsers(parser).items() if name in _options(sub)] if name not in _options(parser) else []
        if owners:
            parser.error(f"{name} is an option of {' and '.join(owners)}: write it after the command ({owners[0]} {name} ...)")
        _refuse_unknown(parser, name)
    arguments, extras = parser.parse_known_args(argv)
    if not extras:
        return arguments
    subparser = _subparsers(parser).get(arguments.command, parser)
    unknown = next((extra for extra in extras if extra.startswith("-") and extra != "-"), None)
    if unknown is not None:
        _refuse_unknown(subparser, unknown.split("=", 1)[0])
    subparser.error(f"unexpected argument {extras[0]!r}")


def _refuse_unknown(parser: argparse.ArgumentParser, name: str) -> None:
    """Stop on ``name`` unless it is one of ``parser``'s options, naming the closest one."""
    options = _options(parser)
    if name in options:
        return
    hint = did_you_mean(name, options) or f" (known: {', '.join(options)})"
    parser.error(f"unknown option {name}{hint}")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
