// The budget bar: one segment per kept item in the order considered, a ghost for each
// left-out item (what it needed against what remained at its turn), in `blocks` the
// whole window, and failures drawn as failures. Everything is read from the report.

import { count, costOf } from "../common/modes.js";

const MAX_GHOSTS = 12;  // ghost lanes drawn; the table lists every left-out item

export const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
};
export const percent = (amount, scale) => `${(100 * amount) / scale}%`;

function place(node, start, amount, scale) {
  node.style.left = percent(start, scale);
  node.style.width = percent(amount, scale);
  return node;
}

// Each kept or left-out row with the offset where it was measured: what the budget had
// already given away before it.
function layout(report, mode, { total, rest }) {
  const capacity = mode.capacity(report);
  const trace = Array.isArray(report.trace) ? report.trace : [];  // the first page of rows
  const base = mode.base ? mode.base(report) : 0;
  const kept = [];
  const ghosts = [];
  let requiredSoFar = 0;
  trace.forEach((row, index) => {
    const cost = costOf(row);
    if (typeof cost !== "number") return;
    // Required items that overflow are measured together, one after another.
    const start = row.reason === "required_items_exceed_budget" ? requiredSoFar : capacity - row.remaining_before;
    if (row.reason === "required_items_exceed_budget") requiredSoFar += cost;
    if (row.kept) kept.push({ row, index, start, cost });
    else if (ghosts.length < MAX_GHOSTS) ghosts.push({ row, index, start, cost });
  });
  const leftOut = total - kept.length - rest.count;
  const used = typeof report.used === "number" ? report.used : typeof report.units === "number" ? report.units - base : 0;
  const reach = Math.max(capacity, base + used, ...ghosts.map((ghost) => ghost.start + ghost.cost), requiredSoFar);
  const restStart = rest.remainingBefore === null ? null : capacity - rest.remainingBefore;
  return { capacity, base, kept, ghosts, leftOut, used, scale: Math.max(reach, 1), rest: { ...rest, start: restStart } };
}

function failureOf(report) {
  if (report.shortfall) return `Fails: the required items need ${report.shortfall} more than the budget.`;
  if (report.can_proceed === false) return "Cannot proceed: a required block does not fit.";
  const rendered = (report.checks || []).find((check) => check.name === "rendered prompt fits window");
  if (rendered && !rendered.pass) return "Fails: the composed prompt is larger than the window allows.";
  return null;
}

function legendOf(report, model, unit) {
  const { capacity, base, used, leftOut } = model;
  if (report.shortfall) {
    return `The required items need ${count(capacity + report.shortfall, unit)}: ${report.shortfall} more than the budget of ${capacity}. Nothing is selected.`;
  }
  const whatLeft = leftOut ? ` ${count(leftOut, "item")} left out.` : "";
  if (report.mode === "passages") {
    return `The prompt counts ${report.units} of ${count(capacity, unit)}: ${base} for the question and headings, ${used} for the passages kept; ${capacity - report.units} remaining.${whatLeft}`;
  }
  const what = report.mode === "blocks" ? "available " : "";
  let legend = `Used ${used} of ${count(capacity, what + unit)}; ${capacity - used} remaining.${whatLeft}`;
  if (report.rendered_overhead !== undefined) {
    legend += ` Rendered prompt overhead: ${count(report.rendered_overhead, unit)} of headers, system and task, ${report.rendered_tokens} in all.`;
  }
  return legend;
}

// The whole window of a blocks run: reserved output | fixed prompt | available, and
// under it the composed prompt as rendered (overhead, then the blocks kept).
function windowLanes(report, window, unit) {
  const { context_tokens: context, reserved_output_tokens: reserved, fixed_prompt_tokens: fixed } = window;
  if (![context, reserved, fixed].every((value) => typeof value === "number")) return null;
  const room = context - reserved;
  const rendered = report.rendered_tokens;
  const scale = Math.max(context, reserved + rendered, 1);
  const box = el("div", "window-lanes");
  const lane = el("div", "bar-lane window-lane");
  lane.setAttribute("role", "img");
  lane.setAttribute("aria-label", `The window: ${count(context, unit)} = ${reserved} reserved for the output + ${fixed} fixed prompt + ${report.available} available for blocks.`);
  for (const [name, start, amount, label] of [
    ["reserved", 0, reserved, `reserved output ${reserved}`],
    ["fixed", reserved, fixed, `fixed prompt ${fixed}`],
    ["available", reserved + fixed, report.available, `available ${report.available}`],
  ]) {
    const part = place(el("span", `window-part ${name}`, label), start, amount, scale);
    part.title = label;
    lane.append(part);
  }
  const prompt = el("div", "bar-lane prompt-lane");
  const over = Math.max(0, rendered - room);
  prompt.setAttribute("role", "img");
  prompt.setAttribute("aria-label", `The composed prompt estimates ${count(rendered, unit)}: ${report.rendered_overhead} of headers, system and task plus ${report.used} of blocks, ${over ? `${over} over` : "within"} the ${room} the window leaves after the reserved output.`);
  prompt.append(
    place(el("span", "prompt-part overhead", `headers ${report.rendered_overhead}`), reserved, report.rendered_overhead, scale),
    place(el("span", "prompt-part blocks", `blocks ${report.used}`), reserved + report.rendered_overhead, report.used, scale),
  );
  if (over) prompt.append(place(el("span", "prompt-part over", `${over} over`), room, over, scale));
  prompt.append(limitLine(room, scale));
  box.append(el("p", "lane-label", `The window, ${count(context, unit)}`), lane,
    el("p", "lane-label", `The composed prompt as rendered: ${rendered} of the ${room} left after the reserved output`), prompt,
    el("p", "lane-label", `The ${report.available} available for blocks, block by block`));
  return box;
}

function limitLine(at, scale) {
  const line = place(el("span", "bar-limit"), at, 0, scale);
  line.setAttribute("aria-hidden", "true");  // the legend says where the budget ends
  return line;
}

function segment(entry, scale, unit, className, label) {
  const node = place(el("span", className), entry.start, entry.cost, scale);
  node.dataset.id = entry.row.id;
  node.dataset.index = String(entry.index);
  node.setAttribute("role", "listitem");
  node.tabIndex = -1;
  node.title = label;
  node.dataset.label = label;
  node.append(el("span", "segment-name", entry.row.id), el("span", "visually-hidden", label));
  return node;
}

// Renders into `block` (the #budget-block element). `report.trace` may be the first page
// of rows only: `total` counts them all and `rest` sums the kept ones past that page.
// `window` is the blocks input's window.
export function renderBar(block, report, mode, { total, rest, window }) {
  const capacity = mode.capacity(report);
  block.replaceChildren();
  if (typeof capacity !== "number") return false;
  const unit = mode.unit(report);
  const model = layout(report, mode, { total, rest });
  const { scale } = model;
  const failure = failureOf(report);
  block.classList.toggle("failed", Boolean(failure));
  block.append(el("h3", "", "Budget"));
  if (failure) block.append(el("p", "failure-badge", `✗ ${failure}`));
  if (report.mode === "blocks" && window) {
    const lanes = windowLanes(report, window, unit);
    if (lanes) block.append(lanes);
  }
  const legend = legendOf(report, model, unit);
  const bar = el("div", "budget-bar");
  bar.id = "budget-bar";
  bar.dataset.testid = "budget-bar";
  bar.setAttribute("role", "list");
  bar.setAttribute("aria-label", `Budget: ${legend}`);
  bar.tabIndex = 0;
  bar.addEventListener("keydown", barKeys);
  if (model.base) {
    const base = place(el("span", "bar-base"), 0, model.base, scale);
    base.title = `question and headings: ${count(model.base, unit)}`;
    base.append(el("span", "segment-name", "question"), el("span", "visually-hidden", base.title));
    base.setAttribute("role", "listitem");
    bar.append(base);
  }
  for (const entry of model.kept) {
    const label = `${entry.row.id}: ${count(entry.cost, unit)}, kept`;
    const node = segment(entry, scale, unit, "bar-segment", label);
    node.dataset.testid = "bar-segment";
    bar.append(node);
  }
  if (model.rest.count) {
    const rest = place(el("span", "bar-rest"), model.rest.start, model.rest.amount, scale);
    rest.dataset.index = String(report.trace.length);
    rest.title = `${count(model.rest.count, "more kept item")}: ${count(model.rest.amount, unit)}`;
    rest.append(el("span", "visually-hidden", rest.title));
    rest.setAttribute("role", "listitem");
    bar.append(rest);
  }
  bar.append(limitLine(model.capacity, scale));
  // What the focused segment is, in words, for keyboard users (hover shows the title).
  const focusNote = el("p", "bar-focus");
  focusNote.setAttribute("aria-hidden", "true");
  bar.addEventListener("focusin", (event) => { focusNote.textContent = event.target.dataset.label || ""; });
  bar.addEventListener("focusout", () => { focusNote.textContent = ""; });
  block.append(bar, focusNote);

  if (model.ghosts.length) {
    const lanes = el("div", "ghost-lanes");
    lanes.setAttribute("role", "list");
    lanes.setAttribute("aria-label", "Left-out items: what each needed against what remained at its turn");
    for (const entry of model.ghosts) {
      const room = Math.max(0, model.capacity - entry.start);
      const over = Math.max(0, entry.start + entry.cost - model.capacity);
      const failing = entry.row.reason === "required_items_exceed_budget" || entry.row.reason === "required_block_too_large_for_budget";
      const label = {
        not_considered_required_overflow: `${entry.row.id}: not considered`,
        required_items_exceed_budget: `${entry.row.id}: required, needs ${count(entry.cost, unit)}; the required items need ${entry.start + entry.cost} so far`,
      }[entry.row.reason] || `${entry.row.id}: needs ${count(entry.cost, unit)}, ${room} remained`;
      const lane = el("div", "ghost-lane");
      lane.dataset.index = String(entry.index);
      lane.setAttribute("role", "listitem");
      const track = el("div", "ghost-track");
      track.append(place(el("span", "ghost-room"), entry.start, room, scale));
      const ghost = segment(entry, scale, unit, `bar-ghost${failing ? " fail" : ""}`, label);
      ghost.dataset.testid = "bar-ghost";
      ghost.removeAttribute("role");
      if (over) ghost.append(place(el("span", "ghost-over"), (100 * (entry.cost - over)) / entry.cost, (100 * over) / entry.cost, 100));
      track.append(ghost, limitLine(model.capacity, scale));
      lane.append(el("span", "ghost-label", label), track);
      lanes.append(lane);
    }
    if (model.leftOut > model.ghosts.length) {
      lanes.append(el("p", "lane-label", `and ${count(model.leftOut - model.ghosts.length, "more item")} left out: see the table.`));
    }
    block.append(lanes);
  }
  const legendNode = el("p", "legend", legend);
  legendNode.id = "budget-legend";
  block.append(legendNode, keyOf(report, model));
  return true;
}

function keyOf(report, model) {
  const key = el("p", "bar-key");
  key.setAttribute("aria-hidden", "true");  // the legend and each segment's text say the same in words
  const swatch = (className, text) => {
    const item = el("span", "key-item");
    item.append(el("span", `swatch ${className}`), text);
    return item;
  };
  key.append(swatch("kept", "kept item"));
  if (model.ghosts.length) key.append(swatch("ghost", "left out: what it needed"), swatch("room", "what remained at its turn"));
  key.append(swatch("limit", report.mode === "passages" ? "the limit" : "end of the budget"));
  if (model.base) key.append(swatch("base", "question and headings"));
  return key;
}

// The step-through: items after `step` are hidden, the one at `step` is marked.
export function showStep(block, step) {
  block.classList.toggle("stepping", step !== null);
  for (const node of block.querySelectorAll("[data-index]")) {
    const index = Number(node.dataset.index);
    node.classList.toggle("pending", step !== null && index > step);
    node.classList.toggle("current", index === step);
  }
}

// Arrow keys move between the bar's segments, so one Tab stop reaches every label.
function barKeys(event) {
  if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
  const bar = event.currentTarget;
  const items = [...bar.querySelectorAll("[role=listitem]")];
  if (!items.length) return;
  const at = items.indexOf(document.activeElement);
  const next = event.key === "ArrowRight" ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1);
  items[next].tabIndex = -1;
  items[next].focus();
  event.preventDefault();
}
