// The JSON editor: finds where a JSON path (as the report's errors write it) sits in
// the text, selects it, and replaces one number in place so the user's own formatting
// survives. It reads the text only; it never decides anything about the input.

import * as codeEditor from "./code-editor.js";

const textarea = () => document.getElementById("input");

// "$.items[2].tokens" or '$["a b"][0]' (the paths Python writes) -> ["items", 2, "tokens"].
export function parsePath(path) {
  if (typeof path !== "string" || !path.startsWith("$")) return null;
  const steps = [];
  let at = 1;
  while (at < path.length) {
    if (path[at] === ".") {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path.slice(at + 1));
      if (!name) return null;
      steps.push(name[0]);
      at += 1 + name[0].length;
    } else if (path[at] === "[" && path[at + 1] === '"') {
      let end = at + 2;
      while (end < path.length && path[end] !== '"') end += path[end] === "\\" ? 2 : 1;
      try {
        steps.push(JSON.parse(path.slice(at + 1, end + 1)));
      } catch (error) {
        return null;
      }
      at = end + 2;
    } else if (path[at] === "[") {
      const close = path.indexOf("]", at);
      const index = Number(path.slice(at + 1, close));
      if (close < 0 || !Number.isInteger(index)) return null;
      steps.push(index);
      at = close + 1;
    } else {
      return null;
    }
  }
  return steps;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

function skipSpace(text, at) {
  while (at < text.length && WHITESPACE.has(text[at])) at++;
  return at;
}

function stringEnd(text, at) {  // at is on the opening quote; returns the index after the closing one
  at++;
  while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
  return Math.min(at + 1, text.length);
}

function valueEnd(text, at) {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first === "{" || first === "[") {
    // Iterative, so a deeply nested value cannot overflow the stack.
    let depth = 0;
    while (at < text.length) {
      const char = text[at];
      if (char === '"') { at = stringEnd(text, at); continue; }
      if (char === "{" || char === "[") depth++;
      else if (char === "}" || char === "]") {
        depth--;
        if (depth === 0) return at + 1;
      }
      at++;
    }
    return at;
  }
  while (at < text.length && !WHITESPACE.has(text[at]) && !",]}".includes(text[at])) at++;
  return at;
}

// The span of the value at `step` inside the object or array starting at `at`, or null.
function child(text, at, step) {
  const open = text[at];
  if (!(open === "{" && typeof step === "string") && !(open === "[" && typeof step === "number")) return null;
  let index = 0;
  at = skipSpace(text, at + 1);
  while (at < text.length && text[at] !== "}" && text[at] !== "]") {
    let key = null;
    if (open === "{") {
      if (text[at] !== '"') return null;
      const keyEnd = stringEnd(text, at);
      try {
        key = JSON.parse(text.slice(at, keyEnd));
      } catch (error) {
        return null;
      }
      at = skipSpace(text, keyEnd);
      if (text[at] !== ":") return null;
      at = skipSpace(text, at + 1);
    }
    const end = valueEnd(text, at);
    if (open === "{" ? key === step : index === step) return { start: at, end };
    at = skipSpace(text, end);
    if (text[at] !== ",") return null;
    at = skipSpace(text, at + 1);
    index++;
  }
  return null;
}

// Where `path` is in `text`: the value's span, or the deepest part of the path that exists
// (a missing key selects the object that should hold it). `complete` says which.
export function locate(text, path) {
  const steps = parsePath(path);
  const start = skipSpace(text, 0);
  // The whole document's end only when it is the answer: finding it reads all the text.
  let span = { start, end: null };
  const found = (complete) => ({ start: span.start, end: span.end ?? valueEnd(text, span.start), complete });
  if (!steps) return found(false);
  for (const step of steps) {
    const next = child(text, span.start, step);
    if (!next) return found(false);
    span = next;
  }
  return found(true);
}

// The number written at `path`, or null when there is no plain integer there.
export function numberAt(text, path) {
  const span = locate(text, path);
  if (!span.complete) return null;
  const written = text.slice(span.start, span.end);
  return /^\d+(\.0*)?$/.test(written) ? Number(written) : null;
}

// The text with the value at `path` replaced by `value`'s digits (only where a number is
// written, even one the input refuses, such as -1: the slider can bring it back).
export function withNumber(text, path, value) {
  const span = locate(text, path);
  if (!span.complete || !/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text.slice(span.start, span.end))) return null;
  return text.slice(0, span.start) + String(value) + text.slice(span.end);
}

// The number literal written at `path`, as text ("-1"), or null.
export function literalAt(text, path) {
  const span = locate(text, path);
  if (!span.complete) return null;
  const written = text.slice(span.start, span.end);
  return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(written) ? written : null;
}

// A 1-based line and column (columns in code points, as Python counts) -> an index into the text.
export function offsetOf(text, line, column) {
  let at = 0;
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf("\n", at);
    if (newline < 0) return text.length;
    at = newline + 1;
  }
  for (let current = 1; current < column && at < text.length && text[at] !== "\n"; current++) {
    at += text.codePointAt(at) > 0xffff ? 2 : 1;
  }
  return at;
}

// Focus the editor, select start..end and scroll that line into the editor's view.
export function select(start, end) {
  if (codeEditor.select(start, end)) return;
  const editor = textarea();
  editor.focus({ preventScroll: true });
  editor.setSelectionRange(start, Math.max(start, end));
  const line = editor.value.slice(0, start).split("\n").length - 1;
  const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 18;
  editor.scrollTop = Math.max(0, (line - 2) * lineHeight);
  editor.scrollIntoView({ block: "nearest" });
}

export function selectPath(path) {
  const span = locate(textarea().value, path);
  select(span.start, span.end);
  return span.complete;
}
