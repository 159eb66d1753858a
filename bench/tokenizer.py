"""The exact tokenizers against tiktoken (Rust) on the same text, in one run.

    .venv/bin/python bench/tokenizer.py

1. About 1 MB of mixed text (prose, code, multilingual, emoji): time per count and tokens per
   second, with the piece cache cold (a new process's first count) and warm (the same text again),
   against tiktoken's encode_ordinary.
2. "a" * n for n = 10k, 100k, 1M: growth per tenfold (a quadratic piece shows as 100x).
3. Loading each rank file (read, SHA-256, parse): the first use's cost, in CPython and, with
   --page, in the page (Pyodide in Chromium: fetch, SHA-256, parse), with a count of the same
   mixed text in both.
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "bench")]

import _text  # noqa: E402
from _timing import median_time  # noqa: E402

from context_budget.tokenizers import exact  # noqa: E402


def cold_count(name, text):
    encoding = exact.ENCODINGS[name]
    encoding._counts.clear()
    return encoding.count(text)


def main() -> None:
    text = _text.mixed_text(1_000_000)
    print(f"mixed text: {len(text):,} characters, {len(text.encode('utf-8')):,} bytes")
    for name in exact.EXACT:
        loaded = exact.Encoding(name)
        started = time.perf_counter()
        loaded.load()
        load_time = time.perf_counter() - started
        reference = _text.reference_encoding(name)
        ours_cold, count = median_time(lambda: cold_count(name, text), 5)
        ours_warm, _ = median_time(lambda: exact.ENCODINGS[name].count(text), 5)
        theirs, tokens = median_time(lambda: reference.encode_ordinary(text), 5)
        assert count == len(tokens), (count, len(tokens))
        print(f"\n{name}: {count:,} tokens; rank file loaded (read, SHA-256, parse) in {load_time * 1000:.0f} ms")
        print(f"  tiktoken encode_ordinary   {theirs * 1000:8.1f} ms  {count / theirs / 1e6:6.2f} M tokens/s")
        print(f"  count_tokens, cold cache   {ours_cold * 1000:8.1f} ms  {count / ours_cold / 1e6:6.2f} M tokens/s"
              f"  ratio {ours_cold / theirs:5.2f}x")
        print(f"  count_tokens, warm cache   {ours_warm * 1000:8.1f} ms  {count / ours_warm / 1e6:6.2f} M tokens/s"
              f"  ratio {ours_warm / theirs:5.2f}x")
    print("\n'a' * n, o200k_base (one piece, merged through the heap):")
    previous = None
    for n in (10_000, 100_000, 1_000_000):
        seconds, count = median_time(lambda: cold_count("o200k_base", "a" * n), 3)
        growth = f"  growth {seconds / previous:5.1f}x per tenfold" if previous else ""
        print(f"  n = {n:>9,}: {seconds * 1000:9.1f} ms, {count:,} tokens{growth}")
        previous = seconds


PAGE_TIMING = """async ([name, text]) => {
  const worker = new Worker(new URL("worker.js", location.href), { type: "module" });
  const ask = (type, payload) => new Promise((resolve) => {
    const started = performance.now();
    worker.onmessage = ({ data }) => { if (data.type === "result") resolve([performance.now() - started, data]); };
    worker.postMessage({ type, id: 1, text: payload, key: name });
  });
  await new Promise((resolve) => { worker.onmessage = ({ data }) => { if (data.type === "ready") resolve(); }; });
  const [first] = await ask("count", JSON.stringify(["x"]));
  const [counting, answer] = await ask("count", JSON.stringify([text]));
  worker.terminate();
  return [first, counting, JSON.parse(answer.envelope)[0]];
}"""


def page(text: str) -> None:
    """The rank file's first use and a count in the page, against CPython on the same text."""
    import threading

    from playwright.sync_api import sync_playwright

    from context_budget._site import server as _site

    server = _site.make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print("\nin the page (Pyodide in Chromium), first use = fetch + SHA-256 + parse:")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        tab = browser.new_page()
        tab.goto(url)
        tab.wait_for_selector("[data-testid=status][data-state=ready]", timeout=60_000)
        sample = text[:200_000]
        for name in exact.EXACT:
            first, counting, count = tab.evaluate(PAGE_TIMING, [name, sample])
            cpython, expected = median_time(lambda: cold_count(name, sample), 3)
            assert count == expected, (count, expected)
            print(f"  {name}: first use {first:6.0f} ms; 200,000 characters counted in {counting:6.1f} ms "
                  f"against {cpython * 1000:6.1f} ms in CPython ({counting / 1000 / cpython:4.2f}x), same count {count:,}")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
    if "--page" in sys.argv:
        page(_text.mixed_text(1_000_000))
