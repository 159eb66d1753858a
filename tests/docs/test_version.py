"""One version, said in one place and kept in three: ``fitproof.__version__``, the installed
metadata (the wheel reads its version from ``__version__``) and CHANGELOG.md's newest entry."""

from __future__ import annotations

import re
from importlib import metadata

import fitproof
from conftest import ROOT

CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_changelog_s_newest_entry_is_the_package_s_version():
    versions = re.findall(r"^## (\d+\.\d+\.\d+)\b", CHANGELOG, re.M)
    assert versions and versions[0] == fitproof.__version__
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True), "newest first"
    assert len(set(versions)) == len(versions)


def test_the_installed_metadata_says_the_same_version():
    assert metadata.version("fitproof") == fitproof.__version__


def test_pyproject_takes_the_version_from_the_package():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in text and 'version = {attr = "fitproof.__version__"}' in text
    assert not re.search(r'^version = "', text, re.M), "a second version written in pyproject.toml"
