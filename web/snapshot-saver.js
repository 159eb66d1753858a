// Gzips a memory snapshot and stores it in Cache Storage, on its own thread: the Python
// worker hands the bytes over (transferred, not copied) and goes on answering the page.
// {cacheName, key, bytes} -> {ok: true} | {ok: false, message}
onmessage = async (event) => {
  const { cacheName, key, bytes } = event.data;
  try {
    const gzipped = await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).blob();
    const cache = await caches.open(cacheName);
    await cache.put(key, new Response(gzipped, {
      headers: { "Content-Type": "application/gzip" },
    }));
    for (const request of await cache.keys()) {
      if (request.url !== key) await cache.delete(request);  // stale: another Pyodide or other sources
    }
    postMessage({ ok: true });
  } catch (error) {
    postMessage({ ok: false, message: String(error && error.message ? error.message : error) });
  }
};
