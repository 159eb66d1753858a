"""The pytest plugin as a user meets it: the package installed (not editable) in a fresh venv, a
project of their own with a folder of JSON cases and one line of configuration, pytest run in a
subprocess. One venv serves every test here; pytest itself comes from the project's environment.

And in this project's own run, where the editable install registers the plugin too: loaded, inert.
"""

import json
import os
import re
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from checkout_copy import copy_checkout
from conftest import ROOT
from fitproof import evaluate, pytest_plugin

README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("## Fixtures") : README.index("\n## ", README.index("## Fixtures") + 1)]
CONFIGURATION = re.search(r"```toml\n(.*?)```", SECTION, re.S).group(1)
PARTIAL_CASE = json.loads(re.search(r"```json\n(.*?)```", SECTION, re.S).group(1))
WRONG_CASE = {**PARTIAL_CASE, "description": "B is kept, says this case (wrongly)", "expect": {"pass": True, "selected": ["A", "B"]}}


@pytest.fixture(scope="module")
def python(tmp_path_factory):
    """A fresh venv's python with the package installed from a copy of the checkout (as a wheel,
    with its data), seeing the project's environment only for pytest (a path in a .pth file)."""
    base = tmp_path_factory.mktemp("plugin")
    source = copy_checkout(base / "source")
    environment = base / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # After the venv's own site-packages: its fitproof (and its entry point) come first.
    Path(site, "zz-project-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = clean_environment()
    install = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--disable-pip-version-check",
            source,
        ],
        capture_output=True,
        text=True,
        env={**env, "PIP_CONFIG_FILE": os.devnull},
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    where = subprocess.run([python, "-c", "import fitproof; print(fitproof.__file__)"], capture_output=True, text=True, env=env, check=True)
    assert where.stdout.startswith(str(environment)), "the installed copy, not the checkout"
    return python


def clean_environment():
    return {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "FITPROOF_TOKENIZER_DATA") and not key.startswith("PYTEST")
    }


def project(base: Path, cases: dict, configuration: str | None = CONFIGURATION, folder: str = "my-cases") -> Path:
    base.mkdir()
    if configuration is not None:
        (base / "pyproject.toml").write_text(configuration)
    for name, case in cases.items():
        (base / folder / name).parent.mkdir(parents=True, exist_ok=True)
        (base / folder / name).write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n")
    return base


def pytest_run(python, where: Path, *arguments, autoload=False):
    """pytest's exit code and output. Without ``autoload``, pytest loads no plugin of the environment
    but this one, by its entry point's name (the project's environment has heavy ones)."""
    env = clean_environment()
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        arguments = ("-p", "fitproof", *arguments)
    done = subprocess.run([python, "-m", "pytest", *arguments], cwd=where, capture_output=True, text=True, env=env, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_a_passing_and_a_failing_partial_case(python, tmp_path):
    here = project(tmp_path / "p", {"two-fit.json": PARTIAL_CASE, "sub/wrong.json": WRONG_CASE})
    code, out = pytest_run(python, here, "-rA", autoload=True)  # found by its entry point, as a user's pytest finds it
    assert code == 1 and "1 failed, 1 passed" in out, out
    assert "fitproof cases: my-cases" in out  # the header says what is configured
    assert "PASSED my-cases/two-fit.json" in out
    assert 'FAILED my-cases/sub/wrong.json - $.selected: expected ["A", "B"], got ["A", "C"]' in out
    assert "\nthe case: B is kept, says this case (wrongly)\n" in out
    assert "Traceback" not in out and "pytest_plugin.py" not in out and "raise CaseFailed" not in out


def test_k_and_last_failed_choose_cases(python, tmp_path):
    here = project(tmp_path / "p", {"two-fit.json": PARTIAL_CASE, "sub/wrong.json": WRONG_CASE})
    code, out = pytest_run(python, here, "-k", "two-fit", "-v")
    assert code == 0 and "my-cases/two-fit.json PASSED" in out and "1 passed, 1 deselected" in out, out
    pytest_run(python, here)
    code, out = pytest_run(python, here, "--lf", "-v")
    assert code == 1 and "my-cases/sub/wrong.json FAILED" in out and "1 failed, 1 deselected" in out, out
    code, out = pytest_run(python, here, "my-cases/two-fit.json")  # a path given: only what is under it
    assert code == 0 and "1 passed" in out, out


def test_update_rewrites_the_stale_snapshot_and_leaves_the_partial_case(python, tmp_path):
    stale = {"description": "a snapshot", "input": PARTIAL_CASE["input"], "expected": {**evaluate(PARTIAL_CASE["input"]), "used": 6}}
    here = project(tmp_path / "p", {"stale.json": stale, "wrong.json": WRONG_CASE})
    partial_before = (here / "my-cases" / "wrong.json").read_bytes()
    code, out = pytest_run(python, here, "--fitproof-update")
    assert code == 1 and "1 failed, 1 passed" in out, out
    assert "not updated: an expect case is never updated; edit what it states by hand" in out
    assert "fitproof: 1 snapshot updated" in out and "updated my-cases/stale.json: 1 change\n    $.used: 6 -> 7\n" in out
    assert (here / "my-cases" / "wrong.json").read_bytes() == partial_before
    assert json.loads((here / "my-cases" / "stale.json").read_text())["expected"] == evaluate(PARTIAL_CASE["input"])
    code, out = pytest_run(python, here, "-k", "stale")
    assert code == 0 and "1 passed" in out, out


def test_cases_named_on_the_command_line_and_the_missing_tokenizer_data_named(python, tmp_path):
    counted = {
        "description": "counted by o200k_base",
        "expect": {"pass": True, "selected": ["A"]},
        "input": {"budget": 9, "tokenizer": "o200k_base", "items": [{"id": "A", "relevance": 1, "content": "hello"}]},
    }
    here = project(tmp_path / "p", {"counted.json": counted}, configuration=None, folder="cases")
    code, out = pytest_run(python, here, "--fitproof-cases", "cases")
    assert code == 0 and "1 passed" in out, out
    # This installation without its rank files: the failure says which file is missing, and where it was looked for.
    (here / "conftest.py").write_text('from fitproof.tokenizers import exact\nexact.PACKAGED_DATA = "/nonexistent"\n')
    code, out = pytest_run(python, here, "--fitproof-cases", "cases")
    assert code == 1 and "$.pass: expected true, got false" in out, out
    assert "the tokenizer's data is missing: o200k_base needs o200k_base.tiktoken, not found in" in out and "Traceback" not in out


def test_the_plugin_is_inert_unless_cases_are_named(python, tmp_path):
    here = project(tmp_path / "p", {"two-fit.json": PARTIAL_CASE}, configuration=None, folder="tests/cases")
    (here / "tests" / "test_other.py").write_text("def test_other():\n    assert 1 + 1 == 2\n")
    code, out = pytest_run(python, here, "--collect-only", "-q")
    assert code == 0 and out.splitlines()[0] == "tests/test_other.py::test_other" and ".json" not in out, out
    # Named on the command line, the same folder is collected: the plugin was there, inert.
    code, out = pytest_run(python, here, "--collect-only", "-q", "--fitproof-cases", "tests/cases")
    assert code == 0 and "tests/cases/two-fit.json" in out, out
    code, out = pytest_run(python, here, "--fitproof-update")
    assert code == 4 and "--fitproof-update: there are no cases to update" in out, out


def test_a_folder_without_cases_is_an_error_never_a_silent_pass(python, tmp_path):
    here = project(tmp_path / "p", {})
    code, out = pytest_run(python, here)
    assert code == 4 and "fitproof_cases in pyproject.toml: no fixture directory at" in out and "Traceback" not in out, out
    (here / "my-cases").mkdir()
    code, out = pytest_run(python, here)
    assert code == 4 and "no fixture files (*.json) under" in out, out


def test_the_plugin_is_loaded_in_this_run_and_does_nothing(request):
    """The project installs itself editable, so pytest loads the plugin here too: it has no cases,
    adds no test, and collected none of the project's JSON files."""
    config = request.config
    assert config.pluginmanager.hasplugin("fitproof")
    assert config.getini(pytest_plugin.INI) == [] and config.stash.get(pytest_plugin._CASES, None) is None
    assert not any(isinstance(item, pytest_plugin.Case) for item in request.session.items)
    assert not [item for item in request.session.items if item.path.suffix == ".json"]


def test_the_plugin_loads_no_fixture_code_until_a_case_runs():
    probe = "import sys, fitproof.pytest_plugin; print(sorted(m for m in sys.modules if m.startswith('fitproof.')))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=clean_environment(), timeout=60
    ).stdout
    loaded = set(eval(out))
    assert "fitproof.pytest_plugin" in loaded and "fitproof._fixtures.case" not in loaded and "fitproof._fixtures.snapshots" not in loaded
