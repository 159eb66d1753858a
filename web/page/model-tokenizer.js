// "Use a model's tokenizer file": a tokenizer.json, a SentencePiece .model file, a Mistral tekken file or a GGUF model file,
// chosen or dropped, read here with the File API and its bytes moved (transferred, not copied)
// to the Python worker, which names the tokenizer for this page session (fitproof._page.
// load_model_tokenizer). Nothing is uploaded or stored: closing the page forgets it.

import { $ } from "./dom.js";
import * as python from "./python.js";
import { checkNow } from "./check.js";

const GGUF_HEAD_BYTES = 64 << 20;  // of a GGUF file only its start is read: the header comes first (as _page.py)
const MAX_JSON_BYTES = 256 << 20;  // the package's limit for a tokenizer file (tokenizers/base.py)

const mb = (bytes) => (bytes / 1e6).toFixed(1);

function say(text, state) {
  const status = $("model-status");
  status.textContent = text;
  status.dataset.state = state;
}

// The first `length` bytes of `file`, read in chunks with the progress shown.
async function readStart(file, length) {
  const progress = $("model-progress");
  progress.max = length || 1;
  progress.value = 0;
  progress.hidden = false;
  const bytes = new Uint8Array(length);
  const reader = file.slice(0, length).stream().getReader();
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value.subarray(0, length - loaded), loaded);
    loaded += value.length;
    progress.value = loaded;
    say(`Reading ${file.name} in this browser: ${mb(loaded)} of ${mb(length)} MB`, "busy");
  }
  return bytes.buffer;
}

function offerInTokenView(name, answer) {
  const select = $("tokens-tokenizer");
  let option = [...select.options].find((item) => item.value === name);
  if (!option) {
    option = new Option("", name);
    select.add(option);
  }
  option.textContent = `${name} (your file: ${answer.file}, SHA-256 ${answer.sha256.slice(0, 12)}…)`;
  select.value = name;
  select.dispatchEvent(new Event("change"));
}

async function useFile(file) {
  if (!file) return;
  const box = $("model-drop");
  box.setAttribute("aria-busy", "true");
  $("model-file").disabled = true;
  try {
    const magic = new TextDecoder("latin1").decode(await file.slice(0, 4).arrayBuffer());
    const gguf = magic === "GGUF";
    if (!gguf && file.size > MAX_JSON_BYTES) {
      say(`${file.name}: ${mb(file.size)} MB, larger than any tokenizer file (${MAX_JSON_BYTES >> 20} MiB at most), and not a GGUF file`, "error");
      return;
    }
    const buffer = await readStart(file, gguf ? Math.min(file.size, GGUF_HEAD_BYTES) : file.size);
    say(`Python is reading the tokenizer in ${file.name}…`, "busy");
    const answer = JSON.parse((await python.provideModelTokenizer(buffer, file.name, file.size)).envelope);
    if (!answer.ok) {
      say(answer.error, "error");
      return;
    }
    say(`Ready: "${answer.name}" is ${file.name}, a ${answer.kind}, SHA-256 ${answer.sha256}. Inputs can name it in any mode that takes a tokenizer: "tokenizer": "${answer.name}". It stays in this page only and is forgotten when the page closes.`, "done");
    offerInTokenView(answer.name, answer);
    checkNow();  // an input that names it is counted with it now
  } catch (error) {
    say(`${file.name}: cannot be read (${error.message || error})`, "error");
  } finally {
    $("model-progress").hidden = true;
    box.removeAttribute("aria-busy");
    $("model-file").disabled = false;
  }
}

const input = $("model-file");
input.addEventListener("change", () => useFile(input.files[0]));
const box = $("model-drop");
box.addEventListener("dragover", (event) => {
  event.preventDefault();
  box.classList.add("dropping");
});
box.addEventListener("dragleave", () => box.classList.remove("dropping"));
box.addEventListener("drop", (event) => {
  event.preventDefault();
  box.classList.remove("dropping");
  useFile(event.dataTransfer.files[0]);
});
