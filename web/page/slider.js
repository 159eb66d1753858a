// The budget slider. It edits the number in the JSON text (the JSON stays the source of
// truth) and re-checks.

import { $ } from "./dom.js";
import { currentText, state } from "./state.js";
import * as editor from "./editor.js";
import { MODES } from "../common/modes.js";
import { shown } from "./items.js";
import { scheduleCheck, windowOf } from "./check.js";
import { editedByPage, setInput } from "./input.js";

// A large input is not rewritten in the editor at every step of the slider: replacing a
// textarea's text makes the browser lay all of it out again, which for a few MB takes long
// enough to freeze the page per step. Its text with the slider's number is checked at once
// and put in the editor when the slider has been still for a moment.
const LARGE_EDIT = 200_000;
const SETTLE_MS = 800;

// The range and number for the report on screen (after each check).
export function updateSlider(report, text, about = {}) {
  if (!report && shown.report && !$("slider-block").hidden) {
    // The input is invalid and the last valid report stays: so does the slider, with its range,
    // to slide back to a budget that works. It shows the number as written (-1, say).
    const mode = MODES[shown.report.mode];
    const written = mode && editor.literalAt(text, mode.slider.path);
    if (written !== null && written !== undefined) $("slider-value").textContent = written;
    return;
  }
  const mode = report && MODES[report.mode];
  const path = mode && mode.slider.path;
  const value = path ? editor.numberAt(text, path) : null;
  $("slider-block").hidden = value === null;
  if (value === null) return;
  const slider = $("budget-slider");
  $("slider-label").textContent = `${mode.slider.label} (${mode.unit(report)}s)`;
  $("slider-value").textContent = String(value);
  if (state.slider.moving) return;  // keep the range still under the user's finger
  let low = 0;
  // Every cost (the store's sum: the trace in hand may be its first page only), so that the
  // slider reaches "everything fits".
  let needed = about.needed ?? (report.trace || []).reduce((sum, row) => sum + (row.tokens ?? row.cost ?? 0), 0);
  if (report.mode === "blocks") {
    const window = windowOf(text);
    low = (window.reserved_output_tokens ?? 0) + (window.fixed_prompt_tokens ?? 0);
    needed += low;
  } else if (mode.base && Array.isArray(report.trace)) {
    needed += mode.base(report);
  }
  slider.min = String(low);
  slider.max = String(Math.max(value, Math.ceil(needed * 1.25), low + 10));
  slider.value = String(value);
}

// The slider's number put in the editor now, if it is not there yet.
export function settleSlider() {
  if (state.slider.pendingText !== null) setInput(state.slider.pendingText);  // which drops it and its timer
}

export function wireSlider() {
  $("budget-slider").addEventListener("input", () => {
    const report = shown.report;
    const mode = report && MODES[report.mode];
    if (!mode) return;
    const text = editor.withNumber(currentText(), mode.slider.path, $("budget-slider").value);
    if (text === null) return;
    state.slider.moving = true;
    if (text.length > LARGE_EDIT) {
      state.slider.pendingText = text;
      clearTimeout(state.slider.timer);
      state.slider.timer = setTimeout(settleSlider, SETTLE_MS);
    } else {
      setInput(text);
    }
    $("slider-value").textContent = $("budget-slider").value;
    editedByPage();
    scheduleCheck(text.length > LARGE_EDIT ? undefined : 20);
  });
  $("budget-slider").addEventListener("change", () => { state.slider.moving = false; });
  // Anything done elsewhere sees the slider's number in the editor first; "beforeinput" also
  // catches what reaches the editor without a key or a click (a drop, dictation, an IME, a menu's paste).
  for (const kind of ["pointerdown", "keydown", "focusin", "beforeinput"]) {
    document.addEventListener(kind, (event) => { if (event.target !== $("budget-slider")) settleSlider(); }, true);
  }
}
