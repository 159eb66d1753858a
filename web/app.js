// The page: talks to the Python worker, wires the editor, the examples, the budget
// slider, the step-through and sharing together. Rendering is in report.js (with bar.js
// and modes.js), finding places in the JSON in editor.js. Every decision (selection,
// checks, errors) is made in Python.

import * as editor from "./editor.js";
import { PAGE_SIZE, clearReport, renderReport, setStep, setSummary, shown, stepCount, turnPage } from "./report.js";
import { MODES } from "./modes.js";
import "./chat.js";  // the messages mode's conversation view (it registers itself with report.js)
import { created, listen, worker } from "./python-worker.js";  // started before this module, by index.html

const $ = (id) => document.getElementById(id);

const LOAD_TIMEOUT_MS = 30000;  // the worker fails fast on a missing runtime; this catches a silent hang
const DEBOUNCE_MS = 300;

// ---------------------------------------------------------------- worker
const pending = new Map();
let nextId = 1;
let ready = false;
let readyText = "";  // the status line once Python is ready; a tokenizer's arrival adds to it
let failed = false;
let readyResolve, readyReject;
const readyPromise = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });
readyPromise.catch(() => {});

function setStatus(state, message) {
  const status = $("status");
  status.dataset.state = state;
  status.textContent = message;
}

function fail(message) {
  if (ready) return;
  failed = true;
  setProgress("done", 0, 1);
  setStatus("error", `The Python runtime could not load: ${message}. Reload the page to try again; the page needs its local Pyodide copy (scripts/serve installs it).`);
  setSummary("idle", "", "No result: the checker is not running.");
  readyReject(new Error(message));
  for (const { reject } of pending.values()) reject(new Error(message));
  pending.clear();
}

const loadTimer = setTimeout(() => fail(`no answer within ${LOAD_TIMEOUT_MS / 1000} s`), LOAD_TIMEOUT_MS);

// The bar shows bytes downloaded of the total, then the start-up steps.
function setProgress(phase, value, max) {
  const bar = $("progress");
  bar.dataset.phase = phase;
  bar.max = Math.max(max, 1);
  bar.value = Math.min(value, bar.max);
  bar.hidden = phase === "done";
}

const SNAPSHOT_NOTES = {
  used: "This start used the copy kept from an earlier visit.",
  prebuilt: "This start used the site's prebuilt copy; nothing is kept.",
  saving: "Keeping a copy for the next visit…",
  saved: "A copy is kept for the next visit.",
  cleared: "Removed: nothing is kept; the next visit starts from scratch.",
  none: "No copy is kept.",
  offer: "Nothing is kept. To start faster next time, this browser can keep a copy of the started checker (a few MB; never your input).",
};

function noteSnapshot(state) {
  $("snapshot-note").dataset.state = state;
  $("snapshot-note").textContent = SNAPSHOT_NOTES[state] || "";
  $("forget-snapshot").hidden = !["used", "saving", "saved"].includes(state);  // only a kept copy can be removed
  $("keep-snapshot").hidden = state !== "offer";  // stored only when asked
}

$("forget-snapshot").addEventListener("click", () => worker.postMessage({ type: "forget-snapshot" }));
$("keep-snapshot").addEventListener("click", () => {
  $("keep-snapshot").hidden = true;
  worker.postMessage({ type: "keep-snapshot" });
});

function onWorkerMessage(event) {
  const message = event.data;
  if (message.type === "progress" || message.type === "status") {
    if (ready || failed) return;  // a late progress report must not hide the outcome
  }
  if (message.type === "progress") {
    const megabytes = (bytes) => (bytes / 1e6).toFixed(1);
    setProgress("download", message.loaded, message.total);
    if (message.loaded < message.total) setStatus("loading", `Downloading the Python runtime: ${megabytes(message.loaded)} of ${megabytes(message.total)} MB…`);
  } else if (message.type === "status") {
    if (message.step > 1) setProgress("start", message.step - 1, message.steps);  // step 1 is the download
    setStatus("loading", `Loading (${message.step} of ${message.steps}): ${message.message}…`);
  } else if (message.type === "snapshot") {
    noteSnapshot(message.state);
  } else if (message.type === "ready") {
    clearTimeout(loadTimer);
    ready = true;
    prefetchExamples();
    setProgress("done", 1, 1);
    if (message.snapshot !== "normal") noteSnapshot(message.snapshot);  // after a normal start, "snapshot" messages say
    readyText = `Ready: context_budget ${message.version}, loaded in ${(message.ms / 1000).toFixed(1)} s.`;
    setStatus("ready", readyText);
    // For bench/page.py: steps, the worker's milestones in ms since it started; created and
    // page, ms since navigation when the worker was created and when the page heard it was ready.
    window.contextBudget.startup = {
      ms: message.ms, snapshot: message.snapshot, steps: message.steps, created, page: Math.round(performance.now()),
    };
    readyResolve();
  } else if (message.type === "error") {
    clearTimeout(loadTimer);
    fail(message.message);
  } else if (message.type === "tokenizer") {  // a rank file on its way: the token view shows it too
    window.dispatchEvent(new CustomEvent("tokenizer-progress", { detail: message }));
    if (message.loaded < message.total) setStatus("loading", `Loading the ${message.name} tokenizer: ${(message.loaded / 1e6).toFixed(1)} of ${(message.total / 1e6).toFixed(1)} MB…`);
    else setStatus("ready", `${readyText} The ${message.name} tokenizer is loaded.`);  // the version line stays
  } else if (message.type === "result") {
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    if (message.failure) request.reject(new Error(message.failure));
    else request.resolve({ envelope: message.envelope, ms: message.ms });
  }
}

function onWorkerError(event) {
  clearTimeout(loadTimer);
  fail(event.message || "the worker script failed to start");
}

function callPython(type, text, key) {
  return readyPromise.then(() => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ type, id, text, key });
  }));
}

const checkText = (text) => callPython("check", text);

// The editor's checks: one at a time in Python, and of those asked for meanwhile only the
// newest waits; the others are dropped unrun (ten presses of Check on a 5 MB input took
// 8.7 s, one 1.1 s). Their runCheck is stale anyway and shows nothing.
let checking = false;
let waiting = null;  // {text, resolve, reject}

function editorCheck(text) {
  return new Promise((resolve, reject) => {
    if (waiting) waiting.reject(new Error("superseded by a newer check"));
    waiting = { text, resolve, reject };
    nextCheck();
  });
}

function nextCheck() {
  if (checking || !waiting) return;
  const { text, resolve, reject } = waiting;
  waiting = null;
  checking = true;
  checkText(text).then(resolve, reject).finally(() => {
    checking = false;
    nextCheck();
  });
}

// JSON re-indented by Python, which keeps every number as written (JSON.parse would not).
async function formatted(text, key) {
  const answer = JSON.parse((await callPython("format", text, key)).envelope);
  if (!answer.ok) throw Object.assign(new Error(answer.error), { notJson: true });
  return answer.text;
}

// A small, stable API for tests and the benchmark: the envelope as JSON text.
window.contextBudget = {
  checkText: (text) => checkText(text).then((answer) => answer.envelope),
  timedCheck: (text) => checkText(text),
  ask: (type, text, key) => callPython(type, text, key),  // {envelope, ms}: used by tokens.js
};

// ---------------------------------------------------------------- the report store
// Parses each envelope off the main thread and hands out pages of its trace. Started with
// the first report, not while Python loads: one thread less competing with Pyodide's start.
let store = null;
const storeRequests = new Map();
let storeId = 0;

function askStore(message) {
  if (store === null) {
    store = new Worker(new URL("./report-store.js", import.meta.url), { type: "module" });
    store.onmessage = (event) => {
      const { id, answer, failure } = event.data;
      const request = storeRequests.get(id);
      storeRequests.delete(id);
      if (request) failure ? request.reject(new Error(failure)) : request.resolve(answer);
    };
  }
  return new Promise((resolve, reject) => {
    const id = ++storeId;
    storeRequests.set(id, { resolve, reject });
    store.postMessage({ ...message, id });
  });
}

// ---------------------------------------------------------------- running
let latestRun = 0;
let lastEnvelopeText = null;
let sliderMoving = false;

function setBusy(busy) {
  $("result").setAttribute("aria-busy", String(busy));
  // The report on screen is about to be replaced: copying it now would give the previous input's.
  if (busy) $("copy-report").disabled = $("download-report").disabled = true;
}

// What the blocks bar needs from the input to draw the whole window (Python validated it).
function windowOf(text) {
  const read = (key) => editor.numberAt(text, `$.window.${key}`);
  return { context_tokens: read("context_tokens"), reserved_output_tokens: read("reserved_output_tokens"), fixed_prompt_tokens: read("fixed_prompt_tokens") };
}

async function runCheck() {
  const runId = ++latestRun;
  const text = sliderText ?? $("input").value;
  setSummary("running", "", ready ? "Checking…" : "Waiting for the runtime…");
  setBusy(true);
  stopPlay();
  try {
    const answer = await editorCheck(text);
    if (runId !== latestRun) return;  // a newer edit has been sent; show only its result
    performance.mark("context-budget:answer");  // rendering starts: the tests time what follows
    const loadId = storeId + 1;
    const { envelope, about } = await askStore({ type: "load", text: answer.envelope, pageSize: PAGE_SIZE });
    if (runId !== latestRun) return;
    const report = renderReport(envelope, {
      about,
      fetchRows: (from, to) => askStore({ type: "rows", of: loadId, from, to }),
      window: envelope.result && envelope.result.mode === "blocks" ? windowOf(text) : null,
      onPath: (path) => editor.selectPath(path),
      onLocation: (line, column) => {
        const at = editor.offsetOf($("input").value, line, column);
        editor.select(at, at + 1);
      },
    });
    $("summary").title = `evaluated in ${answer.ms.toFixed(1)} ms`;
    lastEnvelopeText = report ? answer.envelope : null;
    $("copy-report").disabled = $("download-report").disabled = !report;
    showModeHelp(report);
    updateSlider(report, text, about);
    performance.measure("context-budget:render", "context-budget:answer");
  } catch (error) {
    if (runId !== latestRun) return;
    clearReport();
    setSummary("done", "false", `No result: ${error.message}`);
    $("announce").textContent = `No result: ${error.message}`;  // else the last thing said stays an earlier "Pass"
  } finally {
    if (runId === latestRun) setBusy(false);
  }
}

function scheduleCheck(delay = DEBOUNCE_MS) {
  clearTimeout(debounceTimer);
  debounceTimer = setTimeout(runCheck, delay);
}

let debounceTimer = null;
$("input").addEventListener("input", () => {
  replacedOwn = null;  // edited over: "Put it back" would now lose these edits
  typed += 1;
  markEdited();
  inputChanged();
  scheduleCheck();
});
$("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    clearTimeout(debounceTimer);
    runCheck();
  }
});
$("run").addEventListener("click", () => { clearTimeout(debounceTimer); runCheck(); });
$("format").addEventListener("click", async () => {
  const text = $("input").value;
  try {
    const result = await formatted(text);  // pressed while loading: runs once Python is ready
    if ($("input").value === text && result !== text) setInput(result);  // never over newer typing
  } catch (error) {
    // Not acceptable JSON: the check below says what is wrong, with line and column.
    if (error.notJson && $("input").value === text) $("share-note").textContent = "Not formatted: the JSON has an error (shown under the editor); fix it first.";
  }
  runCheck();
});
$("page-prev").addEventListener("click", () => turnPage(-1));
$("page-next").addEventListener("click", () => turnPage(1));

// ---------------------------------------------------------------- how the mode decides
function showModeHelp(report) {
  const mode = report && MODES[report.mode];
  $("mode-help").hidden = !mode;
  if (!mode) return;
  $("mode-help-name").textContent = report.mode;
  $("mode-help-text").replaceChildren(...mode.decides.map((sentence) => {
    const item = document.createElement("li");
    item.textContent = sentence;
    return item;
  }));
}

// ---------------------------------------------------------------- the budget slider
// It edits the number in the JSON text (the JSON stays the source of truth) and re-checks.
function updateSlider(report, text, about = {}) {
  const mode = report && MODES[report.mode];
  const path = mode && mode.slider.path;
  const value = path ? editor.numberAt(text, path) : null;
  $("slider-block").hidden = value === null;
  if (value === null) return;
  const slider = $("budget-slider");
  $("slider-label").textContent = `${mode.slider.label} (${mode.unit(report)}s)`;
  $("slider-value").textContent = String(value);
  if (sliderMoving) return;  // keep the range still under the user's finger
  let low = 0;
  // Every cost (the store's sum: the trace in hand may be its first page only), so that the
  // slider reaches "everything fits".
  let needed = about.needed ?? (report.trace || []).reduce((sum, row) => sum + (row.tokens ?? row.cost ?? 0), 0);
  if (report.mode === "blocks") {
    const window = windowOf(text);
    low = (window.reserved_output_tokens ?? 0) + (window.fixed_prompt_tokens ?? 0);
    needed += low;
  } else if (mode.base && Array.isArray(report.trace)) {
    needed += mode.base(report);
  }
  slider.min = String(low);
  slider.max = String(Math.max(value, Math.ceil(needed * 1.25), low + 10));
  slider.value = String(value);
}

// A large input is not rewritten in the editor at every step of the slider: replacing a
// textarea's text makes the browser lay all of it out again (1.3 s for 1.7 MB), which froze
// the page per step. Its text with the slider's number is checked at once and put in the
// editor when the slider has been still for a moment.
const LARGE_EDIT = 200_000;
let sliderText = null;
let sliderTimer = null;

function settleSlider() {
  if (sliderText !== null) setInput(sliderText);  // which drops sliderText and its timer
}

$("budget-slider").addEventListener("input", () => {
  const report = shown.report;
  const mode = report && MODES[report.mode];
  if (!mode) return;
  const text = editor.withNumber(sliderText ?? $("input").value, mode.slider.path, $("budget-slider").value);
  if (text === null) return;
  sliderMoving = true;
  if (text.length > LARGE_EDIT) {
    sliderText = text;
    clearTimeout(sliderTimer);
    sliderTimer = setTimeout(settleSlider, 800);
  } else {
    setInput(text);
  }
  $("slider-value").textContent = $("budget-slider").value;
  markEdited();
  scheduleCheck(text.length > LARGE_EDIT ? DEBOUNCE_MS : 20);
});
$("budget-slider").addEventListener("change", () => { sliderMoving = false; });
// Anything done elsewhere sees the slider's number in the editor first; "beforeinput" also
// catches what reaches the editor without a key or a click (a drop, dictation, an IME, a menu's paste).
for (const kind of ["pointerdown", "keydown", "focusin", "beforeinput"]) {
  document.addEventListener(kind, (event) => { if (event.target !== $("budget-slider")) settleSlider(); }, true);
}

// ---------------------------------------------------------------- stepping through
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const PLAY_MS = 1400;          // one decision per beat, time to read the sentence
const PLAY_MS_REDUCED = 3000;  // with reduced motion: no animation, a slower pace
let playTimer = null;

function step(delta) {
  const total = stepCount();
  if (!total) return;
  const current = shown.step;
  const next = current === null ? 0 : Math.max(0, Math.min(total - 1, current + delta));
  setStep(next, { smooth: !reducedMotion.matches });
}

function stopPlay() {
  clearInterval(playTimer);
  playTimer = null;
  $("step-play").textContent = "▶ Play";
  $("step-play").setAttribute("aria-pressed", "false");
}

function play() {
  if (playTimer) return stopPlay();
  const total = stepCount();
  if (!total) return;
  if (shown.step === null || shown.step >= total - 1) setStep(0, { smooth: !reducedMotion.matches });
  $("step-play").textContent = "❚❚ Pause";
  $("step-play").setAttribute("aria-pressed", "true");
  playTimer = setInterval(() => {
    if (shown.step === null || shown.step >= stepCount() - 1) return stopPlay();
    step(1);
  }, reducedMotion.matches ? PLAY_MS_REDUCED : PLAY_MS);
}

$("step-prev").addEventListener("click", () => { stopPlay(); step(-1); });
$("step-next").addEventListener("click", () => { stopPlay(); step(1); });
$("step-play").addEventListener("click", play);
$("steps-block").addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "ArrowRight") { stopPlay(); step(1); event.preventDefault(); }
  if (event.key === "ArrowLeft") { stopPlay(); step(-1); event.preventDefault(); }
});

// ---------------------------------------------------------------- examples and templates
let examples = [];
let exampleText = null;  // the example as loaded: its description shows only while unedited
let exampleShown = "";  // the menu's value for what the editor holds ("" for the user's own input)
let replacedOwn = null;  // the user's own text an example replaced, until it is put back or edited over
let typed = 0;  // the user's edits so far (input events): a load that saw one is abandoned
// `typed` when the editor last got an example: the text is the user's own once they type after it
// (the slider's and Format's changes to an example are not). At first the page's own example is shown.
let typedAtExample = 0;

// The editor's text replaced by the page (an example, Format, the slider, a share link): no
// "input" event fires for that, so the token view is told, and an earlier note is dropped.
function setInput(text) {
  sliderText = null;  // the slider's number is in the text now, or moot: the page replaced the input
  clearTimeout(sliderTimer);
  $("input").value = text;
  inputChanged();
}

function inputChanged() {
  $("share-note").textContent = "";  // "Report copied." and the like are about an earlier input
  // A share link in the address bar is about an earlier input: a reload would bring that back.
  // (Not one the page refused to open over the user's edits: it said to reload to open it.)
  if (!addressRefused && /^#(?:length|input)=/.test(window.location.hash) && $("input").value !== asInEditor(addressText)) {
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  if (replacedOwn !== null) offerRestore(replacedOwn);  // but the page's own changes (slider, Format) keep the offer
  window.dispatchEvent(new Event("context-budget:input"));
}

function markEdited() {
  if (exampleText === null || $("input").value === exampleText) return;
  exampleText = null;
  exampleShown = "";
  $("example").value = "";
  $("example-description").textContent = "";
  $("example-description").hidden = true;
}

async function loadExamples() {
  const response = await fetch("examples.json");
  examples = await response.json();
  const menu = $("example");
  menu.append(new Option("Your own input", ""));
  const groups = { fixture: document.createElement("optgroup"), template: document.createElement("optgroup") };
  groups.fixture.label = "Examples";
  groups.template.label = "Start from a template";
  examples.forEach((example, index) => groups[example.template ? "template" : "fixture"].append(new Option(example.label, String(index))));
  menu.append(groups.fixture, groups.template);
}

// Once the page is ready (not while Python's files download) and the menu is filled.
let prefetched = false;
function prefetchExamples() {
  if (prefetched || !ready || !examples.length) return;
  prefetched = true;
  for (const example of examples) fetchExample(example).catch(() => {});
}

let exampleLoads = 0;  // each choice's ticket: the newest one wins (arrow keys choose several at once)

// Each example's text, fetched once. All of them (a few KB each) are fetched once the page is
// ready, so that the menu still works when the connection goes away later ("runs offline").
const exampleTexts = new Map();
function fetchExample(example) {
  const url = example.template || `fixtures/${example.fixture}`;
  if (!exampleTexts.has(url)) {
    const loading = fetch(url).then((response) => {
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      return response.text();
    });
    loading.catch(() => exampleTexts.delete(url));  // a failed fetch is tried again next time
    exampleTexts.set(url, loading);
  }
  return exampleTexts.get(url);
}

async function showExample(index) {
  const example = examples[index];
  const ticket = ++exampleLoads;
  const typedBefore = typed;
  // A load that is no longer wanted: a newer choice, or typing meanwhile (the typing wins);
  // the menu goes back to what the editor holds.
  const abandoned = () => {
    if (ticket !== exampleLoads) return true;
    if (typed === typedBefore) return false;
    $("example").value = exampleShown;
    return true;
  };
  let text;
  try {
    text = await fetchExample(example);
  } catch (error) {  // offline, say: the menu goes back to what the editor holds, which is unchanged
    if (ticket !== exampleLoads) return;
    $("example").value = exampleShown;
    $("share-note").textContent = `The example could not be loaded (${error.message}; is the page offline?). Your input is unchanged.`;
    return;
  }
  if (abandoned()) return;
  const exampleInput = await formatted(text, "input");
  if (abandoned()) return;
  const before = $("input").value;
  if (typed !== typedAtExample && before.trim()) replacedOwn = before;  // the user's own text, not an example
  setInput(exampleInput);
  typedAtExample = typed;
  exampleText = $("input").value;
  exampleShown = String(index);
  $("example-description").textContent = JSON.parse(text).description;
  $("example-description").hidden = false;
  if (replacedOwn !== null) offerRestore(replacedOwn);
  runCheck();
}

// An example replaces the editor's text (arrow keys on the menu do it at once): the user's own
// text can be put back, as the editor's undo cannot (the page set its value). It stays on offer
// while examples follow each other, until the user edits again (replacedOwn, declared above).
function offerRestore(own) {
  const note = $("share-note");
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.testid = "restore-input";
  button.textContent = "Put it back";
  button.addEventListener("click", () => putBack(own));
  note.replaceChildren("The example replaced your input. ", button);
}

function putBack(own) {
  replacedOwn = null;
  setInput(own);
  makeOwn();
  runCheck();
}

// What the editor holds is the user's own from now on: no example's description, the menu says so.
function makeOwn() {
  typedAtExample = -1;
  exampleText = null;
  exampleShown = "";
  $("example").value = "";
  $("example-description").textContent = "";
  $("example-description").hidden = true;
}

$("example").addEventListener("change", (event) => {
  if (event.target.value !== "") showExample(Number(event.target.value));
  else if (replacedOwn !== null) putBack(replacedOwn);  // "Your own input": the text an example replaced
  else makeOwn();  // the example in the editor becomes the user's to edit
});

// ---------------------------------------------------------------- sharing and saving
// Chromium opens URLs up to 2 MB; refuse well before, with the way out.
const SHARE_LIMIT = 1_500_000;

// The input's length goes first, so that a link cut short (a chat or a mail program that
// wraps or truncates long addresses) is told apart from an input that ends early.
function shareLink() {
  const url = new URL(window.location.href);
  const text = $("input").value;
  url.hash = `length=${text.length}&input=${encodeURIComponent(text)}`;
  return url.href;
}

$("share").addEventListener("click", async () => {
  let link;
  try {
    link = shareLink();
  } catch (error) {
    // encodeURIComponent refuses only an unpaired surrogate (half of an emoji, say): say where.
    const text = $("input").value;
    const at = text.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    if (at >= 0) {
      const before = text.slice(0, at);
      const line = before.split("\n").length;
      const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
      $("share-note").textContent = `This input cannot be put in a link: it holds half of a character (an unpaired surrogate) at line ${line}, column ${column}. Remove it, or use “Download input”.`;
    } else {
      $("share-note").textContent = `This input cannot be put in a link: ${error.message}`;
    }
    return;
  }
  if (link.length > SHARE_LIMIT) {
    const megabytes = (link.length / 1e6).toFixed(1);
    $("share-note").textContent = `This input is too large for a share link: the link would be ${megabytes} million characters, and browsers open links only up to about 2 MB. Use “Download input” and send the file instead.`;
    return;
  }
  history.replaceState(null, "", link);
  addressText = $("input").value;
  addressRefused = false;
  try {
    await navigator.clipboard.writeText(link);
    $("share-note").textContent = "Share link copied; the input travels in the link itself and is not sent anywhere.";
  } catch (error) {
    $("share-note").textContent = "The address bar now holds the share link (copying to the clipboard was not allowed).";
  }
});

function download(text, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

function reportText() {
  return formatted(lastEnvelopeText, "result").then((text) => text + "\n");
}

$("copy-report").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(await reportText());
    $("share-note").textContent = "Report copied.";
  } catch (error) {
    $("share-note").textContent = "Copying to the clipboard was not allowed; use Download instead.";
  }
});

$("download-report").addEventListener("click", async () => download(await reportText(), "context-budget-report.json"));
$("download-input").addEventListener("click", () => download($("input").value, "context-budget-input.json"));

// "#length=N&input=…" (or "#input=…", as links were first made). A link cut short inside a
// character cannot be decoded; one cut between characters holds fewer than its N.
function inputFromLink(instead = "showing an example instead") {
  const match = /^#(?:length=(\d+)&)?input=(.*)$/s.exec(window.location.hash);
  if (!match) {
    // A hash that starts like a share link but is not one (edited by hand, mangled in a chat) is said, not ignored.
    if (/^#(?:length|input)=/.test(window.location.hash)) {
      $("share-note").textContent = `The link is not a share link this page can read (it should end in #length=N&input=…); ${instead}.`;
    }
    return null;
  }
  let text;
  try {
    text = decodeURIComponent(match[2]);
  } catch (error) {
    // A link made with its length can fail to decode only when cut: inside an escape, or
    // between the escapes of one character ("%E2%82" of "%E2%82%AC").
    const cut = match[1] !== undefined;
    $("share-note").textContent = cut
      ? `The link was cut short (copied or sent only in part), so its input is incomplete; ${instead}. Ask for the whole link, or for the input as a file.`
      : `The link's input could not be decoded; ${instead}.`;
    return null;
  }
  const length = match[1] === undefined ? text.length : Number(match[1]);
  // Shown as far as it goes (the JSON error under the editor points at where it stops), with
  // this note once the editor holds it.
  linkNote = text.length < length
    ? `The link was cut short (copied or sent only in part): it holds ${text.length.toLocaleString("en")} of its input's ${length.toLocaleString("en")} characters. Ask for the whole link, or for the input as a file.`
    : "";
  return text;
}
let linkNote = "";
let linkedText = null;  // the input a link put in the editor (replaced by another link, unlike the user's edits)
let addressText = null;  // the input the address bar's share link holds
let addressRefused = false;  // the address bar holds a link the page did not open over the user's edits
// A text as the editor holds it: a textarea turns "\r\n" and "\r" into "\n".
const asInEditor = (text) => (text === null ? null : text.replace(/\r\n?/g, "\n"));

// A link's input in the editor, as the user's own (typing is too), with what the link said about it.
function setLinkedInput(text) {
  linkedText = addressText = text;
  addressRefused = false;
  setInput(text);
  typedAtExample = -1;
  $("share-note").textContent = linkNote;
}

// ---------------------------------------------------------------- start
// What the worker said before this module ran (it starts earlier) is handled only now that
// everything above, window.contextBudget included, exists.
listen(onWorkerMessage, onWorkerError);

// index.html already holds the first example, so the editor is filled from the first paint
// and whatever is typed while Python loads is kept: it is what gets checked once ready.
const shared = inputFromLink();
if (shared !== null) {
  setLinkedInput(shared);
  $("example-description").hidden = true;
} else {
  exampleText = $("input").value;
}
runCheck();
// A share link opened in a tab that already shows the page changes only the hash: load it too.
// Never over the user's own edits: only an input the page itself put there (an example, a link) is replaced.
window.addEventListener("hashchange", () => {
  settleSlider();  // the editor as the user left it, the slider's number in it
  const linked = inputFromLink("the editor keeps what it holds");
  if (linked === null || asInEditor(linked) === $("input").value) return;
  const current = $("input").value;
  if (current !== exampleText && current !== asInEditor(linkedText)) {
    $("share-note").textContent = "The link's input was not loaded: it would replace your edits. Reload the page to open it.";
    addressRefused = true;
    return;
  }
  setLinkedInput(linked);
  markEdited();
  runCheck();
});
await loadExamples();
prefetchExamples();
if (exampleText !== null && $("input").value === exampleText) $("example").value = exampleShown = "0";
