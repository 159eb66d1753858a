// The page's handle to the report store (../worker/report-store.js), which parses each
// envelope off the main thread and hands out pages of its trace. Started with the first
// report, not while Python loads: one thread less competing with Pyodide's start.

import { createRpc } from "./rpc.js";

const store = { worker: null };

const rpc = createRpc((message) => {
  if (store.worker === null) {
    store.worker = new Worker(new URL("../worker/report-store.js", import.meta.url), { type: "module" });
    store.worker.onmessage = (event) => rpc.settle(event.data.id, event.data.failure, event.data.answer);
  }
  store.worker.postMessage(message);
});

// The report with its trace's first page, what the page needs to know about the rest
// (`about`), and `rows(from, to)` for other pages of this report (null once another is loaded).
export async function loadReport(text, pageSize) {
  const loading = rpc.call({ type: "load", text, pageSize });
  const { envelope, about } = await loading;
  return { envelope, about, rows: (from, to) => rpc.call({ type: "rows", of: loading.id, from, to }) };
}
