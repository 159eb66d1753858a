// Renders a report: summary, checks, errors, the budget bar, the items (items.js), what the
// greedy choice cost, the composed prompt, and any view a mode adds (addView). Reads only.

import { $, el } from "./dom.js";
import { renderBar } from "./bar.js";
import { renderComparison } from "./compare.js";
import { checkDetail } from "./check-details.js";
import { count, modeOf } from "../common/modes.js";
import { renderTrace, shown } from "./items.js";

// ---------------------------------------------------------------- mode-specific views
// A view is {modes: ["name", ...] or null for all, render(report, context) -> Node | null}.
// Its node goes into #mode-views after the items; the rest of the page stays as it is.
const views = [];
export function addView(view) {
  views.push(view);
}

export function setSummary(state, pass, text) {
  const summary = $("summary");
  summary.dataset.state = state;
  summary.dataset.pass = pass;
  const short = shortened(text);
  summary.textContent = short;
  if (short !== text) {  // the whole sentence is one press away, never lost
    const all = el("button", "link-button", `show all ${text.length.toLocaleString("en")} characters`);
    all.type = "button";
    all.dataset.testid = "summary-all";
    all.addEventListener("click", () => { summary.textContent = text; });
    summary.append(" ", all);
  }
}

// A summary names every kept id ("Selected a, b, … within N tokens."): with thousands of items
// that is a wall of text above the decisions (62,000 px on a phone). Past SUMMARY_SHOWN
// characters the middle of its list is left out: the first ids, how many more, the last id and
// the rest of the sentence.
const SUMMARY_SHOWN = 320;
export function shortened(text) {
  if (text.length <= SUMMARY_SHOWN) return text;
  const head = text.lastIndexOf(", ", 200);
  const tail = text.lastIndexOf(", ");
  if (head <= 0 || tail <= head || text.length - tail > 200) {
    // Cut between characters, never between the two halves of one (an emoji).
    const low = (at) => (/[\uDC00-\uDFFF]/.test(text[at]) ? at + 1 : at);
    return `${text.slice(0, low(200))} … ${text.slice(low(text.length - 100))}`;
  }
  const hidden = text.slice(head + 2, tail).split(", ").length;
  return `${text.slice(0, head)}, … ${hidden.toLocaleString("en")} more …, ${text.slice(tail + 2)}`;
}

// A report to keep on screen, dimmed, while the input is invalid: one with decisions to show.
const teaches = (report) => Boolean(report && modeOf(report) && Array.isArray(report.trace) && !(report.errors || []).length);

function setStale(note) {
  $("result").classList.toggle("stale", Boolean(note));
  $("stale-note").hidden = !note;
  $("stale-note").textContent = note || "";
}

export function clearReport() {
  setStale(null);
  for (const id of ["checks", "errors", "mode-views", "compare-bars"]) $(id).replaceChildren();
  for (const id of ["errors-block", "budget-block", "steps-block", "optimal-block", "table-block", "prompt-block"]) $(id).hidden = true;
  $("syntax-error").hidden = true;
  $("syntax-error").replaceChildren();
  $("items").tHead.replaceChildren();
  $("items").tBodies[0].replaceChildren();
  $("pages").hidden = true;
  shown.report = shown.context = shown.fetchRows = null;
  shown.total = shown.page = 0;
  shown.rows = [];
  shown.step = null;
}

// `input` is {onPath(path), onLocation(line, column), window, about, fetchRows}: `about`
// (from report-store.js) counts the whole trace when envelope.result.trace is its first page.
export function renderReport(envelope, input) {
  const report = envelope.result;
  // Mid-typing, an input is often invalid for a moment: the last report with decisions stays,
  // dimmed and marked as the previous input's, and the problem is said beside the summary.
  const invalid = !report || !modeOf(report) || (report.errors || []).length > 0;
  if (invalid && teaches(shown.report)) {
    keepPrevious(envelope, input);
    return null;
  }
  clearReport();
  if (!report) {
    renderSyntaxError(envelope, input);
    return null;
  }
  const mode = modeOf(report);
  shown.report = report;
  shown.context = { report, mode, unit: mode ? mode.unit(report) : "token" };
  $("result").dataset.mode = report.mode || "";
  shown.fetchRows = input.fetchRows;
  const about = input.about;
  setSummary("done", String(report.pass), report.summary);
  const failedChecks = report.checks.filter((check) => !check.pass).length;
  $("announce").textContent = `${report.pass ? "Pass" : "Fail"}. ${shortened(report.summary)} ${report.checks.length - failedChecks} of ${count(report.checks.length, "check")} pass.`;
  renderChecks(report, { unit: shown.context.unit, window: input.window, open: Boolean(input.openChecks) });
  renderErrors(report.errors || [], input.onPath);
  if (mode && Array.isArray(report.trace)) {
    $("budget-block").hidden = !renderBar($("budget-block"), report, mode, { total: about.total, rest: about.rest, window: input.window });
  }
  renderOptimal(report.optimal, report.sensitivity, input.about.cut);
  if (mode && renderComparison($("compare-bars"), report, mode.capacity(report), shown.context.unit)) $("optimal-block").hidden = false;
  renderTrace(report, about);
  renderPrompt(report, about);
  for (const view of views) {
    if (view.modes && !view.modes.includes(report.mode)) continue;
    const node = view.render(report, shown.context, about);
    if (node) $("mode-views").append(node);
  }
  return report;
}

function keepPrevious(envelope, input) {
  // The summary, the checks and the problems are the new input's; the decisions below stay.
  $("checks").replaceChildren();
  if (envelope.result) renderChecks(envelope.result, { open: false });
  $("errors").replaceChildren();
  $("errors-block").hidden = true;
  $("syntax-error").hidden = true;
  $("syntax-error").replaceChildren();
  if (!envelope.result) {
    renderSyntaxError(envelope, input);
  } else {
    const report = envelope.result;
    setSummary("done", "false", report.summary);
    $("announce").textContent = `Fail. ${shortened(report.summary)}`;
    renderErrors(report.errors || [], input.onPath);
  }
  const problem = envelope.result ? (envelope.result.errors || []).map((error) => `${error.path} ${error.message}`)[0] : envelope.error;
  setStale(`${problem ? `${problem}. ` : ""}Below, dimmed: the result of the last valid input, until this one is fixed.`);
}

function renderSyntaxError(envelope, input) {
  // The location is said once: as a button that puts the cursor there.
  const message = envelope.error.replace(/ at line \d+ column \d+$/, "");
  const box = $("syntax-error");
  if (envelope.line) {
    const where = el("button", "error-path", `Line ${envelope.line}, column ${envelope.column}`);
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

// Each check opens to what it re-derived (check-details.js), passing or failing.
function renderChecks(report, context) {
  for (const check of report.checks) {
    const item = el("li", check.pass ? "check pass" : "check fail");
    item.dataset.testid = "check";
    item.dataset.pass = String(check.pass);
    const said = checkDetail(check, report, context);
    const head = said ? el("details") : item;
    const label = said ? el("summary") : item;
    label.append(el("span", "mark", check.pass ? "✓" : "✗"), el("span", "visually-hidden", check.pass ? " passed: " : " failed: "), el("strong", "", check.name));
    if (said) {
      const detail = el("p", "detail check-detail", said);
      detail.dataset.testid = "check-detail";
      head.append(label, detail);
      head.open = context.open || !check.pass;
      item.append(head);
    }
    $("checks").append(item);
  }
}

export function openChecks(open) {
  for (const details of $("checks").querySelectorAll("details")) details.open = open || details.closest("li").dataset.pass === "false";
}

function renderErrors(errors, onPath) {
  if (!errors.length) return;
  for (const error of errors) {
    const item = el("li");
    item.dataset.testid = "error";
    const path = el("button", "error-path", error.path);
    path.type = "button";
    path.dataset.testid = "error-path";
    path.title = "Select this place in the input";
    path.addEventListener("click", () => onPath(error.path));
    item.append(path, el("span", "", ` ${error.message}`));
    $("errors").append(item);
  }
  $("errors-block").hidden = false;
}

// A sum of scores as a person reads it: 0.9 + 0.8 + 0.62 is 2.3200000000000003 in doubles
// (the report keeps that exact value; the sentence shows 2.32). 15 digits keep distinct sums of
// sensible scores distinct.
const score = (value) => (typeof value === "number" ? String(Number(value.toPrecision(15))) : String(value));

const LISTED = 20;

// `cut` gives the full length of each list report-store.js shortened.
function renderOptimal(optimal, sensitivity, cut) {
  const parts = [];
  // At most LISTED ids in a sentence; the items below mark every one of them.
  const list = (ids, path) => {
    const total = cut[path] || ids.length;
    return ids.slice(0, LISTED).join(", ") + (total > LISTED ? ` … (${total.toLocaleString("en")} in all)` : "");
  };
  if (optimal) {
    if (optimal.exact) {
      const best = list(optimal.selected, "$.optimal.selected") || "nothing";
      parts.push(optimal.value > optimal.greedy_value
        ? `Greedy scores ${score(optimal.greedy_value)}; ${best} would score ${score(optimal.value)} within the same budget (marked ★ in the items).`
        : `Greedy scores ${score(optimal.greedy_value)}, the best any combination reaches within the budget.`);
    } else if (optimal.upper_bound !== null) {
      parts.push(`Greedy scores ${score(optimal.greedy_value)}; no combination can score more than ${score(optimal.upper_bound)} (an upper bound: the exact search was too large).`);
    } else {
      parts.push(optimal.note || "No best combination could be computed.");
    }
  }
  if (sensitivity && sensitivity.exact) {
    parts.push(`The counts are exact (${sensitivity.tokenizer}): no estimate to be off.`);
  } else if (sensitivity) {
    const pct = Math.round(sensitivity.margin * 100);
    parts.push(sensitivity.flips.length
      ? `If the estimated counts are off by ${pct}%, these would flip (marked ⇄): ${list(sensitivity.flips, "$.sensitivity.flips")}.`
      : `An error of ${pct}% in the estimated counts would change nothing.`);
  }
  if (!parts.length) return;
  $("optimal-text").textContent = parts.join(" ");
  $("optimal-block").hidden = false;
}

function renderPrompt(report, about) {
  if (typeof report.prompt !== "string") return;
  $("prompt").textContent = report.prompt;
  $("prompt-note").textContent = about.promptLength
    ? `Showing the first ${report.prompt.length.toLocaleString("en")} of ${about.promptLength.toLocaleString("en")} characters; the downloaded report holds all of it.`
    : "";
  const warning = $("prompt-warning");
  warning.hidden = report.can_proceed !== false && report.pass;
  warning.textContent = report.can_proceed === false
    ? "✗ Do not send this prompt: a required block is missing, so the run cannot proceed."
    : "✗ This run did not pass: read the failed checks before using this prompt.";
  $("prompt-block").hidden = false;
}

