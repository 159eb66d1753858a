// The snapshot: a gzipped memory image of "Pyodide + fitproof imported", from which
// Pyodide starts in a fraction of a normal boot's time. Restoring one (kept in this browser's
// Cache Storage, or the site's prebuilt copy), checked before it is trusted; and keeping one
// for the next visit, made on another thread (snapshot-maker.js) only when the user asks.
// "Keep a copy" keeps the runtime's files too (runtime-cache.js), so that a private window's
// reload downloads none of them again; after a start from the site's prebuilt snapshot, only
// those files (that snapshot among them) are kept.

import { BOOT_URL } from "./site.js";
import { mark, status } from "./messages.js";
import { bindPackage, python } from "./package.js";
import { fetchFresh } from "./downloads.js";
import { forgetRuntime, keepRuntime, runtimeKept } from "./runtime-cache.js";

export const SNAPSHOT_CACHE = "fitproof-snapshot";
const IDLE_MS = 1000;  // after a normal boot, the snapshot is made once the first check is answered or after this

// Looked up without opening (which would create an empty cache on every first visit).
export const storage = typeof caches !== "undefined";

// Kept under the Pyodide version, the sources' SHA-256 and the standard library it was made
// with (a compiled one is named by its content): another of any is another key.
function snapshotKey(config) {
  const stdlib = config.pyodide.stdlib && config.pyodide.stdlib !== "python_stdlib.zip" ? `-${config.pyodide.stdlib.replace(/\.zip$/, "")}` : "";
  return new URL(`snapshot/pyodide-${config.pyodide.version}${stdlib}/${config.package.sources_sha256}.bin`, BOOT_URL).href;
}

// ---------------------------------------------------------------- restoring
export async function keptSnapshot(config) {
  try {
    return storage ? await caches.match(snapshotKey(config), { cacheName: SNAPSHOT_CACHE }) : undefined;
  } catch (error) {
    return undefined;  // storage disabled (private mode, policy): just boot normally
  }
}

// A kept copy that could not be used (damaged, stale, for other sources), removed.
export function dropKept(config) {
  return caches.open(SNAPSHOT_CACHE).then((cache) => cache.delete(snapshotKey(config))).catch(() => {});
}

// Gzipped (see snapshot-maker.js): gunzip checks a CRC-32 and the length of the whole
// snapshot, so a damaged copy is refused before Pyodide sees a byte of it.
async function readSnapshot(response) {
  const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Pyodide started from the snapshot `responsePromise` brings, trusted only once Pyodide's
// build, the sources' hash and the report for boot.json's probe input all match: the version line.
// `where`: {indexURL, stdLibURL, wholeStdlibURL}, as worker/boot.js found them in boot.json.
export async function bootFromSnapshot(loadPyodide, where, config, responsePromise, bundlePromise, pythonPackage) {
  // gunzip fails on a damaged copy ("Failed to fetch"); Pyodide may only await the bytes
  // later, so the failure is marked as handled here and surfaces from loadPyodide.
  const bytes = Promise.resolve(responsePromise).then(readSnapshot).then((data) => { mark("snapshot read"); return data; }, (error) => {
    throw new Error(`the snapshot cannot be read (${error.message})`);
  });
  bytes.catch(() => {});
  const pyodide = await loadPyodide({
    indexURL: where.indexURL, stdLibURL: where.stdLibURL, stdout: () => {}, stderr: (line) => console.warn(line), _loadSnapshot: bytes,
  });
  mark("loadPyodide");
  status("Checking the saved copy of Python", 2, 3);
  const { installPackage, wholeStdlibWhenMissing } = await pythonPackage;
  if (where.stdLibURL !== where.wholeStdlibURL) wholeStdlibWhenMissing(pyodide, where.wholeStdlibURL);
  installPackage(pyodide, await bundlePromise);
  const sources = pyodide.runPython("globals().get('_fitproof_sources')");
  if (sources !== config.package.sources_sha256) throw new Error("the snapshot holds other sources");
  const version = bindPackage(pyodide);
  if (python.checkText(config.probe.input) !== config.probe.envelope) throw new Error("the snapshot gives another report for the probe input");
  return version;
}

// ---------------------------------------------------------------- keeping
// The copy for the next visit, made by a second Pyodide in snapshot-maker.js when the user
// asks (or, once asked, to replace a copy that could not be used, when this one is ready and
// idle): the page never waits for it, and can be used while it is made. "Remove it" stops a
// maker at work (nothing is stored) and none starts again on this visit.
const keeping = { maker: null, start: null, cancelled: false, offer: null, runtime: [] };

// The runtime files kept beside the snapshot: boot.json's Pyodide files, and the prebuilt
// snapshot when this start used it.
function runtimeFiles(indexURL, config, prebuiltURL) {
  return [...Object.keys(config.pyodide.bytes).map((name) => indexURL + name), ...(prebuiltURL ? [prebuiltURL] : [])];
}

// The runtime's copy brought in line with this start's files (missing ones added, stale ones
// removed); "saved" (or "none") said after. Failing (over the quota, say) keeps no half copy.
async function keepRuntimeNow(state) {
  try {
    await keepRuntime(keeping.runtime, fetchFresh);
    if (keeping.cancelled) await forgetRuntime();  // "Remove it" came meanwhile
  } catch (error) {
    console.info(`fitproof: no copy of the runtime kept (${error.message})`);
    await forgetRuntime();
    if (state === "saved") state = "none";
  }
  if (!keeping.cancelled) postMessage({ type: "snapshot", state });
}

// A user who asked once (a kept snapshot or runtime) has it kept up to date without asking again.
async function asked() {
  return (await caches.has(SNAPSHOT_CACHE).catch(() => false)) || await runtimeKept();
}

function keepLater(job) {
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
      if (problem) console.info(`fitproof: no copy kept for the next visit (${problem})`);
      if (state === "saved") keepRuntimeNow(state);  // the runtime's files too, once the snapshot is stored
      else postMessage({ type: "snapshot", state });
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

// Resolved by the first answer after Python is ready (the page is live and this worker idle).
const idle = {};
idle.reached = new Promise((resolve) => { idle.resolve = resolve; });

// The prebuilt snapshot this start did without, fetched for the next visit: FOR_LATER_MS
// after the first answer, at low priority, read to its end so that the HTTP cache keeps it
// (the next visit finds it there: worker/boot.js). Never on a connection that asks to save
// data; a failure only means the next visit decides again.
const FOR_LATER_MS = 1000;

function fetchForLater(url) {
  const connection = globalThis.navigator && navigator.connection;
  if (connection && connection.saveData) return;
  idle.reached.then(() => new Promise((resolve) => setTimeout(resolve, FOR_LATER_MS))).then(async () => {
    const response = await fetchFresh(url, { priority: "low" });
    if (!response.ok || !response.body) return;
    const reader = response.body.getReader();
    while (!(await reader.read()).done);
    mark("prebuilt fetched for later");
  }).catch((error) => console.info(`fitproof: the prebuilt snapshot was not fetched for later (${error.message})`));
}

// After a normal boot: nothing is stored unless the user asks ("Keep a copy"). Once asked, the
// cache exists until "Remove it": a copy that could not be used is replaced. Not asked, the
// prebuilt snapshot this start did without (`laterURL`) is fetched for the next visit.
export async function offerToKeep(where, bundle, config, laterURL) {
  const { indexURL, stdLibURL } = where;
  if (!storage) {
    postMessage({ type: "snapshot", state: "none" });
    if (laterURL) fetchForLater(laterURL);
    return;
  }
  keeping.runtime = runtimeFiles(indexURL, config, null);
  const job = { indexURL, stdLibURL, bundle, sourcesSha256: config.package.sources_sha256, cacheName: SNAPSHOT_CACHE, key: snapshotKey(config) };
  if (await asked()) {
    keepLater(job);
  } else {
    keeping.offer = job;
    postMessage({ type: "snapshot", state: "offer" });
    if (laterURL) fetchForLater(laterURL);
  }
}

// After a start from a snapshot (kept, or the site's prebuilt one when `prebuiltURL`): the
// runtime's copy kept up to date if the user asked before, else (prebuilt) offered.
export async function afterSnapshotStart(indexURL, config, prebuiltURL) {
  if (!storage) return;
  keeping.runtime = runtimeFiles(indexURL, config, prebuiltURL);
  if (prebuiltURL === null || await asked()) {
    setTimeout(() => keepRuntimeNow(prebuiltURL === null ? "used" : "saved"), IDLE_MS);  // once the first check is answered, mostly
  } else {
    keeping.offer = { runtimeOnly: true };
    postMessage({ type: "snapshot", state: "offer-prebuilt" });
  }
}

// "Keep a copy": made now, on its own thread (the runtime's files once it is stored).
export function keepNow() {
  const job = keeping.offer;
  keeping.offer = null;
  if (job && job.runtimeOnly) {
    keeping.cancelled = false;
    postMessage({ type: "snapshot", state: "saving" });
    keepRuntimeNow("saved");
  } else if (job && !keeping.maker) {
    keeping.cancelled = false;
    keepLater(job);
    keeping.start();
  }
}

// "Remove it": a copy being made is stopped, a kept one deleted.
export async function forget() {
  keeping.offer = null;
  keeping.cancelled = true;
  const maker = keeping.maker;
  keeping.maker = null;
  if (maker) maker.terminate();
  const removed = storage && await caches.delete(SNAPSHOT_CACHE).catch(() => false);
  const runtimeRemoved = await forgetRuntime();
  postMessage({ type: "snapshot", state: removed || runtimeRemoved || maker !== null ? "cleared" : "none" });
}

// The first answer after a normal boot: the worker is idle, now make the snapshot if it is due.
export function answered() {
  idle.resolve();
  if (keeping.start) keeping.start();
}
