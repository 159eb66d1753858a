// The status line and the progress bar while Python loads, what the worker says about the
// copy kept for the next visit (and the buttons to keep or remove it), and the page's side of
// a failed start. The line speaks to a learner ("Getting Python ready…: 3.1 of 6.6 MB"); the
// developer's detail (versions, load time) follows it, smaller (#status-detail).

import { $ } from "./dom.js";
import { state } from "./state.js";
import { setSummary } from "./report.js";
import * as python from "./python.js";
import { startStore } from "./store.js";

const LOAD_TIMEOUT_MS = 30000;  // the worker fails fast on a missing runtime; this catches a silent hang

const SNAPSHOT_NOTES = {
  used: "This start used the copy kept from an earlier visit.",
  prebuilt: "This start used the site's prebuilt copy; nothing is kept.",
  saving: "Keeping a copy for the next visit…",
  saved: "A copy is kept for the next visit.",
  cleared: "Removed: nothing is kept; the next visit starts from scratch.",
  none: "No copy is kept.",
  offer: "Nothing is kept. To start faster next time, in a private window too, this browser can keep a copy of Python and of the started checker (about 18 MB; never your input).",
  "offer-prebuilt": "This start used the site's prebuilt copy; nothing is kept. To start faster next time, in a private window too, this browser can keep a copy of Python (about 18 MB; never your input).",
};

const megabytes = (bytes) => (bytes / 1e6).toFixed(1);

// `detail`, shown after the message in smaller type: the versions and the load time, once ready.
export function setStatus(kind, message, detail = "") {
  const status = $("status");
  status.dataset.state = kind;
  status.textContent = message;
  if (detail) {
    const small = document.createElement("span");
    small.id = "status-detail";
    small.dataset.testid = "status-detail";
    small.className = "hint";
    small.textContent = detail;
    status.append(" ", small);
  }
}

// The bar shows bytes downloaded of the total, then the start-up steps.
function setProgress(phase, value, max) {
  const bar = $("progress");
  bar.dataset.phase = phase;
  bar.max = Math.max(max, 1);
  bar.value = Math.min(value, bar.max);
  bar.hidden = phase === "done";
}

function noteSnapshot(kind) {
  $("snapshot-note").dataset.state = kind;
  $("snapshot-note").textContent = SNAPSHOT_NOTES[kind] || "";
  $("forget-snapshot").hidden = !["used", "saving", "saved"].includes(kind);  // only a kept copy can be removed
  $("keep-snapshot").hidden = kind !== "offer" && kind !== "offer-prebuilt";  // stored only when asked
}

function fail(message) {
  if (state.python.ready) return;
  state.python.failed = true;
  setProgress("done", 0, 1);
  setStatus("error", `The Python runtime could not load: ${message}. Reload the page to try again; the page needs its local Pyodide copy (scripts/serve installs it).`);
  setSummary("idle", "", "No result: the checker is not running.");
  python.failed(new Error(message));
  window.dispatchEvent(new CustomEvent("python-failed"));  // page/first-report.js says editing is not live
}

// `onReady` runs once Python is ready, before anything waiting for it.
// What "ready" means on the screen shown: the lesson has no input to edit.
const readyText = () => (state.view === "lesson"
  ? "Ready: each step is checked in your browser, and its result follows what you change."
  : "Ready: edit the input and the result follows as you type.");

// The view changed (lesson.js): the ready line says what this screen can do.
export function sayReady() {
  if (!state.python.ready || !state.python.readyText) return;
  const status = document.getElementById("status");
  if (!status || !status.textContent.startsWith(state.python.readyText)) return;  // another message is up
  state.python.readyText = readyText();
  setStatus("ready", state.python.readyText, state.python.readyDetail);
}

export function watchStartup({ onReady }) {
  const loadTimer = setTimeout(() => fail(`no answer within ${LOAD_TIMEOUT_MS / 1000} s`), LOAD_TIMEOUT_MS);

  $("forget-snapshot").addEventListener("click", () => python.tell({ type: "forget-snapshot" }));
  $("keep-snapshot").addEventListener("click", () => {
    $("keep-snapshot").hidden = true;
    python.tell({ type: "keep-snapshot" });
  });

  function onMessage(message) {
    if (message.type === "progress" || message.type === "status") {
      if (state.python.ready || state.python.failed) return;  // a late progress report must not hide the outcome
    }
    if (message.type === "progress") {
      setProgress("download", message.loaded, message.total);
      if (message.loaded < message.total) setStatus("loading", `Getting Python ready in your browser, for live editing: ${megabytes(message.loaded)} of ${megabytes(message.total)} MB loaded…`);
    } else if (message.type === "status") {
      if (message.step > 1) setProgress("start", message.step - 1, message.steps);  // step 1 is the download
      setStatus("loading", `${message.message} (step ${message.step} of ${message.steps})…`);
    } else if (message.type === "snapshot") {
      noteSnapshot(message.state);
    } else if (message.type === "ready") {
      clearTimeout(loadTimer);
      state.python.ready = true;
      startStore();  // if the page has not yet (app.js): its modules load while Python answers the first check
      onReady();
      setProgress("done", 1, 1);
      if (message.snapshot !== "normal") noteSnapshot(message.snapshot);  // after a normal start, "snapshot" messages say
      state.python.readyText = readyText();
      state.python.readyDetail = `fitproof ${message.version}, loaded in ${(message.ms / 1000).toFixed(1)} s.`;
      setStatus("ready", state.python.readyText, state.python.readyDetail);
      // For bench/page.py: steps, the worker's milestones in ms since it started; created and
      // page, ms since navigation when the worker was created and when the page heard it was ready.
      window.fitproof.startup = {
        ms: message.ms, snapshot: message.snapshot, steps: message.steps, created: python.created, page: Math.round(performance.now()),
      };
      python.markReady();
    } else if (message.type === "error") {
      clearTimeout(loadTimer);
      fail(message.message);
    } else if (message.type === "tokenizer") {  // a rank file on its way: the token view shows it too
      window.dispatchEvent(new CustomEvent("tokenizer-progress", { detail: message }));
      if (message.loaded < message.total) setStatus("loading", `Loading the ${message.name} tokenizer: ${megabytes(message.loaded)} of ${megabytes(message.total)} MB…`);
      else setStatus("ready", `${state.python.readyText} The ${message.name} tokenizer is loaded.`, state.python.readyDetail);  // the version line stays
    }
  }

  function onError(event) {
    clearTimeout(loadTimer);
    fail(event.message || "the worker script failed to start");
  }

  python.listen(onMessage, onError);
}
