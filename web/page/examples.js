// The examples menu: fixtures and templates, loaded into the editor in place of its text,
// which stays on offer ("Put it back") when it was the user's own.

import { $ } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";
import { runCheck } from "./check.js";
import { setInput, setOrigin } from "./input.js";

// The menu's groups, in plain words (an example's `mode` in examples.json).
const GROUPS = {
  relevance: "By relevance, under a token budget",
  required: "Required items first, then by priority",
  blocks: "Blocks of a prompt in a context window",
  passages: "Retrieved passages under a limit",
  messages: "A chat history under a limit",
  invalid: "Inputs the checker refuses",
  template: "Start from a template",
};

export async function loadExamples() {
  const response = await fetch("examples.json");
  state.examples.list = await response.json();
  const menu = $("example");
  menu.append(new Option("Your own input (or the lesson's)", ""));
  const groups = new Map();
  state.examples.list.forEach((example, index) => {
    const mode = example.mode || (example.template ? "template" : "other");
    if (!groups.has(mode)) {
      const group = document.createElement("optgroup");
      group.label = GROUPS[mode] || mode;
      groups.set(mode, group);
    }
    groups.get(mode).append(new Option(example.label, String(index)));
  });
  menu.append(...groups.values());
}

// Each example's text, fetched once. All of them (a few KB each) are fetched once the page is
// ready, so that the menu still works when the connection goes away later ("runs offline").
const exampleTexts = new Map();  // URL -> Promise of the text
function fetchExample(example) {
  const url = example.template || `fixtures/${example.fixture}`;
  if (!exampleTexts.has(url)) {
    const loading = fetch(url).then((response) => {
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      return response.text();
    });
    loading.catch(() => exampleTexts.delete(url));  // a failed fetch is tried again next time
    exampleTexts.set(url, loading);
  }
  return exampleTexts.get(url);
}

// Once the page is ready (not while Python's files download) and the menu is filled.
export function prefetchExamples() {
  if (state.examples.prefetched || !state.python.ready || !state.examples.list.length) return;
  state.examples.prefetched = true;
  for (const example of state.examples.list) fetchExample(example).catch(() => {});
}

// The menu shows what the editor holds.
const showOrigin = () => setOrigin(state.input.origin);

async function showExample(index) {
  const example = state.examples.list[index];
  const ticket = ++state.examples.loads;  // arrow keys on the menu choose several at once: the newest wins
  const editsBefore = state.input.edits;
  // A load that is no longer wanted: a newer choice, or typing meanwhile (the typing wins).
  const abandoned = () => {
    if (ticket !== state.examples.loads) return true;
    if (state.input.edits === editsBefore) return false;
    showOrigin();
    return true;
  };
  let text;
  try {
    text = await fetchExample(example);
  } catch (error) {  // offline, say: the editor is unchanged
    if (ticket !== state.examples.loads) return;
    showOrigin();
    $("share-note").textContent = `The example could not be loaded (${error.message}; is the page offline?). Your input is unchanged.`;
    return;
  }
  if (abandoned()) return;
  const exampleInput = await python.formatted(text, "input");
  if (abandoned()) return;
  const before = $("input").value;
  const { origin } = state.input;
  if ((origin.kind === "own" || origin.kind === "link") && before.trim()) state.input.replaced = { origin, text: before };
  setInput(exampleInput);
  setOrigin({ kind: "example", index, text: $("input").value, description: example.description || JSON.parse(text).description });
  offerRestore();
  runCheck();
}

// An example replaces the editor's text (arrow keys on the menu do it at once): the user's own
// text can be put back, as the editor's undo cannot (the page set its value). It stays on offer
// while examples follow each other, until the user edits again.
export function offerRestore() {
  const replaced = state.input.replaced;
  if (replaced === null) return;
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.testid = "restore-input";
  button.textContent = "Put it back";
  button.addEventListener("click", () => putBack(replaced));
  $("share-note").replaceChildren("The example replaced your input. ", button);
}

function putBack(replaced) {
  state.input.replaced = null;
  setInput(replaced.text);
  setOrigin(replaced.origin);
  runCheck();
}

export function wireExamples() {
  $("example").addEventListener("change", (event) => {
    if (event.target.value !== "") showExample(Number(event.target.value));
    else if (state.input.replaced !== null) putBack(state.input.replaced);  // "Your own input": the text an example replaced
    else setOrigin({ kind: "own" });  // the example in the editor becomes the user's to edit
  });
}

// The page's own example, in index.html so that the editor is filled from the first paint.
export function startWithPageExample() {
  state.input.origin = { kind: "example", index: 0, text: $("input").value, description: $("example-description").textContent };
}

// Once the menu is filled: it names the page's example while the editor still holds it, and
// the example a share link names (`linked`, an index), with its description.
export async function showPageExample(linked = null) {
  const { origin } = state.input;
  if (origin.kind === "example" && $("input").value === origin.text) setOrigin(origin);
  if (linked === null) return;
  const example = state.examples.list[linked];
  const text = $("input").value;
  let description = example.description;
  if (!description) {
    try {
      description = JSON.parse(await fetchExample(example)).description;
    } catch {
      description = "";
    }
  }
  if ($("input").value === text && state.input.origin.kind === "link") setOrigin({ kind: "example", index: linked, text, description });
}
