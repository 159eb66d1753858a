"""The command line: ``run(argv, stdin, stdout, stderr) -> exit code``; ``main`` wires it to the process.

Each command is a module of its own (``check``, ``count``, ``compose``, ``fixtures``,
``examples``, ``serve``, ``build_site``); the exit codes are in ``_exits`` (the README has the table).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import IO, Mapping, Sequence, cast

from . import build_site, check, compose, count, examples, fixtures, serve
from ._arguments import EXAMPLES, parse, tokenizer_registry
from ._arguments import parser as _parser
from ._exits import EXIT_FAIL, EXIT_USAGE, Exit, OutputFailed, UsageError
from ._input import default_input
from ._streams import InPieces, Unfailing, is_terminal, one_line, printable

__all__ = ["run", "main", "EXAMPLES"]


def run(argv: Sequence[str], stdin: IO, stdout: IO[str], stderr: IO[str], environ: Mapping[str, str] | None = None) -> int:
    parser = _parser(stdout, stderr)
    if not argv:  # no command: what the commands are and how each is used, not just "required: COMMAND"
        parser.print_help(stderr)
        return EXIT_USAGE
    try:
        arguments = parse(parser, list(argv))
        command = arguments.command
        if getattr(arguments, "example", None) is not None:
            if arguments.file is not None:
                raise UsageError(f"{command}: give a FILE or --example, not both")
            arguments.file = examples.example_path(arguments.example)
        if getattr(arguments, "file", None) == "":  # an unset variable, say: never guess what was meant
            raise UsageError(f"{command} needs a file name (or - for standard input), got an empty one")
        if getattr(arguments, "file", "") is None:
            arguments.file = default_input(stdin, command, EXAMPLES.get(command, f"fitproof {command} FILE"))
        if getattr(arguments, "file", None) == "-" and is_terminal(stdin):
            what = "text" if command == "count" else "JSON"
            stderr.write(
                f"fitproof: reading {what} from the terminal; end it with Ctrl+D on a line of its own (Ctrl+Z, Enter on Windows)\n"
            )
            stderr.flush()
        if command == "check":
            return check.run(arguments, stdin, stdout, stderr)
        if command == "compose":
            return compose.run(arguments, stdin, stdout, stderr, os.environ if environ is None else environ)
        if command == "count":
            return count.run(arguments, stdin, stdout, stderr)
        if command == "examples":
            return examples.run(arguments.write, stdout)
        if command == "serve":
            return serve.run(arguments.port, arguments.verbose, stdout, stderr)
        if command == "fixtures":
            return fixtures.run(arguments, stdin, stdout, stderr)
        if command == "mcp":
            from ..mcp_server import stdio  # its thread and tools only for this command

            registry = tokenizer_registry(arguments.tokenizer_file) if arguments.tokenizer_file else None
            return stdio.run(stdin, stdout, stderr, registry)
        if arguments.directory == "":  # Path("") is the current directory: never guess it
            raise UsageError(f"{command} needs a directory name, got an empty one")
        return build_site.run(Path(arguments.directory), arguments.force, stdout, stderr)
    except Exit as stop:
        if stop.message:
            stderr.write(printable(stop.message))  # it may quote an argument: no escape sequences
        return stop.status
    except UsageError as error:
        stderr.write(f"fitproof: {one_line(error)}\n")
        return EXIT_USAGE


def main() -> None:
    if sys.stderr is None:  # `2>&-`: errors have nowhere to go, but must not become a crash either
        sys.stderr = open(os.devnull, "w")
    if sys.stdout is None:  # `>&-`
        with contextlib.suppress(OSError):
            sys.stderr.write("fitproof: cannot write standard output: it is closed\n")
        sys.exit(EXIT_USAGE)
    for stream in (sys.stdout, sys.stderr):
        # A character the output's encoding lacks (an id with an emoji on an ASCII or Latin-1
        # terminal) is written as an escape, never a UnicodeEncodeError.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a stream without it: suppressed
    out = InPieces(sys.stdout)
    try:
        # (the wrappers stand in for the streams: write and flush their own, the rest the stream's)
        code = run(sys.argv[1:], sys.stdin, cast("IO[str]", out), cast("IO[str]", Unfailing(sys.stderr)))
        out.flush()
    except OutputFailed as error:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"fitproof: cannot write standard output: {error}\n")
        # What is still buffered would fail again in the interpreter's own final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_USAGE
    except KeyboardInterrupt:
        code = 130
        # Deaf to another Ctrl+C while Python finishes (it joins the --jobs pool's threads), so
        # that one arriving then prints no "Exception ignored" traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except BrokenPipeError:
        # The reader went away (`| head -1`): stop quietly, as other Unix tools do. Point
        # stdout at /dev/null so that the interpreter's own final flush cannot complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_FAIL
    sys.exit(code)
