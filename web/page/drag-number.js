// A number in the lesson's text that can be dragged (or moved with the arrow keys): the budget,
// a limit, a cost. It changes one value of the step's input and the page checks it again, so
// the result that follows is the package's; this file only moves the number.

import { el } from "./dom.js";

const PIXELS_PER_STEP = 8;

// `spec`: {path: [keys], min, max, step, label, unit}; `onChange(value)` after each move.
export function dragNumber(spec, value, onChange) {
  const node = el("span", "drag-number");
  node.tabIndex = 0;
  node.setAttribute("role", "slider");
  node.dataset.testid = "drag-number";
  node.setAttribute("aria-label", spec.label);
  node.setAttribute("aria-valuemin", String(spec.min));
  node.setAttribute("aria-valuemax", String(spec.max));
  node.setAttribute("aria-orientation", "horizontal");
  node.title = "Drag sideways, or use the arrow keys";
  const step = spec.step || 1;
  let now = value;
  const show = () => {
    node.textContent = String(now);
    node.setAttribute("aria-valuenow", String(now));
    node.setAttribute("aria-valuetext", `${now} ${spec.unit || ""}`.trim());
  };
  const set = (wanted) => {
    const next = Math.max(spec.min, Math.min(spec.max, spec.min + Math.round((wanted - spec.min) / step) * step));
    if (next === now) return;
    now = next;
    show();
    onChange(now);
  };
  show();
  node.addEventListener("keydown", (event) => {
    const moves = { ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step, PageUp: 5 * step, PageDown: -5 * step };
    if (event.key in moves) set(now + moves[event.key]);
    else if (event.key === "Home") set(spec.min);
    else if (event.key === "End") set(spec.max);
    else return;
    event.preventDefault();
  });
  let start = null;
  node.addEventListener("pointerdown", (event) => {
    start = { x: event.clientX, value: now };
    node.setPointerCapture(event.pointerId);
    node.classList.add("dragging");
  });
  node.addEventListener("pointermove", (event) => {
    if (start) set(start.value + Math.round((event.clientX - start.x) / PIXELS_PER_STEP) * step);
  });
  const end = () => { start = null; node.classList.remove("dragging"); };
  node.addEventListener("pointerup", end);
  node.addEventListener("pointercancel", end);
  return node;
}

// The value at `path` in `data`, and a copy of `data` with another value there.
export const valueAt = (data, path) => path.reduce((value, key) => value[key], data);
export function withValue(data, path, value) {
  const copy = JSON.parse(JSON.stringify(data));
  let place = copy;
  for (const key of path.slice(0, -1)) place = place[key];
  place[path[path.length - 1]] = value;
  return copy;
}
