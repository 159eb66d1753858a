// Stepping through the decisions: Previous, Next, Play, and the arrow keys.

import { $ } from "./dom.js";
import { state } from "./state.js";
import { setStep, shown, stepCount } from "./items.js";

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const PLAY_MS = 1400;          // one decision per beat, time to read the sentence
const PLAY_MS_REDUCED = 3000;  // with reduced motion: no animation, a slower pace

function step(delta) {
  const total = stepCount();
  if (!total) return;
  const current = shown.step;
  const next = current === null ? 0 : Math.max(0, Math.min(total - 1, current + delta));
  setStep(next, { smooth: !reducedMotion.matches });
}

function renderPlay(playing) {
  $("step-play").textContent = playing ? "❚❚ Pause" : "▶ Play";
  $("step-play").setAttribute("aria-pressed", String(playing));
}

export function stopPlay() {
  clearInterval(state.step.playTimer);
  state.step.playTimer = null;
  renderPlay(false);
}

function play() {
  if (state.step.playTimer) return stopPlay();
  const total = stepCount();
  if (!total) return;
  if (shown.step === null || shown.step >= total - 1) setStep(0, { smooth: !reducedMotion.matches });
  renderPlay(true);
  state.step.playTimer = setInterval(() => {
    if (shown.step === null || shown.step >= stepCount() - 1) return stopPlay();
    step(1);
  }, reducedMotion.matches ? PLAY_MS_REDUCED : PLAY_MS);
}

export function wireSteps() {
  $("step-prev").addEventListener("click", () => { stopPlay(); step(-1); });
  $("step-next").addEventListener("click", () => { stopPlay(); step(1); });
  $("step-play").addEventListener("click", play);
  $("steps-block").addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowRight") { stopPlay(); step(1); event.preventDefault(); }
    if (event.key === "ArrowLeft") { stopPlay(); step(-1); event.preventDefault(); }
  });
}
