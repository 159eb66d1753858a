// The page's requests, answered by the package: check, format, and the token view's
// "tokens" and "count", "model-tokenizer" (a chosen file's bytes, named for this session), and
// "take-away" (an input as a fixture case and as the Python call).
// Each answer is JSON text made in Python.

import { python } from "./package.js";
import { ensureTokenizers } from "./tokenizers.js";

export async function answer({ type, text, key, data }) {
  // "tokens" and "count" name the tokenizer in `key`; a check names it in the input.
  if (type === "check" || type === "take-away") await ensureTokenizers(text);
  else if (type === "tokens" || type === "count") await ensureTokenizers(JSON.stringify({ tokenizer: key }));
  const started = performance.now();
  let envelope;
  if (type === "model-tokenizer") envelope = python.page.load_model_tokenizer(new Uint8Array(data), text, key);
  else if (type === "tokens") envelope = python.page.token_view(text, key);
  else if (type === "count") envelope = python.page.count_texts(text, key);
  else if (type === "take-away") envelope = python.page.take_away(text, key);  // key: the case's description
  // No key: call with one argument. Pyodide turns a JavaScript null into `jsnull`, not None,
  // and format_json would look for a key by that name.
  else if (type === "format") envelope = key == null ? python.formatJson(text) : python.formatJson(text, key);
  else envelope = python.page.check_text(text);  // the session's chosen tokenizers known by name
  return { envelope, ms: performance.now() - started };
}
