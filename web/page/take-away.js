// "Take this with you": the input on screen (a lesson step's, or the tool's) as a fixture case
// with `expect` and as the Python call that gives the same report. Both are written by the
// package (fitproof._page.take_away); this file shows and downloads them. app.js imports
// it on the first press of the button.

import { $ } from "./dom.js";
import { state, currentText } from "./state.js";
import * as python from "./python.js";

let run = 0;

function description() {
  const origin = state.input.origin;
  return origin.description || "An input from the fitproof page.";
}

function download(text, name, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

export async function refreshTakeAway() {
  const block = $("take-away-block");
  if (block.hidden) return;
  const mine = ++run;
  block.dataset.state = "working";
  $("take-away-note").textContent = "Writing the case and the Python call…";
  let answer;
  try {
    answer = JSON.parse((await python.ask("take-away", currentText(), description())).envelope);
  } catch (error) {
    answer = { ok: false, error: error.message };
  }
  if (mine !== run) return;
  block.dataset.state = answer.ok ? "done" : "failed";
  $("take-away-case").textContent = answer.ok ? answer.case : "";
  $("take-away-python").textContent = answer.ok ? answer.python : "";
  $("take-away-case-download").disabled = $("take-away-python-download").disabled = !answer.ok;
  $("take-away-note").textContent = answer.ok
    ? `The case states what this report says (${answer.summary}); save it in your cases' folder and it runs as a test.`
    : `This input cannot be taken yet: ${answer.error}`;
}

export function toggleTakeAway() {
  const block = $("take-away-block");
  block.hidden = !block.hidden;
  $("take-away").setAttribute("aria-expanded", String(!block.hidden));
  if (!block.hidden) refreshTakeAway();
}

$("take-away-case-download").addEventListener("click", () => download($("take-away-case").textContent, "fitproof-case.json", "application/json"));
$("take-away-python-download").addEventListener("click", () => download($("take-away-python").textContent, "fitproof_case.py", "text/x-python"));
