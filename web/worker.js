// Runs Python off the main thread: boots the local Pyodide copy, installs the
// context_budget package from its one-file bundle, and answers
// {type: "check" | "format" | "tokens" | "count", id, text, key?} with the envelope as JSON text.
// No selection logic here.
//
// Start-up, in order of preference, each snapshot being a gzipped memory image of
// "Pyodide + context_budget imported", checked (gunzip's CRC, Pyodide's build id, the
// sources' hash and the report for boot.json's probe input) before it is trusted:
// 1. a snapshot made on an earlier visit, kept in the browser's Cache Storage under the
//    Pyodide version and the sources' SHA-256 (made only when 2 is missing or bad);
// 2. the site's prebuilt snapshot (boot.json names it when the server had Node to make it);
// 3. a normal boot, with the package bundle fetched while Pyodide starts. Any problem with a
//    snapshot falls back to 3, quietly. After a normal boot the page is ready at once; the
//    snapshot for the next visit is made afterwards by snapshot-maker.js, on another thread.
//
// Messages to the page: {type: "progress", loaded, total} while downloading, then
// {type: "status", message, step, steps}, then {type: "ready", version, ms, snapshot, steps}
// (snapshot, how it started: "used" a kept one, "prebuilt", "normal") or {type: "error",
// message}; then {type: "snapshot", state}: "saving" while a copy is made for the next visit,
// "saved", "none" (no copy kept), "cleared" (removed at the page's request).

const BOOT_URL = new URL("./boot.json", import.meta.url);
const SNAPSHOT_CACHE = "context-budget-snapshot";
const STALL_MS = 20000;  // no answer from loadPyodide by then: find out why
const IDLE_MS = 1000;  // after a normal boot, the snapshot is made once the first check is answered or after this

// Imported while Pyodide loads (a static import would delay the worker's start by a request).
const pythonPackage = import("./python-package.js");
// Pyodide's loader, under the site's unversioned name, fetched alongside boot.json instead of
// after it; used only if its version is the one boot.json names (else the versioned copy is).
const pyodideLoader = import("./pyodide/pyodide.mjs");
pyodideLoader.then((loader) => requestEarly(new URL(`./pyodide/${loader.version}/`, import.meta.url).href, false), () => {});

let checkText = null;
let formatJson = null;
let tokenizers = null;  // context_budget._page: which rank files an input needs, loading them, the token view
const steps = {};  // milestone -> ms since the worker started, for bench/page.py
const mark = (name) => { steps[name] = Math.round(performance.now()); };
// When each Pyodide file had arrived, beside the milestones (bench/page.py compares them with a bare boot's).
function markDownloads() {
  for (const entry of performance.getEntriesByType("resource")) {
    const name = entry.name.slice(entry.name.lastIndexOf("/") + 1);
    if (name.startsWith("pyodide.asm.") || name === "python_stdlib.zip") steps[`${name} arrived`] = Math.round(entry.responseEnd);
  }
}
mark("worker.js");  // this script fetched and running

function status(message, step, steps) {
  postMessage({ type: "status", message, step, steps });
}

// ---------------------------------------------------------------- downloads
// Pyodide fetches its files itself; watching fetch lets the page show real bytes, and lets
// a failed or mistyped .wasm fail at once with its reason (Pyodide would wait forever).
const expected = new Map();  // absolute URL -> bytes
const pyodideFiles = new Set();  // absolute URLs
const arrived = new Map();  // absolute URL -> bytes of it received so far (its latest download)
let lastReport = 0;
let wasmProblem;
const wasmFailed = new Promise((_, reject) => { wasmProblem = reject; });
wasmFailed.catch(() => {});

function reportProgress(force) {
  if (!expected.size) return;  // bytes may arrive before boot.json gives the total: counted, said later
  const now = performance.now();
  if (!force && now - lastReport < 50) return;
  lastReport = now;
  let total = 0;
  let loaded = 0;
  for (const [url, bytes] of expected) {
    total += bytes;
    loaded += Math.min(arrived.get(url) || 0, bytes);
  }
  postMessage({ type: "progress", loaded, total });
}

// Bytes are counted per URL and only boot.json's files count: an early request for a folder
// boot.json does not name never shows, a failed download takes its bytes back, and a second
// download of a file (a normal boot after a refused snapshot) starts its count again.
async function countBody(url, response) {
  const reader = response.body.getReader();
  arrived.set(url, 0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrived.set(url, arrived.get(url) + value.byteLength);
      reportProgress(false);
    }
  } catch (error) {
    arrived.delete(url);
  }
  reportProgress(true);
}

const originalFetch = globalThis.fetch.bind(globalThis);

// A request whose body is counted (Pyodide's files and the bundle) when it arrives.
async function countedFetch(url, resource, options) {
  const response = await originalFetch(resource, options);
  if ((expected.has(url) || pyodideFiles.has(url)) && response.ok && response.body) countBody(url, response.clone()).catch(() => {});
  return response;
}

// The .wasm handed to Pyodide, checked: a failed or mistyped one fails the start at once.
async function checkedWasm(url, responsePromise) {
  let response;
  try {
    response = await responsePromise;
  } catch (error) {
    wasmProblem(new Error(`cannot fetch ${url} (${error.message})`));
    throw error;
  }
  const type = (response.headers.get("content-type") || "").split(";")[0].trim();
  if (!response.ok) wasmProblem(new Error(`cannot fetch ${url} (HTTP ${response.status})`));
  else if (type !== "application/wasm") wasmProblem(new Error(`pyodide.asm.wasm is served as "${type}"; it must be served as application/wasm`));
  return response;
}

globalThis.fetch = (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : String(resource), import.meta.url).href;
  // Pyodide's own files first: the page's modules, examples and the package bundle (needed
  // only once Pyodide has started) share the browser's few connections to the server.
  if (pyodideFiles.has(url)) options = { ...options, priority: "high" };
  let response = early.requests.get(url);
  if (response) {
    early.requests.delete(url);  // a response is read once: a second fetch of it goes to the server
    response = response.catch(() => countedFetch(url, resource, options));  // a network error: once more
  } else {
    response = countedFetch(url, resource, options);
  }
  return url.endsWith("/pyodide.asm.wasm") ? checkedWasm(url, response) : response;
};

// Pyodide's files, requested as soon as their folder is known: from the unversioned loader's
// version, which usually arrives before boot.json, or else from boot.json. loadPyodide, called
// once boot.json is read and the kept snapshot looked up, is handed these responses. Measured
// on loopback, the .wasm then arrived ~50 ms sooner (its own requests queued behind the page's
// modules); from a remote server this saves boot.json's round trip. Requests
// for a folder that boot.json does not name are aborted; once boot.json has named the folder
// (`confirmed`), a loader arriving late changes nothing.
const early = { indexURL: null, confirmed: false, requests: new Map(), abort: null };
const EARLY_FILES = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

function requestEarly(indexURL, confirmed) {
  if (early.confirmed) return;
  early.confirmed = confirmed;
  if (early.indexURL === indexURL) return;
  if (early.abort) early.abort.abort();
  early.requests.clear();
  early.indexURL = indexURL;
  early.abort = new AbortController();
  for (const name of EARLY_FILES) {
    const url = indexURL + name;
    pyodideFiles.add(url);
    const response = countedFetch(url, url, { priority: "high", signal: early.abort.signal });
    response.catch(() => {});
    early.requests.set(url, response);
  }
  // The same URL as loadPyodide's import(): the browser's module map makes it one request.
  import(indexURL + "pyodide.asm.mjs").catch(() => {});
}

// What the old HEAD preflight said, asked only once loading has stalled: the reason, or
// null when the .wasm looks right (a slow machine; the page's own time limit decides).
async function diagnoseStall(indexURL) {
  const url = indexURL + "pyodide.asm.wasm";
  let response;
  try {
    response = await originalFetch(url, { method: "HEAD", cache: "no-store" });
  } catch (error) {
    return `cannot fetch ${url} (${error.message})`;
  }
  if (!response.ok && response.status !== 405 && response.status !== 501) return `cannot fetch ${url} (HTTP ${response.status})`;
  const type = (response.headers.get("content-type") || "").split(";")[0].trim();
  if (response.ok && type !== "application/wasm") return `pyodide.asm.wasm is served as "${type}"; it must be served as application/wasm`;
  return null;
}

function withStallCheck(promise, indexURL) {
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(() => diagnoseStall(indexURL).then((reason) => reason && reject(new Error(reason))), STALL_MS);
  });
  return Promise.race([promise, stalled, wasmFailed]).finally(() => clearTimeout(timer));
}

async function fetchOk(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`cannot load ${url} (HTTP ${response.status})`);
  return response;
}

// ---------------------------------------------------------------- the package
function bindPackage(pyodide) {
  checkText = pyodide.globals.get("check_text");
  formatJson = pyodide.globals.get("format_json");
  tokenizers = pyodide.globals.get("_page");
  return pyodide.runPython("context_budget.__version__ + ' on Python ' + sys.version.split()[0]");
}

// ---------------------------------------------------------------- the snapshot
function snapshotKey(config) {
  return new URL(`./snapshot/pyodide-${config.pyodide.version}/${config.package.sources_sha256}.bin`, BOOT_URL).href;
}

// Looked up without opening (which would create an empty cache on every first visit).
const storage = typeof caches !== "undefined";

async function keptSnapshot(config) {
  try {
    return storage ? await caches.match(snapshotKey(config), { cacheName: SNAPSHOT_CACHE }) : undefined;
  } catch (error) {
    return undefined;  // storage disabled (private mode, policy): just boot normally
  }
}

// Gzipped (see snapshot-maker.js): gunzip checks a CRC-32 and the length of the whole
// snapshot, so a damaged copy is refused before Pyodide sees a byte of it.
async function readSnapshot(response) {
  const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The copy for the next visit, made by a second Pyodide in snapshot-maker.js when the user
// asks (or, once asked, to replace a copy that could not be used, when this one is ready and
// idle): the page never waits for it, and can be used while it is made. "Remove it" stops a
// maker at work (nothing is stored) and none starts again on this visit.
const keeping = { maker: null, start: null, cancelled: false, offer: null };

function keepSnapshotLater(job) {
  const timer = setTimeout(() => keeping.start(), IDLE_MS);
  keeping.start = () => {
    clearTimeout(timer);
    keeping.start = null;
    if (keeping.cancelled) return;
    const maker = new Worker(new URL("./snapshot-maker.js", import.meta.url), { type: "module" });
    keeping.maker = maker;
    const finish = (state, problem) => {
      maker.terminate();
      if (keeping.maker !== maker) return;  // stopped by "Remove it", which answered already
      keeping.maker = null;
      if (problem) console.info(`context-budget: no copy kept for the next visit (${problem})`);
      postMessage({ type: "snapshot", state });
    };
    maker.onmessage = (event) => finish(event.data.ok ? "saved" : "none", event.data.message);
    maker.onerror = (event) => {
      event.preventDefault();
      finish("none", event.message || "the snapshot maker did not start");
    };
    postMessage({ type: "snapshot", state: "saving" });
    maker.postMessage(job);
  };
}

// True when a snapshot was being made (and now never will be).
function stopKeeping() {
  keeping.cancelled = true;
  const maker = keeping.maker;
  keeping.maker = null;
  if (maker) maker.terminate();
  return maker !== null;
}

async function bootFromSnapshot(loadPyodide, indexURL, config, responsePromise, bundlePromise) {
  // gunzip fails on a damaged copy ("Failed to fetch"); Pyodide may only await the bytes
  // later, so the failure is marked as handled here and surfaces from loadPyodide.
  const bytes = Promise.resolve(responsePromise).then(readSnapshot).then((data) => { mark("snapshot read"); return data; }, (error) => {
    throw new Error(`the snapshot cannot be read (${error.message})`);
  });
  bytes.catch(() => {});
  const pyodide = await loadPyodide({
    indexURL, stdout: () => {}, stderr: (line) => console.warn(line), _loadSnapshot: bytes,
  });
  mark("loadPyodide");
  status("Checking the saved Python state", 2, 3);
  (await pythonPackage).installPackage(pyodide, await bundlePromise);
  const sources = pyodide.runPython("globals().get('_context_budget_sources')");
  if (sources !== config.package.sources_sha256) throw new Error("the snapshot holds other sources");
  const version = bindPackage(pyodide);
  if (checkText(config.probe.input) !== config.probe.envelope) throw new Error("the snapshot gives another report for the probe input");
  return version;
}

// ---------------------------------------------------------------- boot
async function loaderFor(config, indexURL) {
  try {
    const loader = await pyodideLoader;
    if (loader.version === config.pyodide.version) return loader;
  } catch (error) {
    // A site without the unversioned name (or a failed fetch): the versioned copy below.
  }
  return import(indexURL + "pyodide.mjs");
}

async function boot() {
  const started = performance.now();
  status("Loading the Python runtime (Pyodide)", 1, 3);
  const config = await (await fetchOk(BOOT_URL)).json();
  const indexURL = new URL(config.pyodide.url, BOOT_URL).href;
  const bundleURL = new URL(config.package.url, BOOT_URL).href;
  for (const [name, bytes] of Object.entries(config.pyodide.bytes)) {
    expected.set(indexURL + name, bytes);
    pyodideFiles.add(indexURL + name);
  }
  expected.set(bundleURL, config.package.bytes);
  requestEarly(indexURL, true);
  const prebuiltURL = config.snapshot ? new URL(config.snapshot.url, BOOT_URL).href : null;
  if (prebuiltURL) expected.set(prebuiltURL, config.snapshot.bytes);
  reportProgress(true);
  mark("boot.json");

  // The bundle downloads while Pyodide starts; `integrity` makes the browser refuse a copy
  // that does not match boot.json, so the page never runs other sources than it names.
  const bundlePromise = fetchOk(bundleURL, { integrity: config.package.integrity, priority: "low" }).then((response) => response.json());
  bundlePromise.catch(() => {});
  // The prebuilt snapshot starts downloading at once; dropped if a kept one turns up.
  const download = new AbortController();
  let prebuilt = null;
  if (prebuiltURL) {
    prebuilt = fetchOk(prebuiltURL, { signal: download.signal });
    prebuilt.catch(() => {});
  }
  const [{ loadPyodide }, kept] = await Promise.all([loaderFor(config, indexURL), keptSnapshot(config)]);
  mark("pyodide.mjs");
  if (kept && prebuilt) {
    download.abort();
    expected.delete(prebuiltURL);
    prebuilt = null;
  }

  for (const [kind, response] of [["used", kept], ["prebuilt", prebuilt]]) {
    if (!response) continue;
    try {
      const version = await withStallCheck(bootFromSnapshot(loadPyodide, indexURL, config, response, bundlePromise), indexURL);
      mark("ready");
      markDownloads();
      postMessage({ type: "ready", version, ms: performance.now() - started, snapshot: kind, steps });
      return;
    } catch (error) {
      // Damaged, stale or refused: boot normally and keep a good one for next time.
      console.info(`context-budget: the ${kind === "used" ? "kept" : "prebuilt"} snapshot was not used (${error.message}); starting normally`);
      if (kind === "used") await caches.open(SNAPSHOT_CACHE).then((cache) => cache.delete(snapshotKey(config))).catch(() => {});
      expected.delete(prebuiltURL);
      break;
    }
  }

  const pyodide = await withStallCheck(loadPyodide({
    indexURL, stdout: () => {}, stderr: (line) => console.warn(line),
  }), indexURL);
  mark("loadPyodide");
  status("Loading the context_budget package", 2, 3);
  const [{ installPackage, importPackage }, bundle] = await Promise.all([pythonPackage, bundlePromise]);
  installPackage(pyodide, bundle);
  mark("bundle");
  status("Starting the checker", 3, 3);
  importPackage(pyodide, config.package.sources_sha256);
  mark("import");
  const version = bindPackage(pyodide);
  mark("ready");
  markDownloads();
  postMessage({ type: "ready", version, ms: performance.now() - started, snapshot: "normal", steps });
  if (!storage) {
    postMessage({ type: "snapshot", state: "none" });
    return;
  }
  const job = { indexURL, bundle, sourcesSha256: config.package.sources_sha256, cacheName: SNAPSHOT_CACHE, key: snapshotKey(config) };
  // Nothing is stored unless the user asks ("Keep a copy"). Once asked, the cache exists until
  // "Remove it": a copy that could not be used (damaged, stale, for other sources) is replaced.
  if (await caches.has(SNAPSHOT_CACHE).catch(() => false)) {
    keepSnapshotLater(job);
  } else {
    keeping.offer = job;
    postMessage({ type: "snapshot", state: "offer" });
  }
}

const booting = boot().catch((error) => {
  postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  throw error;
});
booting.catch(() => {});

// A rank file (1.7 or 3.6 MB) is fetched the first time an input names its tokenizer, with
// progress, and handed to Python, which checks its SHA-256 before using it.
async function loadTokenizer(name) {
  const url = new URL(`./tokenizers/${name}.tiktoken`, import.meta.url).href;
  let response;
  try {
    response = await fetch(url);
  } catch (error) {  // no answer at all: the network, not the server's files (it is tried again next time)
    throw new Error(`cannot load the ${name} tokenizer (${error.message}): is the page offline? Check again once it is back`);
  }
  if (!response.ok) {  // the server answered without the file
    throw new Error(`cannot load the ${name} tokenizer (HTTP ${response.status} for ${url}); the server needs node_modules/gpt-tokenizer (npm ci)`);
  }
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

// One download per rank file, however many requests name it at once (a page test sends every
// fixture together); a failed download is forgotten so that the next request tries again.
const tokenizerLoads = new Map();
function tokenizerLoaded(name) {
  if (!tokenizerLoads.has(name)) {
    const loading = loadTokenizer(name);
    tokenizerLoads.set(name, loading);
    loading.catch(() => tokenizerLoads.delete(name));
  }
  return tokenizerLoads.get(name);
}

async function ensureTokenizers(text) {
  const needed = tokenizers.tokenizers_needed(text);
  const names = needed.toJs();
  needed.destroy();
  await Promise.all(names.map(tokenizerLoaded));
}

onmessage = async (event) => {
  const { type, id, text, key } = event.data;
  if (type === "keep-snapshot") {  // asked for: made now, on its own thread
    const job = keeping.offer;
    keeping.offer = null;
    if (job && !keeping.maker) {
      keeping.cancelled = false;
      keepSnapshotLater(job);
      keeping.start();
    }
    return;
  }
  if (type === "forget-snapshot") {
    keeping.offer = null;
    const stopped = stopKeeping();
    const removed = typeof caches !== "undefined" && await caches.delete(SNAPSHOT_CACHE).catch(() => false);
    postMessage({ type: "snapshot", state: removed || stopped ? "cleared" : "none" });
    return;
  }
  try {
    await booting;
    // "tokens" and "count" name the tokenizer in `key`; a check names it in the input.
    if (type === "check") await ensureTokenizers(text);
    else if (type === "tokens" || type === "count") await ensureTokenizers(JSON.stringify({ tokenizer: key }));
    const started = performance.now();
    let envelope;
    if (type === "tokens") envelope = tokenizers.token_view(text, key);
    else if (type === "count") envelope = tokenizers.count_texts(text, key);
    // No key: call with one argument. Pyodide 314 turns a JavaScript null into `jsnull`,
    // not None, and format_json would look for a key by that name.
    else if (type === "format") envelope = key == null ? formatJson(text) : formatJson(text, key);
    else envelope = checkText(text);
    postMessage({ type: "result", id, envelope, ms: performance.now() - started });
  } catch (error) {
    postMessage({ type: "result", id, failure: String(error && error.message ? error.message : error) });
  }
  if (keeping.start) keeping.start();  // the first answer after a normal boot: now make the snapshot
};
