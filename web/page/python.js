// The page's handle to the Python worker (../worker.js). index.html's inline script starts
// the worker while the HTML is parsed, so that Pyodide's downloads and start-up do not wait
// for the style sheets and the page's modules; what the worker says before the page listens
// is kept there (window.pythonWorker.early) and handed over by listen().
//
// Requests: {type: "check" | "format" | "tokens" | "count", id, text, key?}
// (or "model-tokenizer" with `data`, a transferred ArrayBuffer), answered by
// {type: "result", id, envelope, ms} or {type: "result", id, failure}. Sent only once the
// worker has said ready; a request made earlier waits for that.

import { createRpc } from "./rpc.js";

const started = window.pythonWorker;
export const worker = started.worker;
export const created = Math.round(started.created);  // ms since navigation, for bench/page.py

// worker.postMessage is looked up at each call: a test may stand in for it.
const rpc = createRpc((message, transfer) => worker.postMessage(message, transfer || []));

const readiness = {};
readiness.promise = new Promise((resolve, reject) => Object.assign(readiness, { resolve, reject }));
readiness.promise.catch(() => {});

export function markReady() {
  readiness.resolve();
}

// The worker will never answer: every request, waiting or to come, fails with `error`.
export function failed(error) {
  readiness.reject(error);
  rpc.rejectAll(error);
}

// {envelope, ms}: the answer as JSON text, and how long Python took.
export function ask(type, text, key) {
  return readiness.promise.then(() => rpc.call({ type, text, key }));
}

// A chosen tokenizer file's bytes, moved (not copied) to the worker and named there for this
// page session: {envelope} holds {ok, name, kind, sha256} or {ok: false, error}.
export function provideModelTokenizer(buffer, fileName, size) {
  return readiness.promise.then(() => rpc.call({ type: "model-tokenizer", data: buffer, text: fileName, key: size }, [buffer]));
}

// Messages that are not requests (keep or forget the snapshot): sent at once.
export function tell(message) {
  worker.postMessage(message);
}

// JSON re-indented by Python, which keeps every number as written (JSON.parse would not).
export async function formatted(text, key) {
  const answer = JSON.parse((await ask("format", text, key)).envelope);
  if (!answer.ok) throw Object.assign(new Error(answer.error), { notJson: true });
  return answer.text;
}

// Answers go to their requests, everything else to `onMessage`; replayed and switched over in
// one go, so that nothing the worker says can slip in between.
export function listen(onMessage, onError) {
  const message = (event) => {
    const data = event.data;
    if (data.type === "result") rpc.settle(data.id, data.failure, { envelope: data.envelope, ms: data.ms });
    else onMessage(data);
  };
  const error = (event) => {
    event.preventDefault();  // the page says what went wrong, in the status line
    onError(event);
  };
  worker.onmessage = message;
  worker.onerror = error;
  for (const [kind, event] of started.early.splice(0)) (kind === "message" ? message : error)(event);
}
