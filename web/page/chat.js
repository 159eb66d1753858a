// Mode `messages` as a conversation: a bubble per message in input order, by role; a tool
// call and its results framed as the one unit they are; every dropped turn struck through
// with the reason it went; a budget lane (priming, pinned, then each kept unit in the order
// the walk took them, and the unit that stopped it); an image part as a chip in its message
// and a segment of the lane; the tool definitions as a pinned block above the conversation
// and a part of the lane; a tool result cleared before any turn was dropped (`clear`) marked in
// its bubble, with what it cost before and after; and the page's step-through followed
// here too. Reads the report only (and the input's text for the dropped turns, which the
// report does not carry); every decision is made in Python.

import { addView } from "./report.js";
import { el } from "./dom.js";
import { percent, segmentName, fitLabels } from "./bar.js";
import { count, reasonText } from "../common/modes.js";
import { cacheLane } from "./cache.js";

const MAX_BUBBLES = 200;  // the newest turns; the table pages through every decision


// The messages the report was made from, when the editor still holds them: the report
// keeps only the kept messages, and a struck-through turn should show what was dropped.
function inputMessages(report, total) {
  let data;
  try {
    data = JSON.parse(document.getElementById("input").value);
  } catch {
    return null;
  }
  // (Responses input items may come as `input`, the API's name)
  const given = data && (Array.isArray(data.messages) ? data.messages : data.input);
  const messages = Array.isArray(given) ? given : null;
  if (!messages || messages.length !== total) return null;
  const sent = (message) => JSON.stringify(Object.fromEntries(Object.entries(message).filter(([key]) => key !== "pinned")));
  // (a message with a cleared result is sent as its cleared copy: the input's is shown, marked cleared)
  const cleared = new Set((Array.isArray(report.cleared) ? report.cleared : []).map((row) => row.index));
  const same = report.kept.every((index, at) => cleared.has(index) || sent(messages[index]) === JSON.stringify(report.messages[at]));
  return same ? messages : null;
}

const SHOWN_CHARACTERS = 2000;  // of each message's text in its bubble

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(partText).filter((text) => text).join("\n");
  return "";
}

// A part or content block as text: chat and Responses parts by their text, Anthropic's blocks
// (thinking, a tool use, a tool result) in the words of the bubbles' own calls and results.
function partText(part) {
  if (!part || typeof part !== "object") return "";
  if (typeof part.text === "string") return part.text;
  if (typeof part.refusal === "string") return part.refusal;
  if (part.type === "thinking" && typeof part.thinking === "string") return `(thinking) ${part.thinking}`;
  if (part.type === "redacted_thinking") return "(redacted thinking)";
  if (part.type === "tool_use") return `→ ${part.name}(${JSON.stringify(part.input)}) [${part.id}]`;
  if (part.type === "tool_result") return `← ${part.tool_use_id}: ${textOf(part.content)}`;
  if (part.type === "document" && part.source && typeof part.source.data === "string") return part.source.data;
  return "";
}

// A Responses item that is no message: its call, its output or its reasoning as text.
function itemText(message) {
  if (message.type === "function_call") return `→ ${message.name}(${message.arguments}) [${message.call_id}]`;
  if (message.type === "custom_tool_call") return `→ ${message.name}(${message.input}) [${message.call_id}]`;
  if (message.type === "function_call_output" || message.type === "custom_tool_call_output") return `← ${message.call_id}: ${textOf(message.output)}`;
  if (message.type === "reasoning") return `(reasoning) ${textOf(message.summary)}`;
  return textOf(message.content);
}

// An image part as the report counted it: its size, or why none was needed or known.
function imageText(image) {
  const tokens = image.tokens.toLocaleString("en");
  if (image.size) return `image ${image.size[0]}×${image.size[1]}, detail ${image.detail}: ${tokens} tokens`;
  if (image.at_most) return `image, size unknown: counted at the most, ${tokens} tokens`;
  return `image, detail ${image.detail}: ${tokens} tokens`;
}

function imageChip(image) {
  const chip = el("span", "image-chip", imageText(image));
  chip.dataset.testid = "chat-image";
  return chip;
}

const CLEARED_WHY = {
  cleared_over_trigger: "the prompt was over the trigger, and this was among the oldest results",
  cleared_as_before: "the previous call cleared it, so it is cleared again with the same bytes",
  thinking_of_an_older_turn: "the thinking of an older turn",
};

// A tool result (or a thinking block) cleared before any turn was dropped: what it cost before and after.
function clearedNote(item, unit) {
  const what = item.kind === "thinking" ? "thinking removed" : `${item.tool || "tool"} result cleared${item.input ? ", with its call's arguments" : ""}`;
  const note = el("span", "cleared-chip", `${what}: ${count(item.tokens_before, unit)} → ${count(item.tokens_after, unit)} (${CLEARED_WHY[item.reason] || item.reason})`);
  note.dataset.testid = "chat-cleared";
  return note;
}

// What clearing did before the walk: the prompt before and after, and how many items it cleared.
function clearingText(report, unit) {
  const clearing = report.clearing;
  if (!clearing || typeof clearing !== "object") return null;
  const rows = Array.isArray(report.cleared) ? report.cleared : [];
  const again = rows.filter((row) => row.reason === "cleared_as_before").length;
  const trigger = typeof clearing.trigger === "number" ? count(clearing.trigger, unit) : count(clearing.trigger_tool_uses, "tool use");
  const sticky = again ? ` The ${count(again, "item")} the previous call cleared ${again === 1 ? "is" : "are"} cleared again, with the same bytes.` : "";
  if (!clearing.triggered) {
    return `Clearing: the prompt counts ${count(clearing.tokens_before, unit)}, not over the trigger of ${trigger}, so nothing new is cleared.${sticky}`;
  }
  const spared = clearing.live_turn ? `not the newest ${clearing.keep}` : `not the newest ${clearing.keep}, nor the live turn's`;
  return `Clearing first: the prompt would count ${count(clearing.tokens_before, unit)}, over the trigger of ${trigger}, so the oldest tool results (${spared}) were replaced by a short placeholder: ${count(clearing.cleared_now, "item")} cleared now, ${count(clearing.freed, unit)} freed, ${count(clearing.tokens_after, unit)} left before any turn is dropped.${sticky}`;
}

// Anthropic's system prompt or Responses' instructions: sent apart from the items, with every call.
function systemBlock(report, unit) {
  const block = el("div", "tools-block");
  block.dataset.testid = "chat-system";
  const what = report.format === "responses" ? "instructions" : "system prompt";
  const head = el("p", "bubble-meta");
  head.append(el("span", "bubble-role", what), el("span", "bubble-tokens", count(report.system_tokens, unit)), el("span", "badge pin", "pinned"));
  block.append(head, el("p", "hint", `Sent apart from the ${report.format === "responses" ? "input items" : "messages"} (${report.format} format), with every call.`));
  return block;
}

// The tool definitions, sent with every call: pinned above the conversation, with their tokens.
function toolsBlock(report, unit) {
  const block = el("div", "tools-block");
  block.dataset.testid = "chat-tools";
  block.append(el("p", "bubble-meta", ""));
  block.firstChild.append(el("span", "bubble-role", "tool definitions"), el("span", "bubble-tokens", count(report.tools_tokens, unit)), el("span", "badge pin", "pinned"));
  const list = el("ul", "tools-list");
  for (const tool of report.tools) list.append(el("li", "", `${tool.name}: ${count(tool.tokens, unit)}`));
  block.append(list);
  const framing = report.tools_tokens - report.tools.reduce((sum, tool) => sum + tool.tokens, 0);
  block.append(el("p", "hint", `Sent with every call, so counted before any turn${framing > 0 ? ` (${count(framing, unit)} of it the definitions' framing)` : ""}.`));
  return block;
}

function bubble(index, row, message, context) {
  const role = row ? row.role : (message && message.role) || "?";
  const node = el("div", `bubble role-${role}${row && !row.kept ? " dropped" : ""}${row && row.pinned ? " pinned" : ""}`);
  node.dataset.testid = "chat-message";
  node.dataset.index = String(index);
  node.dataset.kept = String(Boolean(row && row.kept));
  const meta = el("p", "bubble-meta");
  meta.append(el("span", "bubble-role", role));
  if (message && typeof message.name === "string") meta.append(el("span", "bubble-name", message.name));
  meta.append(el("span", "bubble-index", `#${index}`));
  if (row) meta.append(el("span", "bubble-tokens", count(row.tokens, context.unit)));
  if (row && row.pinned) meta.append(el("span", "badge pin", "pinned"));
  node.append(meta);
  const body = el(row && !row.kept ? "del" : "div", "bubble-text");
  if (message) {
    const text = itemText(message);
    // A long message is shown cut (a 300,000-character turn made the page ~120,000 px tall);
    // its count is the whole text's.
    const cut = text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS)}` : text;
    if (cut) body.append(el("span", "", cut));
    if (cut !== text) body.append(el("span", "hint cut-note", ` … ${(text.length - cut.length).toLocaleString("en")} more characters not shown`));
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const fn = (call && call.function) || {};
      body.append(el("code", "tool-call", `→ ${fn.name}(${fn.arguments}) [${call.id}]`));
    }
    if (typeof message.tool_call_id === "string") body.prepend(el("code", "tool-result", `← ${message.tool_call_id}: `));
  }
  for (const image of context.images.get(index) || []) body.append(imageChip(image));
  for (const item of context.cleared.get(index) || []) body.append(clearedNote(item, context.unit));
  if (!message) {
    body.append(el("span", "hint", "(text not shown: the editor no longer holds this input)"));
  }
  node.append(body);
  if (row) {
    const why = el("p", `bubble-reason ${row.kept ? "kept" : "left-out"}`, `${row.kept ? "✓ kept" : "✗ dropped"}: ${reasonText(row, context)}`);
    why.dataset.testid = "chat-reason";
    node.append(why);
  }
  return node;
}

// Priming, the pinned messages, then the walk: each kept unit where the walk put it, and
// the unit that did not fit drawn past what was left.
function budgetLane(report, rows, context, past = null) {
  const { unit } = context;
  const limit = report.limit;
  const walkLimit = typeof report.walk_limit === "number" ? report.walk_limit : limit;  // strategy stable cutting to its watermark
  const box = el("div", "chat-budget");
  const lane = el("div", "chat-lane");
  lane.dataset.testid = "chat-budget";
  lane.setAttribute("role", "list");
  const pinnedRows = rows.filter((row) => row.pinned);
  const pinnedTokens = report.pinned_tokens;
  const units = new Map();  // unit start -> {rows, tokens, before, kept, reason, step}
  rows.forEach((row, step) => {
    if (row.pinned) return;
    const entry = units.get(row.unit) || { rows: [], tokens: row.unit_tokens, before: row.remaining_before, kept: row.kept, reason: row.reason, step };
    entry.rows.push(row);
    units.set(row.unit, entry);
  });
  const walked = [...units.values()].filter((entry) => entry.reason === "fits_remaining_budget" || entry.reason === "history_must_start_with_user");
  let stop = [...units.values()].find((entry) => entry.reason === "exceeds_remaining_budget");
  if (!stop && past && past.stop && !past.stop.onPage) {  // the walk stopped past the rows in hand
    stop = { rows: [{ index: past.stop.index }], tokens: past.stop.tokens, before: past.stop.before, kept: false };
  }
  const reach = Math.max(limit, pinnedTokens, stop ? walkLimit - stop.before + stop.tokens : 0, 1);
  const part = (className, start, amount, label, step, name = label.split(":")[0]) => {
    const node = el("span", `chat-part ${className}`);
    node.style.left = percent(start, reach);
    node.style.width = percent(amount, reach);
    node.title = label;
    node.setAttribute("role", "listitem");
    node.append(segmentName(name, amount), el("span", "visually-hidden", label));
    if (step !== undefined) node.dataset.step = String(step);
    lane.append(node);
  };
  const starts = new Map();  // message index -> where its part starts (for its images)
  part("priming", 0, 3, `reply priming: ${count(3, unit)}`, undefined, "priming");
  let at = 3;
  const toolsTokens = report.tools_tokens || 0;
  if (toolsTokens) {
    part("tools", at, toolsTokens, `tool definitions, pinned: ${count(toolsTokens, unit)}`, undefined, "tools");
    at += toolsTokens;
  }
  for (const row of pinnedRows.sort((a, b) => a.index - b.index)) {
    starts.set(row.index, at);
    part(`pinned role-${row.role}${report.shortfall ? " over" : ""}`, at, row.tokens, `#${row.index} ${row.role}, pinned: ${count(row.tokens, unit)}`, rows.indexOf(row));
    at += row.tokens;
  }
  if (at < pinnedTokens) {  // pinned turns older than the rows in hand
    part(`pinned${report.shortfall ? " over" : ""}`, at, pinnedTokens - at, `older pinned messages: ${count(pinnedTokens - at, unit)}`);
  }
  // The live turn (the newest user turn and what answers it), taken right after the pinned parts.
  const liveRows = rows.filter((row) => row.reason === "live_turn").sort((a, b) => a.index - b.index);
  if (liveRows.length && report.live_tokens) {
    let liveAt = Math.max(pinnedTokens, at);
    for (const row of liveRows) {
      starts.set(row.index, liveAt);
      liveAt += row.tokens;
    }
    const label = `#${liveRows.map((row) => row.index).join(", #")}, the live turn: ${count(report.live_tokens, unit)}, always sent`;
    part("live", Math.max(pinnedTokens, at), report.live_tokens, label, rows.indexOf(liveRows[liveRows.length - 1]), "live");
  }
  for (const entry of walked) {
    const start = walkLimit - entry.before;
    let rowAt = start;
    for (const row of [...entry.rows].sort((a, b) => a.index - b.index)) {
      starts.set(row.index, rowAt);
      rowAt += row.tokens;
    }
    const label = `#${entry.rows.map((row) => row.index).sort((a, b) => a - b).join(", #")}: ${count(entry.tokens, unit)}, ${entry.kept ? "kept" : "fit, but dropped for the user start"}`;
    part(`walked${entry.kept ? "" : " user-start"}`, start, entry.tokens, label, entry.step);
  }
  // The walk past the rows in hand, as one part each: what it kept, and what the user start dropped.
  for (const [key, className, what] of [["kept", "walked rest", "kept"], ["userStart", "walked user-start rest", "fit, but dropped for the user start"]]) {
    const older = past && past[key];
    if (older && older.tokens) part(className, walkLimit - older.remainingBefore, older.tokens, `older turns: ${count(older.tokens, unit)}, ${what}`);
  }
  if (stop) {
    const start = walkLimit - stop.before;
    part("stop", start, stop.tokens, `#${stop.rows.map((row) => row.index).sort((a, b) => a - b).join(", #")}: needs ${count(stop.tokens, unit)}, ${stop.before} left: the walk stops`, stop.step);
  }
  // Each image: a segment at the end of its message's part (its tokens are inside the message's).
  const imageRows = [];
  for (const [index, images] of context.images) {
    const row = rows.find((candidate) => candidate.index === index);
    if (!row || !starts.has(index)) continue;
    let imageAt = starts.get(index) + row.tokens - images.reduce((sum, image) => sum + image.tokens, 0);
    for (const image of images) {
      part("image", imageAt, image.tokens, `#${index}: ${imageText(image)}`, rows.indexOf(row), "image");
      imageAt += image.tokens;
      imageRows.push(image);
    }
  }
  const end = el("span", "chat-limit");
  end.style.left = percent(limit, reach);
  lane.append(end);
  if (walkLimit !== limit) {  // strategy stable cut again: the walk ran to the low watermark
    const mark = el("span", "chat-limit watermark");
    mark.style.left = percent(walkLimit, reach);
    mark.title = `the low watermark: ${count(walkLimit, unit)}`;
    lane.append(mark);
  }
  const watermark = walkLimit !== limit ? ` Strategy stable cut again: the turns were taken up to the low watermark, ${count(walkLimit, unit)}, to leave room for the next calls.` : "";
  const legend = report.shortfall
    ? `The pinned messages, the live turn and the priming need ${count(report.limit + report.shortfall, unit)}: ${report.shortfall} over the limit of ${limit}. Nothing is sent.`
    : `Priming${toolsTokens ? `, tool definitions (${toolsTokens})` : ""} and pinned messages ${pinnedTokens}, then the newest turns while they fit: the prompt counts ${report.tokens} of ${count(limit, unit)}${stop ? `; #${stop.rows[stop.rows.length - 1].index} needed ${stop.tokens} with ${stop.before} left, so it and every older turn are dropped` : ""}.${report.kept.length ? "" : " Nothing is sent: no message is kept."}${watermark}`;
  lane.setAttribute("aria-label", legend);
  const key = el("p", "chat-key");
  key.setAttribute("aria-hidden", "true");  // the legend and each part's text say it in words
  const swatch = (className, text) => {
    const item = el("span", "key-item");
    item.append(el("span", `swatch ${className}`), text);
    return item;
  };
  key.append(swatch("priming", "reply priming (3)"));
  if (toolsTokens) key.append(swatch("tools", `tool definitions (${toolsTokens})`));
  key.append(swatch("pinned", "pinned, system"));
  if (liveRows.length && report.live_tokens) key.append(swatch("live", "the live turn, always sent"));
  key.append(swatch("kept", "kept turns, newest first"));
  if (imageRows.length) key.append(swatch("image", "images, inside their message"));
  if (walked.some((entry) => !entry.kept)) key.append(swatch("user-start", "fit, dropped for the user start"));
  if (stop) key.append(swatch("stop", "the turn that stopped the walk"));
  key.append(swatch("limit", "the limit"));
  box.append(el("p", "lane-label", `The budget: a limit of ${count(limit, unit)}, the conversation's parts in the order they were taken`), lane, el("p", "legend", legend), key);
  requestAnimationFrame(() => fitLabels(box));
  return box;
}

// Follow the page's step-through: the table marks the current trace row; the bubbles of
// the turns not yet decided fade and the current one is outlined (the trace is newest first).
function followSteps(view, rows) {
  const table = document.getElementById("items");
  if (!table) return;
  const order = new Map(rows.map((row, step) => [row.index, step]));
  const update = () => {
    if (!view.isConnected) {
      observer.disconnect();
      return;
    }
    const current = table.querySelector("tr[aria-current=step]");
    const step = current ? Number(current.dataset.index) : null;
    view.classList.toggle("stepping", step !== null);
    for (const node of view.querySelectorAll("[data-testid=chat-message]")) {
      const at = order.get(Number(node.dataset.index));
      node.classList.toggle("pending", step !== null && at > step);
      node.classList.toggle("current", step !== null && at === step);
    }
    for (const node of view.querySelectorAll("[data-step]")) {
      node.classList.toggle("pending", step !== null && Number(node.dataset.step) > step);
    }
  };
  const observer = new MutationObserver(update);
  observer.observe(table, { subtree: true, attributes: true, attributeFilter: ["aria-current"] });
}

function render(report, reportContext, about = {}) {
  const rows = Array.isArray(report.trace) ? report.trace : [];
  if (!Array.isArray(report.kept) || !rows.length) return null;
  // Each message's image parts, in part order, as the report counted them.
  const images = new Map();
  for (const image of Array.isArray(report.images) ? report.images : []) {
    if (!images.has(image.index)) images.set(image.index, []);
    images.get(image.index).push(image);
  }
  for (const list of images.values()) list.sort((a, b) => a.part - b.part);
  const cleared = new Map();  // message index -> its cleared items
  for (const item of Array.isArray(report.cleared) ? report.cleared : []) {
    if (!cleared.has(item.index)) cleared.set(item.index, []);
    cleared.get(item.index).push(item);
  }
  const context = { ...reportContext, images, cleared };
  // The trace is newest first and, for a long history, may be only its first page: the
  // turns in hand are the newest ones, down to the last row's index. `about` (the report
  // store's sums over every row) gives the counts and the rest of the walk.
  const total = rows[0].index + 1;
  const whole = report.kept.length + report.dropped.length === total || about.total === total;
  const keptCount = report.kept.length + report.dropped.length === total ? report.kept.length : about.kept;
  const messages = inputMessages(report, total);
  const byIndex = new Map(rows.map((row) => [row.index, row]));
  const view = el("section", "chat-view");
  view.dataset.testid = "chat-view";
  view.setAttribute("aria-labelledby", "chat-heading");
  const heading = el("h3", "", "The conversation");
  heading.id = "chat-heading";
  const sent = whole ? `${keptCount} of ${count(total, "message")} sent, oldest first.` : `${count(total, "message")}, oldest first.`;
  view.append(heading, el("p", "hint", `${sent} Struck-through turns are dropped; a tool call and its results are kept or dropped together.`));
  const clearing = clearingText(report, context.unit);
  if (clearing) {
    const note = el("p", "hint clearing-note", clearing);
    note.dataset.testid = "chat-clearing";
    view.append(note);
  }
  view.append(budgetLane(report, rows, context, about.walk));
  const cache = cacheLane(report, context.unit);  // with previous or caching: the reused prefix and the new part
  if (cache) view.append(cache);
  const list = el("div", "chat");
  if (report.system_tokens) list.append(systemBlock(report, context.unit));
  if (Array.isArray(report.tools) && report.tools.length) list.append(toolsBlock(report, context.unit));
  const first = Math.max(0, total - Math.min(MAX_BUBBLES, rows.length));
  if (first) {
    const note = el("p", "hint", `${count(first, "older message")} not shown here: the table lists every decision.`);
    note.dataset.testid = "chat-older";
    list.append(note);
  }
  let frame = null;
  for (let index = first; index < total; index++) {
    const row = byIndex.get(index);
    const node = bubble(index, row, messages && messages[index], context);
    const inUnit = row && row.unit_tokens !== row.tokens;
    if (inUnit && (!frame || frame.dataset.unit !== String(row.unit))) {
      frame = el("div", `tool-unit${row.kept ? "" : " dropped"}`);
      frame.dataset.unit = String(row.unit);
      frame.dataset.testid = "chat-unit";
      frame.append(el("p", "unit-label", `one unit: a tool call and its results, ${count(row.unit_tokens, context.unit)}, ${row.kept ? "kept" : "dropped"} together`));
      list.append(frame);
    } else if (!inUnit) {
      frame = null;
    }
    (frame || list).append(node);
  }
  view.append(list);
  followSteps(view, rows);
  return view;
}

addView({ modes: ["messages"], render });
