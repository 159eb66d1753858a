// The token view: paste text or pick an item of the input, choose a tokenizer, and see the text
// cut into its tokens, coloured alternately, with the exact count beside the heuristic estimate.
// Python counts and cuts (fitproof._page.token_view); this file only shows the answer.

import { $ } from "./dom.js";

const DEBOUNCE_MS = 250;
const SHOWN_SEGMENTS = 5000;  // beyond this the count stays exact but the coloured view is cut short

let latest = 0;
let timer = null;

// Items of the current input that carry text: relevance/required/blocks `content`, passages `text`,
// messages `content` strings. Reading strings needs no number to survive JSON.parse.
function itemsWithText() {
  let data;
  try {
    data = JSON.parse($("input").value);
  } catch {
    return [];
  }
  if (!data || typeof data !== "object") return [];
  const list = data.items || data.blocks || data.passages || data.messages || [];
  if (!Array.isArray(list)) return [];
  const found = [];
  list.forEach((item, index) => {
    if (!item || typeof item !== "object") return;
    const text = typeof item.content === "string" ? item.content : typeof item.text === "string" ? item.text : null;
    if (text === null) return;
    const name = typeof item.id === "string" ? item.id : typeof item.role === "string" ? `${index}: ${item.role}` : String(index);
    found.push({ name, text });
  });
  return found;
}

function refreshItems() {
  const select = $("tokens-item");
  const items = itemsWithText();
  const previous = select.value;
  select.replaceChildren(new Option("(type or paste below)", ""));
  items.forEach((item, index) => select.add(new Option(item.name, String(index))));
  select.disabled = items.length === 0;
  if ([...select.options].some((option) => option.value === previous)) select.value = previous;
  select.itemsCache = items;
}

function pickItem() {
  const select = $("tokens-item");
  const item = (select.itemsCache || [])[Number(select.value)];
  if (select.value === "" || !item) return;
  $("tokens-input").value = item.text;
  schedule(0);
}

function schedule(delay = DEBOUNCE_MS) {
  clearTimeout(timer);
  timer = setTimeout(show, delay);
}

function plural(count, noun) {
  return `${count.toLocaleString("en-US")} ${noun}${count === 1 ? "" : "s"}`;
}

async function show() {
  const run = ++latest;
  const text = $("tokens-input").value;
  const tokenizer = $("tokens-tokenizer").value;
  const view = $("tokens-view");
  $("tokens-block").setAttribute("aria-busy", "true");
  let answer;
  try {
    answer = JSON.parse((await window.fitproof.ask("tokens", text, tokenizer)).envelope);
    if (answer.error) throw new Error(answer.error);  // a chosen file that cannot count this text
  } catch (error) {
    if (run !== latest) return;
    $("tokens-count").dataset.state = "error";
    $("tokens-count").textContent = String(error.message || error);
    $("tokens-block").removeAttribute("aria-busy");
    return;
  }
  if (run !== latest) return;
  $("tokens-block").removeAttribute("aria-busy");
  $("tokens-progress").hidden = true;
  const count = $("tokens-count");
  count.dataset.state = "done";
  count.dataset.count = String(answer.count);
  const off = answer.count ? Math.round(((answer.estimate - answer.count) / answer.count) * 100) : 0;
  const which = answer.sha256 ? `${answer.tokenizer}, your file, SHA-256 ${answer.sha256.slice(0, 12)}…` : answer.tokenizer;
  count.textContent = `${plural(answer.count, "token")} (${which}, exact) · the estimate says ${answer.estimate.toLocaleString("en-US")}` +
    (answer.count ? ` (${off >= 0 ? "+" : ""}${off}%)` : "");
  // A model file's added token (such as <|im_start|>) can be kept apart from its vocabulary: no id here.
  const idsText = (ids) => ids.map((id) => (id === null ? "(an added token)" : id)).join(" ");
  const fragment = document.createDocumentFragment();
  answer.segments.slice(0, SHOWN_SEGMENTS).forEach((segment, index) => {
    const span = document.createElement("span");
    span.className = `token token-${index % 2 ? "b" : "a"}`;
    span.textContent = segment.text;
    span.title = `token id${segment.ids.length > 1 ? "s" : ""} ${idsText(segment.ids)}`;
    if (segment.tokens > 1) {
      span.classList.add("token-joined");
      span.title = `${segment.tokens} tokens inside this text (a token can end inside a character): ids ${idsText(segment.ids)}`;
    }
    fragment.append(span);
  });
  view.replaceChildren(fragment);
  $("tokens-cut").hidden = answer.segments.length <= SHOWN_SEGMENTS;
}

window.addEventListener("tokenizer-progress", ({ detail }) => {
  const progress = $("tokens-progress");
  progress.hidden = detail.total > 0 && detail.loaded >= detail.total;
  progress.max = detail.total || 1;
  progress.value = detail.loaded;
  progress.textContent = `${Math.round((detail.loaded / (detail.total || 1)) * 100)}%`;
  $("tokens-progress-label").textContent = progress.hidden ? "" :
    `Loading the ${detail.name} tokenizer: ${(detail.loaded / 1e6).toFixed(1)} of ${(detail.total / 1e6).toFixed(1)} MB`;
});

$("tokens-input").addEventListener("input", () => schedule());
$("tokens-tokenizer").addEventListener("change", () => schedule(0));
$("tokens-item").addEventListener("change", pickItem);
// Typed, or replaced by the page (app.js); a closed view is refreshed when it opens.
window.addEventListener("fitproof:input", () => { if ($("tokens-block").open) refreshItems(); });
$("tokens-block").addEventListener("toggle", () => {
  if ($("tokens-block").open) {
    refreshItems();
    schedule(0);
  }
});
