"""The command line: ``run(argv, stdin, stdout, stderr) -> exit code``; ``main`` wires it to the process.

Exit codes (the README has the table): 0 the report passes, every fixture or line
passed; 1 it does not, the input is not acceptable JSON, a required block does not fit,
the model call failed, or the checkout lacks what the page needs; 2 bad usage (unknown
command or option, a file that cannot be opened, no fixtures, a port that cannot be
used, invalid compose settings).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import json
import difflib
import os
import re
import signal
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Mapping, Sequence

from . import __version__, _fixtures, _model, _strict_json, _tokenizer
from ._evaluate import evaluate
from ._envelope import check_document, failure_text, to_json, unreadable
from ._report_text import envelope_text
from ._values import MAX_SAFE_INTEGER

if TYPE_CHECKING:  # for an annotation: threading is imported where a ticker starts
    import threading

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _OnFirstUse:
    """A module imported when an attribute is first asked for: the web server's modules
    (http.server, socketserver, threads) cost start-up time that ``check`` never needs."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        import importlib

        return getattr(importlib.import_module(self._name), attribute)


_site = _OnFirstUse("context_budget._site")


class UsageError(Exception):
    """Bad usage: printed as one line on stderr, exit code 2."""


class OutputFailed(Exception):
    """Standard output could not be written (a full disk): one line on stderr, exit code 2.
    Not an OSError, so that no handler meant for the files a command reads takes it."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))


class _Parser(argparse.ArgumentParser):
    """argparse that writes to the streams given to ``run`` and never exits the process."""

    stderr: IO[str] = sys.stderr
    stdout: IO[str] = sys.stdout

    def __init__(self, *args, **kwargs) -> None:
        # No abbreviations: "--forc" must not quietly mean --force (it gets a "did you mean").
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if message:
            (self.stdout if file is sys.stdout else self.stderr).write(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:
        if message:
            self.stderr.write(message)
        raise _Exit(status)

    def error(self, message: str) -> None:
        self.print_usage(self.stderr)
        raise _Exit(EXIT_USAGE, f"{self.prog}: error: {_with_suggestion(message)}\n")


def _with_suggestion(message: str) -> str:
    """argparse's "invalid choice: 'chek' (choose from ...)" with the closest choice named."""
    match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if match:
        choices = re.findall(r"'([^']*)'", match.group(2))
        guess = difflib.get_close_matches(match.group(1), choices, n=1)
        if guess:
            return f"{message}; did you mean {guess[0]!r}?"
    return message


# One example per command: `context-budget` alone and `--help` list them, so a newcomer
# sees a working command line for each.
EXAMPLES = {
    "check": "context-budget check examples/refund-case.json",
    "fixtures": "context-budget fixtures fixtures/",
    "compose": "context-budget compose examples/refund-case.json",
    "count": "context-budget count README.md --tokenizer o200k_base",
    "serve": "context-budget serve --port 0",
    "build-site": "context-budget build-site /tmp/context-budget-site",
}


def _examples_text() -> str:
    width = max(map(len, EXAMPLES))
    lines = [f"  {name:<{width}}  {example}" for name, example in EXAMPLES.items()]
    return "examples (one per command):\n" + "\n".join(lines) + (
        "\n\nThe contract, every mode and the exit codes: docs/contract.md in the repository."
    )


class _Exit(Exception):
    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _bounded_int(low: int, high: int, what: str):
    """An argparse type: an integer written in ASCII digits from ``low`` to ``high``."""

    def read(text: str) -> int:
        digits = text[1:] if text.startswith("-") else text
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 12) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{what} must be an integer from {low} to {high}, got {text!r}")
        return int(text)

    return read


MAX_INDENT = 16
MAX_JOBS = 256


def _parser(stdout: IO[str], stderr: IO[str]) -> argparse.ArgumentParser:
    # A class per call, so that the subcommands' parsers write to these streams too and
    # two runs never share them.
    parser_class = type("Parser", (_Parser,), {"stdout": stdout, "stderr": stderr})
    parser = parser_class(
        prog="context-budget",
        description="Choose context under a token budget, explain it, verify it.",
        epilog=_examples_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"context-budget {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = commands.add_parser("check", help="evaluate one JSON input and print the report in an envelope")
    check.add_argument("file", nargs="?", default=None, metavar="FILE|-", help="input file, or - for standard input (the default when input is piped)")
    check.add_argument("--indent", type=_bounded_int(0, MAX_INDENT, "--indent"), default=None, metavar="N", help=f"pretty-print the JSON output with N spaces (0 to {MAX_INDENT})")
    check.add_argument("--jsonl", action="store_true", help="one JSON input per line in, one envelope per line out (streaming)")
    check.add_argument(
        "--jobs", type=_bounded_int(0, MAX_JOBS, "--jobs"), default=None, metavar="N",
        help="with --jsonl: check the lines in N processes (0: one per core); envelopes stay in input order",
    )
    check.add_argument(
        "--format", choices=("json", "text"), default=None,
        help="json: the envelope (the default when the output is not a terminal); text: what a person reads "
        "(the default on a terminal): summary, checks, kept and left-out items with reasons",
    )

    fixtures = commands.add_parser("fixtures", help="run every fixture case in DIR (or one case FILE) and compare the full reports")
    fixtures.add_argument("directory", nargs="?", default="fixtures", metavar="DIR|FILE", help="fixture directory (default: ./fixtures), or one case file")

    compose = commands.add_parser("compose", help="pack a blocks input, print the composed prompt and the packing report")
    compose.add_argument("file", nargs="?", default=None, metavar="FILE|-", help="a blocks input, or - for standard input (the default when input is piped)")
    compose.add_argument("--config", metavar="FILE", help=f"JSON settings: {', '.join(_model.DEFAULTS)}")
    compose.add_argument("--call-model", action="store_true", help="post the prompt to the OpenAI-compatible model server in the settings")
    compose.add_argument("--json", action="store_true", help="print the report envelope as JSON instead of text")

    count = commands.add_parser("count", help="print the number of tokens in a text (exact for OpenAI's encodings)")
    count.add_argument("file", nargs="?", default=None, metavar="FILE|-", help="a UTF-8 text file, or - for standard input (the default when text is piped)")
    count.add_argument("--tokenizer", default="o200k_base", choices=_tokenizer.TOKENIZERS,
                       help="o200k_base (GPT-4o and later, the default), cl100k_base (GPT-4, GPT-3.5) or estimate (a heuristic)")

    serve = commands.add_parser("serve", help="serve the web page on 127.0.0.1, offline")
    serve.add_argument("--port", type=_bounded_int(0, 65535, "--port"), default=8000, metavar="N", help="port (default 8000; 0 picks a free one)")
    serve.add_argument("--verbose", action="store_true", help="log every request")

    site = commands.add_parser("build-site", help="write the page as a self-contained static site into DIR")
    site.add_argument("directory", metavar="DIR")
    site.add_argument(
        "--force", action="store_true",
        help="write into a directory that holds other files: overwrite the site's own file names, delete nothing else",
    )
    return parser


def run(argv: Sequence[str], stdin: IO, stdout: IO[str], stderr: IO[str], environ: Mapping[str, str] | None = None) -> int:
    parser = _parser(stdout, stderr)
    if not argv:  # no command: what the commands are and how each is used, not just "required: COMMAND"
        parser.print_help(stderr)
        return EXIT_USAGE
    try:
        arguments = _parse(parser, list(argv))
        if getattr(arguments, "file", None) == "":  # an unset variable, say: never guess what was meant
            raise UsageError(f"{arguments.command} needs a file name (or - for standard input), got an empty one")
        if getattr(arguments, "file", "") is None:
            arguments.file = _default_input(stdin, arguments.command)
        if getattr(arguments, "file", None) == "-" and _is_terminal(stdin):
            what = "text" if arguments.command == "count" else "JSON"
            stderr.write(f"context-budget: reading {what} from the terminal; end it with Ctrl+D on a line of its own (Ctrl+Z, Enter on Windows)\n")
            stderr.flush()
        if arguments.command == "check":
            return _check(arguments, stdin, stdout, stderr)
        if arguments.command == "compose":
            return _compose(arguments, stdin, stdout, stderr, os.environ if environ is None else environ)
        if arguments.command == "count":
            return _count(arguments, stdin, stdout, stderr)
        if arguments.command == "serve":
            return _serve(arguments, stdout)
        if getattr(arguments, "directory", None) == "":  # Path("") is the current directory: never guess it
            raise UsageError(f"{arguments.command} needs a directory name, got an empty one")
        if arguments.command == "build-site":
            return _build_site(Path(arguments.directory), arguments.force, stdout)
        return _run_fixtures(Path(arguments.directory), stdout)
    except _Exit as stop:
        if stop.message:
            stderr.write(_model.printable(stop.message))  # it may quote an argument: no escape sequences
        return stop.status
    except _site.SiteError as error:
        stderr.write(f"context-budget: {_one_line(error)}\n")
        return EXIT_FAIL
    except _site.TargetError as error:
        stderr.write(f"context-budget: {_one_line(error)}\n")
        return EXIT_USAGE
    except UsageError as error:
        stderr.write(f"context-budget: {_one_line(error)}\n")
        return EXIT_USAGE


def _one_line(message: object) -> str:
    """A message as one line a terminal only prints: a file name or a server's words may hold
    line breaks or escape sequences."""
    return " ".join(_model.printable(str(message)).split("\n"))


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
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
    guess = difflib.get_close_matches(name, options, n=1)
    hint = f" (did you mean {guess[0]}?)" if guess else f" (known: {', '.join(options)})"
    parser.error(f"unknown option {name}{hint}")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def _default_input(stdin: IO, command: str) -> str:
    """No FILE: standard input when something is piped in; a terminal must ask for it with ``-``."""
    if _is_terminal(stdin):
        raise UsageError(
            f"{command}: no FILE given and standard input is a terminal. Give a file "
            f"({EXAMPLES.get(command, f'context-budget {command} FILE')}), pipe {'text' if command == 'count' else 'JSON'} in, "
            "or use - to type it"
        )
    return "-"


def write_json(value: object, stream: IO[str], indent: int | None = None) -> None:
    stream.write(_json_line(value, stream, indent))


def _json_line(value: object, stream: IO[str], indent: int | None = None) -> str:
    # JSON escapes (\u00e9) where the output cannot carry UTF-8 (PYTHONIOENCODING=ascii, a Latin-1 locale).
    return to_json(value, indent, ascii_only=not _writes_utf8(stream)) + "\n"


def _writes_utf8(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None)
    if encoding is None:  # an in-memory stream: text, no encoding
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def _standard_input(stdin: IO | None) -> IO:
    # A closed descriptor 0 (`<&-`) leaves sys.stdin None.
    if stdin is None:
        raise UsageError("cannot read standard input: it is closed")
    return getattr(stdin, "buffer", stdin)


# One JSON document (or JSONL line) is read whole; past this it is refused instead of
# filling memory (`check /dev/zero`, `cat /dev/urandom | check`). Bigger inputs are for --jsonl.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def _too_large(name: str, hint: str) -> UsageError:
    what = "standard input" if name == "-" else name
    return UsageError(f"cannot read {what}: larger than {MAX_INPUT_BYTES >> 20} MiB ({hint})")


def _read_input(name: str, stdin: IO, too_large_hint: str = "split it into one input per line for check --jsonl") -> bytes:
    if name == "-":
        try:
            data = _standard_input(stdin).read(MAX_INPUT_BYTES + 1)
        except OSError as error:
            raise UsageError(f"cannot read standard input: {error.strerror or error}") from None
        data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    else:
        try:
            with open(name, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as error:
            raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise _too_large(name, too_large_hint)
    return data


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
    return "text" if _is_terminal(stdout) else "json"


def _check(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    output = _output_format(arguments, stdout)
    if arguments.jobs is not None and not arguments.jsonl:  # even --jobs 1, the default: it says --jsonl was meant
        raise UsageError("check: --jobs spreads the lines of --jsonl over processes; add --jsonl")
    if arguments.jsonl:
        return _check_lines(arguments.file, stdin, stdout, stderr, 1 if arguments.jobs is None else arguments.jobs)
    data = _read_input(arguments.file, stdin)
    try:
        text = _strict_json.decode_utf8(data)
    except _strict_json.JSONInputError as error:
        envelope = unreadable(error)
    else:
        with _Ticker(stderr, f"checking {_size(len(data))}"):
            envelope = check_document(text)
    if envelope.get("column") == 1 and "extra data after the JSON value" in envelope["error"]:
        # A second value at the start of a line: a JSONL file, most likely.
        envelope["error"] += " (one JSON input per line? check --jsonl reads them)"
    with _Ticker(stderr, "writing the report"):  # the text is made first, then written: the ticker is gone by then
        said = _model.printable(envelope_text(envelope)) if output == "text" else _json_line(envelope, stdout, arguments.indent)
    stdout.write(said)  # ids from the input must not drive the terminal: printable() above
    return EXIT_PASS if envelope["ok"] else EXIT_FAIL


def _open_lines(name: str, stdin: IO):
    """Byte lines of a file or of standard input, read as they come (each at most MAX_INPUT_BYTES)."""
    if name == "-":
        source, what = _standard_input(stdin), "standard input"
    else:
        try:
            source, what = open(name, "rb"), name
        except OSError as error:
            raise UsageError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        for number, line in enumerate(_bounded_lines(source), 1):
            if len(line) > MAX_INPUT_BYTES:  # it may never end (/dev/zero): stop here, what came before is written
                where = "standard input" if name == "-" else name
                raise UsageError(f"cannot read line {number} of {where}: larger than {MAX_INPUT_BYTES >> 20} MiB (each input must be smaller)")
            yield line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    except OSError as error:
        raise UsageError(f"cannot read {what}: {error.strerror or error}") from None
    finally:
        if name != "-":
            source.close()


def _bounded_lines(source):
    """The lines of ``source``, none read further than MAX_INPUT_BYTES + 1 (a line without end stops there)."""
    if not hasattr(source, "readline"):  # any iterable of lines
        yield from source
        return
    while line := source.readline(MAX_INPUT_BYTES + 1):
        yield line


def _check_lines(name: str, stdin: IO, stdout: IO[str], stderr: IO[str], jobs: int = 1) -> int:
    """One envelope per input line, in order; a bad line is reported on its own line and the rest go on.

    Each envelope carries ``input_line`` (1-based); blank lines are skipped. Memory does not
    grow with the number of lines. The work is ``batch.check_lines``, in ``jobs`` processes.
    """
    from . import batch

    # On a terminal only, and not the one the envelopes go to (they would be mixed).
    progress = stderr if _is_terminal(stderr) and not _is_terminal(stdout) else None
    out = stdout if _writes_utf8(stdout) else _AsciiJSON(stdout)
    passed = batch.write_checked(_open_lines(name, stdin), out, batch.worker_count(jobs), progress)
    return EXIT_PASS if passed else EXIT_FAIL


class _AsciiJSON:
    """A stream of JSON text for an output that cannot carry UTF-8: every non-ASCII character
    (which JSON allows only inside strings) written as its \\u escape, so each line stays valid JSON."""

    _NON_ASCII = re.compile(r"[^\x00-\x7f]")

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(self._NON_ASCII.sub(lambda match: json.dumps(match.group())[1:-1], text))

    def flush(self) -> None:
        self.stream.flush()


def _read_json_file(name: str, stdin: IO, what: str) -> object:
    """The JSON value in a file (or standard input for ``-``). A file that cannot be read is
    UsageError; text that is not acceptable JSON or not UTF-8 is JSONInputError, its message
    saying which input (``what``) it came from."""
    try:
        data = _read_input(name, stdin, "a config holds a few settings") if what == "config" else _read_input(name, stdin)
        return _strict_json.loads(_strict_json.decode_utf8(data))
    except _strict_json.JSONInputError as error:
        where = "standard input" if name == "-" else name
        said = _strict_json.JSONInputError(f"{what} {where}: {error}")  # the message has the position already
        said.line, said.column = error.line, error.column
        raise said from None


def _compose(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str], environ: Mapping[str, str]) -> int:
    # An input that cannot be read is bad usage (2); one that is not acceptable JSON or not
    # UTF-8 fails like a report that does not pass (1), as `check` does. A bad --config is a
    # settings problem (2). With --json, standard output gets one envelope whatever happens
    # (the model's answer goes into it), as with check; the lines on stderr are as without.
    def envelope(fields: dict) -> None:
        if arguments.json:
            write_json(fields, stdout, 2)

    def refuse(message: str) -> UsageError:  # exit 2, with --json in an envelope too
        envelope({"ok": False, "error": message})
        return UsageError(message)

    if arguments.config == "":  # an unset variable, say: a config asked for is never skipped unsaid
        raise refuse("compose --config needs a file name, got an empty one")
    if arguments.config == "-" and arguments.file == "-":
        raise refuse("compose cannot read both the input and --config from standard input: give one of them as a file")
    try:
        document = _read_json_file(arguments.file, stdin, "input")
    except UsageError as error:  # a file that cannot be read
        raise refuse(str(error)) from None
    except _strict_json.JSONInputError as error:
        stderr.write(f"context-budget: {_one_line(error)}\n")
        envelope(unreadable(error))
        return EXIT_FAIL
    if not isinstance(document, dict) or document.get("mode", "blocks") != "blocks":  # the input's fault, as in check
        message = "compose needs a JSON object in mode blocks (see examples/refund-case.json)"
        stderr.write(f"context-budget: {message}\n")
        envelope({"ok": False, "error": message})
        return EXIT_FAIL
    if "mode" not in document and "blocks" not in document and "errors" not in (other := evaluate(document)):
        # Another mode's input without its "mode" (a relevance one, say): say what it is, not
        # only that every key of it is unknown in mode blocks.
        message = (f"compose needs an input in mode blocks; this is a valid {other['mode']} input "
                   "(check it with `context-budget check`; see examples/refund-case.json for compose)")
        stderr.write(f"context-budget: {message}\n")
        envelope({"ok": False, "error": message})
        return EXIT_FAIL
    try:
        config = _read_json_file(arguments.config, stdin, "config") if arguments.config is not None else None
    except UsageError as error:
        raise refuse(str(error)) from None
    except _strict_json.JSONInputError as error:
        envelope(unreadable(error))
        raise UsageError(str(error)) from None
    try:
        settings = _model.effective_settings(document.get("window", _model.NO_WINDOW), config, environ)
    except _model.SettingsError as error:
        lines = str(error).splitlines()
        for line in lines:
            stderr.write(f"context-budget: settings: {line}\n")
        envelope({"ok": False, "error": "settings: " + "; ".join(lines)})
        return EXIT_USAGE
    window = {key: settings[key] for key in _model.WINDOW_KEYS}
    report = evaluate({**document, "mode": "blocks", "window": window})
    said = {"ok": report["pass"], **({} if report["pass"] else {"error": failure_text(report)}), "result": report}
    if not arguments.json:  # with --json, the envelope is written last, with the model's answer if it is called
        if "errors" in report:
            stderr.write(f"context-budget: {report['summary']}\n")
            for error in report["errors"]:
                stderr.write(f"  {error['path']}: {error['message']}\n")
        else:
            stdout.write(_model.printable(_packing_text(report, window)))
    code = EXIT_PASS
    wanted = arguments.call_model or settings["call_model"]
    if "errors" in report:
        code = EXIT_FAIL
    elif not report["can_proceed"]:
        stderr.write(_required_overflow_advice(report, window))
        code = EXIT_FAIL
    elif not report["pass"]:
        stderr.write(f"context-budget: {report['summary']}\n")
        code = EXIT_FAIL
    elif wanted:
        try:
            with _Ticker(stderr, f"waiting for the model at {_model.shown_url(settings)} (up to {settings['timeout_seconds']:g} s)"):
                answer = _model.call_model(report["prompt"], settings)
        except _model.ModelError as error:
            stderr.write(f"context-budget: model call failed: {error}\n")
            said = {"ok": False, "error": f"model call failed: {error}", "result": report}
            code = EXIT_FAIL
        else:
            if arguments.json:
                said["answer"] = answer
            else:
                stdout.write(f"\n=== Model answer ({_model.printable(settings['model'])}) ===\n{answer}\n")
    if wanted and code == EXIT_FAIL and "model call failed" not in said.get("error", ""):  # asked for, never made
        stderr.write("context-budget: the model was not called: the prompt did not pass its checks\n")
    envelope(said)
    return code


def _required_overflow_advice(report: dict, window: dict) -> str:
    """What to change when the required blocks do not fit: every window number, with the value that would do."""
    need = sum(row["tokens"] for row in report["trace"] if row["required"])
    short = need - report["available"]
    context, reserved, fixed = (window[key] for key in _model.WINDOW_KEYS)
    if context + short <= MAX_SAFE_INTEGER:
        ways = [f"raise context_tokens from {context} to at least {context + short}"]
    else:  # past the largest count a setting takes
        ways = [f"raise context_tokens (now {context}; it alone cannot free {short} within 2^53-1)"]
    for key, value in (("reserved_output_tokens", reserved), ("fixed_prompt_tokens", fixed)):
        if value >= short:
            ways.append(f"lower {key} from {value} to at most {value - short}")
        else:
            ways.append(f"lower {key} (now {value}; it alone cannot free {short})")
    ways.append(f"shorten the required blocks by {short} tokens")
    return (
        f"context-budget: budgeting failed: the required blocks need {need} tokens but {report['available']} are available "
        f"(context_tokens {context} - reserved_output_tokens {reserved} - fixed_prompt_tokens {fixed}): {short} short.\n"
        f"  To fix it: {'; or '.join(ways)}.\n"
        "  Window numbers come from the input's window, --config FILE, or CONTEXT_BUDGET_<KEY> variables (later wins).\n"
    )


def _packing_text(report: dict, window: dict) -> str:
    lines = []
    if report["can_proceed"]:
        lines += ["=== Composed prompt ===", report["prompt"].rstrip("\n"), ""]
    lines += [
        "=== Packing report ===",
        f"available {report['available']} = context {window['context_tokens']} - reserved output "
        f"{window['reserved_output_tokens']} - fixed prompt {window['fixed_prompt_tokens']}",
        f"used {report['used']}, remaining {report['remaining']}",
        f"rendered prompt {'~' if report.get('tokenizer', 'estimate') == 'estimate' else ''}{report['rendered_tokens']} tokens"
        f" ({report['rendered_overhead']} of them system, task, headers and metadata) "
        f"of {window['context_tokens'] - window['reserved_output_tokens']} = context - reserved output",
        "included, in packing order:",
    ]
    lines += [f"  {entry['id']}  {entry['tokens']} tokens" for entry in report["included"]] or ["  (none)"]
    lines.append("excluded:")
    lines += [f"  {entry['id']}  {entry['tokens']} tokens  {entry['reason']}" for entry in report["excluded"]] or ["  (none)"]
    optimal, sensitivity = report.get("optimal"), report.get("sensitivity")
    if optimal and optimal["exact"]:
        lines.append(
            f"optional priority: greedy {optimal['greedy_value']}, best possible {optimal['value']} "
            f"({', '.join(optimal['selected']) or 'none'})"
        )
    if sensitivity:
        flips = ", ".join(sensitivity["flips"]) or "nothing"
        if "margin" in sensitivity:
            lines.append(f"if the estimates are off by {sensitivity['margin']:.0%}: {flips} would flip; required slack {sensitivity['required_slack']}")
        else:  # counted exactly by a tokenizer: nothing is estimated, so nothing can flip
            lines.append(f"costs counted exactly ({sensitivity.get('tokenizer', 'tokenizer')}); required slack {sensitivity['required_slack']}")
    lines.append("checks:")
    lines += [f"  {'ok  ' if check['pass'] else 'FAIL'} {check['name']}{' - ' + check['detail'] if not check['pass'] else ''}" for check in report["checks"]]
    lines.append(report["summary"])
    return "\n".join(lines) + "\n"


def _count(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str]) -> int:
    """The token count of the file's text exactly as it is (line endings and a BOM included)."""
    data = _read_input(arguments.file, stdin, "count a smaller file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        what = "standard input" if arguments.file == "-" else arguments.file
        raise UsageError(f"cannot read {what}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    try:
        with _Ticker(stderr, f"counting the tokens of {_size(len(data))}"):
            tokens = _tokenizer.count_tokens(text, arguments.tokenizer)
    except _tokenizer.TokenizerUnavailable as error:
        stderr.write(f"context-budget: {error}\n")
        return EXIT_FAIL
    stdout.write(f"{tokens}\n")
    return EXIT_PASS


def _run_fixtures(directory: Path, stdout: IO[str]) -> int:
    try:
        files, directory = _fixtures.case_files(directory)
    except ValueError as error:
        checkout = not directory.exists() and str(directory) == "fixtures"
        where = " (run it in a context-budget checkout, or give the directory of your cases)" if checkout else ""
        raise UsageError(f"{error}{where}") from None
    passed = failed = 0
    for path in files:
        outcome = _fixtures.run_case(path, path.relative_to(directory).as_posix())
        if outcome.passed:
            passed += 1
            stdout.write(f"ok   {_one_line(outcome.name)}\n")
        else:
            failed += 1
            stdout.write(f"FAIL {_one_line(outcome.name)}: {_one_line(outcome.detail)}\n")
    stdout.write(f"{passed} passed, {failed} failed\n")
    return EXIT_PASS if failed == 0 else EXIT_FAIL


def _serve(arguments: argparse.Namespace, stdout: IO[str]) -> int:
    try:
        server = _site.make_server(arguments.port, verbose=arguments.verbose)
    except OSError as error:
        hint = " (try --port 0 for a free port)" if arguments.port else ""
        raise UsageError(f"cannot listen on 127.0.0.1:{arguments.port}: {error.strerror or error}{hint}") from None
    host, port = server.server_address[:2]
    stdout.write(f"Serving the context-budget page at http://{host}:{port}/ (Ctrl+C to stop)\n")
    stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        stdout.write("Stopped.\n")
    finally:
        server.server_close()
    return EXIT_PASS


def _build_site(directory: Path, force: bool, stdout: IO[str]) -> int:
    digests = _site.build_site(directory, force=force)
    size = sum((directory / name).stat().st_size for name in digests)
    stdout.write(f"Wrote {len(digests)} files ({size / 1e6:.1f} MB) and manifest.json to {directory}\n")
    stdout.write(f"Serve it with any static server, for example: python3 -m http.server -d {directory}\n")
    return EXIT_PASS


class _InPieces:
    """Standard output written in pieces of at most 64 KiB.

    One write of a large string to a pipe whose reader has gone (``| head -1``) gets a partial
    count back, and CPython's buffered writer dropped the rest without an error: a 35 MB
    report exited 0. Written in pieces, the next piece raises BrokenPipeError, as it should.
    """

    PIECE = 1 << 16

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            for start in range(0, len(text), self.PIECE):
                self._stream.write(text[start:start + self.PIECE])
        except BrokenPipeError:
            raise
        except OSError as error:  # a full disk (ENOSPC), an I/O error: not a file the command reads
            raise OutputFailed(error) from None
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputFailed(error) from None

    def __getattr__(self, name: str):  # encoding, isatty, flush, fileno: the stream's own
        return getattr(self._stream, name)


class _Ticker:
    """Slow work is never silent: on a terminal's standard error, once a step has run for a
    second, "context-budget: WHAT: N s" rewritten in place each second, and wiped when the
    step ends (before anything else is written). Nothing when standard error is not a terminal."""

    def __init__(self, stderr: IO[str], what: str) -> None:
        self._stderr, self._what = stderr, what
        self._thread: threading.Thread | None = None
        self._shown = 0  # the length of the line shown, to wipe it

    def __enter__(self) -> "_Ticker":
        if _is_terminal(self._stderr):
            import threading

            self._done = threading.Event()
            self._thread = threading.Thread(target=self._tick, name="context-budget ticker", daemon=True)
            self._thread.start()
        return self

    def _tick(self) -> None:
        import time

        started = time.monotonic()
        while not self._done.wait(1.0):
            # Only a carriage return and spaces (no escape sequences): a dumb terminal and an
            # old Windows console show those as they are meant. The line only grows.
            line = f"context-budget: {self._what}: {time.monotonic() - started:.0f} s"
            if len(line) > 79:  # one row of a terminal 80 wide: a wrapped line could not be wiped by \r
                line = f"{line[:60]}…{line[-18:]}"
            self._stderr.write(f"\r{line}")
            self._stderr.flush()
            self._shown = len(line)

    def __exit__(self, *exception: object) -> None:
        if self._thread is not None:
            self._done.set()
            self._thread.join()
            if self._shown:
                self._stderr.write(f"\r{' ' * self._shown}\r")
                self._stderr.flush()


def _size(count: int) -> str:
    return f"{count / 2**20:,.1f} MiB" if count >= 2**20 else f"{count:,} bytes"


class _Unfailing:
    """Standard error as the last place to say anything: a write that fails there (`2>/dev/full`)
    is dropped, so that the command's own exit code stands (the failure made it 1)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError):
            self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main() -> None:
    if sys.stderr is None:  # `2>&-`: errors have nowhere to go, but must not become a crash either
        sys.stderr = open(os.devnull, "w")
    if sys.stdout is None:  # `>&-`
        with contextlib.suppress(OSError):
            sys.stderr.write("context-budget: cannot write standard output: it is closed\n")
        sys.exit(EXIT_USAGE)
    for stream in (sys.stdout, sys.stderr):
        # A character the output's encoding lacks (an id with an emoji on an ASCII or Latin-1
        # terminal) is written as an escape, never a UnicodeEncodeError.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    out = _InPieces(sys.stdout)
    try:
        code = run(sys.argv[1:], sys.stdin, out, _Unfailing(sys.stderr))
        out.flush()
    except OutputFailed as error:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"context-budget: cannot write standard output: {error}\n")
        # What is still buffered would fail again in the interpreter's own final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_USAGE
    except KeyboardInterrupt:
        code = 130
        # Deaf to another Ctrl+C while Python finishes (it joins the --jobs pool's threads): one
        # arriving then printed "Exception ignored in: <module 'threading'>" and a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except BrokenPipeError:
        # The reader went away (`| head -1`): stop quietly, as other Unix tools do. Point
        # stdout at /dev/null so that the interpreter's own final flush cannot complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_FAIL
    sys.exit(code)
