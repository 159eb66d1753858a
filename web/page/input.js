// The editor's text: typing in it, Check and Format, the page replacing it (an example, the
// slider, a share link), and whose text it is (state.input.origin, see state.js).

import { $ } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";
import { checkNow, runCheck, scheduleCheck } from "./check.js";
import * as codeEditor from "./code-editor.js";

// Registered by app.js: run after every change of the editor's text, typed or set by the page.
const changeHooks = [];
export const onInputChanged = (hook) => changeHooks.push(hook);

function inputChanged() {
  $("share-note").textContent = "";  // "Report copied." and the like are about an earlier input
  for (const hook of changeHooks) hook();
  window.dispatchEvent(new Event("fitproof:input"));  // for the token view
}

// The editor's text replaced by the page: no "input" event fires for that, so the others are
// told here.
export function setInput(text) {
  state.slider.pendingText = null;  // the slider's number is in the text now, or moot: the page replaced the input
  clearTimeout(state.slider.timer);
  $("input").value = text;
  codeEditor.setText(text);
  inputChanged();
}

// The examples menu and the example's description show whose text the editor holds.
export function setOrigin(origin) {
  state.input.origin = origin;
  const example = origin.kind === "example";
  const described = example || origin.kind === "lesson";
  $("example").value = example ? String(origin.index) : "";
  $("example-description").textContent = described ? origin.description : "";
  $("example-description").hidden = !described;
}

// An edit, by the user or (`byPage`) the slider: the text is no longer what the page put
// there, unless it is back to just that. An example the slider changed is not the user's own.
function edited({ byPage }) {
  const { kind, text } = state.input.origin;
  if (kind === "own" || (kind === "changed" && byPage)) return;
  if (text !== undefined && $("input").value === text) return;
  setOrigin({ kind: kind === "example" && byPage ? "changed" : "own" });
}

export const editedByPage = () => edited({ byPage: true });

export function wireEditor() {
  $("input").addEventListener("input", () => {
    state.input.replaced = null;  // edited over: "Put it back" would now lose these edits
    state.input.edits += 1;
    edited({ byPage: false });
    inputChanged();
    scheduleCheck();
  });
  $("input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      checkNow();
    }
  });
  $("run").addEventListener("click", checkNow);
  $("format").addEventListener("click", async () => {
    const text = $("input").value;
    try {
      const result = await python.formatted(text);  // pressed while loading: runs once Python is ready
      if ($("input").value === text && result !== text) setInput(result);  // never over newer typing
    } catch (error) {
      // Not acceptable JSON: the check below says what is wrong, with line and column.
      if (error.notJson && $("input").value === text) $("share-note").textContent = "Not formatted: the JSON has an error (shown under the editor); fix it first.";
    }
    runCheck();
  });
}
