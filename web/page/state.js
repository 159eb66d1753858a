// What the page knows between events, in one place. Each module reads and writes its own
// part; the DOM shows it, through the modules' render functions.

export const state = {
  // The Python worker: whether it said ready or failed, and the status line once ready (a
  // tokenizer's arrival adds to it).
  python: { ready: false, failed: false, readyText: "" },

  // The editor's text. `origin` says whose it is:
  //   {kind: "example", index, text, description}  an example as loaded (its description shows)
  //   {kind: "changed"}  an example the page changed (the slider): not the user's to put back,
  //                      and not to be replaced by a share link either
  //   {kind: "link", text}  a share link's input: the user's, but another link may replace it
  //   {kind: "own"}  the user's own edits
  // `replaced`, the origin and text an example replaced, while "Put it back" is on offer.
  // `edits` counts the user's edits (input events): an example load that saw one is abandoned.
  // `debounce`, the timer of the check after typing.
  input: { origin: { kind: "own" }, replaced: null, edits: 0, debounce: null },

  // The share link in the address bar: the input it holds, and whether the page refused to
  // open it over the user's edits.
  address: { text: null, refused: false },

  // The report on screen: the newest check's ticket (older answers are dropped) and its
  // envelope as JSON text (for Copy and Download).
  report: { run: 0, envelopeText: null },

  // The budget slider: the input with the slider's number not yet put in the editor (a large
  // input), the timer that will, and whether the thumb is held.
  slider: { pendingText: null, timer: null, moving: false },

  // Play in the step-through: its interval, or null.
  step: { playTimer: null },

  // What the page shows: "lesson" (the first screen) or "tool"; the lesson chosen (its id and
  // title), its step (1-based), whether its checks open by themselves, each step's prediction
  // (ids pressed, checked or not) and its "why" answer (the option chosen, whether one was right).
  view: "lesson",
  lesson: { id: "", title: "", steps: [], step: 1, openChecks: false, claims: {}, whys: {}, shown: {} },

  // The examples menu: its entries, each choice's ticket (the newest wins), whether every
  // example has been fetched ahead.
  examples: { list: [], loads: 0, prefetched: false },
};

// The text a check is about: the editor's, or the slider's not yet put there.
export function currentText() {
  return state.slider.pendingText ?? document.getElementById("input").value;
}
