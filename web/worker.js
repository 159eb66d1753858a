// The Python worker: runs the fitproof package off the page's thread, in the local
// Pyodide copy. Its jobs are in worker/; no selection logic here or there.
//
// Requests from the page: {type: "check" | "format" | "tokens" | "count" | "take-away", id, text, key?}
// or {type: "model-tokenizer", id, data (a transferred ArrayBuffer), text (the file name), key (its size)},
// answered by {type: "result", id, envelope, ms} (the envelope as JSON text) or
// {type: "result", id, failure}; {type: "keep-snapshot" | "forget-snapshot"}, not answered.
//
// Messages to the page: {type: "progress", loaded, total} while downloading, then
// {type: "status", message, step, steps}, then {type: "ready", version, ms, snapshot, steps}
// (snapshot, how it started: "used" a kept one, "prebuilt", "normal") or {type: "error",
// message}; {type: "tokenizer", name, loaded, total} while a rank file downloads; and
// {type: "snapshot", state}: "offer" (none kept; one can be), "saving" while a copy is made
// for the next visit, "saved", "none" (no copy kept), "cleared" (removed at the page's request).

import { errorText, mark } from "./worker/messages.js";
import { boot } from "./worker/boot.js";
import { answer } from "./worker/answers.js";
import { answered, forget, keepNow } from "./worker/snapshot.js";

mark("worker.js");  // this script and its modules fetched and running

const booting = boot().catch((error) => {
  postMessage({ type: "error", message: errorText(error) });
  throw error;
});
booting.catch(() => {});

onmessage = async (event) => {
  const request = event.data;
  if (request.type === "keep-snapshot") return keepNow();
  if (request.type === "forget-snapshot") return forget();
  try {
    await booting;
    postMessage({ type: "result", id: request.id, ...await answer(request) });
  } catch (error) {
    postMessage({ type: "result", id: request.id, failure: errorText(error) });
  }
  answered();
};
