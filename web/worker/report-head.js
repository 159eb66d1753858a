// The part of a report the page draws at once: lists cut, the trace's first page of rows with
// their marks, the prompt cut, and what the page needs to know about the rest (`about`).
// Used by report-store.js (off the main thread, for every checked report) and by
// page/first-report.js (the small report made when the site was built). Reads only: it
// computes nothing about the selection beyond sums for the budget bar.

import { costOf } from "../common/modes.js";

const PROMPT_SHOWN = 100_000;  // characters of the composed prompt drawn at once
const LIST_SHOWN = 1000;       // entries of a long list of ids passed to the page

// rows -> {rows, best, flips}: whether each row is in the better combination or would flip,
// so the page needs neither list whole (each can hold tens of thousands of ids). The sets are
// made on first use.
export function marksFor(report) {
  const sets = { best: null, flips: null };
  return (rows) => {
    const optimal = report.optimal;
    const better = optimal && optimal.exact && optimal.value > optimal.greedy_value;
    const best = sets.best ??= new Set(better ? optimal.selected : []);
    const flips = sets.flips ??= new Set(report.sensitivity ? report.sensitivity.flips || [] : []);
    return { rows, best: rows.map((row) => best.has(row.id)), flips: rows.map((row) => flips.has(row.id)) };
  };
}

// The report for the page: lists longer than LIST_SHOWN cut (`about.cut` gives their
// lengths), the trace's first page of rows, the prompt cut to PROMPT_SHOWN characters.
// `marks` is marksFor(envelope.result).
export function head(envelope, pageSize, marks) {
  const report = envelope.result;
  const about = { total: 0, kept: 0, needed: 0, rest: { count: 0, amount: 0, remainingBefore: null }, promptLength: null, cut: {} };
  if (!report) return { envelope, about };
  const shown = cutLists(report, about.cut);
  const trace = Array.isArray(report.trace) ? report.trace : null;
  if (trace) {
    shown.trace = trace.slice(0, pageSize);
    about.page = marks(shown.trace);
    about.total = trace.length;
    if (report.mode === "messages" && trace.length > pageSize) about.walk = walkPast(trace, pageSize);
    for (let index = 0; index < trace.length; index++) {
      const row = trace[index];
      about.needed += costOf(row) || 0;  // every cost, for the slider's range
      if (!row.kept) continue;
      about.kept++;
      if (index < pageSize) continue;
      // The kept items past the first page, drawn as one segment of the bar.
      about.rest.count++;
      about.rest.amount += costOf(row) || 0;
      if (about.rest.remainingBefore === null) about.rest.remainingBefore = row.remaining_before;
    }
  }
  if (typeof report.prompt === "string" && report.prompt.length > PROMPT_SHOWN) {
    about.promptLength = report.prompt.length;
    shown.prompt = report.prompt.slice(0, PROMPT_SHOWN);
  }
  return { envelope: { ...envelope, result: shown }, about };
}

// The messages walk past the first page of rows, for the conversation's budget lane: the
// turns it kept (and those dropped for the user start), each as one sum with where it
// starts, and the unit that stopped it.
function walkPast(trace, pageSize) {
  const walk = { kept: { tokens: 0, remainingBefore: null }, userStart: { tokens: 0, remainingBefore: null }, stop: null };
  // A unit with rows on the page is drawn whole from them: its rows past the page are not counted again.
  const onPage = new Set(trace.slice(0, pageSize).map((row) => row.unit));
  for (let index = 0; index < trace.length; index++) {
    const row = trace[index];
    if (row.reason === "exceeds_remaining_budget" && !walk.stop) {  // the unit's rows are together; its oldest is its first
      walk.stop = { index: row.unit, tokens: row.unit_tokens, before: row.remaining_before, onPage: index < pageSize };
    }
    if (index < pageSize || row.pinned || onPage.has(row.unit)) continue;
    const part = row.reason === "fits_remaining_budget" ? walk.kept : row.reason === "history_must_start_with_user" ? walk.userStart : null;
    if (!part) continue;
    part.tokens += row.tokens;
    if (part.remainingBefore === null) part.remainingBefore = row.remaining_before;
  }
  return walk;
}

function cutLists(value, cut, path = "$") {
  if (Array.isArray(value)) {
    if (value.length <= LIST_SHOWN) return value;
    cut[path] = value.length;
    return value.slice(0, LIST_SHOWN);
  }
  if (value && typeof value === "object") {
    const copy = {};
    for (const [key, item] of Object.entries(value)) copy[key] = key === "trace" && path === "$" ? null : cutLists(item, cut, `${path}.${key}`);
    return copy;
  }
  return value;
}
