// Something to see at once: the report of the page's default input, made by the package's
// own evaluate when the site was built or served (index.html carries it as a JSON block,
// #first-report), drawn by report.js before Python has loaded, and marked as waiting for live
// editing (#result[data-preview], a note above the summary) until the page's own check
// replaces it. An edit meanwhile makes it another input's report: it is taken down.

import { $ } from "./dom.js";
import { currentText, state } from "./state.js";
import * as editor from "./editor.js";
import { onCheckStarted, onReportShown, windowOf } from "./check.js";
import { clearReport, renderReport } from "./report.js";
import { PAGE_SIZE } from "./items.js";
import { head, marksFor } from "../worker/report-head.js";

const NOTE = "Worked out when this site was built, for the input shown. Live editing starts once Python has loaded in your browser.";
const FAILED = "Worked out when this site was built, for the input shown. Live editing is not available: Python could not load.";

const first = { data: null, same: null, shown: false };

function read() {
  const block = document.getElementById("first-report");
  if (!block) return null;
  try {
    return JSON.parse(block.textContent);
  } catch (error) {
    return null;
  }
}

// The editor's text is the default input when it parses to the same JSON (its layout aside).
function isDefault(text) {
  try {
    return JSON.stringify(JSON.parse(text)) === first.same;
  } catch (error) {
    return false;
  }
}

function note() {
  let node = document.getElementById("first-report-note");
  if (!node) {
    node = document.createElement("p");
    node.id = "first-report-note";
    node.dataset.testid = "first-report-note";
    node.className = "hint preview-note";
    $("summary").before(node);
  }
  return node;
}

function draw() {
  const { envelope } = first.data;
  const text = currentText();
  const marks = marksFor(envelope.result);
  const { envelope: shownEnvelope, about } = head(envelope, PAGE_SIZE, marks);
  renderReport(shownEnvelope, {
    about,
    fetchRows: (from, to) => Promise.resolve(marks(envelope.result.trace.slice(from, to))),
    window: envelope.result.mode === "blocks" ? windowOf(text) : null,
    onPath: (path) => editor.selectPath(path),
    onLocation: (line, column) => {
      const at = editor.offsetOf($("input").value, line, column);
      editor.select(at, at + 1);
    },
  });
  $("result").dataset.preview = "";
  note().dataset.state = "waiting";
  note().textContent = NOTE;
  first.shown = true;
}

function takeDown(keepReport) {
  if (!first.shown) return;
  first.shown = false;
  delete $("result").dataset.preview;
  note().remove();
  if (!keepReport) clearReport();
}

// Called by app.js once the editor holds its first text; true when the report was drawn.
export function showFirstReport() {
  first.data = read();
  if (!first.data || !first.data.envelope || !first.data.envelope.result) return false;
  first.same = JSON.stringify(first.data.input);
  if (!isDefault(currentText())) return false;  // a share link's input, or typing already
  draw();
  // Before each check: the same input keeps its report on screen (the check's "waiting"
  // summary is drawn over again), another one takes it down.
  onCheckStarted(() => {
    if (!first.shown) return;
    if (isDefault(currentText())) draw();
    else takeDown(false);
  });
  onReportShown(() => takeDown(true));  // the live report is on screen
  // Python could not load (before this module ran, too): the waiting check is answered "No
  // result" and the report cleared; the default input's report comes back after that answer,
  // saying editing is not live.
  const failed = () => setTimeout(() => {
    if (!first.shown || !isDefault(currentText())) return;
    draw();
    note().dataset.state = "failed";
    note().textContent = FAILED;
  });
  if (state.python.failed) failed();
  else window.addEventListener("python-failed", failed);
  performance.mark("fitproof:first-report");
  return true;
}
