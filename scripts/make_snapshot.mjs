// Makes the page's prebuilt memory snapshot: Pyodide (run by Node) with fitproof
// imported, exactly as web/worker/boot.js would import it, gzipped. Run by `serve` and
// `build-site` (py/fitproof/_site/bundle.py) when Node is installed:
//   node scripts/make_snapshot.mjs PYODIDE_DIR BUNDLE_JSON [STDLIB_ZIP] OUT_GZ
// STDLIB_ZIP: the standard library the page loads (scripts/make_stdlib.mjs), when not Pyodide's own.
// The page checks it (gunzip's CRC, Pyodide's build id, the sources' hash, a probe input's
// report) before using it, and boots normally if anything is off.
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";

const [pyodideDir, bundlePath, ...rest] = process.argv.slice(2);
const outPath = rest.pop();
const stdLibURL = rest[0];
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const bundle = JSON.parse(readFileSync(bundlePath, "utf8"));
const PACKAGE_ROOT = "/home/pyodide/py";
// An empty `js` module: the snapshot must not refer to Node's globals, which a browser lacks.
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdLibURL, _makeSnapshot: true, jsglobals: {}, stdout: () => {}, stderr: () => {} });
for (const [name, text] of Object.entries(bundle.files)) {
  const path = `${PACKAGE_ROOT}/${name}`;
  pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  pyodide.FS.writeFile(path, text);
}
// Keep in step with importPackage in web/worker/python-package.js.
pyodide.runPython(`
import sys
if ${JSON.stringify(PACKAGE_ROOT)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(PACKAGE_ROOT)})
import fitproof
from fitproof._envelope import check_text, format_json
from fitproof import _page
_fitproof_sources = ${JSON.stringify(bundle.sources_sha256)}
`);
writeFileSync(outPath, gzipSync(pyodide.makeMemorySnapshot()));
