// Holds the last report off the main thread. A report of 70,000 items is an 11 MB
// envelope whose parse alone can block the page for hundreds of milliseconds, so it is
// parsed here; the page receives the report with the first page of the trace (and the
// prompt cut to a readable length) and asks for other pages of rows as it needs them.
// What it hands out is made by report-head.js.

import { head, marksFor } from "./report-head.js";

// The report held: its envelope, the id of the load it came from (a page of rows names it),
// and its rows' marks.
const held = { envelope: null, loaded: null, marks: null };

onmessage = (event) => {
  const { type, id, text, from, to, pageSize } = event.data;
  try {
    if (type === "load") {
      const envelope = JSON.parse(text);
      Object.assign(held, { envelope, loaded: id, marks: envelope.result ? marksFor(envelope.result) : null });
      postMessage({ id, answer: head(envelope, pageSize, held.marks) });
    } else if (type === "rows") {
      const trace = held.envelope && held.envelope.result && held.envelope.result.trace;
      const current = event.data.of === held.loaded && Array.isArray(trace);
      postMessage({ id, answer: current ? held.marks(trace.slice(from, to)) : null });
    }
  } catch (error) {
    postMessage({ id, failure: String(error && error.message ? error.message : error) });
  }
};
