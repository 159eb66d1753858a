// Holds the reports off the main thread. A report of 70,000 items is an 11 MB envelope whose
// parse alone can block the page for hundreds of milliseconds, so it is parsed here; the page
// receives the report with the first page of the trace (and the prompt cut to a readable
// length) and asks for other pages of rows as it needs them. What it hands out is made by
// report-head.js.
//
// Two reports are held, each under the id of the load it came from (a page of rows names it):
// the newest loaded, and the one the page says is on screen ("shown"). They differ whenever a
// load is not drawn: an invalid input, whose report leaves the last valid one on screen
// (dimmed), or a check overtaken by a newer edit. Holding the newest only, the pages and steps
// of the report on screen were refused (a null page) as soon as another load had come.

import { head, marksFor } from "./report-head.js";

const held = new Map();  // load id -> {envelope, marks}
const ids = { newest: null, shown: null };

function keepOnly() {
  for (const id of held.keys()) if (id !== ids.newest && id !== ids.shown) held.delete(id);
}

onmessage = (event) => {
  const { type, id, text, from, to, pageSize, of } = event.data;
  try {
    if (type === "load") {
      const envelope = JSON.parse(text);
      held.set(id, { envelope, marks: envelope.result ? marksFor(envelope.result) : null });
      ids.newest = id;
      keepOnly();
      postMessage({ id, answer: head(envelope, pageSize, held.get(id).marks) });
    } else if (type === "shown") {  // not answered
      ids.shown = of;
      keepOnly();
    } else if (type === "rows") {
      const report = held.get(of);
      const trace = report && report.envelope.result && report.envelope.result.trace;
      postMessage({ id, answer: Array.isArray(trace) ? report.marks(trace.slice(from, to)) : null });
    }
  } catch (error) {
    if (id !== undefined) postMessage({ id, failure: String(error && error.message ? error.message : error) });
  }
};
