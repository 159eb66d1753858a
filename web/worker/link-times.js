// The times worker/boot.js judges a first visit's link and the HTTP cache by (which start: see
// there). A site may set any of them in boot.json's optional `link` object (docs/page.md,
// "Which start"); each value given must be a number of milliseconds, at least 0: anything else
// (a string, a negative number, null, a `link` that is not an object) is ignored for the
// default, never an error. Imports nothing, so that a test can import it in a page.

export const LINK_DEFAULTS = Object.freeze({
  fast_ms: 1200,  // a link is fast when Pyodide's .wasm (3.5 MB gzipped) was whole within this of being asked for
  cached_ms: 300,  // the prebuilt snapshot is cached when the HTTP cache gives it within this
  decide_ms: 400,  // the prebuilt snapshot's pace is measured over this after its first bytes...
  saves_ms: 2000,  // ...and it is dropped when the rest would take longer than this
  no_answer_ms: 3000,  // a prebuilt snapshot that sends nothing for this long is dropped
});

// setTimeout's longest delay (about 24.8 days): a longer one would fire at once.
const LONGEST_MS = 2 ** 31 - 1;

export function linkTimes(given) {
  const times = { ...LINK_DEFAULTS };
  if (given === null || typeof given !== "object" || Array.isArray(given)) return times;
  for (const name of Object.keys(LINK_DEFAULTS)) {
    const value = given[name];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) times[name] = Math.min(value, LONGEST_MS);
  }
  return times;
}
