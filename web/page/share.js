// Sharing and saving: the share link (the input in the URL fragment, never sent to a server),
// opening one, and downloading or copying the input and the report.

import { $ } from "./dom.js";
import { state } from "./state.js";
import * as python from "./python.js";
import { runCheck } from "./check.js";
import { setInput, setOrigin } from "./input.js";
import { settleSlider } from "./slider.js";

// Chromium opens URLs up to 2 MB; refuse well before, with the way out.
const SHARE_LIMIT = 1_500_000;
const LINK_START = /^#(?:example|length|input)=/;

// A text as the editor holds it: a textarea turns "\r\n" and "\r" into "\n".
const asInEditor = (text) => (text === null ? null : text.replace(/\r\n?/g, "\n"));

// The input's length goes first, so that a link cut short (a chat or a mail program that
// wraps or truncates long addresses) is told apart from an input that ends early.
function shareLink() {
  const url = new URL(window.location.href);
  const text = $("input").value;
  // An example as loaded is named (its fixture or template), so that the link opens with its name.
  const { origin } = state.input;
  const example = origin.kind === "example" && origin.text === text ? state.examples.list[origin.index] : null;
  const name = example ? `example=${encodeURIComponent(example.fixture || example.template)}&` : "";
  url.hash = `${name}length=${text.length}&input=${encodeURIComponent(text)}`;
  return url.href;
}

async function share() {
  let link;
  try {
    link = shareLink();
  } catch (error) {
    // encodeURIComponent refuses only an unpaired surrogate (half of an emoji, say): say where.
    const text = $("input").value;
    const at = text.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    if (at >= 0) {
      const before = text.slice(0, at);
      const line = before.split("\n").length;
      const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
      $("share-note").textContent = `This input cannot be put in a link: it holds half of a character (an unpaired surrogate) at line ${line}, column ${column}. Remove it, or use “Download input”.`;
    } else {
      $("share-note").textContent = `This input cannot be put in a link: ${error.message}`;
    }
    return;
  }
  if (link.length > SHARE_LIMIT) {
    const megabytes = (link.length / 1e6).toFixed(1);
    $("share-note").textContent = `This input is too large for a share link: the link would be ${megabytes} million characters, and browsers open links only up to about 2 MB. Use “Download input” and send the file instead.`;
    return;
  }
  history.replaceState(null, "", link);
  state.address = { text: $("input").value, refused: false };
  try {
    await navigator.clipboard.writeText(link);
    $("share-note").textContent = "Share link copied; the input travels in the link itself and is not sent anywhere.";
  } catch (error) {
    $("share-note").textContent = "The address bar now holds the share link (copying to the clipboard was not allowed).";
  }
}

// After each change of the editor's text: a share link in the address bar is about an earlier
// input, and a reload would bring that back. (Not one the page refused to open over the
// user's edits: it said to reload to open it.)
export function dropStaleLink() {
  const { text, refused } = state.address;
  if (!refused && LINK_START.test(window.location.hash) && $("input").value !== asInEditor(text)) {
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
}

function download(text, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

function reportText() {
  return python.formatted(state.report.envelopeText, "result").then((text) => text + "\n");
}

// "#length=N&input=…" (or "#input=…", a link without the length): {text, note}, or null when
// the address holds no share link this page can read (a note says so). A link cut short
// inside a character cannot be decoded; one cut between characters holds fewer than its N.
function inputFromLink(instead) {
  const match = /^#(?:example=[^&]*&)?(?:length=(\d+)&)?input=(.*)$/s.exec(window.location.hash);
  if (!match) {
    // A hash that starts like a share link but is not one (edited by hand, mangled in a chat) is said, not ignored.
    if (LINK_START.test(window.location.hash)) {
      $("share-note").textContent = `The link is not a share link this page can read (it should end in #length=N&input=…); ${instead}.`;
    }
    return null;
  }
  let text;
  try {
    text = decodeURIComponent(match[2]);
  } catch (error) {
    // A link made with its length can fail to decode only when cut: inside an escape, or
    // between the escapes of one character ("%E2%82" of "%E2%82%AC").
    const cut = match[1] !== undefined;
    $("share-note").textContent = cut
      ? `The link was cut short (copied or sent only in part), so its input is incomplete; ${instead}. Ask for the whole link, or for the input as a file.`
      : `The link's input could not be decoded; ${instead}.`;
    return null;
  }
  const length = match[1] === undefined ? text.length : Number(match[1]);
  // Shown as far as it goes (the JSON error under the editor points at where it stops), with
  // this note once the editor holds it.
  const note = text.length < length
    ? `The link was cut short (copied or sent only in part): it holds ${text.length.toLocaleString("en")} of its input's ${length.toLocaleString("en")} characters. Ask for the whole link, or for the input as a file.`
    : "";
  return { text, note };
}

// A link's input in the editor, with what the link said about it.
function setLinkedInput({ text, note }) {
  state.address = { text, refused: false };
  setInput(text);
  setOrigin({ kind: "link", text: $("input").value });
  $("share-note").textContent = note;
}

// The input of the share link the page was opened with: true when there was one to show.
export function openLinkAtStart() {
  const linked = inputFromLink("showing an example instead");
  if (linked === null) return false;
  setLinkedInput(linked);
  return true;
}

// The example a share link names, once the menu is loaded: the link opens under its name
// while the editor still holds the link's text (the link names only an example as loaded).
export function nameLinkedExample() {
  const match = /^#example=([^&]*)&/.exec(window.location.hash);
  const { origin } = state.input;
  if (!match || origin.kind !== "link" || $("input").value !== origin.text) return null;
  let key;
  try {
    key = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  const index = state.examples.list.findIndex((example) => (example.fixture || example.template) === key);
  return index < 0 ? null : index;
}

// A share link opened in a tab that already shows the page changes only the hash: load it too.
// Never over the user's own edits: only an input the page itself put there (an example, a link) is replaced.
function openLinkLater() {
  settleSlider();  // the editor as the user left it, the slider's number in it
  const linked = inputFromLink("the editor keeps what it holds");
  if (linked === null || asInEditor(linked.text) === $("input").value) return;
  const { kind, text } = state.input.origin;
  if (!((kind === "example" || kind === "link" || kind === "lesson") && $("input").value === text)) {
    $("share-note").textContent = "The link's input was not loaded: it would replace your edits. Reload the page to open it.";
    state.address.refused = true;
    return;
  }
  setLinkedInput(linked);
  runCheck();
}

export function wireSharing() {
  $("share").addEventListener("click", share);
  $("copy-report").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(await reportText());
      $("share-note").textContent = "Report copied.";
    } catch (error) {
      $("share-note").textContent = "Copying to the clipboard was not allowed; use Download instead.";
    }
  });
  $("download-report").addEventListener("click", async () => download(await reportText(), "fitproof-report.json"));
  $("download-input").addEventListener("click", () => download($("input").value, "fitproof-input.json"));
  window.addEventListener("hashchange", openLinkLater);
}
