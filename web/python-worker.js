// The Python worker (worker.js), for app.js. index.html's inline script starts it while the
// HTML is parsed, so that Pyodide's downloads and start-up do not wait for the style sheets,
// app.js and the modules it imports; what the worker says before app.js listens is kept
// there (window.pythonWorker.early) and handed over by listen().

const started = window.pythonWorker;
export const worker = started.worker;
export const created = Math.round(started.created);  // ms since navigation, for bench/page.py

// Replayed and switched over in one go: nothing the worker says can slip in between.
export function listen(message, error) {
  worker.onmessage = message;
  worker.onerror = (event) => {
    event.preventDefault();  // app.js says what went wrong, in the page
    error(event);
  };
  for (const [kind, event] of started.early.splice(0)) (kind === "message" ? message : error)(event);
}
