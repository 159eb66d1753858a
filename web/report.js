// Renders a report: summary, checks, errors, the budget bar, the items (a table, one card
// per item on narrow screens) with the decision and its reason first, what the greedy
// choice cost, the composed prompt, and any view a mode adds (addView). Reads only.

import { renderBar, showStep } from "./bar.js";
import { HEADINGS, costOf, count, modeOf, reasonText } from "./modes.js";

export const ROW_LIMIT = 200;  // rows drawn at once; "Show all" draws the rest a chunk at a time
const CHUNK = 400;             // rows per task while showing all: each task stays far below 200 ms

const $ = (id) => document.getElementById(id);
const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
};

// ---------------------------------------------------------------- mode-specific views
// A view is {modes: ["name", ...] or null for all, render(report, context) -> Node | null}.
// Its node goes into #mode-views after the items; the rest of the page stays as it is.
const views = [];
export function addView(view) {
  views.push(view);
}

// ---------------------------------------------------------------- state of the shown report
export const shown = {
  report: null,
  context: null,   // {unit, report, mode}
  rendered: 0,     // rows drawn so far
  step: null,      // index of the decision being stepped through, or null for all at once
  drawing: 0,      // generation of the "show all" task, so a new report stops an old one
};

export function setSummary(state, pass, text) {
  const summary = $("summary");
  summary.dataset.state = state;
  summary.dataset.pass = pass;
  summary.textContent = text;
}

export function clearReport() {
  for (const id of ["checks", "errors", "mode-views"]) $(id).replaceChildren();
  for (const id of ["errors-block", "budget-block", "steps-block", "optimal-block", "table-block", "prompt-block"]) $(id).hidden = true;
  $("syntax-error").hidden = true;
  $("syntax-error").replaceChildren();
  $("items").tHead.replaceChildren();
  $("items").tBodies[0].replaceChildren();
  $("show-all").hidden = true;
  shown.report = shown.context = null;
  shown.rendered = 0;
  shown.step = null;
  shown.drawing++;
}

// `input` is {text, onPath(path) -> void, onLocation(line, column) -> void, window}.
export function renderReport(envelope, input) {
  clearReport();
  const report = envelope.result;
  if (!report) {
    renderSyntaxError(envelope, input);
    return null;
  }
  const mode = modeOf(report);
  shown.report = report;
  shown.context = { report, mode, unit: mode ? mode.unit(report) : "token" };
  setSummary("done", String(report.pass), report.summary);
  const failedChecks = report.checks.filter((check) => !check.pass).length;
  $("announce").textContent = `${report.pass ? "Pass" : "Fail"}. ${report.summary} ${report.checks.length - failedChecks} of ${count(report.checks.length, "check")} pass.`;
  renderChecks(report.checks);
  renderErrors(report.errors || [], input.onPath);
  if (mode && Array.isArray(report.trace)) {
    $("budget-block").hidden = !renderBar($("budget-block"), report, mode, { rowLimit: ROW_LIMIT, window: input.window });
  }
  renderOptimal(report.optimal, report.sensitivity);
  renderTrace(report);
  renderPrompt(report);
  for (const view of views) {
    if (view.modes && !view.modes.includes(report.mode)) continue;
    const node = view.render(report, shown.context);
    if (node) $("mode-views").append(node);
  }
  return report;
}

function renderSyntaxError(envelope, input) {
  // The location is said once: as a button that puts the cursor there.
  const message = envelope.error.replace(/ at line \d+ column \d+$/, "");
  const box = $("syntax-error");
  if (envelope.line) {
    const where = el("button", `Line ${envelope.line}, column ${envelope.column}`, "error-path");
    where.type = "button";
    where.dataset.testid = "syntax-location";
    where.title = "Put the cursor there";
    where.addEventListener("click", () => input.onLocation(envelope.line, envelope.column));
    box.append(where, ": ");
  }
  box.append(message);
  box.hidden = false;
  setSummary("done", "false", "The input is not acceptable JSON; nothing was checked.");
  $("announce").textContent = `Not acceptable JSON. ${envelope.error}`;
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

function renderErrors(errors, onPath) {
  if (!errors.length) return;
  for (const error of errors) {
    const item = el("li");
    item.dataset.testid = "error";
    const path = el("button", error.path, "error-path");
    path.type = "button";
    path.dataset.testid = "error-path";
    path.title = "Select this place in the input";
    path.addEventListener("click", () => onPath(error.path));
    item.append(path, el("span", ` ${error.message}`));
    $("errors").append(item);
  }
  $("errors-block").hidden = false;
}

function renderOptimal(optimal, sensitivity) {
  const parts = [];
  if (optimal) {
    if (optimal.exact) {
      const best = optimal.selected.join(", ") || "nothing";
      parts.push(optimal.value > optimal.greedy_value
        ? `Greedy scores ${optimal.greedy_value}; ${best} would score ${optimal.value} within the same budget (marked ★ in the items).`
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

// ---------------------------------------------------------------- the items
const FIRST = ["position", "id"];
const SKIP = new Set([...FIRST, "kept", "reason"]);

function columnsOf(rows) {
  return Object.keys(rows[0]).filter((key) => !SKIP.has(key));
}

function headingOf(key, unit) {
  return (HEADINGS[key] || key.replaceAll("_", " ")).replace("{unit}", unit);
}

function renderTrace(report) {
  const rows = report.trace;
  if (!Array.isArray(rows) || !rows.length) return;
  const { unit } = shown.context;
  const kept = rows.filter((row) => row.kept).length;
  $("items-caption").textContent = `${count(rows.length, "item")} in the order considered: ${kept} kept, ${rows.length - kept} left out.`;
  const head = el("tr");
  const headings = ["#", "id", "decision", "why", ...columnsOf(rows).map((key) => headingOf(key, unit))];
  for (const text of headings) {
    const cell = el("th", text);
    cell.scope = "col";
    head.append(cell);
  }
  $("items").tHead.append(head);
  const optimal = report.optimal;
  // Mark the better combination only when it beats what greedy chose.
  shown.context.best = new Set(optimal && optimal.exact && optimal.value > optimal.greedy_value ? optimal.selected : []);
  shown.context.flips = new Set(report.sensitivity ? report.sensitivity.flips || [] : []);
  shown.context.columns = columnsOf(rows);
  shown.context.headings = headings;
  drawRows(Math.min(rows.length, ROW_LIMIT));
  if (rows.length > ROW_LIMIT) {
    $("show-all").hidden = false;
    $("show-all").textContent = `Show all ${rows.length.toLocaleString("en")} items`;
    $("rows-note").textContent = `Showing the first ${ROW_LIMIT} of ${rows.length.toLocaleString("en")} items.`;
  } else {
    $("rows-note").textContent = "";
  }
  $("table-block").hidden = false;
  $("steps-block").hidden = false;
  stepText(null);
}

function rowNode(row, index) {
  const { best, flips, columns, headings, unit } = shown.context;
  const line = el("tr", undefined, row.kept ? "kept" : "left-out");
  line.dataset.index = String(index);
  const label = row.id ?? `#${row.index} ${row.role}`;  // a chat history's turns have an index, not an id
  line.dataset.id = label;
  const cells = [];
  const position = el("td", row.position ?? index + 1, "position");
  const id = el("th", label, "item-id");
  id.scope = "row";
  id.dataset.position = String(row.position ?? index + 1);
  const decision = el("td", undefined, "decision");
  decision.dataset.testid = "decision";
  decision.append(el("span", row.kept ? "✓ kept" : "✗ left out", "verdict"));
  if (best.has(row.id)) {
    line.classList.add("in-best");
    decision.append(el("span", "★ in the best combination", "badge best"));
  }
  if (flips.has(row.id)) {
    line.classList.add("flips");
    decision.append(el("span", "⇄ would flip", "badge flip"));
  }
  const reason = el("td", reasonText(row, shown.context), "reason");
  reason.dataset.testid = "reason";
  cells.push(position, id, decision, reason);
  for (const key of columns) {
    let value = row[key];
    if (typeof value === "boolean") value = value ? "yes" : "no";
    cells.push(el("td", value));
  }
  cells.forEach((cell, at) => cell.setAttribute("data-label", headings[at]));
  line.append(...cells);
  return line;
}

function drawRows(upTo) {
  const rows = shown.report.trace;
  const body = $("items").tBodies[0];
  const fragment = document.createDocumentFragment();
  for (let index = shown.rendered; index < upTo; index++) fragment.append(rowNode(rows[index], index));
  body.append(fragment);
  shown.rendered = Math.max(shown.rendered, upTo);
}

// Draws every remaining row, CHUNK rows per task, yielding to the browser in between.
export function showAll() {
  const rows = shown.report && shown.report.trace;
  if (!rows) return;
  const generation = shown.drawing;
  const region = $("table-scroll");
  region.setAttribute("aria-busy", "true");
  $("show-all").disabled = true;
  const next = () => {
    if (generation !== shown.drawing) return;
    drawRows(Math.min(rows.length, shown.rendered + CHUNK));
    $("rows-note").textContent = `Showing ${shown.rendered.toLocaleString("en")} of ${rows.length.toLocaleString("en")} items.`;
    if (shown.rendered < rows.length) {
      setTimeout(next, 0);
    } else {
      region.setAttribute("aria-busy", "false");
      $("show-all").hidden = true;
      $("show-all").disabled = false;
    }
  };
  next();
}

function renderPrompt(report) {
  if (typeof report.prompt !== "string") return;
  $("prompt").textContent = report.prompt;
  const warning = $("prompt-warning");
  warning.hidden = report.can_proceed !== false && report.pass;
  warning.textContent = report.can_proceed === false
    ? "✗ Do not send this prompt: a required block is missing, so the run cannot proceed."
    : "✗ This run did not pass: read the failed checks before using this prompt.";
  $("prompt-block").hidden = false;
}

// ---------------------------------------------------------------- stepping through
function stepText(step) {
  const rows = shown.report.trace;
  const text = $("step-text");
  if (step === null) {
    text.textContent = `${count(rows.length, "decision")}. Press Next or Play to go through them one at a time.`;
  } else {
    text.textContent = `Step ${step + 1} of ${rows.length}: ${reasonText(rows[step], shown.context, "sentence")}`;
  }
  $("step-prev").disabled = step === null || step === 0;
  $("step-next").disabled = step !== null && step >= rows.length - 1;
}

export function stepCount() {
  return shown.report && Array.isArray(shown.report.trace) ? shown.report.trace.length : 0;
}

export function setStep(step, { smooth = true } = {}) {
  if (!stepCount()) return;
  const previous = $("items").querySelector("tr[aria-current]");
  if (previous) previous.removeAttribute("aria-current");
  shown.step = step;
  if (step !== null) {
    if (step >= shown.rendered) drawRows(Math.min(stepCount(), step + CHUNK));
    const row = $("items").tBodies[0].rows[step];
    row.setAttribute("aria-current", "step");
    row.scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
  }
  $("items").classList.toggle("stepping", step !== null);
  showStep($("budget-block"), step);
  stepText(step);
}
