// Pyodide's downloads, watched. Pyodide fetches its files itself; wrapping fetch lets the page
// show real bytes, and lets a failed or mistyped .wasm fail at once with its reason (Pyodide
// would wait forever). Pyodide's biggest files are also requested early, as soon as their
// folder is known, and handed to Pyodide when it asks. A file the user kept a copy of
// (runtime-cache.js) comes from that copy instead of the network.

import { keptResponse } from "./runtime-cache.js";

const STALL_MS = 20000;  // no answer from loadPyodide by then: find out why

const expected = new Map();  // absolute URL -> bytes, the files boot.json names
const pyodideFiles = new Set();  // absolute URLs
const arrived = new Map();  // absolute URL -> bytes of it received so far (its latest download)
const finished = new Map();  // absolute URL -> when its latest download's body ended (performance.now())
const progress = { lastReport: 0 };
const wasm = {};
wasm.failed = new Promise((_, reject) => { wasm.problem = reject; });
wasm.failed.catch(() => {});

// A file whose bytes count towards the progress bar (`pyodide`: one of Pyodide's own).
export function expect(url, bytes, { pyodide = false } = {}) {
  expected.set(url, bytes);
  if (pyodide) pyodideFiles.add(url);
}

export function unexpect(url) {
  expected.delete(url);
}

// Bytes of `url` received so far (its body, decoded), and whether its body has ended.
export function arrivedOf(url) {
  return { bytes: arrived.get(url) || 0, done: finished.has(url) };
}

export function reportProgress(force) {
  if (!expected.size) return;  // bytes may arrive before boot.json gives the total: counted, said later
  const now = performance.now();
  if (!force && now - progress.lastReport < 50) return;
  progress.lastReport = now;
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
  finished.delete(url);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrived.set(url, arrived.get(url) + value.byteLength);
      reportProgress(false);
    }
    finished.set(url, performance.now());
  } catch (error) {
    arrived.delete(url);
  }
  reportProgress(true);
}

const originalFetch = globalThis.fetch.bind(globalThis);

// Pyodide's files, requested as soon as their folder is known: from the unversioned loader's
// version, which usually arrives before boot.json, or else from boot.json. loadPyodide, called
// once boot.json is read and the kept snapshot looked up, is handed these responses, so that
// the .wasm's download waits neither for boot.json's round trip nor behind the page's modules.
// Requests for a folder that boot.json does not name are aborted; once boot.json has named the
// folder (`confirmed`), a loader arriving late changes nothing.
const early = { indexURL: null, confirmed: false, requests: new Map(), abort: null, askedAt: 0 };
// The standard library is not among them: boot.json names which one Pyodide loads
// (requestStdlib), the compiled one when the site has it.
const EARLY_FILES = ["pyodide.asm.wasm", "pyodide-lock.json"];

// A request whose body is counted (Pyodide's files and the bundle) when it arrives. A plain
// GET of a file the user kept comes from that copy (a request with `integrity`, the bundle,
// always goes to the server: the browser checks it there).
async function countedFetch(url, resource, options) {
  const plain = !(options && (options.integrity || (options.method && options.method !== "GET")));
  const response = (plain && await keptResponse(url)) || await originalFetch(resource, options);
  if ((expected.has(url) || pyodideFiles.has(url)) && response.ok && response.body) countBody(url, response.clone()).catch(() => {});
  return response;
}

// `url` as the HTTP cache or the network gives it, for keeping a copy.
export function fetchFresh(url, options) {
  return originalFetch(url, options);
}

// `url` from this browser's own copies only (the kept runtime copy, else the HTTP cache),
// never from the network: its response (its body counted like a download's), or null. A cache
// answers at once; no answer within `withinMs` counts as none.
export async function fromCache(url, withinMs) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), withinMs);
  try {
    const response = await countedFetch(url, url, { cache: "only-if-cached", mode: "same-origin", signal: abort.signal });
    return response.ok ? response : null;
  } catch (error) {
    return null;  // not cached: only-if-cached fails rather than ask the server
  } finally {
    clearTimeout(timer);
  }
}

// How Pyodide's .wasm in `indexURL` is arriving: "cached" (the kept copy of runtime-cache.js,
// or the HTTP cache: Resource Timing's transferSize is 0), "fast" (over the network, whole
// within `withinMs` of being asked for), or "slow" (still on its way then, or whole only
// after it: by when its body ended, not by when this is asked, which a busy machine delays).
// Asked of the download already on its way, not by a second request: the HTTP cache would
// answer that one only once the first had ended, and a test's request interception would send
// it to the server.
export async function wasmArrival(indexURL, withinMs) {
  const url = indexURL + "pyodide.asm.wasm";
  if (await keptResponse(url)) return "cached";
  const deadline = (early.indexURL === indexURL ? early.askedAt : performance.now()) + withinMs;
  for (;;) {
    const ended = finished.get(url);
    if (ended !== undefined) {
      const entry = performance.getEntriesByName(url).pop();
      if (entry && entry.transferSize === 0 && entry.decodedBodySize > 0) return "cached";
      return ended <= deadline ? "fast" : "slow";
    }
    if (performance.now() >= deadline) return "slow";
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The .wasm handed to Pyodide, checked: a failed or mistyped one fails the start at once.
async function checkedWasm(url, responsePromise) {
  let response;
  try {
    response = await responsePromise;
  } catch (error) {
    wasm.problem(new Error(`cannot fetch ${url} (${error.message})`));
    throw error;
  }
  const type = (response.headers.get("content-type") || "").split(";")[0].trim();
  if (!response.ok) wasm.problem(new Error(`cannot fetch ${url} (HTTP ${response.status})`));
  else if (type !== "application/wasm") wasm.problem(new Error(`pyodide.asm.wasm is served as "${type}"; it must be served as application/wasm`));
  return response;
}

globalThis.fetch = (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : String(resource), globalThis.location.href).href;
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

export function requestEarly(indexURL, confirmed) {
  if (early.confirmed) return;
  early.confirmed = confirmed;
  if (early.indexURL === indexURL) return;
  if (early.abort) early.abort.abort();
  early.requests.clear();
  early.indexURL = indexURL;
  early.abort = new AbortController();
  early.askedAt = performance.now();
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

// The standard library boot.json names, requested as soon as it is read (loadPyodide asks for
// it a little later, once the kept snapshot is looked up) and handed to Pyodide like the others.
export function requestStdlib(url) {
  if (early.requests.has(url)) return;
  pyodideFiles.add(url);
  const response = countedFetch(url, url, { priority: "high" });
  response.catch(() => {});
  early.requests.set(url, response);
}

// Asked only once loading has stalled: the reason, or null when the .wasm looks right (a slow
// machine; the page's own time limit decides).
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

// `promise` (Pyodide starting), failed early when the .wasm is missing or mistyped.
export function withStallCheck(promise, indexURL) {
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(() => diagnoseStall(indexURL).then((reason) => reason && reject(new Error(reason))), STALL_MS);
  });
  return Promise.race([promise, stalled, wasm.failed]).finally(() => clearTimeout(timer));
}

export async function fetchOk(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`cannot load ${url} (HTTP ${response.status})`);
  return response;
}
