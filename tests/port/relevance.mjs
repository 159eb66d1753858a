// A small JavaScript port of mode relevance, for examples/verify_port.py: one JSON input per
// line on standard input, one claim {"selected": [ids], "used": n} per line on standard output.
// Highest relevance first, ties by id in UTF-16 order (JavaScript's <), keep each item that fits.
// Two deliberate mistakes, for the test that the verifier catches them:
//   --ties-reversed         ties broken by id the other way
//   --stop-at-first-misfit  stop at the first item that does not fit
import { createInterface } from "node:readline";

const tiesReversed = process.argv.includes("--ties-reversed");
const stopAtFirstMisfit = process.argv.includes("--stop-at-first-misfit");

function select(input) {
  const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (tiesReversed ? -1 : 1);
  const order = [...input.items].sort((a, b) => b.relevance - a.relevance || byId(a, b));
  let remaining = input.budget;
  const selected = [];
  for (const item of order) {
    if (item.tokens <= remaining) {
      selected.push(item.id);
      remaining -= item.tokens;
    } else if (stopAtFirstMisfit) {
      break;
    }
  }
  return { selected, used: input.budget - remaining };
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) process.stdout.write(JSON.stringify(select(JSON.parse(line))) + "\n");
}
