// What the worker tells the page while it starts, and the milestones it keeps for
// bench/page.py.

export const steps = {};  // milestone -> ms since the worker started

export const mark = (name) => { steps[name] = Math.round(performance.now()); };

// When each Pyodide file had arrived, beside the milestones (bench/page.py compares them with a bare boot's).
export function markDownloads() {
  for (const entry of performance.getEntriesByType("resource")) {
    const name = entry.name.slice(entry.name.lastIndexOf("/") + 1);
    if (name.startsWith("pyodide.asm.") || name === "python_stdlib.zip") steps[`${name} arrived`] = Math.round(entry.responseEnd);
    else if (/^stdlib-[0-9a-f]+\.zip$/.test(name)) steps["stdlib arrived"] = Math.round(entry.responseEnd);
  }
}

export function status(message, step, total) {
  postMessage({ type: "status", message, step, steps: total });
}

export const errorText = (error) => String(error && error.message ? error.message : error);
