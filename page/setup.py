"""fitproof-page's wheel: the files fitproof's page serves beside its own, copied at build time.

``build_py`` copies into the build (never into the source tree) ``fitproof_page/_data/``:

- ``pyodide/``: Pyodide's runtime files that the page serves (``PYODIDE_FILES`` in fitproof's
  ``_site/bundle.py``) and its ``package.json``, exactly as the pinned npm package ships them,
  with Pyodide's licence (MPL-2.0);
- ``codemirror/``: CodeMirror 6's ES modules that the page's editor imports (``CODEMIRROR_FILES``
  there), with their licence (MIT).

They are read from the checkout's ``node_modules/`` (``npm ci``) one folder up; the version is
fitproof's own, so that ``fitproof[page]`` pins exactly this build. A build that cannot find a
file stops and says how to get it: never a wheel that cannot serve the page.
"""

import ast
import json
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
HINT = "run `npm ci` in the fitproof checkout (it installs the pinned npm packages pyodide and CodeMirror), then build again"


def _source(*parts):
    try:
        with open(os.path.join(CHECKOUT, "py", "fitproof", *parts), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        raise SetupError(f"fitproof-page is built from a fitproof checkout (py/fitproof/{'/'.join(parts)} not found beside {HERE})") from None


def version():
    found = re.search(r'^__version__ = "([^"]+)"', _source("__init__.py"), re.M)
    if found is None:
        raise SetupError("setup.py: no __version__ in py/fitproof/__init__.py")
    return found.group(1)


def bundle_constant(name):
    """A tuple constant of fitproof's _site/bundle.py (read, not imported)."""
    for node in ast.parse(_source("_site", "bundle.py")).body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == name for target in node.targets):
            return ast.literal_eval(node.value)
    raise SetupError(f"setup.py: no {name} in fitproof's _site/bundle.py")


def pinned(name):
    """The version package.json pins for an npm package, and the one node_modules holds."""
    with open(os.path.join(CHECKOUT, "package.json"), encoding="utf-8") as handle:
        wanted = json.load(handle)["dependencies"][name]
    try:
        with open(os.path.join(CHECKOUT, "node_modules", name, "package.json"), encoding="utf-8") as handle:
            have = json.load(handle)["version"]
    except (OSError, ValueError, KeyError):
        have = None
    return wanted, have


def data_files():
    """(path under the checkout, path under fitproof_page/_data) of every file the wheel carries."""
    for name in ("pyodide", "codemirror", "@codemirror/lang-json"):
        wanted, have = pinned(name)
        if have is not None and have != wanted:
            raise SetupError(f"node_modules/{name} is version {have}, not the pinned {wanted}: {HINT}")
    plan = [(os.path.join("node_modules", "pyodide", name), f"pyodide/{name}") for name in (*bundle_constant("PYODIDE_FILES"), "package.json")]
    plan.append((os.path.join("LICENSES", "pyodide-MPL-2.0.txt"), "pyodide/LICENSE"))
    plan += [(os.path.join("node_modules", *name.split("/")), f"codemirror/{name}") for name in bundle_constant("CODEMIRROR_FILES")]
    plan.append((os.path.join("LICENSES", "codemirror-MIT.txt"), "codemirror/LICENSE"))
    missing = [source for source, _ in plan if not os.path.isfile(os.path.join(CHECKOUT, source))]
    if missing:
        raise SetupError(
            f"cannot build fitproof-page's wheel: {', '.join(missing[:4])}{' and more' if len(missing) > 4 else ''} "
            f"missing under {CHECKOUT}; {HINT}"
        )
    return plan


class build_py_with_data(build_py):
    """setuptools' build_py, then the runtime files copied into the build's fitproof_page/_data/."""

    def run(self):
        super().run()
        self._data_outputs = []
        for source, target in data_files():
            destination = os.path.join(self.build_lib, "fitproof_page", "_data", *target.split("/"))
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copyfile(os.path.join(CHECKOUT, source), destination)
            self._data_outputs.append(destination)

    def get_outputs(self, include_bytecode=True):
        return [*super().get_outputs(include_bytecode), *getattr(self, "_data_outputs", [])]


setup(version=version(), cmdclass={"build_py": build_py_with_data})
