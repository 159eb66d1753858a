"""Importing the package loads only standard-library modules (so Pyodide needs nothing else)."""

import json
import subprocess
import sys

from conftest import ROOT

PROBE = """
import json, sys
before = set(sys.modules)
import context_budget
from context_budget import cli
context_budget.evaluate({"budget": 1, "items": []})
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_import_loads_only_the_standard_library():
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{PROBE}"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    loaded = json.loads(out)
    assert "context_budget" in loaded
    outside = [name for name in loaded if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "context_budget"]
    assert outside == []


def test_pyproject_declares_no_dependencies():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []
