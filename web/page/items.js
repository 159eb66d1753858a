// The shown report's items: a table (one card per item where it would not fit) with the
// decision and its reason first, drawn a page of rows at a time, and stepping through the
// decisions one at a time. `shown` is the report on screen, which report.js fills. Reads only.

import { $, el } from "./dom.js";
import { showStep } from "./bar.js";
import { HEADINGS, count, reasonText } from "../common/modes.js";

// Rows drawn at once. A longer trace is shown a page at a time (the rest stays in
// report-store.js's worker), so the page never lays out tens of thousands of rows.
export const PAGE_SIZE = 200;

// ---------------------------------------------------------------- state of the shown report
export const shown = {
  report: null,
  context: null,   // {unit, report, mode, ...}
  total: 0,        // rows in the whole trace
  page: 0,         // index of the first row drawn
  rows: [],        // the rows drawn
  fetchRows: null, // (from, to) -> Promise of rows, or of null when a newer report replaced this one
  step: null,      // index of the decision being stepped through, or null for all at once
};

// ---------------------------------------------------------------- the items
const FIRST = ["position", "id"];
const SKIP = new Set([...FIRST, "kept", "reason"]);

function columnsOf(rows) {
  return Object.keys(rows[0]).filter((key) => !SKIP.has(key));
}

function headingOf(key, unit) {
  const own = shown.context.mode && shown.context.mode.headings;
  return ((own && own[key]) || HEADINGS[key] || key.replaceAll("_", " ")).replace("{unit}", unit);
}

export function renderTrace(report, about) {
  const rows = report.trace;
  if (!Array.isArray(rows) || !rows.length) return;
  const { unit } = shown.context;
  shown.total = about.total;
  $("items-caption").textContent = `${count(about.total, "item")} in the order considered: ${about.kept} kept, ${about.total - about.kept} left out.`;
  const head = el("tr");
  const headings = ["#", "id", "decision", "why", ...columnsOf(rows).map((key) => headingOf(key, unit))];
  for (const text of headings) {
    const cell = el("th", "", text);
    cell.scope = "col";
    cell.setAttribute("role", "columnheader");
    head.append(cell);
  }
  $("items").tHead.append(head);
  shown.context.columns = columnsOf(rows);
  shown.context.headings = headings;
  drawPage(0, about.page);
  $("table-block").hidden = false;
  fitTable();
  $("steps-block").hidden = false;
  stepText(null);
}

// `best`: the row is in a combination that scores more than greedy's; `flips`: a counting
// error of the sensitivity margin would change its decision.
function rowNode(row, index, best, flips) {
  const { columns, headings } = shown.context;
  const line = el("tr", row.kept ? "kept" : "left-out");
  line.setAttribute("role", "row");  // explicit roles: the cards (display: block) keep a table's meaning
  line.dataset.index = String(index);
  const label = row.id ?? `#${row.index} ${row.role}`;  // a chat history's turns have an index, not an id
  line.dataset.id = label;
  const cells = [];
  const position = el("td", "position", row.position ?? index + 1);
  const id = el("th", "item-id", label);
  id.scope = "row";
  id.setAttribute("role", "rowheader");
  id.dataset.position = String(row.position ?? index + 1);
  const decision = el("td", "decision");
  decision.dataset.testid = "decision";
  decision.append(el("span", "verdict", row.kept ? "✓ kept" : "✗ left out"));
  if (best) {
    line.classList.add("in-best");
    decision.append(el("span", "badge best", "★ in the best combination"));
  }
  if (flips) {
    line.classList.add("flips");
    decision.append(el("span", "badge flip", "⇄ would flip"));
  }
  const reason = el("td", "reason", reasonText(row, shown.context));
  reason.dataset.testid = "reason";
  cells.push(position, id, decision, reason);
  for (const key of columns) {
    let value = row[key];
    if (typeof value === "boolean") value = value ? "yes" : "no";
    // Numbers, yes/no and single short words (a role) are never broken across lines ("1/0", "assi/stant").
    const whole = typeof value === "number" || (typeof value === "string" && value.length <= 16 && !/\s/.test(value));
    cells.push(el("td", whole ? "value" : undefined, value));
  }
  cells.forEach((cell, at) => {
    cell.setAttribute("data-label", headings[at]);
    if (cell !== id) cell.setAttribute("role", "cell");
  });
  line.append(...cells);
  return line;
}

// `page` is {rows, best, flips} from report-store.js.
function drawPage(start, page) {
  const { rows } = page;
  shown.page = start;
  shown.rows = rows;
  const fragment = document.createDocumentFragment();
  rows.forEach((row, offset) => fragment.append(rowNode(row, start + offset, page.best[offset], page.flips[offset])));
  $("items").tBodies[0].replaceChildren(fragment);
  const paged = shown.total > PAGE_SIZE;
  $("pages").hidden = !paged;
  if (!paged) return;
  const last = start + rows.length;
  $("rows-note").textContent = `Items ${(start + 1).toLocaleString("en")}–${last.toLocaleString("en")} of ${shown.total.toLocaleString("en")}.`;
  setPair($("page-prev"), start === 0, $("page-next"), last >= shown.total);
}

// Previous/Next buttons: a focused one that becomes disabled hands focus to the other, so a
// keyboard user stays in the group (it fell back to the top of the page, and ←/→ stopped).
function setPair(first, firstOff, second, secondOff) {
  const focused = document.activeElement;
  first.disabled = firstOff;
  second.disabled = secondOff;
  if (focused === first && firstOff && !secondOff) second.focus();
  if (focused === second && secondOff && !firstOff) first.focus();
}

// A table where it fits, else one card per item (style.css, #items.cards): on a narrow column
// (below 34rem), and wherever the table is wider than its column (blocks and messages have many
// columns), so that the why and every number are in view without a sideways scroll.
const CARDS_BELOW_REM = 34;
let fittedWidth = -1;

function fitTable() {
  const table = $("items");
  const box = table.parentElement;
  if (box.clientWidth === 0) return;  // not shown yet: renderTrace fits it once it is
  fittedWidth = box.clientWidth;
  table.classList.remove("cards");
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  if (box.clientWidth < CARDS_BELOW_REM * rem || box.scrollWidth > box.clientWidth + 1) table.classList.add("cards");
}

// Decided once per report (renderTrace) and again when the column's width changes, not per page
// of rows: paging or Play must not flip the layout. Only a change of width can change the answer
// (the cards change the height), and the switch waits for the next frame, so that a resize it
// causes is never reported inside this callback ("ResizeObserver loop" errors).
let fitFrame = 0;
new ResizeObserver(() => {
  if ($("items").parentElement.clientWidth === fittedWidth || $("table-block").hidden) return;
  cancelAnimationFrame(fitFrame);
  fitFrame = requestAnimationFrame(fitTable);
}).observe($("table-scroll"));

// Draws the page of rows that holds `index`; false when a newer report came meanwhile.
export async function showPageOf(index) {
  const start = Math.floor(index / PAGE_SIZE) * PAGE_SIZE;
  if (start === shown.page && shown.rows.length) return true;
  const report = shown.report;
  const page = await shown.fetchRows(start, Math.min(shown.total, start + PAGE_SIZE));
  if (!page || report !== shown.report) return false;
  drawPage(start, page);
  return true;
}

export function turnPage(direction) {
  const target = shown.page + direction * PAGE_SIZE;
  if (target < 0 || target >= shown.total) return;
  showPageOf(target);
}

// ---------------------------------------------------------------- stepping through
const ID_IN_STEP = 60;

function stepText(step) {
  const text = $("step-text");
  if (step === null) {
    text.textContent = `${count(shown.total, "decision")}. Press Next or Play to go through them one at a time.`;
  } else {
    const row = shown.rows[step - shown.page];
    // A long id is shortened here (the row below shows it whole), so that the panel stuck
    // above the rows never grows over the decision it explains.
    const said = typeof row.id === "string" && row.id.length > ID_IN_STEP ? { ...row, id: `${row.id.slice(0, ID_IN_STEP - 13)}…${row.id.slice(-12)}` } : row;
    text.textContent = `Step ${step + 1} of ${shown.total}: ${reasonText(said, shown.context, "sentence")}`;
  }
  setPair($("step-prev"), step === null || step === 0, $("step-next"), step !== null && step >= shown.total - 1);
}

export function stepCount() {
  return shown.report ? shown.total : 0;
}

export async function setStep(step, { smooth = true } = {}) {
  if (!stepCount()) return;
  if (step !== null && !(await showPageOf(step))) return;
  const previous = $("items").querySelector("tr[aria-current]");
  if (previous) previous.removeAttribute("aria-current");
  shown.step = step;
  $("items").classList.toggle("stepping", step !== null);
  $("steps-block").classList.toggle("active", step !== null);
  showStep($("budget-block"), step);
  stepText(step);
  if (step !== null && step === shown.total - 1) document.dispatchEvent(new CustomEvent("fitproof:last-decision"));
  if (step !== null) {
    const row = $("items").tBodies[0].rows[step - shown.page];
    row.setAttribute("aria-current", "step");
    // Clear of the step panel stuck above it, however many lines its sentence takes.
    row.style.scrollMarginTop = `${$("steps-block").offsetHeight + 12}px`;
    row.scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
  }
}
