// Makes the snapshot kept for the next visit, on its own thread and after the page is
// ready, so that a first visit never waits for it: a second Pyodide (its files come from the
// HTTP cache the first boot filled) boots with `_makeSnapshot`, imports the package exactly
// as worker/boot.js does, and its memory image is gzipped into Cache Storage. Until the
// `put` completes nothing is stored (Cache Storage writes an entry whole or not at all), so a
// page closed or reloaded meanwhile leaves no entry; worker/snapshot.js still checks every kept copy.
// {indexURL, stdLibURL, bundle, sourcesSha256, cacheName, key} -> {ok: true} | {ok: false, message}
import { importPackage, installBytecode, installPackage } from "./python-package.js";

onmessage = async (event) => {
  const { indexURL, stdLibURL, bundle, sourcesSha256, cacheName, key } = event.data;
  try {
    const { loadPyodide } = await import(indexURL + "pyodide.mjs");
    const pyodide = await loadPyodide({ indexURL, stdLibURL, stdout: () => {}, stderr: () => {}, _makeSnapshot: true });
    installPackage(pyodide, bundle);
    if (stdLibURL && !stdLibURL.endsWith("/python_stdlib.zip")) installBytecode(pyodide);
    importPackage(pyodide, sourcesSha256);
    // No input is ever checked here: the image is exactly "Pyodide + fitproof imported".
    const bytes = pyodide.makeMemorySnapshot();
    // Stored gzipped: a sixth of the size, and gunzip checks a CRC-32 and the length of the
    // whole snapshot, so a damaged copy is refused before Pyodide sees a byte of it.
    const gzipped = await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).blob();
    const cache = await caches.open(cacheName);
    try {
      await cache.put(key, new Response(gzipped, { headers: { "Content-Type": "application/gzip" } }));
    } catch (error) {
      // Over the quota, say. An empty cache left behind would read as "the user asked to keep
      // a copy" on every later visit (worker/snapshot.js keeps one unasked then): remove it.
      if ((await cache.keys()).length === 0) await caches.delete(cacheName);
      throw error;
    }
    for (const request of await cache.keys()) {
      if (request.url !== key) await cache.delete(request);  // stale: another Pyodide or other sources
    }
    postMessage({ ok: true });
  } catch (error) {
    postMessage({ ok: false, message: String(error && error.message ? error.message : error) });
  }
};
