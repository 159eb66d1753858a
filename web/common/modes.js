// What the page says about each mode: its unit, the number the budget slider moves, how
// it decides (in words), and one sentence per reason code. Text only: every decision
// is made in Python and arrives in the report's trace.

// Each mode's names for its report's keys (kept, left_out, used, limit, listed), as the mode
// declares them once in Python (fitproof.modes.MODES[name].WORDS); the site's builder writes
// this file from them (_site/bundle.py), so the page keeps no table of its own.
import WORDS from "./modes_words.json" with { type: "json" };

export { WORDS };

// A report's value under the name its mode gives it: said(report, "limit") is `available` in blocks.
export const said = (report, word) => report[WORDS[report.mode][word]];

export const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const remain = (n, unit) => (n === 1 ? `1 ${unit} remains` : `${count(n, unit)} remain`);

const tokenUnit = () => "token";
const limitOf = (report) => said(report, "limit");

export const MODES = {
  relevance: {
    unit: tokenUnit,
    capacity: limitOf,
    slider: { path: "$.budget", label: "budget" },
    decides: [
      "Items are considered by relevance, highest first; equal scores go by id, compared character by character (capital letters before small ones).",
      "Each item is kept when its tokens fit what is left of the budget; otherwise it is left out and the next one is tried, so a later, smaller item can still fit.",
      "The rule is greedy: it never goes back, so a different combination can sometimes score more (shown under “What the greedy rule's choice cost”).",
    ],
  },
  required: {
    unit: tokenUnit,
    capacity: limitOf,
    slider: { path: "$.budget", label: "budget" },
    decides: [
      "Every required item is taken first. If the required items together cost more than the budget, the run fails and nothing is selected.",
      "Then the optional items by priority, highest first (equal priorities by id), each kept when its cost fits what is left.",
    ],
  },
  blocks: {
    unit: tokenUnit,
    capacity: limitOf,
    slider: { path: "$.window.context_tokens", label: "window.context_tokens" },
    decides: [
      "The window's context tokens, minus the output reserved for the answer and the fixed prompt, leave the tokens available for blocks.",
      "Blocks are considered required first, then by priority, then newest first, then by id; each is kept when its tokens fit what is left.",
      "A required block that does not fit means the run cannot proceed: the prompt must not be sent.",
      "Blocks without a tokens count are estimated (not a model tokenizer); the composed prompt's headers cost tokens too, checked against the window.",
    ],
  },
  passages: {
    unit: (report) => ({ words: "word", estimate: "estimated token" }[report.counter] || "token"),
    capacity: limitOf,
    // The question, "Sources:" and "Answer:" are counted before any passage.
    base: (report) => (Array.isArray(report.trace) && report.trace.length ? limitOf(report) - report.trace[0].remaining_before : said(report, "used")),
    slider: { path: "$.limit", label: "limit" },
    decides: [
      "Passages are tried in retrieval order (the order given).",
      "Each is kept exactly when the whole prompt — question, headings and every passage kept so far plus this one — still fits the limit, as the chosen counter counts it.",
      "A long passage that does not fit does not stop a later, shorter one.",
    ],
  },
  messages: {
    unit: (report) => (report.tokenizer === "estimate" ? "estimated token" : "token"),
    // The shared bar stacks rows by what remained before each; a tool call and its results
    // share one decision, so the conversation view (chat.js) draws the budget lane instead.
    capacity: () => null,
    base: () => 3,  // the reply priming, for the slider's range
    slider: { path: "$.limit", label: "limit" },
    headings: { tokens: "this message ({unit}s)" },  // its unit (a tool call with its results) may need more
    decides: [
      "Every system and developer message, and every message marked pinned, is kept; if they and the 3 tokens that prime the reply exceed the limit, the run fails.",
      "An assistant message that calls tools and the tool messages answering it are one unit: kept or dropped together, so no tool result is ever orphaned.",
      "From the newest turn to the oldest, each unit is kept while it fits what is left; the first one that does not fit stops the walk, and every older turn is dropped with it: no holes.",
      "The kept turns must start with a user message: kept turns before the first kept user message are dropped.",
      "A message costs 3 tokens plus the tokens of its role, content and name (+1), as OpenAI counts for its chat models.",
      "The same rule reads Anthropic's Messages (the system prompt apart, a tool_use with the tool_result after it) and OpenAI Responses items (a function_call with its output): \"format\" names it, or the items say which.",
    ],
  },
};

export function modeOf(report) {
  return (report && MODES[report.mode]) || null;
}

// What a row is called: its id, or for a chat history's messages their index and role.
export const labelOf = (row) => row.id ?? `#${row.index} ${row.role}`;

// A row's cost, under whichever name its mode uses.
export const COST_KEYS = ["tokens", "cost", "units"];
export const costOf = (row) => row[COST_KEYS.find((key) => key in row)];

// A chat message decided with the tool call or results it belongs to (the unit costs more than it).
const inUnit = (row) => row.unit_tokens !== undefined && row.unit_tokens !== row.tokens;

// Short reason for the table, and a whole sentence for the step-through. `context` has
// `unit` and the report. Another mode adds its own codes here.
export const REASONS = {
  fits_remaining_budget: {
    short: (row, { unit }) => `fits: ${inUnit(row) ? "its tool unit " : ""}needs ${count(row.unit_tokens ?? costOf(row), unit)}, ${remain(row.remaining_before, unit)}`,
    sentence: (row, { unit }) => {
      const left = row.remaining_before - costOf(row);
      if (row.unit_tokens !== undefined && row.unit_tokens !== row.tokens) {
        return `${labelOf(row)} is part of a tool unit that needs ${count(row.unit_tokens, unit)}; ${remain(row.remaining_before, unit)}; the whole unit is kept.`;
      }
      return `${labelOf(row)} needs ${count(costOf(row), unit)}; ${remain(row.remaining_before, unit)}; kept, leaving ${count(left, unit)}.`;
    },
  },
  exceeds_remaining_budget: {
    short: (row, { unit }) => `does not fit: ${inUnit(row) ? "its tool unit " : ""}needs ${count(row.unit_tokens ?? costOf(row), unit)}, only ${remain(row.remaining_before, unit)}`,
    sentence: (row, { unit, report }) => {
      const prompt = "units_with" in row ? ` (the prompt would count ${row.units_with} of ${limitOf(report)})` : "";
      if (row.unit_tokens !== undefined) {
        const what = row.unit_tokens !== row.tokens ? `'s tool unit needs ${count(row.unit_tokens, unit)}` : ` needs ${count(row.tokens, unit)}`;
        return `${labelOf(row)}${what}; ${remain(row.remaining_before, unit)}; dropped, and every older turn with it (no holes).`;
      }
      return `${labelOf(row)} needs ${count(costOf(row), unit)}; ${remain(row.remaining_before, unit)}; left out${prompt}.`;
    },
  },
  required: {
    short: (row, { unit }) => `required: taken first (${count(costOf(row), unit)})`,
    sentence: (row, { unit }) => `${row.id} is required, so it is taken first: it needs ${count(costOf(row), unit)}, leaving ${count(row.remaining_before - costOf(row), unit)}.`,
  },
  required_items_exceed_budget: {
    short: (row, { report }) => `required, but the required items need ${report.required_cost} and the budget is ${limitOf(report)}`,
    sentence: (row, { unit, report }) => `${row.id} is required (${count(costOf(row), unit)}), but the required items together need ${count(report.required_cost, unit)} and the budget is ${limitOf(report)}: the run fails and nothing is kept.`,
  },
  not_considered_required_overflow: {
    short: () => "not considered: the required items already overflow the budget",
    sentence: (row) => `${row.id} is not considered: the required items already overflow the budget.`,
  },
  pinned: {
    short: (row, { unit }) => `pinned: always kept (${count(row.tokens, unit)}, reserved first)`,
    sentence: (row, { unit }) => `${labelOf(row)} is ${row.role === "system" || row.role === "developer" ? `a ${row.role} message` : "pinned"}, so it is kept whatever the limit; its ${count(row.tokens, unit)} were reserved before the walk.`,
  },
  live_turn: {
    short: (row, { unit }) => `the live turn: always kept (${count(row.tokens, unit)}, reserved first)`,
    sentence: (row, { unit }) => `${labelOf(row)} belongs to the live turn (the newest user message and what follows it), so it is kept as if pinned; its ${count(row.tokens, unit)} were reserved before the walk.`,
  },
  older_than_a_dropped_message: {
    short: () => "older than a turn that did not fit (no holes)",
    sentence: (row) => `${labelOf(row)} is older than a turn that did not fit, so it is dropped: the history keeps no holes.`,
  },
  older_than_the_stable_cut: {
    short: () => "older than the cut kept from the previous call (strategy stable)",
    sentence: (row) => `${labelOf(row)} is older than the cut the previous call made, which strategy stable keeps while everything from it fits: the prompt stays the previous one plus the new turns, so the provider's cache of it stays warm.`,
  },
  history_must_start_with_user: {
    short: () => "it fit, but the kept turns must start with a user message",
    sentence: (row, { unit }) => `${labelOf(row)} fit (${count(row.unit_tokens ?? row.tokens, unit)}, ${remain(row.remaining_before, unit)}), but it comes before the first kept user message, so it is dropped.`,
  },
  pinned_messages_exceed_limit: {
    short: (row, { report }) => `not sent: the pinned messages and the priming need ${report.pinned_tokens}, the limit is ${limitOf(report)}`,
    sentence: (row, { unit, report }) => `${labelOf(row)} is not sent: the pinned messages and the priming need ${count(report.pinned_tokens, unit)}, ${report.shortfall} over the limit of ${limitOf(report)}, so the run fails.`,
  },
  required_block_too_large_for_budget: {
    short: (row, { unit }) => `required, does not fit: needs ${count(costOf(row), unit)}, only ${remain(row.remaining_before, unit)} — cannot proceed`,
    sentence: (row, { unit }) => `${row.id} is required and needs ${count(costOf(row), unit)}; ${remain(row.remaining_before, unit)}; it is left out, so the run cannot proceed.`,
  },
};

export function reasonText(row, context, form = "short") {
  const reason = REASONS[row.reason];
  return reason ? reason[form](row, context) : `${row.kept ? "kept" : "left out"} (${row.reason})`;
}

// Column headings for trace keys; a key not listed shows with underscores as spaces.
export const HEADINGS = {
  position: "#",
  id: "id",
  remaining_before: "left before it ({unit}s)",
  units_with: "prompt with it ({unit}s)",
  tokens: "needs ({unit}s)",
  unit_tokens: "its unit needs ({unit}s)",
  cost: "needs ({unit}s)",
  observed_at: "observed at",
  estimated: "estimated count",
};
