// A lesson step's two questions: the prediction, checked in Python (the input's `claim`, judged by
// the package's claim judgement, never here: this file only sends the ids pressed and shows the
// verdict's words), and the "why", one right answer among common misconceptions (a misconception
// with a `claim` shows the package's own failures for it). What the learner answered, per step,
// is state.lesson.claims and state.lesson.whys; lesson.js draws the rest of the step.

import { $, el } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";

// lesson-numbers.js's prose and lesson-tasks.js's show, handed over by lesson.js once loaded
// (with lesson.json: the first visit's module graph stays what it was).
let prose = (text) => [String(text)];
let show = () => {};
export function useHelpers(helpers) {
  ({ prose, show } = helpers);
}

// What lesson.js does once the learner answered (the number to drag, the step's progress).
let answered = () => {};

export const needsClaim = (step) => Boolean(step.claim || step.predict);

// ---------------------------------------------------------------- predict and check
function claimOf(at) {
  if (!state.lesson.claims[at]) state.lesson.claims[at] = { ids: new Set(), checked: false };
  return state.lesson.claims[at];
}

// The buttons to press: a `predict` step names them (values and labels, in the input's order);
// the first lesson's `claim: true` steps press the input's items.
function choicesOf(step) {
  if (step.predict) return step.predict.choices;
  return step.input.items.map((item) => ({ value: item.id, strong: item.id, label: ` relevance {trace.#${item.id}.relevance}, {trace.#${item.id}.tokens} tokens` }));
}
const fieldOf = (step) => step.predict?.field || "selected";
const shortName = (value) => (typeof value === "number" ? `#${value}` : String(value));

export function renderClaim(step, at) {
  const block = $("claim-block");
  block.hidden = !needsClaim(step);
  if (!needsClaim(step)) return;
  const claim = claimOf(at);
  $("claim-question").replaceChildren(...prose(step.predict
    ? `${step.predict.question} Press each one you predict.`
    : "Which items would the rule keep within {budget} tokens? Press each one you would keep."));
  $("claim-items").replaceChildren(...choicesOf(step).map((choice) => {
    const button = el("button", "claim-item");
    button.type = "button";
    button.dataset.testid = "claim-item";
    button.dataset.id = String(choice.value);
    button.setAttribute("aria-pressed", String(claim.ids.has(choice.value)));
    if (choice.strong) button.append(el("strong", "", choice.strong));
    button.append(...prose(choice.label));
    button.addEventListener("click", () => {
      if (claim.ids.has(choice.value)) claim.ids.delete(choice.value);
      else claim.ids.add(choice.value);
      button.setAttribute("aria-pressed", String(claim.ids.has(choice.value)));
    });
    return button;
  }));
  const result = $("claim-result");
  result.hidden = !claim.shown;
  if (claim.shown) showVerdict(claim.shown);
}

async function checkClaim() {
  const at = state.lesson.step;
  const id = state.lesson.id;
  const step = state.lesson.steps[at - 1];
  const claim = claimOf(at);
  const field = fieldOf(step);
  const selected = choicesOf(step).map((choice) => choice.value).filter((value) => claim.ids.has(value));  // in the input's order
  const result = $("claim-result");
  result.hidden = false;
  result.dataset.pass = "";
  result.textContent = "Checking your prediction…";
  let report;
  try {
    const answer = await python.ask("check", JSON.stringify({ ...step.input, claim: { [field]: selected } }));
    report = JSON.parse(answer.envelope).result;
  } catch (error) {
    result.textContent = `Your prediction could not be checked: ${error.message}`;
    return;
  }
  if (state.lesson.step !== at || state.lesson.id !== id) return;  // the learner moved on meanwhile
  claim.checked = true;
  claim.shown = { selected, claim: report.claim, rule: report[field] };
  // Shown: a prediction that holds (a step with `refuse` asks for a claim the checker refuses).
  if (step.refuse ? !report.claim.pass : report.claim.pass) show(at, step.refuse ? "refused" : "claim");
  showVerdict(claim.shown);
  revealResult();
  renderWhy(step, at);
  answered(step, at, "claim");
  // On a phone the verdict opens below the button, off the screen: bring it into view.
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  result.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
}

function failureList(failures) {
  const list = el("ul", "claim-failures");
  for (const failure of failures) {
    const item = el("li");
    item.dataset.testid = "claim-failure";
    item.append(el("strong", "", `${failure.check}: `), failure.detail);
    list.append(item);
  }
  return list;
}

function showVerdict({ selected, claim, rule }) {
  const result = $("claim-result");
  result.dataset.pass = String(claim.pass);
  const said = selected.length ? selected.map(shortName).join(", ") : "nothing";
  const head = el("p", "claim-verdict");
  head.append(el("strong", "", claim.pass ? "✓ Your prediction holds." : "✗ Your prediction does not hold."), ` You kept ${said}.`);
  const parts = [head];
  if (!claim.pass) parts.push(failureList(claim.failures));
  parts.push(el("p", "claim-rule", `The rule keeps ${(rule || []).map(shortName).join(", ") || "nothing"}: its decisions are shown below.`));
  result.replaceChildren(...parts);
}

// A step that asks for a prediction first shows the rule's own choice (and its "why") only once one was checked.
export const waitingForClaim = (step, at) => step.reveal === "after-claim" && !claimOf(at).checked;

export function revealResult() {
  const step = state.lesson.steps[state.lesson.step - 1];
  const waiting = state.view === "lesson" && step && waitingForClaim(step, state.lesson.step);
  document.body.dataset.reveal = waiting ? "pending" : "shown";
  $("reveal-note").hidden = !waiting;
}

// ---------------------------------------------------------------- why
function whyOf(at) {
  if (!state.lesson.whys[at]) state.lesson.whys[at] = { chosen: null, right: false, shown: null };
  return state.lesson.whys[at];
}

export function renderWhy(step, at) {
  const block = $("why-block");
  block.hidden = !step.why || waitingForClaim(step, at);
  if (block.hidden) return;
  const why = whyOf(at);
  $("why-question").replaceChildren(...prose(step.why.question));
  $("why-options").replaceChildren(...step.why.options.map((option, index) => {
    const label = el("label", "why-option");
    const radio = el("input");
    radio.type = "radio";
    radio.name = "why";
    radio.value = String(index);
    radio.dataset.testid = "why-option";
    radio.checked = why.chosen === index;
    label.append(radio, " ", ...prose(option.text));
    return label;
  }));
  const result = $("why-result");
  result.hidden = !why.shown;
  if (why.shown) showWhy(step, why.shown);
}

async function answerWhy() {
  const at = state.lesson.step;
  const id = state.lesson.id;
  const step = state.lesson.steps[at - 1];
  const picked = document.querySelector("#why-options input:checked");
  const result = $("why-result");
  result.hidden = false;
  if (!picked) {
    result.dataset.pass = "";
    result.replaceChildren(el("p", "", "Choose an answer first (the arrow keys move between them)."));
    return;
  }
  const index = Number(picked.value);
  const option = step.why.options[index];
  const why = whyOf(at);
  why.chosen = index;
  why.right = why.right || option.right;
  if (option.right) show(at, "why");
  why.shown = { index, failures: null };
  showWhy(step, why.shown);
  if (option.claim) {  // the misconception, as a claim the package judges: its failures in its own words
    try {
      const answer = await python.ask("check", JSON.stringify({ ...step.input, claim: option.claim }));
      const report = JSON.parse(answer.envelope).result;
      if (state.lesson.step !== at || state.lesson.id !== id || why.shown.index !== index) return;
      why.shown.failures = report.claim ? report.claim.failures : [];
      why.shown.claimed = option.claim;
      showWhy(step, why.shown);
    } catch (error) {
      result.append(el("p", "", `The claim could not be checked: ${error.message}`));
    }
  }
  answered(step, at, "why");
}

function showWhy(step, { index, failures, claimed }) {
  const result = $("why-result");
  const option = step.why.options[index];
  result.dataset.pass = String(option.right);
  result.dataset.answered = failures || !option.claim ? "done" : "checking";
  const head = el("p", "claim-verdict");
  head.append(el("strong", "", option.right ? "✓ " : "✗ "), ...prose(option.explain));
  const parts = [head];
  if (failures) {
    const values = Object.values(claimed)[0];
    parts.push(el("p", "", `The claim ${values.length ? values.map(shortName).join(", ") : "of nothing"}, as the checker judges it:`), failureList(failures));
  }
  if (option.right) {
    const others = el("details", "why-others");
    others.append(el("summary", "", "Why the other answers are wrong"));
    const list = el("ul");
    for (const other of step.why.options) if (!other.right) {
      const item = el("li");
      item.append(el("strong", "", ""), ...prose(other.explain));
      item.firstChild.append(...prose(other.text), " ");
      list.append(item);
    }
    others.append(list);
    parts.push(others);
  } else {
    parts.push(el("p", "hint", "Choose another answer and press Answer again."));
  }
  result.replaceChildren(...parts);
}

// The two buttons; `onAnswered(step, at, "claim" or "why")` runs after each answer.
export function wireAnswers(onAnswered) {
  answered = onAnswered;
  $("claim-check").addEventListener("click", checkClaim);
  $("why-check").addEventListener("click", answerWhy);
}
