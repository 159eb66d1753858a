"""``fitproof[page]``: the companion fitproof-page, pinned to the package's own version, and what an
installation without it (or with another version of it) says when the page is asked for.

The wheels themselves are built and installed in test_wheel.py; these read the pin and drive
``page_runtime`` with the companion hidden or of another version, in this process.
"""

import sys
import tomllib
from importlib import metadata

import pytest

import fitproof
from conftest import ROOT
from fitproof._site import bundle


def test_the_page_extra_pins_fitproof_page_to_the_package_s_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["optional-dependencies"]["page"] == [f"fitproof-page=={fitproof.__version__}"]
    page = tomllib.loads((ROOT / "page" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert page["name"] == "fitproof-page" and page["dynamic"] == ["version"] and page["dependencies"] == []


def test_without_the_companion_the_page_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "fitproof_page", None)  # import fails, as when it is not installed
    with pytest.raises(bundle.SiteError) as raised:
        bundle.page_runtime()
    assert str(raised.value) == "the page's runtime (Pyodide and CodeMirror) is not installed: pip install 'fitproof[page]'"
    assert isinstance(raised.value, fitproof.FitproofError)


@pytest.fixture
def companion(monkeypatch, tmp_path):
    """A fitproof_page module whose DATA is ``tmp_path``; the version its metadata gives is set by the test."""
    import types

    module = types.ModuleType("fitproof_page")
    module.DATA = tmp_path
    monkeypatch.setitem(sys.modules, "fitproof_page", module)
    versions = {}

    def version(name):
        if name in versions:
            return versions[name]
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", version)
    return versions


def test_the_companion_of_this_version_gives_its_data(companion, tmp_path):
    companion["fitproof-page"] = fitproof.__version__
    assert bundle.page_runtime() == tmp_path


@pytest.mark.parametrize("installed", ["0.4.9", None])
def test_a_companion_of_another_version_is_refused_by_both_versions(companion, installed):
    if installed is not None:
        companion["fitproof-page"] = installed
    with pytest.raises(bundle.SiteError) as raised:
        bundle.page_runtime()
    message = str(raised.value)
    assert f"this is fitproof {fitproof.__version__}" in message
    assert f"pip install 'fitproof[page]=={fitproof.__version__}'" in message
    assert (installed or "(version unknown)") in message
