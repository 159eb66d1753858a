"""Importing the package loads only standard-library modules (so Pyodide needs nothing else)."""

import json
import subprocess
import sys

from conftest import ROOT

PROBE = """
import json, sys
before = set(sys.modules)
import fitproof
from fitproof import batch, cli
fitproof.evaluate({"budget": 1, "items": []})
print(json.dumps(sorted(set(sys.modules) - before)))
"""
# What `import fitproof` and `check` need, and no more: the server and model modules
# pull in http and ssl (tens of milliseconds a process) and are imported only by the commands
# that use them.
START_UP = """
import json, sys
import fitproof
from fitproof import cli
fitproof.evaluate({"budget": 1, "items": []})
print(json.dumps(sorted(sys.modules)))
"""


def test_import_loads_only_the_standard_library():
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{PROBE}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    loaded = json.loads(out)
    assert "fitproof" in loaded
    outside = [name for name in loaded if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "fitproof"]
    assert outside == []


def test_pyproject_declares_no_dependencies():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []


def test_start_up_leaves_out_what_check_does_not_need():
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{START_UP}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    loaded = set(json.loads(out))
    assert loaded.isdisjoint({"http.server", "socketserver", "fitproof._site"})
    # The command line defers these to where they are used: compose --call-model, a key to redact, check --jobs, serve and build-site.
    assert loaded.isdisjoint({"http.client", "ssl", "socket", "concurrent.futures", "subprocess", "html"})


def test_the_typed_api_still_imports_from_the_package():
    import fitproof
    from fitproof import Selection, select

    assert fitproof.select is select and Selection.__name__ == "Selection"


# What the page's worker imports before it says ready (web/worker/python-package.js): difflib (only
# for a typo's "did you mean") and calendar (one leap-year rule) cost Pyodide ~28 and ~25 ms.
# Every mode is imported with the package (the registry is a plain dict of modules).
PAGE_START_UP = """
import json, sys
import fitproof
from fitproof._envelope import check_text, format_json
from fitproof import _page
{more}
print(json.dumps(sorted(sys.modules)))
"""


def modules_after(more: str = "") -> set:
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{PAGE_START_UP.format(more=more)}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return set(json.loads(out))


def test_the_page_start_up_leaves_out_difflib_and_calendar():
    loaded = modules_after()
    assert "fitproof._base.values" in loaded and "fitproof.modes.messages" in loaded
    assert loaded.isdisjoint({"difflib", "calendar"})


def test_blocks_needs_no_calendar():
    block = {"id": "a", "source": "crm", "content": "x", "priority": 1, "observed_at": "2026-03-01T00:00:00Z"}
    window = {"context_tokens": 500, "reserved_output_tokens": 10, "fixed_prompt_tokens": 10}
    text = json.dumps({"mode": "blocks", "window": window, "blocks": [block]})
    loaded = modules_after(f"assert json.loads(check_text({text!r}))['ok']")
    assert "fitproof._base.instant" in loaded
    assert loaded.isdisjoint({"difflib", "calendar"})


def test_the_registry_names_each_mode_by_its_module_and_the_package_exports_them_all():
    import fitproof
    from fitproof.modes import MODES

    assert list(MODES) == ["relevance", "required", "blocks", "passages", "messages"]
    assert all(MODES[name].NAME == name for name in MODES) and "nope" not in MODES and MODES.get("nope") is None
    assert fitproof.trim_messages is MODES["messages"].trim_messages
    assert {name: getattr(fitproof, name) for name in fitproof.__all__}


def test_importing_the_package_as_the_page_does_imports_no_hashlib():
    """hashlib asks for _hashlib, which the page's compiled standard library lacks: the page then
    fetched Pyodide's whole python_stdlib.zip (2.5 MB more on every first visit) when strategy
    stable's digests imported it at the top. Only code that hashes imports it, when it runs."""
    probe = (
        "import sys\nimport fitproof\nfrom fitproof._envelope import check_text, format_json\n"
        "from fitproof import _page\nprint(sorted({'hashlib', '_hashlib'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip() == "[]", done.stderr
