// The lessons, the page's first screen: one per rule, chosen from the picker. Each is data
// (lesson.json, the first and the picker's list; lessons/<id>.json, fetched when chosen): steps of
// a short text, one input loaded into the page, one thing to do, a prediction and a "why"
// question (lesson-answer.js), a number to drag and the token ids. The lessons' intended answers
// are replayed through the package by tests/docs/test_lessons_replay.py.

import { $, el } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";
import { runCheck } from "./check.js";
import { setInput, setOrigin } from "./input.js";
import { openChecks } from "./report.js";
import { setStep } from "./items.js";
import { stopPlay } from "./steps.js";
import { offerRestore } from "./examples.js";
import { onReportShown } from "./check.js";
import { said } from "../common/modes.js";
import { sayReady } from "./status.js";
import { needsClaim, renderClaim, renderWhy, revealResult, useHelpers, waitingForClaim, wireAnswers } from "./lesson-answer.js";

// Loaded with lesson.json, not before: the first visit's module graph (which the first report
// waits for) stays what it was. drag-number.js comes when a step has a number to drag.
// So are lesson-numbers.js (the numbers in the prose) and lesson-tasks.js (what a step asks to show).
let progress = null;
let numbers = null;
let tasks = null;
let shownBefore = null;  // {report, text}: a report drawn before lesson-numbers.js came
const dragging = () => import("./drag-number.js");

const inputText = (step) => JSON.stringify(step.input, null, 2);
const lessons = {};  // id -> the lesson, as fetched
let picker = [];  // lesson.json's list: {id, title, about}

export async function loadLesson() {
  const [response, module, numbersModule, tasksModule] = await Promise.all([
    fetch("lesson.json"), import("./progress.js"), import("./lesson-numbers.js"), import("./lesson-tasks.js"),
  ]);
  progress = module;
  numbers = numbersModule;
  tasks = tasksModule;
  useHelpers({ prose: numbers.prose, show: tasks.show });
  if (shownBefore) numbers.noteReport(shownBefore.report, shownBefore.text);
  const lesson = await response.json();
  lessons[lesson.id] = lesson;
  picker = lesson.lessons || [];
  state.lesson.id = lesson.id;
  useLesson(lesson);
  renderPicker();
  if (state.view !== "lesson") return;
  // Back where the learner was before a reload (progress.js keeps the lesson and the step).
  const place = progress.place();
  if (place && picker.some((entry) => entry.id === place.lesson) && (place.lesson !== lesson.id || place.step > 1)) {
    await chooseLesson(place.lesson, place.step, { focus: false });
  } else showStep(state.lesson.step, { load: false });
}

// Once Python is ready, the other lessons are fetched too (a few KB each), so that the page keeps
// working if the connection goes away; the first visit does not wait for them.
let prefetching = false;
export async function prefetchLessons() {
  if (prefetching || !state.python.ready || !picker.length) return;
  prefetching = true;
  dragging().catch(() => {});
  await Promise.all(picker.filter((entry) => !lessons[entry.id]).map(async (entry) => {
    try {
      const response = await fetch(`lessons/${encodeURIComponent(entry.id)}.json`);
      if (response.ok) lessons[entry.id] = await response.json();
    } catch {
      // fetched again when chosen
    }
  }));
  $("lesson-picker").dataset.prefetched = String(picker.every((entry) => lessons[entry.id]));
}

function useLesson(lesson) {
  state.lesson.id = lesson.id;
  state.lesson.title = lesson.title;
  state.lesson.steps = lesson.steps;
  state.lesson.claims = {};
  state.lesson.whys = {};
  tasks.forgetShown();
  const box = $("lesson-steps");
  box.replaceChildren(...lesson.steps.map((step, index) => {
    const article = el("article", "lesson-step");
    article.dataset.testid = "lesson-step";
    article.dataset.step = String(index + 1);
    article.hidden = index + 1 !== state.lesson.step;
    for (const paragraph of step.text) {
      const node = el("p");
      node.append(...numbers.prose(paragraph));
      article.append(node);
    }
    const task = el("p", "lesson-do");
    task.append(el("strong", "", "Do: "), ...numbers.prose(step.do));
    article.append(task);
    return article;
  }));
  document.body.dataset.lesson = lesson.id;
}

function renderPicker() {
  $("lesson-picker").replaceChildren(...picker.map((entry) => {
    const item = el("li");
    const button = el("button", "lesson-choice");
    button.type = "button";
    button.dataset.testid = "lesson-choice";
    button.dataset.lesson = entry.id;
    button.setAttribute("aria-pressed", String(entry.id === state.lesson.id));
    const done = progress.doneSteps(entry.id).filter((n) => n <= entry.steps).length;
    button.dataset.done = String(done);
    button.append(el("strong", "", entry.title), el("span", "lesson-about", entry.about),
      el("span", "lesson-count", `${done} of ${entry.steps} steps done`));
    button.addEventListener("click", () => chooseLesson(entry.id));
    item.append(button);
    return item;
  }));
}

async function chooseLesson(id, step = 1, { focus = true } = {}) {
  if (id === state.lesson.id && state.lesson.steps.length && step === 1) {
    showStep(state.lesson.step);
    return $("lesson-heading").focus();
  }
  const box = $("lesson-picker");
  box.dataset.loading = id;
  let lesson = lessons[id];
  if (!lesson) {
    try {
      const response = await fetch(`lessons/${encodeURIComponent(id)}.json`);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      lesson = lessons[id] = await response.json();
    } catch (error) {
      delete box.dataset.loading;
      $("lesson-progress").textContent = `That lesson could not be loaded: ${error.message}`;
      return;
    }
  }
  delete box.dataset.loading;
  stopPlay();
  state.lesson.step = Math.max(1, Math.min(lesson.steps.length, step));
  useLesson(lesson);
  renderPicker();
  if (state.view !== "lesson") setView("lesson");
  showStep(state.lesson.step);
  if (focus) $("lesson-heading").focus();
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
  sayReady();
}

// From the lesson to the tool: the focus goes to the editor's heading, not the page's body.
function openTool() {
  setView("tool");
  $("input-heading").focus();
}

// The lesson after this one in the picker, if any.
const nextLesson = () => picker[picker.findIndex((entry) => entry.id === state.lesson.id) + 1] || null;

// `load`: put the step's input in the editor and check it (not at start: index.html holds step 1's).
// `seen`: the learner came to it (a step with nothing to answer is then done; not at start,
// where nothing is stored unless the learner does something, nor on "Start this lesson again").
export function showStep(number, { load = true, seen = load } = {}) {
  const steps = state.lesson.steps;
  if (!steps.length) return;
  const at = Math.max(1, Math.min(steps.length, number));
  state.lesson.step = at;
  const step = steps[at - 1];
  document.body.dataset.lessonFocus = step.focus || "";
  for (const article of $("lesson-steps").children) article.hidden = Number(article.dataset.step) !== at;
  const named = state.lesson.id === picker[0]?.id || !picker.length ? "Lesson" : `Lesson: ${state.lesson.title}`;
  $("lesson-where").textContent = `${named}, step ${at} of ${steps.length}:`;
  $("lesson-title").textContent = step.title;
  $("lesson-back").disabled = at === 1;
  const following = nextLesson();
  $("lesson-next").textContent = at < steps.length ? "Next step ▶" : following ? `Next lesson: ${following.title} ▶` : "Open the tool ▶";
  if (load) progress.keepPlace(state.lesson.id, at, picker[0]?.id);
  state.lesson.openChecks = Boolean(step.openChecks) && state.view === "lesson";
  renderClaim(step, at);
  renderWhy(step, at);
  renderExplore(step, at);
  renderTokens(step);
  const text = inputText(step);
  const description = `From the lesson ${state.lesson.title}, step ${at}: ${step.title}.`;
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
  // A step that asks nothing is done once seen; any other once its idea was shown (lesson-tasks.js).
  if (seen && !tasks.tasksOf(step).length) progress.markDone(state.lesson.id, at);
  renderProgress();
  revealResult();
  numbers.fillNumbers();
}

// ---------------------------------------------------------------- progress
// A step is done once the learner showed its idea (lesson-tasks.js; kept by progress.js).
function settle(step, at) {
  if (tasks.isShown(step, at)) progress.markDone(state.lesson.id, at);
  renderProgress();
}

function renderProgress() {
  const done = progress.doneSteps(state.lesson.id);
  const steps = state.lesson.steps.length;
  const here = done.includes(state.lesson.step);
  const line = $("lesson-progress");
  line.dataset.done = String(done.length);
  line.dataset.stepDone = String(here);
  const step = state.lesson.steps[state.lesson.step - 1];
  const todo = step ? tasks.taskLine(step, state.lesson.step) : "";
  const head = here ? "✓ This step is done" : todo ? "To show in this step" : "";
  line.textContent = `${head}${todo ? `: ${todo}` : ""}${head ? ". " : ""}${done.length} of ${steps} steps of this lesson done${done.length === steps ? ": the whole lesson." : "."}`;
  renderPicker();
}

function restart() {
  progress.forget(state.lesson.id);
  tasks.forgetShown();
  state.lesson.claims = {};
  state.lesson.whys = {};
  showStep(1, { seen: false });
  $("lesson-heading").focus();
}

// ---------------------------------------------------------------- numbers to drag
// A step's `explore`: {before, after, path, min, max, step, label, unit}, a sentence around one
// number of the input. Once the step's prediction is checked (or at once, when it asks none),
// dragging it changes that value in the editor's input, and the package's report follows (its
// summary is written after the sentence).
let exploreRun = 0;
async function renderExplore(step, at) {
  const box = $("lesson-explore");
  const spec = step.explore;
  const run = ++exploreRun;
  box.hidden = !spec || waitingForClaim(step, at);
  if (box.hidden) return box.replaceChildren();
  let dragNumber, valueAt, withValue;
  try {
    ({ dragNumber, valueAt, withValue } = await dragging());
  } catch (error) {
    box.replaceChildren(el("p", "error", `The number to drag could not be loaded: ${error.message}`));
    return;
  }
  if (run !== exploreRun) return;  // another step meanwhile
  const value = valueAt(step.input, spec.path);
  const number = dragNumber(spec, value, (now) => {
    const text = inputText({ input: withValue(step.input, spec.path, now) });
    setInput(text);
    setOrigin({ kind: "lesson", step: at, text, description: `From the lesson ${state.lesson.title}, step ${at}: ${step.title} (${spec.label} ${now}).` });
    $("lesson-explore-result").textContent = "Checking…";
    runCheck();
  });
  const line = el("p");
  line.append(el("strong", "", "Try it: "), ...numbers.prose(spec.before), number, ...numbers.prose(spec.after));
  const result = el("output", "explore-result", "");
  result.id = "lesson-explore-result";
  result.dataset.testid = "lesson-explore-result";
  result.setAttribute("aria-live", "polite");
  box.replaceChildren(line, result);
  if (shownSummary !== null) result.textContent = `→ ${shownSummary}`;
}

let shownSummary = null;  // the newest report's summary (the explore line may be drawn after it)

// The rule's choice for each input text checked (as JSON): a dragged number has shown the step's
// idea once the choice (or the pass) differs from the step's own input's.
const choices = new Map();
const choiceOf = (report) => JSON.stringify([report.pass, said(report, "kept")]);
const canonical = (text) => {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
};

onReportShown((report, text) => {
  if (numbers) numbers.noteReport(report, text);
  else if (report) shownBefore = { report, text };
  if (report && tasks) {
    choices.set(canonical(text), choiceOf(report));
    const at = state.lesson.step;
    const step = state.lesson.steps[at - 1];
    const own = step && choices.get(JSON.stringify(step.input));
    if (state.view === "lesson" && step?.explore && own && own !== choiceOf(report) && !tasks.hasShown(at, "explore")) {
      tasks.show(at, "explore");
      settle(step, at);
    }
  }
  shownSummary = report ? report.summary : null;
  const result = document.getElementById("lesson-explore-result");
  if (result && report) result.textContent = `→ ${report.summary}`;
});

// ---------------------------------------------------------------- where token counts come from
let tokensRun = 0;
async function renderTokens(step) {
  const box = $("lesson-tokens");
  const run = ++tokensRun;
  box.hidden = !step.tokens;
  if (!step.tokens) return box.replaceChildren();
  box.replaceChildren(el("p", "hint", "Counting each item's text…"));
  const tokenizer = step.input.tokenizer;
  const views = [];
  for (const item of step.input.items) {
    try {
      views.push([item, JSON.parse((await python.ask("tokens", item.content, tokenizer)).envelope)]);
    } catch (error) {
      if (run === tokensRun) box.replaceChildren(el("p", "error", `The tokenizer could not be loaded: ${error.message}`));
      return;
    }
    if (run !== tokensRun) return;
  }
  box.replaceChildren(el("h3", "", `Each item's text, cut into ${tokenizer} tokens`));
  for (const [item, view] of views) {
    const figure = el("figure", "token-item");
    figure.dataset.testid = "lesson-token-item";
    figure.dataset.id = item.id;
    figure.dataset.count = String(view.count);
    figure.append(el("figcaption", "", `${item.id}: “${item.content}” is ${view.count} tokens`));
    const list = el("ol", "token-chips");
    list.setAttribute("aria-label", `${item.id}'s tokens and their ids`);
    for (const segment of view.segments) {
      const chip = el("li", "token-chip");
      chip.dataset.testid = "token-chip";
      chip.append(el("span", "token-text", segment.text.replace(/ /g, "␣")), el("span", "token-id", segment.ids.join(" ")));
      list.append(chip);
    }
    figure.append(list);
    box.append(figure);
  }
  box.append(el("p", "hint", "␣ marks a space: most tokens start with one. The model receives the ids, not the text; the budget counts them."));
}

export function wireLesson() {
  // The step-through reached its last decision (items.js): a step about the decisions is shown.
  document.addEventListener("fitproof:last-decision", () => {
    const at = state.lesson.step;
    const step = state.lesson.steps[at - 1];
    if (state.view !== "lesson" || !step || !tasks || !tasks.tasksOf(step).includes("decisions")) return;
    tasks.show(at, "decisions");
    settle(step, at);
  });
  $("lesson-next").addEventListener("click", () => {
    if (state.lesson.step < state.lesson.steps.length) {
      showStep(state.lesson.step + 1);
      $("lesson-heading").focus({ preventScroll: false });
    } else if (nextLesson()) chooseLesson(nextLesson().id);
    else openTool();
  });
  $("lesson-back").addEventListener("click", () => {
    showStep(state.lesson.step - 1);
    $("lesson-heading").focus({ preventScroll: false });
  });
  $("lesson-edit").addEventListener("click", openTool);
  $("lesson-restart").addEventListener("click", restart);
  $("show-lesson").addEventListener("click", () => {
    setView("lesson");
    showStep(state.lesson.step);
  });
  $("show-tool").addEventListener("click", () => setView("tool"));
  wireAnswers((step, at, what) => {
    if (what === "claim") renderExplore(step, at);  // a step may show it only once the prediction is checked
    settle(step, at);
  });
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
