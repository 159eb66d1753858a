// Which lesson steps are done, kept in this browser (localStorage, one key): {lesson id: [step
// numbers]}; and where the learner is (another key, {lesson, step}), so that a reload comes back
// there. Nothing else is stored; "Start this lesson again" forgets a lesson's steps. Without
// storage (a blocked or full one) progress lasts as long as the page.

const KEY = "fitproof-lessons";
let memory = {};

function read() {
  try {
    const text = window.localStorage.getItem(KEY);
    const value = text ? JSON.parse(text) : {};
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return memory;
  }
}

function write(value) {
  memory = value;
  try {
    if (Object.keys(value).length) window.localStorage.setItem(KEY, JSON.stringify(value));
    else window.localStorage.removeItem(KEY);
  } catch {
    // storage refused: kept in memory only
  }
}

export function doneSteps(lesson) {
  const steps = read()[lesson];
  return Array.isArray(steps) ? steps.filter((n) => Number.isInteger(n)) : [];
}

export function markDone(lesson, step) {
  const all = read();
  const steps = doneSteps(lesson);
  if (steps.includes(step)) return;
  all[lesson] = [...steps, step].sort((a, b) => a - b);
  write(all);
}

export function forget(lesson) {
  const all = read();
  delete all[lesson];
  write(all);
}

// ---------------------------------------------------------------- where the learner is
const PLACE = "fitproof-lesson-at";

export function place() {
  try {
    const value = JSON.parse(window.localStorage.getItem(PLACE) || "null");
    return value && typeof value.lesson === "string" && Number.isInteger(value.step) ? value : null;
  } catch {
    return null;
  }
}

// Kept only once the learner has moved: the first step of the first lesson is where a page opens.
export function keepPlace(lesson, step, first) {
  try {
    const here = place();
    if (here && here.lesson === lesson && here.step === step) return;
    if (!here && step === 1 && lesson === first) return;
    window.localStorage.setItem(PLACE, JSON.stringify({ lesson, step }));
  } catch {
    // storage refused: a reload starts at the first step
  }
}
