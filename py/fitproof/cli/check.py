"""``fitproof check``: one JSON input, or one per line with --jsonl, evaluated and printed as envelopes."""

from __future__ import annotations

import argparse
from typing import IO

from .. import batch, tokenizers
from .._base import strict_json as _strict_json
from .._envelope import envelope_of, unreadable
from .._evaluation.evaluate import evaluate_with_problems
from ._arguments import tokenizer_registry
from ._exits import EXIT_FAIL, EXIT_PASS, EXIT_WORKER_LOST, UsageError
from ._input import open_lines, read_input, read_json_file
from ._report_text import envelope_text
from ._streams import AsciiJSON, is_terminal, json_line, one_line, printable, writes_utf8
from ._ticker import Ticker, size


def run(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    output = _output_format(arguments, stdout)
    if arguments.jobs is not None and not arguments.jsonl:  # even --jobs 1, the default: it says --jsonl was meant
        raise UsageError("check: --jobs spreads the lines of --jsonl over processes; add --jsonl")
    _refuse_claim_usage(arguments)
    registry = tokenizer_registry(arguments.tokenizer_file)
    if registry.names() and arguments.jsonl and arguments.jobs not in (None, 1):
        raise UsageError("check: --tokenizer-file works in one process; leave out --jobs")
    with tokenizers.using_tokenizers(registry):
        return _run(arguments, stdin, stdout, stderr, output)


def _run(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str], output: str) -> int:
    if arguments.jsonl:
        return _check_lines(arguments.file, stdin, stdout, stderr, 1 if arguments.jobs is None else arguments.jobs)
    data = read_input(arguments.file, stdin)
    claim = _NO_CLAIM
    if arguments.claim is not None:
        try:
            claim = _claim(arguments.claim, stdin, stderr)
        except _strict_json.JSONInputError as error:  # part of the input: exit 1, as for an input that is not JSON
            stderr.write(f"fitproof: {one_line(error)}\n")
            return EXIT_FAIL
    with Ticker(stderr, f"checking {size(len(data))}"):
        envelope, problem_total = _envelope(data, claim)
    with Ticker(stderr, "writing the report"):  # the text is made first, then written: the ticker is gone by then
        said = printable(envelope_text(envelope, problem_total)) if output == "text" else json_line(envelope, stdout, arguments.indent)
    stdout.write(said)  # ids from the input must not drive the terminal: printable() above
    return EXIT_PASS if envelope["ok"] else EXIT_FAIL


_NO_CLAIM = object()


def _refuse_claim_usage(arguments: argparse.Namespace) -> None:
    """--claim where it cannot apply, before anything is read."""
    if arguments.claim is None:
        return
    if arguments.claim == "":  # an unset variable, say: a claim asked for is never skipped unsaid
        raise UsageError("check --claim needs a file name (or - for standard input), got an empty one")
    if arguments.jsonl:
        raise UsageError("check: --claim joins one claim to one input; with --jsonl, put each line's claim in it")
    if arguments.claim == "-" and arguments.file == "-":
        raise UsageError("check cannot read both the input and --claim from standard input: give one of them as a file")


def _claim(name: str, stdin: IO, stderr: IO[str]) -> object:
    """The JSON value in the --claim file; UsageError when it cannot be read, JSONInputError when it is not JSON."""
    if name == "-" and is_terminal(stdin):
        stderr.write("fitproof: reading the claim from the terminal; end it with Ctrl+D on a line of its own (Ctrl+Z, Enter on Windows)\n")
        stderr.flush()
    try:
        return read_json_file(name, stdin, "claim", too_large_hint="a claim is a list of ids")
    except UsageError as error:  # "cannot read NAME: ...": say it was the claim's file
        raise UsageError(f"check --claim: {error}") from None


def _envelope(data: bytes, claim: object = _NO_CLAIM) -> tuple[dict, int | None]:
    """The envelope, and for an invalid input how many problems it has in all."""
    try:
        document = _strict_json.loads(_strict_json.decode_utf8(data))
    except _strict_json.JSONInputError as error:
        envelope = unreadable(error)
        if error.after_value and error.column == 1:  # a second value at the start of a line: a JSONL file, most likely
            envelope["error"] += " (one JSON input per line? check --jsonl reads them)"
        return envelope, None
    if claim is not _NO_CLAIM and isinstance(document, dict):  # it replaces a claim the input has, in its place
        document = {**document, "claim": claim}
    report, problems = evaluate_with_problems(document)
    return envelope_of(report), None if problems is None else len(problems)


def _output_format(arguments: argparse.Namespace, stdout: IO[str]) -> str:
    """JSON for programs, text for people: text by default only when stdout is a terminal and no JSON option is given."""
    if arguments.format == "text" and (arguments.jsonl or arguments.indent is not None):
        raise UsageError("check: --format text prints one report for a person; --jsonl and --indent are for JSON output")
    if arguments.jsonl and arguments.indent is not None:  # it was accepted and ignored
        raise UsageError("check: --jsonl writes each envelope on one line; --indent cannot apply to it")
    if arguments.format is not None:
        return arguments.format
    if arguments.jsonl or arguments.indent is not None:
        return "json"
    return "text" if is_terminal(stdout) else "json"


def _check_lines(name: str, stdin: IO, stdout: IO[str], stderr: IO[str], jobs: int = 1) -> int:
    """One envelope per input line, in order; a bad line is reported on its own line and the rest go on.

    Each envelope carries ``input_line`` (1-based); blank lines are skipped. Memory does not
    grow with the number of lines. The work is ``batch.write_checked``, in ``jobs`` processes.
    """
    # On a terminal only, and not the one the envelopes go to (they would be mixed).
    progress = stderr if is_terminal(stderr) and not is_terminal(stdout) else None
    out = stdout if writes_utf8(stdout) else AsciiJSON(stdout)
    try:
        passed = batch.write_checked(open_lines(name, stdin), out, batch.worker_count(jobs), progress)
    except batch.WorkerLost as lost:  # its own code: 1 would say "some line failed" of a cut output
        stdout.flush()
        stderr.write(f"fitproof: check: {lost}\n")
        return EXIT_WORKER_LOST
    return EXIT_PASS if passed else EXIT_FAIL
