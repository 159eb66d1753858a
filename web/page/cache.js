// Mode `messages` with `previous` (strategy stable, the reuse, docs/contract.md): the prompt as the
// previous call's reused prefix and the new part, on the same scale as the budget lane, with what
// the provider's caching rule bills as cached, written and plain input, and the saving when prices
// are given. Reads the report only: every number is Python's.

import { el } from "./dom.js";
import { percent, segmentName, fitLabels } from "./bar.js";
import { count } from "../common/modes.js";

const PROVIDERS = { openai: "OpenAI", anthropic: "Anthropic" };

function dollars(amount) {
  return `$${amount.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
}

// Where the cut comes from, in words.
function cutText(report, unit) {
  if (report.cut === null || report.cut === undefined) return "Nothing is sent, so there is no cut to pass on.";
  const at = report.cut ? `the cut is at message #${report.cut} (every unpinned message from it on is sent)` : "nothing is cut";
  if (report.cut_from === "previous") {
    const kept = report.cut ? `the cut at message #${report.cut} is the previous call's, kept` : "nothing is cut yet";
    return `Strategy ${report.strategy}: ${kept}, so this prompt is the previous one with the new turns appended.`;
  }
  if (report.cut_from === "low_watermark") {
    return `Strategy ${report.strategy}: the history no longer fitted from the previous cut, so it was cut again, down to the low watermark (${report.low_watermark} × ${report.limit} = ${count(report.walk_limit, unit)}): ${at}, with room for the turns to come.`;
  }
  return `Strategy ${report.strategy}: ${at}.`;
}

export function cacheLane(report, unit) {
  const reuse = report.reuse;
  if (!reuse || typeof reuse !== "object") return null;
  const box = el("div", "chat-budget cache-budget");
  box.dataset.testid = "chat-cache";
  const lane = el("div", "chat-lane");
  lane.dataset.testid = "chat-cache-lane";
  lane.setAttribute("role", "list");
  const limit = report.limit;
  const reach = Math.max(limit, report.tokens, 1);
  const part = (className, start, amount, label, name) => {
    if (amount <= 0) return;
    const node = el("span", `chat-part ${className}`);
    node.style.left = percent(start, reach);
    node.style.width = percent(amount, reach);
    node.title = label;
    node.setAttribute("role", "listitem");
    node.dataset.testid = `cache-${className.split(" ")[0]}`;
    node.append(segmentName(name, amount), el("span", "visually-hidden", label));
    lane.append(node);
  };
  const prefix = reuse.prefix_tokens;
  const provider = PROVIDERS[reuse.provider];
  if (provider && reuse.cached_tokens) {
    part("cached", 0, reuse.cached_tokens, `billed as cached: ${count(reuse.cached_tokens, unit)}`, "cached");
    if (prefix > reuse.cached_tokens) {
      part("reused", reuse.cached_tokens, prefix - reuse.cached_tokens, `reused, not billed as cached: ${count(prefix - reuse.cached_tokens, unit)}`, "reused");
    }
  } else {
    part("reused", 0, prefix, `the previous prompt's prefix: ${count(prefix, unit)}`, "reused");
  }
  part("new", prefix, report.tokens - prefix, `new in this call: ${count(report.tokens - prefix, unit)}`, "new");
  if (provider && reuse.written_tokens) {  // Anthropic: what this call writes to the cache, up to its breakpoint
    const start = reuse.cached_tokens;
    const node = el("span", "cache-written");
    node.style.left = percent(start, reach);
    node.style.width = percent(reuse.written_tokens, reach);
    node.title = `written to the cache: ${count(reuse.written_tokens, unit)}`;
    lane.append(node);
  }
  const end = el("span", "chat-limit");
  end.style.left = percent(limit, reach);
  lane.append(end);
  const sentences = [];
  if (reuse.previous_tokens === null) {
    sentences.push(`No previous call is given: this is the conversation's first prompt, ${count(report.tokens, unit)}, all new.`);
  } else {
    sentences.push(`${count(prefix, unit)} of this prompt's ${report.tokens} are the previous prompt's (its first ${count(reuse.prefix_messages, "message")}, of ${reuse.previous_tokens}); ${reuse.new_tokens} are new.`);
  }
  if (provider) {
    const rule = reuse.provider === "openai" ? `from ${reuse.min_tokens.toLocaleString("en")} tokens, in steps of 128` : `a breakpoint at the end of the last message (${reuse.breakpoint}), minimum ${reuse.min_tokens.toLocaleString("en")}`;
    const written = reuse.provider === "anthropic" ? `, ${reuse.written_tokens} written to the cache` : "";
    sentences.push(`Under ${provider}'s caching rule (${rule}): ${reuse.cached_tokens} billed as cached${written}, ${reuse.input_tokens} as plain input.`);
  }
  const legend = sentences.join(" ");
  lane.setAttribute("aria-label", legend);
  box.append(el("p", "lane-label", "The prompt cache: what this call reuses of the previous call's prompt, on the same scale"), lane, el("p", "legend", legend));
  if (typeof reuse.cost === "number" && typeof reuse.cost_without_caching === "number") {
    const saved = reuse.cost_without_caching - reuse.cost;
    const share = reuse.cost_without_caching > 0 ? Math.round((100 * saved) / reuse.cost_without_caching) : 0;
    const line = el("p", "cache-saving", saved > 0
      ? `This call costs ${dollars(reuse.cost)} instead of ${dollars(reuse.cost_without_caching)} without caching: ${dollars(saved)} saved (${share} %).`
      : saved < 0
        ? `This call costs ${dollars(reuse.cost)}, more than the ${dollars(reuse.cost_without_caching)} without caching: writing to the cache costs extra.`
        : `This call costs ${dollars(reuse.cost)}, the same as without caching: nothing is billed as cached.`);
    line.dataset.testid = "cache-saving";
    box.append(line);
  }
  const cut = el("p", "hint", cutText(report, unit));
  cut.dataset.testid = "cache-cut";
  box.append(cut);
  if (report.as_previous) {
    box.append(el("p", "hint", "Give this report's as_previous as previous to the next call: the cut and the prefix are then known from the input alone."));
  }
  const key = el("p", "chat-key");
  key.setAttribute("aria-hidden", "true");
  const swatch = (className, text) => {
    const item = el("span", "key-item");
    item.append(el("span", `swatch ${className}`), text);
    return item;
  };
  if (provider) key.append(swatch("cached", "billed as cached"));
  key.append(swatch("reused", provider ? "reused, not cached" : "reused prefix"), swatch("new", "new in this call"));
  if (provider && reuse.provider === "anthropic") key.append(swatch("written", "written to the cache"));
  key.append(swatch("limit", "the limit"));
  box.append(key);
  requestAnimationFrame(() => fitLabels(box));
  return box;
}
