"""Every mode satisfies the mode protocol (modes/protocol.py), as mypy --strict reads it, bound to its
own parsed input and result types; and those types make mypy catch a misspelt read across modules."""

import os
import subprocess
import sys

from conftest import ROOT

CONFORMANCE = """
from typing import Any

from fitproof._base import values as _values
from fitproof.modes import MODES, blocks, messages, passages, relevance, required
from fitproof.modes.protocol import Mode

checked_relevance: Mode[relevance.Parsed, relevance.Result] = relevance
checked_required: Mode[required.Parsed, required.Result] = required
checked_blocks: Mode[blocks.Parsed, blocks.Result] = blocks
checked_passages: Mode[passages.Parsed, passages.Result] = passages
checked_messages: Mode[messages.Parsed, messages.Result] = messages
registry: dict[str, Mode[Any, Any]] = MODES
not_a_mode: Mode[Any, Any] = _values  # mypy must reject: a module without the members
wrong_types: Mode[relevance.Parsed, relevance.Result] = required  # mypy must reject: another mode's types
"""

# Reads another module would make of a mode's parse output and result: each misspelt one is an error.
MISSPELT = """
from fitproof.modes import blocks, passages, relevance, required


def reads(r: relevance.Parsed, q: required.Parsed, b: blocks.Parsed, p: passages.Parsed, result: relevance.Result) -> object:
    ok = (r.budget, r.positions, q.priorities, b.blocks[0].observed.nanoseconds, p.line_stats, result["selected"])
    return (ok,
            r.budgett,  # error
            q.priority_list,  # error
            b.blocks[0].observed_at,  # error: the block's field is "observed"
            p.lines,  # error
            result["selectd"],  # error
            result["trace"][0]["remaining"])  # error: the row's key is "remaining_before"
"""


def _mypy(source, tmp_path):
    (tmp_path / "checked.py").write_text(source)
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", "--cache-dir", os.devnull, "checked.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "MYPYPATH": str(ROOT / "py")},
    )
    return [line for line in process.stdout.splitlines() if ": error:" in line], process.stdout + process.stderr


def _marked(source, mark):
    return [number for number, line in enumerate(source.splitlines(), 1) if mark in line]


def test_every_mode_module_satisfies_the_protocol_with_its_own_types(tmp_path):
    errors, output = _mypy(CONFORMANCE, tmp_path)
    assert [int(line.split(":")[1]) for line in errors] == _marked(CONFORMANCE, "mypy must reject"), output


def test_a_misspelt_read_of_parsed_input_or_result_is_a_type_error(tmp_path):
    errors, output = _mypy(MISSPELT, tmp_path)
    assert [int(line.split(":")[1]) for line in errors] == _marked(MISSPELT, "# error"), output


def test_the_registry_is_every_mode_by_name():
    from fitproof.modes import MODES

    assert list(MODES) == ["relevance", "required", "blocks", "passages", "messages"]
    assert all(name == mode.NAME for name, mode in MODES.items())
