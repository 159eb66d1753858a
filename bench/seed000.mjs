// Seed 000's rule in JavaScript, written for the benchmark: the same validation,
// sort and loop as the seed describes. Reads one JSON file, times evaluate() on the
// parsed input (not the parse), prints {"times_ms": [...], "selected": N, "peak_rss_mb": M}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export function evaluate(input) {
  if (!input || !Number.isSafeInteger(input.budget) || input.budget < 0 || !Array.isArray(input.items)) {
    return { pass: false, summary: "Input needs a non-negative integer budget and items array.", checks: [{ name: "input shape", pass: false }] };
  }
  const valid = input.items.every((item) => item && typeof item.id === "string" && item.id.trim() &&
    Number.isFinite(item.relevance) && Number.isSafeInteger(item.tokens) && item.tokens >= 0) &&
    new Set(input.items.map((item) => item && item.id)).size === input.items.length;
  if (!valid) {
    return { pass: false, summary: "Each item needs id, numeric relevance, and non-negative integer tokens.", checks: [{ name: "item shape", pass: false }] };
  }
  let remaining = input.budget;
  const selected = [];
  const ordered = [...input.items].sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const item of ordered) {
    if (item.tokens <= remaining) { selected.push(item.id); remaining -= item.tokens; }
  }
  return {
    pass: true,
    summary: `Selected ${selected.join(", ") || "nothing"} within ${input.budget} tokens.`,
    checks: [{ name: "token budget", pass: remaining >= 0 }, { name: "deterministic relevance order", pass: true }],
    selected,
  };
}

function main() {
  const [file, runsText] = process.argv.slice(2);
  const input = JSON.parse(readFileSync(file, "utf8"));
  const runs = Number(runsText || 5);
  const times = [];
  let result;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    result = evaluate(input);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  console.log(JSON.stringify({ times_ms: times, selected: result.selected.length, first: result.selected.slice(0, 5), peak_rss_mb: process.resourceUsage().maxRSS / 1024 }));
}

// Run only as a script: bench/seed000_lines.mjs imports evaluate() from here.
if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
