// A copy of the runtime's largest files in Cache Storage: Pyodide's .wasm, standard library
// and lock file (and the site's prebuilt snapshot, when this start used it), kept only when
// the user asks ("Keep a copy", with the snapshot: see snapshot.js). A private window's HTTP
// cache lives in memory and drops large files, so without this copy every reload there
// downloads the runtime again. Files of another Pyodide or another snapshot are removed once
// Python is ready. Without Cache Storage (disabled, or an old browser) nothing is kept and the
// page works the same from the network.

export const RUNTIME_CACHE = "fitproof-runtime";

const storage = typeof caches !== "undefined";

// The kept copy, looked up once (without creating it): null when the user never asked.
const kept = storage
  ? caches.has(RUNTIME_CACHE).then((has) => (has ? caches.open(RUNTIME_CACHE) : null)).catch(() => null)
  : Promise.resolve(null);

// The kept response for `url`, or undefined.
export async function keptResponse(url) {
  const cache = await kept;
  if (!cache) return undefined;
  try {
    return await cache.match(url);
  } catch (error) {
    return undefined;
  }
}

export async function runtimeKept() {
  return (await kept) !== null;
}

// Makes the kept copy hold `urls` and nothing else: missing files fetched (from the HTTP
// cache the start filled, mostly), others removed. `fetchOne(url)` -> Response.
export async function keepRuntime(urls, fetchOne) {
  if (!storage) return false;
  const cache = await caches.open(RUNTIME_CACHE);
  for (const url of urls) {
    if (await cache.match(url)) continue;
    const response = await fetchOne(url);
    if (!response.ok) throw new Error(`cannot keep ${url} (HTTP ${response.status})`);
    await cache.put(url, response);
  }
  const wanted = new Set(urls);
  for (const request of await cache.keys()) {
    if (!wanted.has(request.url)) await cache.delete(request);  // stale: another Pyodide or snapshot
  }
  return true;
}

export function forgetRuntime() {
  return storage ? caches.delete(RUNTIME_CACHE).catch(() => false) : Promise.resolve(false);
}
