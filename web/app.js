// The page's entry: wires the modules in page/ together. Every decision (selection, checks,
// errors) is made in Python, in the worker (worker.js); the page moves JSON between the
// editor and Python and draws the report.

import { $ } from "./page/dom.js";
import * as python from "./page/python.js";  // the worker, started before this module by index.html
import { watchStartup } from "./page/status.js";
import { checkText, onCheckStarted, onReportShown, runCheck } from "./page/check.js";
import { onInputChanged, wireEditor } from "./page/input.js";
import { updateSlider, wireSlider } from "./page/slider.js";
import { stopPlay, wireSteps } from "./page/steps.js";
import { loadExamples, offerRestore, prefetchExamples, showPageExample, startWithPageExample, wireExamples } from "./page/examples.js";
import { dropStaleLink, nameLinkedExample, openLinkAtStart, wireSharing } from "./page/share.js";
import { showModeHelp } from "./page/mode-help.js";
import { shown, turnPage } from "./page/items.js";
import "./page/model-tokenizer.js";  // a model's tokenizer file, chosen or dropped, named for this session
import "./page/chat.js";  // the messages mode's conversation view (it registers itself with report.js)
import { showFirstReport } from "./page/first-report.js";
import { loadLesson, prefetchLessons, setView, wireLesson } from "./page/lesson.js";
import { startCodeEditor } from "./page/code-editor.js";
import { checkNow } from "./page/check.js";
import { startStore } from "./page/store.js";

// "Take this with you" is loaded when first asked for (not part of the first visit's modules).
const takeAway = () => import("./page/take-away.js");

// A small, stable API for tests and the benchmark: the envelope as JSON text.
window.fitproof = {
  checkText: (text) => checkText(text).then((answer) => answer.envelope),
  timedCheck: (text) => checkText(text),
  ask: (type, text, key) => python.ask(type, text, key),  // {envelope, ms}: used by page/tokens.js
};

onCheckStarted(stopPlay);
onReportShown((report, text, about) => {
  showModeHelp(report || shown.report);
  updateSlider(report, text, about);
  if (!$("take-away-block").hidden) takeAway().then((module) => module.refreshTakeAway());  // the case of what is on screen
});
onInputChanged(dropStaleLink);
onInputChanged(offerRestore);  // but the page's own changes (slider, Format) keep the offer

wireEditor();
wireSlider();
wireSteps();
wireExamples();
wireSharing();
wireLesson();
$("take-away").addEventListener("click", () => takeAway().then((module) => module.toggleTakeAway()));
$("page-prev").addEventListener("click", () => turnPage(-1));
$("page-next").addEventListener("click", () => turnPage(1));

// What the worker said before this module ran (it starts earlier) is handled only now that
// everything above, window.fitproof included, exists.
watchStartup({ onReady: () => { prefetchExamples(); prefetchLessons(); } });

// index.html already holds the first example, so the editor is filled from the first paint
// and whatever is typed while Python loads is kept: it is what gets checked once ready.
// The lesson is the first screen; a share link opens the tool on its input.
const linked = openLinkAtStart();
if (!linked) startWithPageExample();
// ?view=tool opens the tool at once (and ?editor=plain keeps the plain text box).
setView(linked || new URLSearchParams(location.search).get("view") === "tool" ? "tool" : "lesson");
runCheck();
showFirstReport();  // the default input's report, made when the site was built: on screen until Python's replaces it
startCodeEditor({ onCheck: checkNow });  // the textarea until CodeMirror has loaded, and if it cannot
await Promise.all([loadExamples(), loadLesson()]);
prefetchExamples();
prefetchLessons();
showPageExample(nameLinkedExample());
startStore();  // the report store's thread, idle until the first report: its modules are in by then
