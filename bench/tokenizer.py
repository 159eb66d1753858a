"""The exact tokenizers against tiktoken (Rust) on the same text, in one run.

    .venv/bin/python bench/tokenizer.py

1. About 1 MB of mixed text (prose, code, multilingual, emoji): time per count and tokens per
   second, with the piece cache cold (a new process's first count) and warm (the same text again),
   against tiktoken's encode_ordinary.
2. "a" * n for n = 10k, 100k, 1M: growth per tenfold (a quadratic piece shows as 100x).
3. Loading each rank file (read, SHA-256, parse): the first use's cost, in CPython and, with
   --page, in the page (Pyodide in Chromium: fetch, SHA-256, parse), with a count of the same
   mixed text in both.
4. With the model files of scripts/fetch_model_tokenizers (--models, or when they are present):
   each model's tokenizer (Llama 3.1, Qwen 3, DeepSeek V3, GPT-OSS tokenizer.json; Mistral's tekken;
   o200k_harmony) loaded (read, SHA-256, parse) and counting the same 1 MB against its reference
   (Rust ``tokenizers`` encode, mistral-common's tiktoken, tiktoken), and "a" * n growth on Qwen 3
   (no ignore_merges: every piece merges through the heap).
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


MODELS = ROOT / "tests" / "data" / "models"


def models(text: str) -> None:
    """Tokenizers from model files against their reference libraries on the same text."""
    from context_budget.tokenizers import load_tokenizer, model as model_module, named_tokenizer

    def load_tokenizer_cold(path):  # a first load: not from the memo of files already read
        model_module._MEMO.clear()
        return load_tokenizer(path)

    print("\ntokenizers from model files (load = read + SHA-256 + parse, median of 3; counts: median of 3):")
    for folder in ("llama3_1", "qwen3", "deepseek_v3", "gptoss"):
        path = MODELS / folder / "tokenizer.json"
        from tokenizers import Tokenizer

        load, ours = median_time(lambda: load_tokenizer_cold(path), 3)
        reference = Tokenizer.from_file(str(path))
        theirs, encoding = median_time(lambda: reference.encode(text, add_special_tokens=False), 3)
        cold, count = median_time(lambda: (ours._counts.clear(), ours.count(text))[1], 3)
        warm, _ = median_time(lambda: ours.count(text), 3)
        assert count == len(encoding.ids), (folder, count, len(encoding.ids))
        print(f"  {folder:12} {count:>9,} tokens  load {load * 1000:6.0f} ms  tokenizers (Rust) {theirs * 1000:7.1f} ms  "
              f"ours cold {cold * 1000:7.1f} ms ({cold / theirs:4.1f}x)  warm {warm * 1000:7.1f} ms ({warm / theirs:4.1f}x)")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = MODELS / "mistral" / "tekken_240911.json"
    load, ours = median_time(lambda: load_tokenizer_cold(path), 3)
    reference = Tekkenizer.from_file(str(path))
    theirs, tokens = median_time(lambda: reference.encode(text, bos=False, eos=False), 3)
    cold, count = median_time(lambda: (ours._counts.clear(), ours.count(text))[1], 3)
    assert count == len(tokens)
    print(f"  {'tekken':12} {count:>9,} tokens  load {load * 1000:6.0f} ms  mistral-common   {theirs * 1000:7.1f} ms  "
          f"ours cold {cold * 1000:7.1f} ms ({cold / theirs:4.1f}x)")
    harmony = named_tokenizer("o200k_harmony")
    reference = _text.reference_encoding("o200k_base")
    theirs, tokens = median_time(lambda: reference.encode(text, allowed_special="all"), 3)
    cold, count = median_time(lambda: (harmony._counts.clear(), harmony.count(text))[1], 3)
    assert count == len(tokens)
    print(f"  {'o200k_harmony':12} {count:>9,} tokens  (o200k_base's rank file)  tiktoken {theirs * 1000:7.1f} ms  "
          f"ours cold {cold * 1000:7.1f} ms ({cold / theirs:4.1f}x)")
    qwen = load_tokenizer(MODELS / "qwen3" / "tokenizer.json")
    print("  'a' * n, Qwen 3 (one piece, no ignore_merges: merged through the heap):")
    previous = None
    for n in (10_000, 100_000, 1_000_000):
        seconds, count = median_time(lambda: (qwen._counts.clear(), qwen.count("a" * n))[1], 3)
        growth = f"  growth {seconds / previous:5.1f}x per tenfold" if previous else ""
        print(f"    n = {n:>9,}: {seconds * 1000:9.1f} ms, {count:,} tokens{growth}")
        previous = seconds


if __name__ == "__main__":
    if "--models-only" not in sys.argv:
        main()
    if "--models" in sys.argv or "--models-only" in sys.argv or (MODELS / "qwen3" / "tokenizer.json").is_file():
        models(_text.mixed_text(1_000_000))
    if "--page" in sys.argv:
        page(_text.mixed_text(1_000_000))
