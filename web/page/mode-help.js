// "How the … mode decides": the sentences of the report's mode, beside the editor.

import { $ } from "./dom.js";
import { MODES } from "../common/modes.js";

export function showModeHelp(report) {
  const mode = report && MODES[report.mode];
  $("mode-help").hidden = !mode;
  if (!mode) return;
  $("mode-help-name").textContent = report.mode;
  $("mode-help-text").replaceChildren(...mode.decides.map((sentence) => {
    const item = document.createElement("li");
    item.textContent = sentence;
    return item;
  }));
}
