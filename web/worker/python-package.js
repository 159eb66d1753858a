// The context_budget package inside a Pyodide: written from its one-file bundle, then
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
