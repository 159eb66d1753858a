// Starts the Python worker (worker.js) as soon as the HTML names this module: index.html
// loads it `async`, so it does not wait for the style sheets, for app.js and the modules
// app.js imports, or for the document to be parsed, and Pyodide's downloads and start-up
// begin that much sooner. app.js imports it too (one module, so one worker) and calls
// listen(); what the worker says before that is kept and handed over then.

export const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });

const early = [];  // [kind, event] before app.js listens
let handlers = null;

worker.onmessage = (event) => (handlers ? handlers.message(event) : early.push(["message", event]));
worker.onerror = (event) => {
  event.preventDefault();  // app.js says what went wrong, in the page
  if (handlers) handlers.error(event);
  else early.push(["error", event]);
};

export function listen(message, error) {
  handlers = { message, error };
  for (const [kind, event] of early.splice(0)) handlers[kind](event);
}
