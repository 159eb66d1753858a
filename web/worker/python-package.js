// The fitproof package inside a Pyodide: written from its one-file bundle, then
// imported. Shared by boot.js (the page's Python) and snapshot-maker.js (the copy kept for
// the next visit), so that a kept snapshot holds exactly what a normal start imports; the
// prebuilt snapshot's maker (scripts/make_snapshot.mjs, run by Node) keeps a copy in step.

export const PACKAGE_ROOT = "/home/pyodide/py";

// Encoded here: FS.writeFile would encode a string to UTF-8 in a JavaScript loop, several
// times slower on a cold start than TextEncoder (the same bytes).
export function installPackage(pyodide, bundle) {
  const utf8 = new TextEncoder();
  for (const [name, text] of Object.entries(bundle.files)) {
    const path = `${PACKAGE_ROOT}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, utf8.encode(text));
  }
}

// `_fitproof_sources` lets a snapshot say which sources it holds.
export function importPackage(pyodide, sourcesSha256) {
  pyodide.runPython(`
import sys
if ${JSON.stringify(PACKAGE_ROOT)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(PACKAGE_ROOT)})
import fitproof
from fitproof._envelope import check_text, format_json
from fitproof import _page
_fitproof_sources = ${JSON.stringify(sourcesSha256)}
`);
}

// The compiled standard library the site serves holds only the modules the package was seen to
// import (scripts/make_stdlib.mjs). Any other module of the standard library, asked for by an
// import, makes Pyodide's whole python_stdlib.zip be fetched (once, synchronously: an import
// cannot wait; a worker may) and searched after it, also for the packages already imported
// from the compiled one. Installed after the start, never in a snapshot.
export function wholeStdlibWhenMissing(pyodide, url) {
  pyodide.runPython(`
import sys

class _WholeStandardLibrary:
    URL = ${JSON.stringify(url)}
    COMPILED = "/lib/python%d%d.zip" % sys.version_info[:2]
    WHOLE = "/lib/python_stdlib_whole.zip"
    state = "waiting"  # then "loaded", or "failed" (no second try)

    def _load(self):
        import js
        self.state = "failed"
        request = js.XMLHttpRequest.new()
        request.open("GET", self.URL, False)
        request.responseType = "arraybuffer"
        request.send()
        if request.status != 200:
            return
        with open(self.WHOLE, "wb") as file:
            file.write(request.response.to_bytes())
        self.state = "loaded"
        sys.path.append(self.WHOLE)
        js.console.info("fitproof: a module missing from the compiled standard library; the whole one is loaded")

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in sys.stdlib_module_names:
            return None
        if self.state == "waiting":
            self._load()
        if self.state != "loaded":
            return None
        import importlib, importlib.machinery
        if path is not None:  # a package from the compiled zip: its part of the whole one too
            for entry in list(path):
                if entry.startswith(self.COMPILED + "/"):
                    whole = self.WHOLE + entry[len(self.COMPILED):]
                    if whole not in path:
                        path.append(whole)
        importlib.invalidate_caches()
        return importlib.machinery.PathFinder.find_spec(name, path)

if not any(type(finder).__name__ == "_WholeStandardLibrary" for finder in sys.meta_path):
    sys.meta_path.append(_WholeStandardLibrary())
del _WholeStandardLibrary
`);
}

// The package's bytecode, when the compiled standard library carries it (scripts/make_stdlib.mjs
// compiles it from the bundle's sources): written beside the sources as __pycache__ files that
// name the hash of the source they were compiled from, which Python checks at import; a source
// of other bytes is compiled from itself, as without them. Saves compiling the package at start.
export const PACKAGE_BYTECODE = "fitproof-bytecode";

export function installBytecode(pyodide) {
  pyodide.runPython(`
import os, sys, zipimport
def _install_bytecode():
    stdlib = zipimport.zipimporter("/lib/python%d%d.zip" % sys.version_info[:2])
    try:
        names = stdlib.get_data(${JSON.stringify(PACKAGE_BYTECODE + "/files.txt")}).decode().split()
    except OSError:
        return  # a standard library without the package's bytecode
    for name in names:
        path = ${JSON.stringify(PACKAGE_ROOT + "/")} + name
        os.makedirs(path.rpartition("/")[0], exist_ok=True)
        with open(path, "wb") as file:
            file.write(stdlib.get_data(${JSON.stringify(PACKAGE_BYTECODE + "/")} + name))
_install_bytecode()
del _install_bytecode
`);
}
