"""Updating a snapshot case: ``expected`` rewritten with today's report, and nothing else.

Only the text of the ``expected`` value is replaced, written in the file's own style (its
indentation, or one line when the value was on one; ``\\u`` escapes when the file uses them;
its line endings), so every other key, its value and their order stay byte for byte. The new
text goes to a temporary file in the same directory, which then replaces the case in one
rename: a reader sees the old case or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import re
import stat
from json.decoder import scanstring  # type: ignore[attr-defined]  # it is there at run time; typeshed omits it
from pathlib import Path
from typing import cast

from .._base.atomic import replace_file
from .._base.errors import FitproofError
from .._base import strict_json as _strict_json
from . import case as _fixtures
from .._base.values import child_path, preview

MAX_CHANGES_SHOWN = 10
_SPACE = re.compile(r"[ \t\n\r]*")
# A \u escape of a character outside ASCII: the file was written with ensure_ascii.
_ESCAPED = re.compile(r"(?<!\\)\\u(?:00[89a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]|[1-9a-fA-F][0-9a-fA-F]{2})[0-9a-fA-F]")


class UpdateRefused(FitproofError, ValueError):
    """A case that is not to be rewritten; the message says why."""


def update(path: Path, directory: Path, judgement: _fixtures.Judgement) -> list[str]:
    """Rewrite the failing snapshot case at ``path`` (under ``directory``) with its report; the
    changes made, one ``path: old -> new`` line each. ``UpdateRefused`` for anything but a full
    snapshot that fails for a reason other than this installation's missing tokenizer data."""
    if judgement.case is None or judgement.passed:
        raise UpdateRefused("only a case that fails is updated")
    if judgement.partial:
        raise UpdateRefused("an expect case is never updated; edit what it states by hand")
    if judgement.missing_data:
        raise UpdateRefused("the report depends on tokenizer data this installation lacks; install it and run again")
    _within(path, directory)
    try:
        text = _fixtures.read_text(path)
        if _fixtures.parse(text) != judgement.case:
            raise ValueError("it changed since it was run")
        new_text = replaced_expected(text, judgement.report)
    except UpdateRefused:
        raise
    except (ValueError, IndexError) as error:  # edited meanwhile: run again rather than guess
        raise UpdateRefused(f"{error}; run again") from None
    with open(path, "rb") as handle:
        if handle.read(3) == b"\xef\xbb\xbf":  # a byte order mark, which reading dropped, stays
            new_text = "\ufeff" + new_text
    changed = changes(judgement.case["expected"], judgement.report)
    write_atomically(path, new_text)
    return changed


def _within(path: Path, directory: Path) -> None:
    """Refuse a case that is a symbolic link, or that lies outside ``directory`` through one."""
    if path.is_symlink():
        raise UpdateRefused("it is a symbolic link; update the file it points to, where it is")
    real, root = os.path.realpath(path), os.path.realpath(directory)
    if os.path.commonpath([real, root]) != root:
        raise UpdateRefused(f"it lies outside {directory} (through a symbolic link), so it is not updated")


def replaced_expected(text: str, report: object) -> str:
    """``text`` (a valid case) with the value of its top-level ``expected`` replaced by ``report``."""
    start, end = _expected_span(text)
    old = text[start:end]
    line_start = text.rfind("\n", 0, start) + 1
    prefix = re.match(r"[ \t]*", text[line_start:start]).group()  # type: ignore[union-attr]  # * matches anywhere
    ascii_only = text.isascii() and _ESCAPED.search(text) is not None
    if "\n" in old:
        unit = "\t" if prefix.startswith("\t") else len(prefix) or 2
        value = json.dumps(report, indent=unit, ensure_ascii=ascii_only).replace("\n", "\n" + prefix)
    else:
        compact = '": ' not in old and ", " not in old and len(old) > 2
        value = json.dumps(report, ensure_ascii=ascii_only, separators=(",", ":") if compact else None)
    if "\r\n" in text:
        value = value.replace("\n", "\r\n")
    new_text = text[:start] + value + text[end:]
    check = _strict_json.loads(new_text)
    assert isinstance(check, dict)  # text is a valid case (an object) and only its expected changed
    if _fixtures.first_difference(report, check["expected"]) is not None or list(check) != list(cast(dict, _strict_json.loads(text))):
        raise UpdateRefused("its text could not be rewritten in place")  # never expected: the value was just written by json
    return new_text


def _space_end(text: str, index: int) -> int:
    """Where the JSON white space from ``index`` ends."""
    match = _SPACE.match(text, index)
    assert match is not None  # a run of zero or more matches at every index
    return match.end()


def _expected_span(text: str) -> tuple[int, int]:
    """Where the top-level ``expected`` value's text starts and ends."""
    decoder = json.JSONDecoder()
    index = _space_end(text, text.index("{") + 1)
    while text[index] == '"':
        key, index = scanstring(text, index + 1)
        index = _space_end(text, index) + 1  # past the colon
        start = _space_end(text, index)
        _, end = decoder.raw_decode(text, start)
        if key == "expected":
            return start, end
        index = _space_end(text, end)
        if text[index] == ",":
            index = _space_end(text, index + 1)
    raise UpdateRefused('it has no "expected" to rewrite')


def changes(old: object, new: object, path: str = "$") -> list[str]:
    """Every place where two JSON values differ (strictly, as cases compare), as ``path: old -> new``."""
    if _fixtures.first_difference(old, new) is None:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in old:
            if key not in new:
                found.append(f"{child_path(path, key)}: {preview(old[key])} -> (gone)")
            else:
                found += changes(old[key], new[key], child_path(path, key))
        found += [f"{child_path(path, key)}: (new) {preview(new[key])}" for key in new if key not in old]
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [line for index, (a, b) in enumerate(zip(old, new)) for line in changes(a, b, child_path(path, index))]
    return [f"{path}: {preview(old)} -> {preview(new)}"]


def changes_text(name: str, changed: list[str]) -> str:
    """``updated NAME: N changes`` and the first changed paths, each on a line of its own."""
    lines = [f"updated {name}: {len(changed)} change{'s' if len(changed) != 1 else ''}"]
    lines += [f"    {change}" for change in changed[:MAX_CHANGES_SHOWN]]
    if len(changed) > MAX_CHANGES_SHOWN:
        lines.append(f"    … and {len(changed) - MAX_CHANGES_SHOWN} more")
    return "".join(line + "\n" for line in lines)


def write_atomically(path: Path, text: str) -> None:
    """Replace the file at ``path`` with ``text`` (UTF-8) in one rename, keeping its permissions."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    replace_file(path, text.encode("utf-8"), mode)
