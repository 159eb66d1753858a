"""The runtime files of fitproof's page: Pyodide and CodeMirror 6, as their pinned npm packages ship them.

Installed by ``pip install fitproof[page]``, read by ``fitproof serve`` and ``fitproof build-site``
(``DATA / "pyodide"``, ``DATA / "codemirror"``); there is nothing here to call. It is a package
of its own so that a server that only checks and counts installs 3 MB instead of 10.
"""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "_data"

__all__ = ["DATA"]
