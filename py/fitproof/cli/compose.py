"""``fitproof compose``: pack a blocks input under the window the settings give, print the
composed prompt and how it was packed, and, when asked, post the prompt to a model.

An input that cannot be read is bad usage (2); one that is not acceptable JSON or not UTF-8
fails like a report that does not pass (1), as in ``check``. A bad --config or invalid
settings are bad usage (2). With --json, standard output gets one envelope whatever happens
(the model's answer goes into it); the lines on standard error are the same as without.
"""

from __future__ import annotations

import argparse
from typing import IO, Mapping

from .. import templates
from .._base import strict_json as _strict_json
from .._base.errors import FitproofError
from .._evaluation.report import Report
from .._envelope import envelope_of, unreadable
from .._evaluation.evaluate import evaluate
from .._base.values import MAX_SAFE_INTEGER
from . import _chat
from ..tokenizers import using_tokenizers
from ._arguments import tokenizer_registry
from ._exits import EXIT_FAIL, EXIT_PASS, EXIT_USAGE, UsageError
from ._input import read_json_file
from ._report_text import packing_text
from ._settings import NO_WINDOW, WINDOW_KEYS, SettingsError, effective_settings
from ._secrets import shown_url
from ._streams import one_line, printable, write_json
from ._ticker import Ticker


class ComposeRefused(FitproofError):
    """compose stops before packing: the lines for standard error, the envelope for --json, the exit code."""

    def __init__(self, code: int, lines: list[str], envelope: dict) -> None:
        super().__init__(*lines)
        self.code, self.lines, self.envelope = code, lines, envelope


def run(arguments: argparse.Namespace, stdin: IO, stdout: IO[str], stderr: IO[str], environ: Mapping[str, str]) -> int:
    try:
        document = _blocks_input(arguments, stdin)
        settings = _settings(arguments, document, stdin, environ)
        try:
            registry = tokenizer_registry(arguments.tokenizer_file)
        except UsageError as error:
            raise _usage(str(error)) from None
    except ComposeRefused as refused:
        for line in refused.lines:
            stderr.write(f"fitproof: {line}\n")
        if arguments.json:
            write_json(refused.envelope, stdout, 2)
        return refused.code

    window = {key: settings[key] for key in WINDOW_KEYS}
    model_tokenizer = registry.names()[0] if registry.names() else None
    with using_tokenizers(registry):
        # With the model's own tokenizer, the blocks are counted by it, whatever the input's tokenizer says.
        report = evaluate({**document, "mode": "blocks", "window": window, **({"tokenizer": model_tokenizer} if model_tokenizer else {})})
        chat = _chat_prompt(report, model_tokenizer) if model_tokenizer and report.get("can_proceed") else None
    said = envelope_of(report)
    if chat is not None:
        said["chat_prompt"] = chat
    wanted = arguments.call_model or settings["call_model"]
    if "errors" in report:
        code, not_called = EXIT_FAIL, "the input is not valid"
    elif not report["pass"]:
        code, not_called = EXIT_FAIL, "the prompt did not pass its checks"
    else:
        code, not_called = EXIT_PASS, None
    # A failure is one message: its first line says too that the model was not called.
    note = f" (the model was not called: {not_called})" if wanted and not_called else ""
    if "errors" in report:
        if not arguments.json:  # with --json, the envelope carries the errors
            stderr.write(f"fitproof: {one_line(report['summary'])}{note}\n")
            for problem in report["errors"]:
                stderr.write(f"  {one_line(problem['path'])}: {one_line(problem['message'])}\n")
            note = ""
    else:
        if not arguments.json:  # with --json, the envelope is written last, with the model's answer if it is called
            stdout.write(printable(packing_text(report, window)))
            if model_tokenizer:
                stdout.write(printable(_counted_by(report, model_tokenizer, chat)))
        if not report["can_proceed"]:
            stderr.write(printable(_required_overflow_advice(report, window, note)))  # block ids: no escape sequences
            note = ""
        elif not report["pass"]:
            stderr.write(f"fitproof: {one_line(report['summary'])}{note}\n")  # it names block ids
            note = ""
    if note:
        stderr.write(f"fitproof: the model was not called: {not_called}\n")
    if wanted and not_called is None:
        try:
            with Ticker(stderr, f"waiting for the model at {shown_url(settings)} (up to {settings['timeout_seconds']:g} s)"):
                answer = _chat.call_model(report["prompt"], settings)
        except _chat.ModelError as error:
            stderr.write(f"fitproof: model call failed: {one_line(error)}\n")
            said = {"ok": False, "error": f"model call failed: {error}", "result": report}
            code = EXIT_FAIL
        else:
            if arguments.json:
                said["answer"] = answer
            else:
                stdout.write(f"\n=== Model answer ({printable(settings['model'])}) ===\n{answer}\n")
    if arguments.json:
        write_json(said, stdout, 2)
    return code


def _chat_prompt(report: Report, tokenizer: str) -> dict | None:
    """The composed prompt as the model server gets it (one user message, ``_chat.call_model``) in the
    chat template whose special tokens the tokenizer has: ``{template, tokens}``, or None when none fits."""
    for template in templates.TEMPLATES:
        try:
            tokens = templates.count_rendered([{"role": "user", "content": report["prompt"]}], template, tokenizer)[0]
        except templates.TemplateError:
            continue
        return {"template": template, "tokens": tokens}
    return None


def _counted_by(report: Report, tokenizer: str, chat: dict | None) -> str:
    record = report.get("tokenizer_file") or {}
    line = f"counted by {tokenizer} ({record.get('kind', 'a model tokenizer')}, sha256 {str(record.get('sha256', ''))[:12]}), exactly"
    if chat is not None:
        line += (
            f"; sent as one user message, the {chat['template']} chat template makes it {chat['tokens']} tokens "
            "(special tokens and the generation prompt included)"
        )
    elif report.get("can_proceed"):
        line += "; no known chat template has this tokenizer's special tokens, so the chat prompt is not counted"
    return line + "\n"


def _usage(message: str) -> ComposeRefused:
    return ComposeRefused(EXIT_USAGE, [one_line(message)], {"ok": False, "error": message})


def _blocks_input(arguments: argparse.Namespace, stdin: IO) -> dict:
    """The input, a JSON object in mode blocks; ComposeRefused saying why when it is not."""
    if arguments.config == "":  # an unset variable, say: a config asked for is never skipped unsaid
        raise _usage("compose --config needs a file name, got an empty one")
    if arguments.config == "-" and arguments.file == "-":
        raise _usage("compose cannot read both the input and --config from standard input: give one of them as a file")
    try:
        document = read_json_file(arguments.file, stdin, "input")
    except UsageError as error:  # a file that cannot be read
        raise _usage(str(error)) from None
    except _strict_json.JSONInputError as error:
        raise ComposeRefused(EXIT_FAIL, [one_line(error)], unreadable(error)) from None
    if not isinstance(document, dict) or document.get("mode", "blocks") != "blocks":  # the input's fault, as in check
        message = "compose needs a JSON object in mode blocks (see examples/refund-case.json)"
        raise ComposeRefused(EXIT_FAIL, [message], {"ok": False, "error": message})
    if "mode" not in document and "blocks" not in document and "errors" not in (other := evaluate(document)):
        # Another mode's input without its "mode" (a relevance one, say): say what it is, not
        # only that every key of it is unknown in mode blocks.
        message = (
            f"compose needs an input in mode blocks; this is a valid {other['mode']} input "
            "(check it with `fitproof check`; see examples/refund-case.json for compose)"
        )
        raise ComposeRefused(EXIT_FAIL, [message], {"ok": False, "error": message})
    return document


def _settings(arguments: argparse.Namespace, document: dict, stdin: IO, environ: Mapping[str, str]) -> dict:
    """The effective settings for this input; ComposeRefused listing every problem."""
    config = None
    if arguments.config is not None:
        try:
            config = read_json_file(arguments.config, stdin, "config", too_large_hint="a config holds a few settings")
        except UsageError as error:
            raise _usage(str(error)) from None
        except _strict_json.JSONInputError as error:
            raise ComposeRefused(EXIT_USAGE, [one_line(error)], unreadable(error)) from None
    try:
        return effective_settings(document.get("window", NO_WINDOW), config, environ)
    except SettingsError as error:
        lines = [f"settings: {problem}" for problem in error.problems]
        raise ComposeRefused(EXIT_USAGE, lines, {"ok": False, "error": "settings: " + "; ".join(error.problems)}) from None


def _required_overflow_advice(report: Report, window: dict, note: str = "") -> str:
    """What to change when the required blocks do not fit: every window number, with the value that would do."""
    need = sum(row["tokens"] for row in report["trace"] if row["required"])
    short = need - report["available"]
    context, reserved, fixed = (window[key] for key in WINDOW_KEYS)
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
        f"fitproof: budgeting failed: the required blocks need {need} tokens but {report['available']} are available "
        f"(context_tokens {context} - reserved_output_tokens {reserved} - fixed_prompt_tokens {fixed}): {short} short{note}.\n"
        f"  To fix it: {'; or '.join(ways)}.\n"
        "  Window numbers come from the input's window, --config FILE, or FITPROOF_<KEY> variables (later wins).\n"
    )
