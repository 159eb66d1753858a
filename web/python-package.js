// The context_budget package inside a Pyodide: written from its one-file bundle, then
// imported. Shared by worker.js (the page's Python) and snapshot-maker.js (the copy kept for
// the next visit), so that a kept snapshot holds exactly what a normal start imports; the
// prebuilt snapshot's maker (scripts/make_snapshot.mjs, run by Node) keeps a copy in step.

export const PACKAGE_ROOT = "/home/pyodide/py";

export function installPackage(pyodide, bundle) {
  for (const [name, text] of Object.entries(bundle.files)) {
    const path = `${PACKAGE_ROOT}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, text);
  }
}

// `_context_budget_sources` lets a snapshot say which sources it holds.
export function importPackage(pyodide, sourcesSha256) {
  pyodide.runPython(`
import sys
if ${JSON.stringify(PACKAGE_ROOT)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(PACKAGE_ROOT)})
import context_budget
from context_budget._envelope import check_text, format_json
from context_budget import _page
_context_budget_sources = ${JSON.stringify(sourcesSha256)}
`);
}
