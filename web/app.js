// The page: moves JSON between the editor and the Python worker and renders the
// report. Every decision (selection, checks, errors) is made in Python.

const $ = (id) => document.getElementById(id);
const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
};

const LOAD_TIMEOUT_MS = 30000;  // the worker fails fast on a missing runtime; this catches a silent hang
const DEBOUNCE_MS = 300;

// ---------------------------------------------------------------- worker
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const pending = new Map();
let nextId = 1;
let ready = false;
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
  setStatus("error", `The Python runtime could not load: ${message}. Reload the page to try again; the page needs its local Pyodide copy (scripts/serve installs it).`);
  setSummary("idle", "", "No result: the checker is not running.");
  readyReject(new Error(message));
  for (const { reject } of pending.values()) reject(new Error(message));
  pending.clear();
}

const loadTimer = setTimeout(() => fail(`no answer within ${LOAD_TIMEOUT_MS / 1000} s`), LOAD_TIMEOUT_MS);

worker.onmessage = (event) => {
  const message = event.data;
  if (message.type === "status") {
    setStatus("loading", `Loading (${message.step} of ${message.steps}): ${message.message}…`);
  } else if (message.type === "ready") {
    clearTimeout(loadTimer);
    ready = true;
    setStatus("ready", `Ready: context_budget ${message.version}, loaded in ${(message.ms / 1000).toFixed(1)} s.`);
    readyResolve();
  } else if (message.type === "error") {
    clearTimeout(loadTimer);
    fail(message.message);
  } else if (message.type === "tokenizer") {  // a rank file on its way: the token view shows it too
    window.dispatchEvent(new CustomEvent("tokenizer-progress", { detail: message }));
    if (message.loaded < message.total) setStatus("loading", `Loading the ${message.name} tokenizer: ${(message.loaded / 1e6).toFixed(1)} of ${(message.total / 1e6).toFixed(1)} MB…`);
    else setStatus("ready", `Ready: the ${message.name} tokenizer is loaded.`);
  } else if (message.type === "result") {
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    if (message.failure) request.reject(new Error(message.failure));
    else request.resolve({ envelope: message.envelope, ms: message.ms });
  }
};
worker.onerror = (event) => {
  event.preventDefault();
  clearTimeout(loadTimer);
  fail(event.message || "the worker script failed to start");
};

function callPython(type, text, key) {
  return readyPromise.then(() => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ type, id, text, key });
  }));
}

const checkText = (text) => callPython("check", text);

// JSON re-indented by Python, which keeps every number as written (JSON.parse would not).
async function formatted(text, key) {
  const answer = JSON.parse((await callPython("format", text, key)).envelope);
  if (!answer.ok) throw new Error(answer.error);
  return answer.text;
}

// A small, stable API for tests and the benchmark: the envelope as JSON text.
window.contextBudget = {
  checkText: (text) => checkText(text).then((answer) => answer.envelope),
  timedCheck: (text) => checkText(text),
  ask: (type, text, key) => callPython(type, text, key),  // {envelope, ms}: used by tokens.js
};

// ---------------------------------------------------------------- rendering
let lastReport = null;
let lastEnvelopeText = null;
let latestRun = 0;

function setSummary(state, pass, text) {
  const summary = $("summary");
  summary.dataset.state = state;
  summary.dataset.pass = pass;
  summary.textContent = text;
}

function clearResult() {
  for (const id of ["checks", "errors"]) $(id).replaceChildren();
  for (const id of ["errors-block", "budget-block", "optimal-block", "table-block", "prompt-block"]) $(id).hidden = true;
  $("syntax-error").hidden = true;
  $("items").tHead.replaceChildren();
  $("items").tBodies[0].replaceChildren();
  $("copy-report").disabled = $("download-report").disabled = true;
  lastReport = null;
  lastEnvelopeText = null;
}

function render(envelope, ms) {
  clearResult();
  const report = envelope.result;
  if (!report) {
    // JSON that could not be parsed: say where.
    const where = envelope.line ? `Line ${envelope.line}, column ${envelope.column}: ` : "";
    $("syntax-error").textContent = `${where}${envelope.error}`;
    $("syntax-error").hidden = false;
    setSummary("done", "false", `The input is not acceptable JSON: ${envelope.error}`);
    $("announce").textContent = `Not acceptable JSON. ${envelope.error}`;
    return;
  }
  lastReport = report;
  $("copy-report").disabled = $("download-report").disabled = false;
  setSummary("done", String(report.pass), report.summary);
  const failedChecks = report.checks.filter((check) => !check.pass).length;
  $("announce").textContent = `${report.pass ? "Pass" : "Fail"}. ${report.summary} ${report.checks.length - failedChecks} of ${report.checks.length} checks pass.`;
  $("summary").title = ms === undefined ? "" : `evaluated in ${ms.toFixed(1)} ms`;
  renderChecks(report.checks);
  renderErrors(report.errors || []);
  renderBudget(report);
  renderOptimal(report.optimal, report.sensitivity);
  renderTrace(report);
  if (typeof report.prompt === "string") {
    $("prompt").textContent = report.prompt;
    $("prompt-block").hidden = false;
  }
}

function renderChecks(checks) {
  for (const check of checks) {
    const item = el("li", undefined, check.pass ? "check pass" : "check fail");
    item.dataset.testid = "check";
    item.dataset.pass = String(check.pass);
    item.append(el("span", check.pass ? "✓" : "✗", "mark"), el("span", check.pass ? " passed: " : " failed: ", "visually-hidden"), el("strong", check.name));
    if (check.detail) item.append(el("span", ` — ${check.detail}`, "detail"));
    $("checks").append(item);
  }
}

function renderErrors(errors) {
  if (!errors.length) return;
  for (const error of errors) {
    const item = el("li");
    item.dataset.testid = "error";
    item.append(el("code", error.path), el("span", ` ${error.message}`));
    $("errors").append(item);
  }
  $("errors-block").hidden = false;
}

function renderBudget(report) {
  const total = report.budget ?? report.available ?? report.limit;
  const used = report.used ?? report.units;
  if (typeof total !== "number" || typeof used !== "number") return;
  const overflow = report.shortfall || 0;
  const remaining = Math.max(0, total - used);
  const scale = Math.max(total, used + overflow, 1);
  const bar = $("budget-bar");
  bar.replaceChildren();
  // When the required items overflow, nothing is used: show what they would need instead.
  const parts = overflow ? [["needed", total], ["overflow", overflow]] : [["used", used], ["remaining", remaining]];
  for (const [name, amount] of parts) {
    if (!amount) continue;
    const segment = el("span", "", `segment ${name}`);
    segment.style.width = `${(100 * amount) / scale}%`;
    segment.title = `${name}: ${amount}`;
    bar.append(segment);
  }
  let legend = overflow
    ? `The required items need ${total + overflow} tokens: ${overflow} more than the budget of ${total}. Nothing is selected.`
    : `Used ${used} of ${total} tokens; ${remaining} remaining.`;
  if (report.rendered_overhead !== undefined) legend += ` Rendered prompt overhead: ${report.rendered_overhead} tokens.`;
  bar.setAttribute("aria-label", legend);
  $("budget-legend").textContent = legend;
  $("budget-block").hidden = false;
}

function renderOptimal(optimal, sensitivity) {
  const parts = [];
  if (optimal) {
    if (optimal.exact) {
      const best = optimal.selected.join(", ") || "nothing";
      parts.push(optimal.value > optimal.greedy_value
        ? `Greedy scores ${optimal.greedy_value}; ${best} would score ${optimal.value} within the same budget (highlighted below).`
        : `Greedy scores ${optimal.greedy_value}, the best any combination reaches within the budget.`);
    } else if (optimal.upper_bound !== null) {
      parts.push(`Greedy scores ${optimal.greedy_value}; no combination can score more than ${optimal.upper_bound} (an upper bound: the exact search was too large).`);
    } else {
      parts.push(optimal.note || "No best combination could be computed.");
    }
  }
  if (sensitivity) {
    const pct = Math.round(sensitivity.margin * 100);
    parts.push(sensitivity.flips.length
      ? `If the estimated counts are off by ${pct}%, these would flip (marked ⇄): ${sensitivity.flips.join(", ")}.`
      : `An error of ${pct}% in the estimated counts would change nothing.`);
  }
  if (!parts.length) return;
  $("optimal-text").textContent = parts.join(" ");
  $("optimal-block").hidden = false;
}

const REASONS = {
  fits_remaining_budget: (row, cost) => `fits: ${cost} ≤ ${row.remaining_before} remaining`,
  exceeds_remaining_budget: (row, cost) => `left out: needs ${cost}, only ${row.remaining_before} remain`,
  required: () => "required",
  required_items_exceed_budget: () => "required, but the required items together exceed the budget",
  not_considered_required_overflow: () => "not considered: the required items overflow the budget",
  required_block_too_large_for_budget: (row, cost) => `required block too large: needs ${cost}, only ${row.remaining_before} remain`,
};

const HEADINGS = { position: "#", remaining_before: "remaining before", kept: "decision" };
const COST_KEYS = ["tokens", "cost", "units"];

function renderTrace(report) {
  const rows = report.trace;
  if (!Array.isArray(rows) || !rows.length) return;
  // Highlight the better combination only when it is better than what greedy chose.
  const optimal = report.optimal;
  const better = optimal && optimal.exact && optimal.value > optimal.greedy_value;
  const best = new Set(better ? optimal.selected : []);
  const flips = new Set(report.sensitivity ? report.sensitivity.flips || [] : []);
  const columns = Object.keys(rows[0]).filter((key) => key !== "reason");
  const head = el("tr");
  for (const key of [...columns, "reason"]) head.append(el("th", HEADINGS[key] || key.replaceAll("_", " ")));
  $("items").tHead.append(head);
  const body = $("items").tBodies[0];
  for (const row of rows) {
    const line = el("tr", undefined, row.kept ? "kept" : "left-out");
    if (best.has(row.id)) line.classList.add("in-best");
    if (flips.has(row.id)) line.classList.add("flips");
    for (const key of columns) {
      let value = row[key];
      if (key === "kept") value = value ? "kept" : "left out";
      else if (typeof value === "boolean") value = value ? "yes" : "no";
      line.append(el("td", value));
    }
    const costKey = COST_KEYS.find((key) => key in row);
    const reason = REASONS[row.reason];
    line.append(el("td", reason ? reason(row, row[costKey]) : row.reason));
    body.append(line);
  }
  $("table-block").hidden = false;
}

// ---------------------------------------------------------------- running
async function runCheck() {
  const runId = ++latestRun;
  const text = $("input").value;
  setSummary("running", "", ready ? "Checking…" : "Waiting for the runtime…");
  try {
    const answer = await checkText(text);
    if (runId !== latestRun) return;  // a newer edit has been sent; show only its result
    render(JSON.parse(answer.envelope), answer.ms);
    if (lastReport) lastEnvelopeText = answer.envelope;
  } catch (error) {
    if (runId !== latestRun) return;
    setSummary("done", "false", `No result: ${error.message}`);
  }
}

let debounceTimer = null;
$("input").addEventListener("input", () => {
  clearTimeout(debounceTimer);
  debounceTimer = setTimeout(runCheck, DEBOUNCE_MS);
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
  try {
    $("input").value = await formatted($("input").value);
  } catch (error) {
    // Not acceptable JSON: the check below says what is wrong, with line and column.
  }
  runCheck();
});

// ---------------------------------------------------------------- examples
let examples = [];

async function loadExamples() {
  const response = await fetch("examples.json");
  examples = await response.json();
  const menu = $("example");
  menu.append(new Option("Choose an example…", ""));
  examples.forEach((example, index) => menu.append(new Option(example.label, String(index))));
}

async function showExample(index) {
  const example = examples[index];
  const response = await fetch(`fixtures/${example.fixture}`);
  const text = await response.text();
  $("example-description").textContent = JSON.parse(text).description;
  $("input").value = await formatted(text, "input");
  runCheck();
}

$("example").addEventListener("change", (event) => {
  if (event.target.value !== "") showExample(Number(event.target.value));
});

// ---------------------------------------------------------------- sharing and saving
function shareLink() {
  const url = new URL(window.location.href);
  url.hash = `input=${encodeURIComponent($("input").value)}`;
  return url.href;
}

$("share").addEventListener("click", async () => {
  let link;
  try {
    link = shareLink();
  } catch (error) {
    $("share-note").textContent = `This input cannot be put in a link: ${error.message}`;
    return;
  }
  history.replaceState(null, "", link);
  try {
    await navigator.clipboard.writeText(link);
    $("share-note").textContent = "Share link copied; the input travels in the link itself and is not sent anywhere.";
  } catch (error) {
    $("share-note").textContent = "The address bar now holds the share link (copying to the clipboard was not allowed).";
  }
});

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

$("download-report").addEventListener("click", async () => {
  const link = el("a");
  link.href = URL.createObjectURL(new Blob([await reportText()], { type: "application/json" }));
  link.download = "context-budget-report.json";
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
});

function inputFromLink() {
  const match = /^#input=(.*)$/s.exec(window.location.hash);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch (error) {
    $("share-note").textContent = "The link's input could not be decoded; showing an example instead.";
    return null;
  }
}

// ---------------------------------------------------------------- start
await loadExamples();
const shared = inputFromLink();
if (shared !== null) {
  $("input").value = shared;
  runCheck();
} else {
  $("example").value = "0";
  await showExample(0);
}
