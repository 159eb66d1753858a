// The budget bar: one segment per kept item in the order considered, a ghost for each
// left-out item (what it needed against what remained at its turn), in `blocks` the
// whole window, and failures drawn as failures. Everything is read from the report.

import { count, costOf } from "../common/modes.js";
import { el } from "./dom.js";

const MAX_GHOSTS = 12;  // ghost lanes drawn; the table lists every left-out item

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
  // The budget is the scale: every lane starts at 0 and the budget ends at the same place in
  // each. What overflows is drawn past that end, in a margin of at most half the budget (a
  // longer overflow is cut there, and says so); with nothing past the end, the budget fills the lane.
  const scale = capacity > 0 ? Math.min(reach, capacity * OVERFLOW_SHOWN) : Math.max(reach, 1);
  return { capacity, base, kept, ghosts, leftOut, used, scale: Math.max(scale, 1), rest: { ...rest, start: restStart } };
}

const OVERFLOW_SHOWN = 1.5;  // the lanes show up to 1.5 times the budget

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
// `extra`: how far a left-out block reaches past the available tokens (drawn past the window's
// end, up to a quarter of the window more).
function windowLanes(report, window, unit, extra) {
  const { context_tokens: context, reserved_output_tokens: reserved, fixed_prompt_tokens: fixed } = window;
  if (![context, reserved, fixed].every((value) => typeof value === "number")) return null;
  const room = context - reserved;
  const rendered = report.rendered_tokens;
  const scale = Math.max(context + Math.min(extra, context / 4), reserved + rendered, 1);
  const box = el("div", "window-lanes");
  const lane = el("div", "bar-lane window-lane");
  lane.setAttribute("role", "img");
  lane.setAttribute("aria-label", `The window: ${count(context, unit)} = ${reserved} reserved for the output + ${fixed} fixed prompt + ${report.available} available for blocks.`);
  for (const [name, start, amount, label] of [
    ["reserved", 0, reserved, `reserved output ${reserved}`],
    ["fixed", reserved, fixed, `fixed prompt ${fixed}`],
    ["available", reserved + fixed, report.available, `available ${report.available}`],
  ]) {
    const part = place(el("span", `window-part ${name}`), start, amount, scale);
    part.title = label;
    part.append(fittedName(label, amount));
    lane.append(part);
  }
  const prompt = el("div", "bar-lane prompt-lane");
  const over = Math.max(0, rendered - room);
  prompt.setAttribute("role", "img");
  prompt.setAttribute("aria-label", `The composed prompt estimates ${count(rendered, unit)}: ${report.rendered_overhead} of headers, system and task plus ${report.used} of blocks, ${over ? `${over} over` : "within"} the ${room} the window leaves after the reserved output.`);
  const promptPart = (className, full, amount, start, length) => {
    const part = place(el("span", `prompt-part ${className}`), start, length, scale);
    part.title = full;
    part.append(fittedName(full, amount));
    return part;
  };
  prompt.append(
    promptPart("overhead", `headers ${report.rendered_overhead}`, report.rendered_overhead, reserved, report.rendered_overhead),
    promptPart("blocks", `blocks ${report.used}`, report.used, reserved + report.rendered_overhead, report.used),
  );
  if (over) prompt.append(promptPart("over", `${over} over`, `+${over}`, room, over));
  prompt.append(limitLine(room, scale));
  box.append(el("p", "lane-label", `The window, ${count(context, unit)}`), lane,
    el("p", "lane-label", `The composed prompt as rendered: ${rendered} of the ${room} left after the reserved output`), prompt,
    el("p", "lane-label", `The ${report.available} available for blocks, block by block`));
  return { box, scale, offset: reserved + fixed };
}

function limitLine(at, scale) {
  const line = place(el("span", "bar-limit"), at, 0, scale);
  line.setAttribute("aria-hidden", "true");  // the legend says where the budget ends
  return line;
}

function segment(entry, scale, unit, className, label) {
  // Cut at the lane's end (1.5 times the budget): the label says the whole cost.
  const shown = Math.max(0, Math.min(entry.cost, scale - entry.start));
  const node = place(el("span", className), entry.start, shown, scale);
  node.dataset.id = entry.row.id;
  node.dataset.cost = String(entry.cost);
  node.dataset.index = String(entry.index);
  node.setAttribute("role", "listitem");
  node.tabIndex = -1;
  node.title = label;
  node.dataset.label = label;
  node.append(segmentName(entry.row.id, entry.cost), el("span", "visually-hidden", label));
  return node;
}

// A segment's id and count ("A 4"), shown where they fit: else the id alone, else nothing
// (the segment's title and its hidden text still say both). fitLabels() decides once drawn.
export const segmentName = (id, cost) => fittedName(`${id} ${cost}`, id);

function fittedName(full, short) {
  const name = el("span", "segment-name");
  name.setAttribute("aria-hidden", "true");  // the lane's label says it in words
  name.dataset.full = full;
  name.dataset.short = String(short);
  name.textContent = full;
  return name;
}

export function fitLabels(root) {
  for (const name of root.querySelectorAll(".segment-name[data-full]")) {
    name.textContent = name.dataset.full;
    name.classList.remove("no-fit");
    if (name.scrollWidth <= name.clientWidth + 1) continue;
    name.textContent = name.dataset.short;
    if (name.scrollWidth > name.clientWidth + 1) name.classList.add("no-fit");
  }
}
if (typeof ResizeObserver !== "undefined") {
  const refit = new ResizeObserver((entries) => { for (const entry of entries) fitLabels(entry.target); });
  // Every bar drawn into the page is watched (a narrower window refits its labels).
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) {
      if (node.nodeType === 1 && node.matches(".budget, .compare-bars")) refit.observe(node);
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
  for (const id of ["budget-block", "compare-bars"]) { const node = document.getElementById(id); if (node) refit.observe(node); }
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
  const failure = failureOf(report);
  block.classList.toggle("failed", Boolean(failure));
  block.append(el("h3", "", "Budget"));
  if (failure) block.append(el("p", "failure-badge", `✗ ${failure}`));
  // In blocks, the lanes below sit under the window's "available" part, on the window's scale.
  let inset = null;  // {marginLeft, width} of each lane, under the window's "available" part
  let cutNote = "(drawn up to 1.5 times the budget)";
  if (report.mode === "blocks" && window) {
    const extra = Math.max(0, ...model.ghosts.map((entry) => entry.start + entry.cost - model.capacity));
    const lanes = windowLanes(report, window, unit, extra);
    if (lanes) {
      block.append(lanes.box);
      inset = { marginLeft: percent(lanes.offset, lanes.scale), width: percent(lanes.scale - lanes.offset, lanes.scale) };
      model.scale = Math.max(lanes.scale - lanes.offset, 1);
      cutNote = "(drawn up to a quarter of the window past its end)";
    }
  }
  const onScale = (node) => {
    if (inset) Object.assign(node.style, inset);
    return node;
  };
  const { scale } = model;
  const legend = legendOf(report, model, unit);
  const bar = onScale(el("div", "budget-bar"));
  bar.id = "budget-bar";
  bar.dataset.testid = "budget-bar";
  bar.setAttribute("role", "list");
  bar.setAttribute("aria-label", `Budget: ${legend}`);
  bar.tabIndex = 0;
  bar.addEventListener("keydown", barKeys);
  if (model.base) {
    const base = place(el("span", "bar-base"), 0, model.base, scale);
    base.title = `question and headings: ${count(model.base, unit)}`;
    base.append(fittedName(`question ${model.base}`, "question"), el("span", "visually-hidden", base.title));
    base.setAttribute("role", "listitem");
    bar.append(base);
  }
  // The free part of the budget, and nothing past its end: the lane past it is not room.
  const usedEnd = Math.min(model.capacity, model.base + model.used);
  if (model.capacity > usedEnd) {
    const room = place(el("span", "bar-room"), usedEnd, model.capacity - usedEnd, scale);
    room.setAttribute("aria-hidden", "true");
    bar.append(room);
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
      const shownCost = Math.max(0, Math.min(entry.cost, scale - entry.start));
      const failing = entry.row.reason === "required_items_exceed_budget" || entry.row.reason === "required_block_too_large_for_budget";
      const label = {
        not_considered_required_overflow: `${entry.row.id}: not considered`,
        required_items_exceed_budget: `${entry.row.id}: required, needs ${count(entry.cost, unit)}; the required items need ${entry.start + entry.cost} so far`,
      }[entry.row.reason] || `${entry.row.id}: needs ${count(entry.cost, unit)}, ${room} remained`;
      const lane = el("div", "ghost-lane");
      lane.dataset.index = String(entry.index);
      lane.setAttribute("role", "listitem");
      const track = onScale(el("div", "ghost-track"));
      track.append(place(el("span", "ghost-room"), entry.start, room, scale));
      const ghost = segment(entry, scale, unit, `bar-ghost${failing ? " fail" : ""}`, label);
      ghost.dataset.testid = "bar-ghost";
      ghost.removeAttribute("role");
      // Past the budget's end: hatched, never in the colour of free room.
      if (over && shownCost > entry.cost - over) ghost.append(place(el("span", "ghost-over"), (100 * (entry.cost - over)) / shownCost, (100 * (shownCost - entry.cost + over)) / shownCost, 100));
      if (shownCost < entry.cost) ghost.classList.add("cut");
      track.append(ghost, limitLine(model.capacity, scale));
      lane.append(el("span", "ghost-label", shownCost < entry.cost ? `${label} ${cutNote}` : label), track);
      lanes.append(lane);
    }
    if (model.leftOut > model.ghosts.length) {
      lanes.append(el("p", "lane-label", `and ${count(model.leftOut - model.ghosts.length, "more item")} left out: see the table.`));
    }
    block.append(lanes);
  }
  const legendNode = el("p", "legend", legend);
  legendNode.id = "budget-legend";
  legendNode.dataset.final = legend;
  block.append(legendNode, keyOf(report, model));
  drawn.set(block, { model, unit, report });
  requestAnimationFrame(() => fitLabels(block));
  return true;
}

const drawn = new WeakMap();  // block -> what renderBar drew, for the step-through's legend

// While stepping, the legend says where the budget stands after the current decision (not the
// final outcome, which the last step reaches).
function stepLegend(block, step) {
  const legend = block.querySelector("#budget-legend");
  const { model, unit, report } = drawn.get(block) || {};
  if (!legend || !model) return;
  const row = step === null ? null : (report.trace || [])[step];
  if (!row || typeof row.remaining_before !== "number" || row.reason === "required_items_exceed_budget" || row.reason === "not_considered_required_overflow") {
    legend.textContent = legend.dataset.final;
    return;
  }
  const cost = costOf(row);
  const left = row.kept ? row.remaining_before - cost : row.remaining_before;
  const usedNow = model.capacity - left;
  legend.textContent = `After decision ${step + 1}: ${row.kept ? "kept" : "left out"} ${row.id ?? `#${row.index}`}; ${usedNow} of ${count(model.capacity, unit)} used, ${left} remaining.`;
}

function keyOf(report, model) {
  const key = el("p", "bar-key");
  key.setAttribute("aria-hidden", "true");  // the legend and each segment's text say the same in words
  const swatch = (className, text) => {
    const item = el("span", "key-item");
    item.append(el("span", `swatch ${className}`), text);
    return item;
  };
  key.append(swatch("kept", "kept item"), swatch("room", "free room in the budget"));
  if (model.ghosts.length) key.append(swatch("ghost", "left out: what it needed"));
  if (model.ghosts.some((entry) => entry.start + entry.cost > model.capacity)) key.append(swatch("over", "past the end of the budget"));
  key.append(swatch("limit", report.mode === "passages" ? "the limit" : "end of the budget"));
  if (model.base) key.append(swatch("base", "question and headings"));
  return key;
}

// The step-through: items after `step` are hidden, the one at `step` is marked.
export function showStep(block, step) {
  block.classList.toggle("stepping", step !== null);
  stepLegend(block, step);
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
