// Checking the editor's text and showing the report: one check at a time in Python, the
// newest answer only on screen. Rendering is in report.js (with items.js, bar.js and modes.js).

import { $ } from "./dom.js";
import { currentText, state } from "./state.js";
import * as editor from "./editor.js";
import * as codeEditor from "./code-editor.js";
import * as python from "./python.js";
import { loadReport } from "./store.js";
import { clearReport, renderReport, setSummary } from "./report.js";
import { PAGE_SIZE } from "./items.js";

const DEBOUNCE_MS = 300;

// Registered by app.js: before each check (`started`) and once a report is drawn (`shown`:
// (report, text, about), report null for an input with a syntax error).
const hooks = { started: [], shown: [] };
export const onCheckStarted = (hook) => hooks.started.push(hook);
export const onReportShown = (hook) => hooks.shown.push(hook);

export const checkText = (text) => python.ask("check", text);

// One check at a time in Python; of those asked for meanwhile only the newest waits, the
// others are dropped unrun (a slow input pressed ten times would otherwise be checked ten
// times). Their runCheck is stale anyway and shows nothing.
const queue = { running: false, waiting: null };  // waiting: {text, resolve, reject}

function queuedCheck(text) {
  return new Promise((resolve, reject) => {
    if (queue.waiting) queue.waiting.reject(new Error("superseded by a newer check"));
    queue.waiting = { text, resolve, reject };
    nextCheck();
  });
}

function nextCheck() {
  if (queue.running || !queue.waiting) return;
  const { text, resolve, reject } = queue.waiting;
  queue.waiting = null;
  queue.running = true;
  checkText(text).then(resolve, reject).finally(() => {
    queue.running = false;
    nextCheck();
  });
}

function setBusy(busy) {
  $("result").setAttribute("aria-busy", String(busy));
  // The report on screen is about to be replaced: copying it now would give the previous input's.
  if (busy) $("copy-report").disabled = $("download-report").disabled = true;
}

// What the blocks bar needs from the input to draw the whole window (Python validated it).
export function windowOf(text) {
  const read = (key) => editor.numberAt(text, `$.window.${key}`);
  return { context_tokens: read("context_tokens"), reserved_output_tokens: read("reserved_output_tokens"), fixed_prompt_tokens: read("fixed_prompt_tokens") };
}

// Where the input's problems are in its text, for the code editor to mark.
function problemMarks(envelope, text) {
  if (!envelope.result) {
    if (!envelope.line) return [];
    const at = editor.offsetOf(text, envelope.line, envelope.column);
    return [{ from: at, to: at + 1, message: envelope.error }];
  }
  return (envelope.result.errors || []).slice(0, 200).map((error) => {
    const span = editor.locate(text, error.path);
    return { from: span.start, to: span.complete ? span.end : span.start + 1, message: `${error.path} ${error.message}` };
  });
}

export async function runCheck() {
  const runId = ++state.report.run;
  const text = currentText();
  setSummary("running", "", state.python.ready ? "Checking…" : "Waiting for the runtime…");
  setBusy(true);
  for (const hook of hooks.started) hook();
  try {
    const answer = await queuedCheck(text);
    if (runId !== state.report.run) return;  // a newer edit has been sent; show only its result
    performance.mark("fitproof:answer");  // rendering starts: the tests time what follows
    const { envelope, about, rows, shown } = await loadReport(answer.envelope, PAGE_SIZE);
    if (runId !== state.report.run) return;
    const report = renderReport(envelope, {
      about,
      fetchRows: rows,
      window: envelope.result && envelope.result.mode === "blocks" ? windowOf(text) : null,
      onPath: (path) => editor.selectPath(path),
      onLocation: (line, column) => {
        const at = editor.offsetOf($("input").value, line, column);
        editor.select(at, at + 1);
      },
      openChecks: state.lesson.openChecks,
    });
    if (report) shown();  // drawn (an invalid input's is not: the last valid report stays, dimmed)
    codeEditor.markProblems(problemMarks(envelope, text));
    $("summary").title = `evaluated in ${answer.ms.toFixed(1)} ms`;
    state.report.envelopeText = report ? answer.envelope : null;
    $("copy-report").disabled = $("download-report").disabled = !report;
    for (const hook of hooks.shown) hook(report, text, about);
    performance.measure("fitproof:render", "fitproof:answer");
  } catch (error) {
    if (runId !== state.report.run) return;
    clearReport();
    setSummary("done", "false", `No result: ${error.message}`);
    $("announce").textContent = `No result: ${error.message}`;  // else the last thing said stays an earlier "Pass"
  } finally {
    if (runId === state.report.run) setBusy(false);
  }
}

export function scheduleCheck(delay = DEBOUNCE_MS) {
  clearTimeout(state.input.debounce);
  state.input.debounce = setTimeout(runCheck, delay);
}

export function checkNow() {
  clearTimeout(state.input.debounce);
  runCheck();
}
