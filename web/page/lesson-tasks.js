// What a lesson step asks the learner to show, and what they have shown on this visit. A step
// is done only once its idea was shown, never on arrival: its prediction checked and holding
// (right at once, or revised after the verdict), a claim the checker refuses for a step that
// asks for one (`refuse`), its "why" answered right, its number moved until the rule's choice
// changed, its decisions stepped through to the last. "Next step" stays free; the progress line
// says what was shown and what is still to show. progress.js keeps which steps are done.

import { state } from "./state.js";

const LABELS = {
  decisions: "every decision stepped through",
  claim: "a prediction that holds",
  refused: "a claim the checker refuses",
  why: "the “why” answered right",
  explore: "the number moved until the rule's choice changed",
};

// The tasks of a step, in the order the step asks them.
export function tasksOf(step) {
  const tasks = [];
  if (step.focus === "steps") tasks.push("decisions");
  if (step.refuse) tasks.push("refused");
  else if (step.claim || step.predict) tasks.push("claim");
  if (step.why) tasks.push("why");
  if (step.explore) tasks.push("explore");
  return tasks;
}

function shownAt(at) {
  if (!state.lesson.shown) state.lesson.shown = {};
  if (!state.lesson.shown[at]) state.lesson.shown[at] = new Set();
  return state.lesson.shown[at];
}

export const hasShown = (at, task) => shownAt(at).has(task);

// The learner showed `task` at step `at` (once shown it stays shown, whatever they try next).
export function show(at, task) {
  shownAt(at).add(task);
}

export function forgetShown() {
  state.lesson.shown = {};
}

export const isShown = (step, at) => tasksOf(step).every((task) => hasShown(at, task));

// The step's line: each task with ✓ when shown, ○ when still to show.
export function taskLine(step, at) {
  const tasks = tasksOf(step);
  if (!tasks.length) return "";
  return tasks.map((task) => `${hasShown(at, task) ? "✓" : "○"} ${LABELS[task]}`).join("; ");
}
