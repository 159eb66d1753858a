// The page's handle to the report store (../worker/report-store.js), which parses each
// envelope off the main thread and hands out pages of its trace. Started (startStore) once
// the page has its lesson and examples, well before Python's first report, so that its
// modules (three round trips) are never waited for; it is idle until then.

import { createRpc } from "./rpc.js";

const store = { worker: null };

export function startStore() {
  if (store.worker !== null) return;
  store.worker = new Worker(new URL("../worker/report-store.js", import.meta.url), { type: "module" });
  store.worker.onmessage = (event) => rpc.settle(event.data.id, event.data.failure, event.data.answer);
}

const rpc = createRpc((message) => {
  startStore();
  store.worker.postMessage(message);
});

// The report with its trace's first page, what the page needs to know about the rest
// (`about`), `rows(from, to)` for other pages of this report, and `shown()`, to be called once
// it is drawn: its pages stay at hand until another report is drawn (null after that), however
// many loads come meanwhile.
export async function loadReport(text, pageSize) {
  const loading = rpc.call({ type: "load", text, pageSize });
  const { envelope, about } = await loading;
  return {
    envelope,
    about,
    rows: (from, to) => rpc.call({ type: "rows", of: loading.id, from, to }),
    shown: () => store.worker.postMessage({ type: "shown", of: loading.id }),
  };
}
