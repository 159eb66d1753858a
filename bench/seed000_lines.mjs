// The batch baseline: seed 000's rule over a JSONL file, as a Node process would serve
// many requests. Parses each line, evaluates it with seed 000's evaluate() and writes
// the result as one JSON line (a line that does not parse gets an error line in its place).
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { evaluate } from "./seed000.mjs";

const lines = createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity });
const out = [];
let number = 0;
for await (const line of lines) {
  number += 1;
  if (!line.trim()) continue;
  let envelope;
  try {
    const result = evaluate(JSON.parse(line));
    envelope = { ok: result.pass, result, input_line: number };
  } catch (error) {
    envelope = { ok: false, error: String(error), input_line: number };
  }
  out.push(JSON.stringify(envelope));
  if (out.length >= 1000) { process.stdout.write(out.join("\n") + "\n"); out.length = 0; }
}
if (out.length) process.stdout.write(out.join("\n") + "\n");
