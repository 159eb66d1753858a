// The lesson, the page's first screen: five steps (lesson.json), each a short text, one input
// loaded into the page and one thing to do; the tool (free editing, every example) one click
// away. A prediction is judged by the package's claim judgement in Python (the input's
// `claim`), never here: this file only sends the ids pressed and shows the verdict's words.

import { $ } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";
import { runCheck } from "./check.js";
import { setInput, setOrigin } from "./input.js";
import { openChecks, setStep } from "./report.js";
import { stopPlay } from "./steps.js";
import { offerRestore } from "./examples.js";

const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
};

const inputText = (step) => JSON.stringify(step.input, null, 2);

export async function loadLesson() {
  const response = await fetch("lesson.json");
  const lesson = await response.json();
  state.lesson.steps = lesson.steps;
  const box = $("lesson-steps");
  box.replaceChildren(...lesson.steps.map((step, index) => {
    const article = el("article", undefined, "lesson-step");
    article.dataset.testid = "lesson-step";
    article.dataset.step = String(index + 1);
    article.hidden = index + 1 !== state.lesson.step;
    for (const paragraph of step.text) article.append(el("p", paragraph));
    const task = el("p", undefined, "lesson-do");
    task.append(el("strong", "Do: "), step.do);
    article.append(task);
    return article;
  }));
  if (state.view === "lesson") showStep(state.lesson.step, { load: false });
}

// The page's view: the lesson (with the result of its step) or the tool (editor and result).
export function setView(view) {
  state.view = view;
  document.body.dataset.view = view;
  $("show-lesson").setAttribute("aria-pressed", String(view === "lesson"));
  $("show-tool").setAttribute("aria-pressed", String(view === "tool"));
  $("lesson").hidden = view !== "lesson";
  state.lesson.openChecks = view === "lesson" && Boolean(state.lesson.steps[state.lesson.step - 1]?.openChecks);
  openChecks(state.lesson.openChecks);
  revealResult();
}

// `load`: put the step's input in the editor and check it (not at start: index.html holds step 1's).
export function showStep(number, { load = true } = {}) {
  const steps = state.lesson.steps;
  if (!steps.length) return;
  const at = Math.max(1, Math.min(steps.length, number));
  state.lesson.step = at;
  const step = steps[at - 1];
  document.body.dataset.lessonFocus = step.focus || "";
  for (const article of $("lesson-steps").children) article.hidden = Number(article.dataset.step) !== at;
  $("lesson-where").textContent = `Lesson, step ${at} of ${steps.length}:`;
  $("lesson-title").textContent = step.title;
  $("lesson-back").disabled = at === 1;
  $("lesson-next").textContent = at === steps.length ? "Open the tool ▶" : "Next step ▶";
  state.lesson.openChecks = Boolean(step.openChecks) && state.view === "lesson";
  renderClaim(step, at);
  renderTokens(step);
  const text = inputText(step);
  const description = `From the lesson, step ${at}: ${step.title}.`;
  if (load && $("input").value !== text) {
    const { origin } = state.input;
    if ((origin.kind === "own" || origin.kind === "link") && $("input").value.trim()) state.input.replaced = { origin, text: $("input").value };
    setInput(text);
    setOrigin({ kind: "lesson", step: at, text, description });
    offerRestore();
    runCheck();
  } else {
    setOrigin({ kind: "lesson", step: at, text: $("input").value, description });
    openChecks(state.lesson.openChecks);
    if (load) {  // the same input as the step before: its decisions start again, not mid-way
      stopPlay();
      setStep(null, { smooth: false });
    }
  }
  revealResult();
}

// ---------------------------------------------------------------- predict and check
function claimOf(at) {
  if (!state.lesson.claims[at]) state.lesson.claims[at] = { ids: new Set(), checked: false };
  return state.lesson.claims[at];
}

function renderClaim(step, at) {
  const block = $("claim-block");
  block.hidden = !step.claim;
  if (!step.claim) return;
  const claim = claimOf(at);
  const budget = step.input.budget;
  $("claim-question").textContent = `Which items would the rule keep within ${budget} tokens? Press each one you would keep.`;
  $("claim-items").replaceChildren(...step.input.items.map((item) => {
    const button = el("button", undefined, "claim-item");
    button.type = "button";
    button.dataset.testid = "claim-item";
    button.dataset.id = item.id;
    button.setAttribute("aria-pressed", String(claim.ids.has(item.id)));
    button.append(el("strong", item.id), ` relevance ${item.relevance}, ${item.tokens} tokens`);
    button.addEventListener("click", () => {
      if (claim.ids.has(item.id)) claim.ids.delete(item.id);
      else claim.ids.add(item.id);
      button.setAttribute("aria-pressed", String(claim.ids.has(item.id)));
    });
    return button;
  }));
  const result = $("claim-result");
  result.hidden = !claim.shown;
  if (claim.shown) showVerdict(claim.shown);
}

async function checkClaim() {
  const at = state.lesson.step;
  const step = state.lesson.steps[at - 1];
  const claim = claimOf(at);
  const selected = step.input.items.map((item) => item.id).filter((id) => claim.ids.has(id));  // in the input's order
  const result = $("claim-result");
  result.hidden = false;
  result.dataset.pass = "";
  result.textContent = "Checking your prediction…";
  let report;
  try {
    const answer = await python.ask("check", JSON.stringify({ ...step.input, claim: { selected } }));
    report = JSON.parse(answer.envelope).result;
  } catch (error) {
    result.textContent = `Your prediction could not be checked: ${error.message}`;
    return;
  }
  if (state.lesson.step !== at) return;  // the learner moved on meanwhile
  claim.checked = true;
  claim.shown = { selected, claim: report.claim, rule: report.selected };
  showVerdict(claim.shown);
  revealResult();
  // On a phone the verdict opens below the button, off the screen: bring it into view.
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  result.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
}

function showVerdict({ selected, claim, rule }) {
  const result = $("claim-result");
  result.dataset.pass = String(claim.pass);
  const said = selected.length ? selected.join(", ") : "nothing";
  const head = el("p", undefined, "claim-verdict");
  head.append(el("strong", claim.pass ? "✓ Your prediction holds." : "✗ Your prediction does not hold."), ` You kept ${said}.`);
  const parts = [head];
  if (!claim.pass) {
    const list = el("ul", undefined, "claim-failures");
    for (const failure of claim.failures) {
      const item = el("li");
      item.dataset.testid = "claim-failure";
      item.append(el("strong", `${failure.check}: `), failure.detail);
      list.append(item);
    }
    parts.push(list);
  }
  parts.push(el("p", `The rule keeps ${rule.join(", ") || "nothing"}: its decisions are shown below.`, "claim-rule"));
  result.replaceChildren(...parts);
}

// A step that asks for a prediction first shows the rule's own choice only once one was checked.
function revealResult() {
  const step = state.lesson.steps[state.lesson.step - 1];
  const waiting = state.view === "lesson" && step && step.reveal === "after-claim" && !claimOf(state.lesson.step).checked;
  document.body.dataset.reveal = waiting ? "pending" : "shown";
  $("reveal-note").hidden = !waiting;
}

// ---------------------------------------------------------------- where token counts come from
let tokensRun = 0;
async function renderTokens(step) {
  const box = $("lesson-tokens");
  const run = ++tokensRun;
  box.hidden = !step.tokens;
  if (!step.tokens) return box.replaceChildren();
  box.replaceChildren(el("p", "Counting each item's text…", "hint"));
  const tokenizer = step.input.tokenizer;
  const views = [];
  for (const item of step.input.items) {
    try {
      views.push([item, JSON.parse((await python.ask("tokens", item.content, tokenizer)).envelope)]);
    } catch (error) {
      if (run === tokensRun) box.replaceChildren(el("p", `The tokenizer could not be loaded: ${error.message}`, "error"));
      return;
    }
    if (run !== tokensRun) return;
  }
  box.replaceChildren(el("h3", `Each item's text, cut into ${tokenizer} tokens`));
  for (const [item, view] of views) {
    const figure = el("figure", undefined, "token-item");
    figure.dataset.testid = "lesson-token-item";
    figure.dataset.id = item.id;
    figure.dataset.count = String(view.count);
    figure.append(el("figcaption", `${item.id}: “${item.content}” is ${view.count} tokens`));
    const list = el("ol", undefined, "token-chips");
    list.setAttribute("aria-label", `${item.id}'s tokens and their ids`);
    for (const segment of view.segments) {
      const chip = el("li", undefined, "token-chip");
      chip.dataset.testid = "token-chip";
      chip.append(el("span", segment.text.replace(/ /g, "␣"), "token-text"), el("span", segment.ids.join(" "), "token-id"));
      list.append(chip);
    }
    figure.append(list);
    box.append(figure);
  }
  box.append(el("p", "␣ marks a space: most tokens start with one. The model receives the ids, not the text; the budget counts them.", "hint"));
}

export function wireLesson() {
  $("lesson-next").addEventListener("click", () => {
    if (state.lesson.step >= state.lesson.steps.length) setView("tool");
    else showStep(state.lesson.step + 1);
    $("lesson-heading").focus({ preventScroll: false });
  });
  $("lesson-back").addEventListener("click", () => {
    showStep(state.lesson.step - 1);
    $("lesson-heading").focus({ preventScroll: false });
  });
  $("lesson-edit").addEventListener("click", () => setView("tool"));
  $("show-lesson").addEventListener("click", () => {
    setView("lesson");
    showStep(state.lesson.step);
  });
  $("show-tool").addEventListener("click", () => setView("tool"));
  $("claim-check").addEventListener("click", checkClaim);
  // The narrow screen's switch, kept at the top: the editor or the result, one tap apart
  // (both stay on the page, so nothing typed or shown is hidden away).
  const go = (heading, focus) => {
    const bar = document.querySelector(".phone-switch").offsetHeight;
    window.scrollTo({ top: window.scrollY + $(heading).getBoundingClientRect().top - bar - 8, behavior: "auto" });
    $(focus).focus({ preventScroll: true });
  };
  $("switch-edit").addEventListener("click", () => go("input-heading", "input-heading"));
  $("switch-result").addEventListener("click", () => go("result-heading", "result-heading"));
}
