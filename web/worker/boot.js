// Starting Python: the local Pyodide copy and the context_budget package from its one-file
// bundle, as boot.json names them. In order of preference:
// 1. a snapshot made on an earlier visit, kept in the browser's Cache Storage (made only when
//    the user asks, and when 2 is missing or bad);
// 2. the site's prebuilt snapshot (boot.json names it when the server had Node to make it);
// 3. a normal boot, with the package bundle fetched while Pyodide starts. Any problem with a
//    snapshot falls back to 3, quietly. After a normal boot the page is ready at once; the
//    snapshot for the next visit is made afterwards, on another thread.
// The prebuilt snapshot is used only when it arrives quickly (see arrivesQuickly).

import { BOOT_URL, SITE } from "./site.js";
import { mark, markDownloads, status, steps } from "./messages.js";
import { arrivedOf, arrivedTotal, expect, fetchOk, reportProgress, requestEarly, unexpect, withStallCheck } from "./downloads.js";
import { bindPackage } from "./package.js";
import { knowSizes } from "./tokenizers.js";
import { afterSnapshotStart, bootFromSnapshot, dropKept, keptSnapshot, offerToKeep } from "./snapshot.js";

// The prebuilt snapshot spares a normal start's work (2 s of one core on a quiet desktop, far
// more on a phone or a busy machine) for its download (about 6 MB, already gzipped): worth it
// unless the link is slow. DECIDE_MS after its first bytes, the rest of it is projected at the
// pace all the runtime's files have been arriving since; if that is over SAVES_MS while
// Pyodide's own files are still on their way too, it is dropped and Python starts normally (on
// this machine: below about 12 Mbit/s, where a first visit then downloads half the bytes and is
// live sooner). Once Pyodide's files are in (a reload: from the HTTP cache) it is kept, to be
// cached for the visits after. One that sends nothing for NO_ANSWER_MS is dropped; a download
// that ended (whole or not) is tried: its checks decide.
const SNAPSHOT_DECIDE_MS = 400;
const SNAPSHOT_SAVES_MS = 2000;
const SNAPSHOT_NO_ANSWER_MS = 3000;

async function arrivesQuickly(url, bytes, response, askedAt, runtimeURLs) {
  let failed = false;
  let firstByte = null;  // {at, total}: when its first bytes came, and all bytes counted by then
  response.catch(() => { failed = true; });
  for (;;) {
    if (failed) return false;
    const got = arrivedOf(url);
    if (got.done || got.bytes >= bytes) return true;
    const now = performance.now();
    if (got.bytes > 0 && firstByte === null) firstByte = { at: now, total: arrivedTotal() };
    if (firstByte === null) {
      if (now - askedAt >= SNAPSHOT_NO_ANSWER_MS) return false;
    } else if (now - firstByte.at >= SNAPSHOT_DECIDE_MS) {
      if (runtimeURLs.every((runtime) => arrivedOf(runtime).done)) return true;
      const pace = (arrivedTotal() - firstByte.total) / (now - firstByte.at);  // bytes a ms, decoded
      return pace > 0 && (bytes - got.bytes) / pace <= SNAPSHOT_SAVES_MS;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Imported while Pyodide loads: needed only once Pyodide has started.
const pythonPackage = import("./python-package.js");
// Pyodide's loader, under the site's unversioned name, fetched alongside boot.json instead of
// after it; used only if its version is the one boot.json names (else the versioned copy is).
const pyodideLoader = import(new URL("pyodide/pyodide.mjs", SITE).href);
pyodideLoader.then((loader) => requestEarly(new URL(`pyodide/${loader.version}/`, SITE).href, false), () => {});

async function loaderFor(config, indexURL) {
  try {
    const loader = await pyodideLoader;
    if (loader.version === config.pyodide.version) return loader;
  } catch (error) {
    // A site without the unversioned name (or a failed fetch): the versioned copy below.
  }
  return import(indexURL + "pyodide.mjs");
}

// Tells the page "ready" (with how Python started) or throws.
export async function boot() {
  const started = performance.now();
  status("Downloading Python", 1, 3);
  const config = await (await fetchOk(BOOT_URL)).json();
  knowSizes(config.tokenizers);
  const indexURL = new URL(config.pyodide.url, BOOT_URL).href;
  const bundleURL = new URL(config.package.url, BOOT_URL).href;
  for (const [name, bytes] of Object.entries(config.pyodide.bytes)) expect(indexURL + name, bytes, { pyodide: true });
  expect(bundleURL, config.package.bytes);
  requestEarly(indexURL, true);
  const prebuiltURL = config.snapshot ? new URL(config.snapshot.url, BOOT_URL).href : null;
  if (prebuiltURL) expect(prebuiltURL, config.snapshot.bytes);
  reportProgress(true);
  mark("boot.json");

  // The bundle downloads while Pyodide starts; `integrity` makes the browser refuse a copy
  // that does not match boot.json, so the page never runs other sources than it names.
  const bundlePromise = fetchOk(bundleURL, { integrity: config.package.integrity, priority: "low" }).then((response) => response.json());
  bundlePromise.catch(() => {});
  // The prebuilt snapshot starts downloading at once; dropped if a kept one turns up.
  const download = new AbortController();
  let prebuilt = null;
  const askedAt = performance.now();
  if (prebuiltURL) {
    prebuilt = fetchOk(prebuiltURL, { signal: download.signal });
    prebuilt.catch(() => {});
  }
  const [{ loadPyodide }, kept] = await Promise.all([loaderFor(config, indexURL), keptSnapshot(config)]);
  mark("pyodide.mjs");
  if (prebuilt && (kept || !(await arrivesQuickly(prebuiltURL, config.snapshot.bytes, prebuilt, askedAt, Object.keys(config.pyodide.bytes).map((name) => indexURL + name))))) {
    if (!kept) mark("prebuilt dropped");
    download.abort();
    unexpect(prebuiltURL);
    reportProgress(true);
    prebuilt = null;
  }

  for (const [kind, response] of [["used", kept], ["prebuilt", prebuilt]]) {
    if (!response) continue;
    try {
      const version = await withStallCheck(bootFromSnapshot(loadPyodide, indexURL, config, response, bundlePromise, pythonPackage), indexURL);
      mark("ready");
      markDownloads();
      postMessage({ type: "ready", version, ms: performance.now() - started, snapshot: kind, steps });
      afterSnapshotStart(indexURL, config, kind === "prebuilt" ? prebuiltURL : null);
      return;
    } catch (error) {
      // Damaged, stale or refused: boot normally and keep a good one for next time.
      console.info(`context-budget: the ${kind === "used" ? "kept" : "prebuilt"} snapshot was not used (${error.message}); starting normally`);
      if (kind === "used") await dropKept(config);
      unexpect(prebuiltURL);
      break;
    }
  }

  const pyodide = await withStallCheck(loadPyodide({
    indexURL, stdout: () => {}, stderr: (line) => console.warn(line),
  }), indexURL);
  mark("loadPyodide");
  status("Loading the checker", 2, 3);
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
  await offerToKeep(indexURL, bundle, config);
}
