"""What the install tests share: a copy of the checkout to build the package from."""

import shutil
from pathlib import Path

from conftest import ROOT


def copy_checkout(source: Path) -> Path:
    """The files `pip install` reads, copied to ``source`` (the build writes its build/ and
    *.egg-info there, never into the checkout); node_modules linked: the wheel carries the rank
    files and Pyodide from it (setup.py)."""
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "package.json", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    for name in ("py", "LICENSES", "web", "examples", "fixtures", "docs"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "_data"))
    (source / "node_modules").symlink_to(ROOT / "node_modules")
    return source
