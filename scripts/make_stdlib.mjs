// Makes the page's standard library: the modules of Pyodide's python_stdlib.zip that Pyodide's
// start, the fitproof package and its checks import, compiled to bytecode by Pyodide's
// own Python (run by Node), in one zip. About a fifth of python_stdlib.zip's bytes, and Python
// starts without compiling its modules from source, a second or more of a first visit's start.
// Run by `serve` and `build-site` (py/fitproof/_site/bundle.py) when Node is installed:
//   node scripts/make_stdlib.mjs PYODIDE_DIR BUNDLE_JSON RANKS_DIR OUT_ZIP INPUT_DIR...
// Every .json under each INPUT_DIR (its "input", or the file itself) is checked, formatted and
// shown token by token, with each exact tokenizer it names loaded from RANKS_DIR, so that what
// the page runs is imported here. A module the page needs that is missing here is not an error:
// the page then loads the whole python_stdlib.zip (web/worker/python-package.js).
// The zip also holds the package's own bytecode, under PACKAGE_BYTECODE/: checked hash-based
// .pyc files, which Python uses only for a source of exactly the bytes they were compiled from
// (the bundle's), and compiles the source itself otherwise.
import { readFileSync, readdirSync, statSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, bundlePath, ranksDir, outPath, ...inputDirs] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const bundle = JSON.parse(readFileSync(bundlePath, "utf8"));
const PACKAGE_ROOT = "/home/pyodide/py";
const PACKAGE_BYTECODE = "fitproof-bytecode";  // as in web/worker/python-package.js
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, jsglobals: {}, stdout: () => {}, stderr: () => {} });
for (const [name, text] of Object.entries(bundle.files)) {
  const path = `${PACKAGE_ROOT}/${name}`;
  pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  pyodide.FS.writeFile(path, text);
}

const inputs = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".json")) inputs.push(readFileSync(path, "utf8"));
  }
};
for (const dir of inputDirs) if (existsSync(dir)) walk(dir);
pyodide.FS.mkdirTree("/ranks");
if (existsSync(ranksDir)) for (const name of readdirSync(ranksDir)) pyodide.FS.writeFile(`/ranks/${name}`, readFileSync(join(ranksDir, name)));
pyodide.FS.writeFile("/stdlib.zip", readFileSync(`${pyodideDir}/python_stdlib.zip`));
pyodide.globals.set("inputs", inputs);

// Keep the package's import in step with importPackage in web/worker/python-package.js.
pyodide.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(PACKAGE_ROOT)})
import fitproof
from fitproof._envelope import check_text, format_json
from fitproof import _page
from fitproof.tokenizers import ENCODINGS, RANK_FILES
import json, os

for text in inputs.to_py():
    try:
        document = json.loads(text)
    except ValueError:
        continue
    value = document.get("input", document) if isinstance(document, dict) else document
    text = json.dumps(value)
    for name in _page.tokenizers_needed(text):
        path = "/ranks/" + RANK_FILES[name].file_name
        if os.path.exists(path):
            with open(path, "rb") as file:
                _page.provide_ranks(name, file.read())
    _page.check_text(text)
    format_json(text)
    format_json(text, "input")
    for name in ("o200k_base", "cl100k_base"):
        if ENCODINGS[name].loaded:
            _page.token_view(text[:2000], name)
            _page.count_texts(json.dumps([text[:200]]), name)

import importlib.util, importlib._bootstrap_external as external, zipfile
PREFIX = "/lib/python%d%d.zip/" % sys.version_info[:2]
wanted = set()
for module in list(sys.modules.values()):
    file = getattr(module, "__file__", None) or ""
    spec = getattr(module, "__spec__", None)
    if spec is not None and spec.origin == "frozen":
        continue  # in Python's own binary: never read from the zip
    if file.startswith(PREFIX):
        wanted.add(file[len(PREFIX):])
source = zipfile.ZipFile("/stdlib.zip")
names = set(source.namelist())
missing = sorted(name for name in wanted if name not in names)
if missing:
    raise SystemExit("imported from the standard library but not in its zip: " + ", ".join(missing))
# Deterministic: sorted, fixed dates, unchecked hash-based .pyc (no source next to them to check).
with zipfile.ZipFile("/out.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
    for name in sorted(wanted):
        data = source.read(name)
        if name.endswith(".py"):
            code = compile(data, name, "exec", dont_inherit=True)
            data = bytes(external._code_to_hash_pyc(code, importlib.util.source_hash(data), False))
            name += "c"
        out.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED, 9)
    import py_compile
    root = ${JSON.stringify(PACKAGE_ROOT)}
    imported = sorted(module.__file__ for module in list(sys.modules.values()) if (getattr(module, "__file__", None) or "").startswith(root + "/"))
    listed = []
    for source in imported:  # the package's modules the page was seen to import (the others compile as they come)
        name = source[len(root) + 1:]
        folder, _, file = name.rpartition("/")
        target = folder + "/__pycache__/" + file[:-3] + "." + sys.implementation.cache_tag + ".pyc"
        py_compile.compile(source, cfile="/tmp/compiled.pyc", doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        with open("/tmp/compiled.pyc", "rb") as compiled:
            out.writestr(zipfile.ZipInfo(${JSON.stringify(PACKAGE_BYTECODE)} + "/" + target, date_time=(1980, 1, 1, 0, 0, 0)), compiled.read(), zipfile.ZIP_DEFLATED, 9)
        listed.append(target)
    # Their list, read with zipimport (zipfile would need a codec more than the page does).
    out.writestr(zipfile.ZipInfo(${JSON.stringify(PACKAGE_BYTECODE)} + "/files.txt", date_time=(1980, 1, 1, 0, 0, 0)), " ".join(listed), zipfile.ZIP_DEFLATED, 9)
`);
writeFileSync(outPath, pyodide.FS.readFile("/out.zip"));
