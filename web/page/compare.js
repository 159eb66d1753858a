// The counterexample shown: what greedy kept and the best combination within the same
// budget, as two bars on one scale (the budget), each with its items, total cost and total
// score. Everything comes from the report: the trace's costs and scores, `selected`, and
// `optimal` (the best subset, found and verified in Python).

import { count, costOf } from "../common/modes.js";
import { el } from "./dom.js";
import { percent, segmentName, fitLabels } from "./bar.js";

// The number a mode's best combination maximises, named as the report's trace names it.
const SCORE_KEYS = ["relevance", "priority"];
const scoreKey = (row) => SCORE_KEYS.find((key) => typeof row[key] === "number");

// A sum as a person reads it (0.9 + 0.8 is 1.7000000000000002 in doubles).
const plain = (value) => String(Number(value.toPrecision(15)));

function bar(testid, title, rows, capacity, unit, key) {
  const cost = rows.reduce((sum, row) => sum + costOf(row), 0);
  const score = rows.reduce((sum, row) => sum + row[key], 0);
  const box = el("div", "compare");
  const caption = `${title}: ${rows.map((row) => row.id).join(" + ") || "nothing"}, ${cost} of ${count(capacity, unit)}, score ${plain(score)}`;
  box.append(el("p", "lane-label compare-label", caption));
  const lane = el("div", "compare-bar");
  lane.dataset.testid = testid;
  lane.dataset.cost = String(cost);
  lane.dataset.score = String(score);
  lane.setAttribute("role", "img");
  lane.setAttribute("aria-label", caption);
  let at = 0;
  for (const row of rows) {
    const part = el("span", "compare-part");
    part.dataset.id = row.id;
    part.dataset.cost = String(costOf(row));
    part.style.left = percent(at, capacity);
    part.style.width = percent(costOf(row), capacity);
    part.title = `${row.id}: ${count(costOf(row), unit)}, ${key} ${plain(row[key])}`;
    part.append(segmentName(row.id, costOf(row)));
    lane.append(part);
    at += costOf(row);
  }
  if (at < capacity) {
    const room = el("span", "bar-room");
    room.style.left = percent(at, capacity);
    room.style.width = percent(capacity - at, capacity);
    lane.append(room);
  }
  box.append(lane);
  return box;
}

// Into `box`: the two bars when a better combination exists and every row it names is in hand
// (a trace shown a page at a time may not hold them all); otherwise nothing.
export function renderComparison(box, report, capacity, unit) {
  box.replaceChildren();
  const optimal = report.optimal;
  if (!optimal || !optimal.exact || !(optimal.value > optimal.greedy_value) || !(capacity > 0)) return false;
  const rows = new Map((report.trace || []).map((row) => [row.id, row]));
  const greedy = (report.selected || report.included?.map((block) => block.id) || []).map((id) => rows.get(id));
  const best = optimal.selected.map((id) => rows.get(id));
  if ([...greedy, ...best].some((row) => !row || typeof costOf(row) !== "number" || !scoreKey(row))) return false;
  const key = scoreKey(best[0] || greedy[0]);
  box.append(
    el("p", "score-definition", `A combination's score is the sum of its items' ${key}. Both bars are drawn on the same scale: the whole bar is the budget of ${count(capacity, unit)}.`),
    bar("bar-greedy", "Greedy kept", greedy, capacity, unit, key),
    bar("bar-best", "The best combination", best, capacity, unit, key),
  );
  requestAnimationFrame(() => fitLabels(box));
  return true;
}
