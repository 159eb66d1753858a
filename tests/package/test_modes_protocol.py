"""Every mode satisfies the mode protocol (modes/protocol.py), as mypy --strict reads it."""

import os
import subprocess
import sys

from conftest import ROOT

CONFORMANCE = '''
from fitproof._base import values as _values
from fitproof.modes import MODES, blocks, messages, passages, relevance, required
from fitproof.modes.protocol import Mode

modes: list[Mode] = [relevance, required, blocks, passages, messages]
registry: dict[str, Mode] = MODES
not_a_mode: Mode = _values  # the one line mypy must reject: a module without the members
'''


def test_every_mode_module_satisfies_the_protocol(tmp_path):
    source = tmp_path / "conformance.py"
    source.write_text(CONFORMANCE)
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental",
         "--cache-dir", os.devnull, "conformance.py"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env={**os.environ, "MYPYPATH": str(ROOT / "py")},
    )
    wrong = CONFORMANCE.splitlines().index(next(line for line in CONFORMANCE.splitlines() if line.startswith("not_a_mode"))) + 1
    errors = [line for line in process.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith(f"conformance.py:{wrong}:"), process.stdout + process.stderr


def test_the_registry_is_every_mode_by_name():
    from fitproof.modes import MODES

    assert list(MODES) == ["relevance", "required", "blocks", "passages", "messages"]
    assert all(name == mode.NAME for name, mode in MODES.items())
