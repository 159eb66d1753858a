"""`pip install .` into a clean virtual environment gives a working `fitproof` and a typed package.

The source is copied first, so that the build writes its build/ and *.egg-info into the
copy and never into the checkout. The build fetches setuptools, as any `pip install .` does.
"""

import json
import os
import subprocess
import venv

import pytest

from checkout_copy import copy_checkout
from conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    source = copy_checkout(base / "source")
    environment = base / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(environment)
    python = environment / "bin" / "python"
    clean = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    process = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir", str(source)],
        capture_output=True,
        text=True,
        env=clean,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    return environment, clean


def test_the_installed_command_checks_the_example(installed):
    environment, clean = installed
    process = subprocess.run(
        [str(environment / "bin" / "fitproof"), "check", str(ROOT / "examples" / "relevance.json")],
        capture_output=True,
        text=True,
        env=clean,
        cwd=environment,
        timeout=60,
    )
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout)["result"]["selected"] == ["A", "C"]


def test_the_installed_package_is_the_copy_with_its_data_and_metadata(installed):
    environment, clean = installed
    probe = """
import json, importlib.metadata as metadata, importlib.resources as resources
import fitproof
files = resources.files("fitproof")
meta = metadata.metadata("fitproof")
print(json.dumps({
    "file": fitproof.__file__,
    "typed": files.joinpath("py.typed").is_file(),
    "schemas": sorted(p.name for p in files.joinpath("schemas").iterdir()),
    "license": meta.get("License-Expression"),
    "license_files": meta.get_all("License-File"),
    "classifiers": meta.get_all("Classifier"),
    "author": meta.get("Author") or meta.get("Author-email"),
    "script": [e.value for e in metadata.entry_points(group="console_scripts") if e.name == "fitproof"],
}))
"""
    out = subprocess.run(
        [str(environment / "bin" / "python"), "-c", probe], capture_output=True, text=True, env=clean, cwd=environment, timeout=60
    )
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["file"].startswith(str(environment)), "imported from the checkout, not the installed copy"
    assert facts["typed"] is True
    assert facts["schemas"] == sorted(p.name for p in (ROOT / "py" / "fitproof" / "schemas").glob("*.schema.json"))
    assert facts["license"] == "MIT" and facts["license_files"] == ["LICENSE"]
    assert "Typing :: Typed" in facts["classifiers"] and facts["author"]
    assert facts["script"] == ["fitproof._launch:main"]
