// What each check re-derived, in words and with the numbers: read from the report's own fields
// (the kept rows' costs, the budget, the prompt's count), never worked out again here. The
// checks themselves ran in Python; this only says what each one compared.

import { count, costOf, labelOf } from "../common/modes.js";

const SHOWN = 12;  // terms of a sum or items of a list written out; the rest are counted

function list(items) {
  const shown = items.slice(0, SHOWN).join(", ");
  return items.length > SHOWN ? `${shown} and ${items.length - SHOWN} more` : shown || "none";
}

// "4 + 3 = 7" from the kept rows in hand; `total` is the report's sum (all rows, every page).
function sum(rows, total) {
  const terms = rows.map(costOf);
  if (!terms.length) return `0`;
  if (terms.length === 1) return String(terms[0]);
  return `${terms.length > SHOWN ? `${terms.slice(0, SHOWN).join(" + ")} + …` : terms.join(" + ")} = ${total}`;
}

const ordinal = (n) => (n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th");
const versus = (a, b) => (a <= b ? `≤ ${b}` : `> ${b}`);

function orderWords(rows, key) {
  const shown = rows.slice(0, SHOWN).map((row) => `${labelOf(row)} (${key} ${row[key]})`).join(", ");
  return rows.length > SHOWN ? `${shown}, …` : shown;
}

function decisions(rows) {
  const said = rows.slice(0, SHOWN).map((row) => {
    const cost = row.unit_tokens ?? costOf(row);
    if (row.reason === "required") return `${labelOf(row)} required, taken first`;
    if (typeof row.remaining_before !== "number") return `${labelOf(row)} ${row.kept ? "kept" : "left out"}`;
    return row.kept ? `${labelOf(row)} ${cost} ≤ ${row.remaining_before} left: kept` : `${labelOf(row)} ${cost} > ${row.remaining_before} left: left out`;
  });
  return said.join("; ") + (rows.length > SHOWN ? "; …" : "");
}

const TEXTS = {
  "token budget": (report, rows) => {
    const kept = rows.filter((row) => row.kept);
    return `Re-added the kept items' costs from the input: ${sum(kept, report.used)} ${versus(report.used, report.budget)} (the budget), leaving ${report.remaining}, as reported.`;
  },
  "deterministic relevance order": (report, rows) =>
    `Sorted the items again from the input, by relevance, highest first (equal relevance by id): ${orderWords(rows, "relevance")}; each item once. Then replayed each decision against what was left: ${decisions(rows)}.`,
  "deterministic priority order": (report, rows) =>
    `Sorted the items again from the input: required first, then by priority, highest first (equal priority by id): ${orderWords(rows, "priority")}; each item once. Then replayed each decision: ${decisions(rows)}.`,
  "required items selected": (report, rows) => {
    const required = rows.filter((row) => row.required).map((row) => `${row.id} (${costOf(row)})`);
    return report.shortfall
      ? `The required items ${list(required)} need ${report.required_cost} together, ${report.shortfall} more than the budget of ${report.budget}: nothing may be selected.`
      : `Looked for every required item among the selected: ${list(required)}; together ${report.required_cost} ${versus(report.required_cost, report.budget)} (the budget).`;
  },
  "context budget": (report, rows) => {
    const kept = rows.filter((row) => row.kept);
    return `Re-added the included blocks' tokens: ${sum(kept, report.used)} ${versus(report.used, report.available)} available for blocks, leaving ${report.remaining}.`;
  },
  "required blocks included": (report, rows) => {
    const required = rows.filter((row) => row.required).map((row) => `${row.id} (${costOf(row)}${row.kept ? "" : ", left out"})`);
    return report.can_proceed === false
      ? `A required block is not included (it does not fit): the prompt must not be sent. Required: ${list(required)}.`
      : `Looked for every required block among the included: ${list(required)}.`;
  },
  "deterministic packing order": (report, rows) =>
    `Sorted the blocks again: required first, then by priority, then newest first, then by id: ${list(rows.map((row) => row.id))}; then replayed each decision: ${decisions(rows)}.`,
  "prompt lists included blocks in order": (report) =>
    `Read the composed prompt again: it holds the included blocks ${list((report.included || []).map((block) => block.id))} in that order, and no other.`,
  "rendered prompt fits window": (report, rows, { window }) => {
    const room = window && typeof window.context_tokens === "number" ? window.context_tokens - window.reserved_output_tokens : null;
    const against = room === null ? "the window" : `${versus(report.rendered_tokens, room)} the window leaves after the reserved output`;
    return `Counted the composed prompt as sent: ${report.rendered_overhead} of headers, system and task + ${report.used} of blocks = ${report.rendered_tokens} ${against}.`;
  },
  "prompt within limit": (report, rows, { unit }) =>
    `Counted the composed prompt again: ${count(report.units, unit)} ${versus(report.units, report.limit)} (the limit).`,
  "prompt is a fresh render": (report) =>
    `Rendered the prompt again from the question and the chosen passages ${list(report.chosen || [])}: the same ${[...report.prompt].length} characters, one for one.`,
  "retrieval order kept": (report, rows) =>
    `The chosen passages appear in the prompt in the order they were retrieved: ${list(rows.filter((row) => row.kept).map((row) => `${row.id} (retrieved ${row.position}${ordinal(row.position)})`))}.`,
  "skipped passages did not fit": (report, rows, { unit }) => {
    const skipped = rows.filter((row) => !row.kept && typeof row.units_with === "number");
    return skipped.length
      ? `For each skipped passage, the prompt with it would be over the limit: ${skipped.slice(0, SHOWN).map((row) => `${row.id} ${row.units_with} > ${report.limit}`).join("; ")} ${unit}s.`
      : "No passage was skipped.";
  },
  "kept messages re-counted": (report, rows, { unit }) =>
    `Counted the kept messages again: ${count(report.tokens, unit)} (3 that prime the reply${report.tools_tokens ? ` + ${report.tools_tokens} of tool definitions` : ""} + each kept message's own) ${versus(report.tokens, report.limit)} (the limit).`,
  "no holes": (report) =>
    `The kept turns are the newest ones, with no dropped turn between two kept ones: kept ${list(report.kept.map((index) => `#${index}`))}.`,
  "tool calls paired": () => "Every kept tool call has all its results kept, and every kept result its call.",
  "history starts with user": (report, rows) => {
    const first = rows.filter((row) => row.kept && !row.pinned).sort((a, b) => a.index - b.index)[0];
    return first ? `The oldest kept turn that is not pinned, #${first.index}, is a ${first.role} message.` : "No turn besides the pinned ones is kept.";
  },
  "live turn kept": (report) => {
    const live = Array.isArray(report.live_turn) ? report.live_turn : [];
    return live.length
      ? `The live turn, the newest user message and everything after it (${list(live.map((index) => `#${index}`))}, ${count(report.live_tokens, "token")}), is kept whole, as if pinned.`
      : "The history has no user message, so there is no live turn to keep.";
  },
  "pinned messages kept": (report, rows) => {
    const pinned = rows.filter((row) => row.pinned).map((row) => `#${row.index} ${row.role}`);
    return `Every system, developer and pinned message is kept: ${list(pinned)} (${count(report.pinned_tokens, "token")} with the priming).`;
  },
  "stable cut": (report) => {
    const from = { previous: "kept from the previous call", low_watermark: "made again at the low watermark", limit: "where the limit put it" }[report.cut_from] || "";
    return report.cut === null || report.cut === undefined
      ? "Nothing was kept, so there is no cut."
      : `Worked out again from the input and the previous call: the history is sent from message #${report.cut} on (${from}), walked within ${count(report.walk_limit, "token")}.`;
  },
  "prompt prefix reused": (report) => {
    const reuse = report.reuse;
    if (!reuse) return null;
    const billed = typeof reuse.cached_tokens === "number" ? ` ${count(reuse.cached_tokens, "token")} billed as cached (${reuse.provider}).` : "";
    return `Rendered this prompt and the previous one again: they share their first ${count(reuse.prefix_tokens, "token")} (${reuse.prefix_messages} messages); ${count(reuse.new_tokens, "token")} are new.${billed}`;
  },
  "tool results cleared": (report, rows, { unit }) => {
    const clearing = report.clearing;
    if (!clearing) return null;
    const cleared = (report.cleared || []).map((row) => `#${row.index} ${row.tokens_before} → ${row.tokens_after}`);
    return `Replayed the clearing from the input, oldest result first, the newest ${clearing.keep} and the live turn's left as they are: the prompt ${count(clearing.tokens_before, unit)} before, ${count(clearing.tokens_after, unit)} after; cleared ${list(cleared)}.`;
  },
  "cleared as before": (report) => {
    const again = (report.cleared || []).filter((row) => row.reason === "cleared_as_before").map((row) => `#${row.index}`);
    return again.length
      ? `Every result the previous call cleared is cleared again, with the same placeholder bytes: ${list(again)}.`
      : "No previous call cleared a result of this history (0 to clear again).";
  },
  "summary in place of the dropped span": (report) => {
    const span = report.summary_span;
    return span ? `The dropped span, #${span.from} to #${span.to} (${count(span.tokens, "token")}), worked out again; the summary goes at position ${span.position}.` : "No summary was asked for (0 summary tokens).";
  },
};

// What to say under one check: its failure (Python's words) and what it re-derived, or null.
export function checkDetail(check, report, context) {
  const rows = Array.isArray(report.trace) ? report.trace : [];
  const text = TEXTS[check.name];
  let derived = null;
  if (text) {
    try {
      derived = text(report, rows, context);
    } catch (error) {
      derived = null;  // a report without the fields this sentence reads: the name stays
    }
  }
  const said = [check.detail, derived].filter(Boolean).join(" ");
  return said || null;
}
