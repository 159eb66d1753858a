// Starting Python: the local Pyodide copy and the fitproof package from its one-file
// bundle, as boot.json names them. In order of preference:
// 1. a snapshot made on an earlier visit, kept in the browser's Cache Storage (made only when
//    the user asks, and when 2 is missing or bad);
// 2. the site's prebuilt snapshot (boot.json names it when the server had Node to make it),
//    when this browser has it already or, on a first visit, when it arrives quickly (see
//    choosePrebuilt);
// 3. a normal boot, with the package bundle fetched while Pyodide starts. Any problem with a
//    snapshot falls back to 3, quietly. After a normal boot the page is ready at once; what
//    the next visit starts from is fetched or made afterwards, never delaying this one.

import { BOOT_URL, PYODIDE_FOLDER, SITE } from "./site.js";
import { mark, markDownloads, status, steps } from "./messages.js";
import { arrivedOf, expect, fetchOk, fromCache, reportProgress, requestEarly, requestStdlib, unexpect, wasmArrival, withStallCheck } from "./downloads.js";
import { bindPackage } from "./package.js";
import { knowSizes } from "./tokenizers.js";
import { linkTimes } from "./link-times.js";
import { afterSnapshotStart, bootFromSnapshot, dropKept, keptSnapshot, offerToKeep } from "./snapshot.js";

// The prebuilt snapshot spares a normal start's work (2 s of one core on a quiet desktop, far
// more on a phone or a busy machine) for its download (about 6 MB, already gzipped). Which
// start, in order:
// - a snapshot kept in Cache Storage (made when the user asked), when there is one;
// - the prebuilt snapshot, when this browser has it already (its HTTP cache, or the runtime's
//   kept copy): read without asking the network;
// - when Pyodide's own files are cached and the prebuilt snapshot is not (a reload after a
//   visit that did not download it), a normal start at once: it takes about what the
//   snapshot's download alone would, and downloads nothing;
// - on a first visit over a slow link (the .wasm not in within FAST_MS), a normal start: the
//   snapshot is not asked for, the first visit downloads half the bytes and is live sooner;
// - else (a first visit over a fast link) the prebuilt snapshot, if it arrives quickly:
//   DECIDE_MS after its first bytes, the rest of it is projected at the pace it has been
//   arriving since, and over SAVES_MS it is dropped and Python starts normally. One that sends
//   nothing for NO_ANSWER_MS is dropped; a download that ended (whole or not) is tried: its
//   checks decide.
// Dropped over a fast link (it did not arrive quickly), it is fetched in the background once
// live editing is up, for the next visit (fetchForLater in snapshot.js); the learner never waits
// for it. A start that did without it for another reason never fetches it.
// The prebuilt snapshot counts as cached when the HTTP cache gives it within CACHED_MS. A link
// counts as fast when Pyodide's .wasm (3.5 MB gzipped) was whole within FAST_MS of being asked
// for (over about 25 Mbit/s): only then is the snapshot downloaded before Python starts, after
// the .wasm rather than beside it. These times (FAST_MS 1.2 s, CACHED_MS 0.3 s, DECIDE_MS 0.4 s,
// SAVES_MS 2 s, NO_ANSWER_MS 3 s) are link-times.js's defaults; boot.json's `link` may set each.

async function arrivesQuickly(url, bytes, response, askedAt, times) {
  let failed = false;
  let firstByte = null;  // {at, bytes}: when its first bytes came, and how many
  response.catch(() => { failed = true; });
  for (;;) {
    if (failed) return false;
    const got = arrivedOf(url);
    if (got.done || got.bytes >= bytes) return true;
    const now = performance.now();
    if (got.bytes > 0 && firstByte === null) firstByte = { at: now, bytes: got.bytes };
    if (firstByte === null) {
      if (now - askedAt >= times.no_answer_ms) return false;
    } else if (now - firstByte.at >= times.decide_ms) {
      // Its own bytes (served as they are stored: as many as crossed the link), not all the
      // files' decoded bytes: the .wasm arrives gzipped and decodes to 2.7 times as many.
      const pace = (got.bytes - firstByte.bytes) / (now - firstByte.at);  // bytes a ms
      return pace > 0 && (bytes - got.bytes) / pace <= times.saves_ms;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The prebuilt snapshot's response for this start, or null (then `later` is set when it should
// be fetched for the next visit): see the order above.
async function choosePrebuilt(config, indexURL, prebuiltURL, kept, later, times) {
  if (!prebuiltURL || kept) return null;
  const cached = await fromCache(prebuiltURL, times.cached_ms);
  if (cached) {
    mark("prebuilt cached");
    return cached;
  }
  const wasm = await wasmArrival(indexURL, times.fast_ms);
  if (wasm !== "fast") {
    mark(wasm === "cached" ? "prebuilt not cached" : "prebuilt not asked for: a slow link");
    // Not fetched for later either. Over a slow link a first visit then downloads 6.2 MB, not
    // 11.7. On a reload from the cache a normal start is live within about 0.3 s of a start from
    // the snapshot, which is not worth 5.5 MB, and a private window, whose cache drops large
    // files, would download them again on every reload.
    return null;
  }
  const download = new AbortController();
  const askedAt = performance.now();
  const response = fetchOk(prebuiltURL, { signal: download.signal });
  response.catch(() => {});
  if (await arrivesQuickly(prebuiltURL, config.snapshot.bytes, response, askedAt, times)) return response;
  mark("prebuilt dropped");
  later.url = prebuiltURL;  // a fast link: fetched once live, for the next visit
  download.abort();
  return null;
}

// Imported while Pyodide loads: needed only once Pyodide has started.
const pythonPackage = import("./python-package.js");
// Pyodide's loader, under the site's unversioned name, fetched alongside boot.json instead of
// after it; used only if its version is the one boot.json names (else the versioned copy is).
const pyodideLoader = import(new URL("pyodide/pyodide.mjs", SITE).href);
if (PYODIDE_FOLDER) requestEarly(new URL(PYODIDE_FOLDER, SITE).href, true);  // the builder's word is boot.json's
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
  // The compiled standard library when the site has one (boot.json's `stdlib`), else Pyodide's.
  const stdLibURL = indexURL + (config.pyodide.stdlib || "python_stdlib.zip");
  const wholeStdlibURL = indexURL + (config.pyodide.whole_stdlib || "python_stdlib.zip");
  requestStdlib(stdLibURL);
  const where = { indexURL, stdLibURL, wholeStdlibURL };
  const prebuiltURL = config.snapshot ? new URL(config.snapshot.url, BOOT_URL).href : null;
  if (prebuiltURL) expect(prebuiltURL, config.snapshot.bytes);  // taken back if it is not downloaded
  reportProgress(true);
  mark("boot.json");

  // The bundle downloads while Pyodide starts; `integrity` makes the browser refuse a copy
  // that does not match boot.json, so the page never runs other sources than it names.
  const bundlePromise = fetchOk(bundleURL, { integrity: config.package.integrity, priority: "low" }).then((response) => response.json());
  bundlePromise.catch(() => {});
  const [{ loadPyodide }, kept] = await Promise.all([loaderFor(config, indexURL), keptSnapshot(config)]);
  mark("pyodide.mjs");
  const later = { url: null };
  const prebuilt = await choosePrebuilt(config, indexURL, prebuiltURL, kept, later, linkTimes(config.link));
  if (prebuiltURL && !prebuilt) {
    unexpect(prebuiltURL);
    reportProgress(true);
  }

  for (const [kind, response] of [["used", kept], ["prebuilt", prebuilt]]) {
    if (!response) continue;
    try {
      const version = await withStallCheck(bootFromSnapshot(loadPyodide, where, config, response, bundlePromise, pythonPackage), indexURL);
      mark("ready");
      markDownloads();
      postMessage({ type: "ready", version, ms: performance.now() - started, snapshot: kind, steps });
      afterSnapshotStart(indexURL, config, kind === "prebuilt" ? prebuiltURL : null);
      return;
    } catch (error) {
      // Damaged, stale or refused: boot normally and keep a good one for next time.
      console.info(`fitproof: the ${kind === "used" ? "kept" : "prebuilt"} snapshot was not used (${error.message}); starting normally`);
      if (kind === "used") await dropKept(config);
      unexpect(prebuiltURL);
      break;
    }
  }

  const pyodide = await withStallCheck(loadPyodide({
    indexURL, stdLibURL, stdout: () => {}, stderr: (line) => console.warn(line),
  }), indexURL);
  mark("loadPyodide");
  status("Loading the checker", 2, 3);
  const [{ installBytecode, installPackage, importPackage, wholeStdlibWhenMissing }, bundle] = await Promise.all([pythonPackage, bundlePromise]);
  if (stdLibURL !== wholeStdlibURL) wholeStdlibWhenMissing(pyodide, wholeStdlibURL);
  installPackage(pyodide, bundle);
  if (stdLibURL !== wholeStdlibURL) installBytecode(pyodide);
  mark("bundle");
  status("Starting the checker", 3, 3);
  importPackage(pyodide, config.package.sources_sha256);
  mark("import");
  const version = bindPackage(pyodide);
  mark("ready");
  markDownloads();
  postMessage({ type: "ready", version, ms: performance.now() - started, snapshot: "normal", steps });
  await offerToKeep(where, bundle, config, later.url);
}
