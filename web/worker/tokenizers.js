// The exact tokenizers' rank files (1.7 or 3.6 MB each), fetched the first time an input
// names their tokenizer, with progress, and handed to Python, which checks each file's
// SHA-256 before using it.

import { SITE } from "./site.js";
import { python } from "./package.js";

// Each rank file's size, from boot.json (sent gzipped, its Content-Length is the gzip's).
const sizes = {};
export function knowSizes(bytes) {
  Object.assign(sizes, bytes || {});
}

async function loadTokenizer(name) {
  const url = new URL(`tokenizers/${name}.tiktoken`, SITE).href;
  let response;
  try {
    response = await fetch(url);
  } catch (error) {  // no answer at all: the network, not the server's files (it is tried again next time)
    throw new Error(`cannot load the ${name} tokenizer (${error.message}): is the page offline? Check again once it is back`);
  }
  if (!response.ok) {  // the server answered without the file
    throw new Error(`cannot load the ${name} tokenizer (HTTP ${response.status} for ${url}); the server needs node_modules/gpt-tokenizer (npm ci)`);
  }
  const total = sizes[name] || (response.headers.get("content-encoding") ? 0 : Number(response.headers.get("content-length"))) || 0;
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
  const problem = python.page.provide_ranks(name, bytes);
  if (problem) throw new Error(problem);
}

// One download per rank file, however many requests name it at once (a page test sends every
// fixture together); a failed download is forgotten so that the next request tries again.
const tokenizerLoads = new Map();  // name -> Promise
function tokenizerLoaded(name) {
  if (!tokenizerLoads.has(name)) {
    const loading = loadTokenizer(name);
    tokenizerLoads.set(name, loading);
    loading.catch(() => tokenizerLoads.delete(name));
  }
  return tokenizerLoads.get(name);
}

// Every rank file `text` (an input, as JSON) needs, loaded.
export async function ensureTokenizers(text) {
  const needed = python.page.tokenizers_needed(text);
  const names = needed.toJs();
  needed.destroy();
  await Promise.all(names.map(tokenizerLoaded));
}
