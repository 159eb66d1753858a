// The numbers in a lesson's text: never written by hand, always the package's report for the
// step's input. A lesson's prose holds placeholders, {path}: a dotted path into the report
// ({limit}, {optimal.value}), where #x picks a list's row by its id or message index
// ({trace.#B.tokens}, {trace.#6.remaining_before}), or a sum or difference of such paths, spaced
// ({limit - trace.#9.remaining_before}); a row's `reason` is said in the page's own words (modes.js). Each placeholder is a <span> filled from the newest report for the input on
// screen (the first report built with the site, then each check, a dragged number's too), so a
// paragraph and the report can never disagree. tests/docs/test_lesson_numbers.py resolves every
// placeholder in CPython and fails on a digit left in the prose by hand.

import { el } from "./dom.js";
import { modeOf, reasonText } from "../common/modes.js";

const PATH = "[A-Za-z_][\\w#.\\-]*";
export const PLACEHOLDER = new RegExp(`\\{(${PATH}(?: [-+] ${PATH})*)\\}`, "g");
const WAITING = "…";

let current = null;  // {report, text}: the newest report and the input text it is for

const canonical = (text) => {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
};

function inputText() {
  const input = document.getElementById("input");
  return input ? input.value : "";
}

// The report built with the site for the default input (index.html's #first-report), until a
// check answers: the first visit's step 1 is filled before Python has loaded.
let first;  // {input, report}, read once (undefined: not yet read)
function firstReport(text) {
  if (first === undefined) {
    first = null;
    try {
      const data = JSON.parse(document.getElementById("first-report").textContent);
      first = { input: JSON.stringify(data.input), report: data.envelope.result || null };
    } catch {
      // no first report
    }
  }
  return first && first.input === canonical(text) ? first.report : null;
}

// The report for the input on screen, if known; remembered for the text it was worked out for.
let known = { text: null, report: null };
function reportNow() {
  const text = inputText();
  if (known.text === text) return known.report;
  const report = current && canonical(current.text) === canonical(text) ? current.report : firstReport(text);
  known = { text, report };
  return report;
}

export function valueAt(report, path) {
  let value = report;
  for (const part of path.split(".")) {
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value) && part.startsWith("#")) value = value.find((row) => String(row.id ?? row.index) === part.slice(1));
    else value = Array.isArray(value) ? value[Number(part)] : value[part];
  }
  return value;
}

// A value as the text says it: a reason in the page's words, a list as "A, C", a number as is.
export function sayValue(report, path) {
  if (/ [-+] /.test(path)) return sayTotal(report, path);
  const value = valueAt(report, path);
  if (value === undefined || value === null) return WAITING;
  if (path.endsWith(".reason")) {
    const row = valueAt(report, path.slice(0, -".reason".length));
    const mode = modeOf(report);
    return reasonText(row, { unit: mode ? mode.unit(report) : "token", report }, "short");
  }
  if (Array.isArray(value)) return value.length ? value.join(", ") : "nothing";
  return String(value);
}

function sayTotal(report, expression) {
  const terms = expression.split(/ ([-+]) /);  // [path, sign, path, ...]
  let total = Number(valueAt(report, terms[0]));
  for (let i = 1; i < terms.length; i += 2) total += (terms[i] === "-" ? -1 : 1) * Number(valueAt(report, terms[i + 1]));
  return Number.isFinite(total) ? String(total) : WAITING;
}

// A piece of lesson prose as nodes: its text, and a span per placeholder (filled at once when
// the report for the input on screen is known).
export function prose(text) {
  const nodes = [];
  let last = 0;
  const report = reportNow();
  for (const match of String(text).matchAll(PLACEHOLDER)) {
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    const span = el("span", "lesson-number", report ? sayValue(report, match[1]) : WAITING);
    span.dataset.fill = match[1];
    nodes.push(span);
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

// Every placeholder on the page, from the report for the input on screen ("…" until it comes).
export function fillNumbers() {
  const report = reportNow();
  for (const span of document.querySelectorAll("span.lesson-number[data-fill]")) {
    span.textContent = report ? sayValue(report, span.dataset.fill) : WAITING;
  }
}

// check.js's hook: a report was drawn for `text`.
export function noteReport(report, text) {
  if (!report) return;
  current = { report, text };
  known = { text: null, report: null };
  fillNumbers();
}
