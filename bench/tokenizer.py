"""The exact tokenizers against tiktoken (Rust) on the same text, in one run.

    .venv/bin/python bench/tokenizer.py

1. About 1 MB of mixed text (prose, code, multilingual, emoji): time per count and tokens per
   second, with the piece cache cold (a new process's first count) and warm (the same text again),
   against tiktoken's encode_ordinary.
2. "a" * n for n = 10k, 100k, 1M: growth per tenfold (a quadratic piece shows as 100x).
3. Loading each rank file (read, SHA-256, parse): the first use's cost, in CPython and, with
   --page, in the page (Pyodide in Chromium: fetch, SHA-256, parse), with a count of the same
   mixed text in both.
4. With the model files of scripts/fetch_model_tokenizers (--models, or when they are present;
   --models-only for this part alone): each model's tokenizer (Llama 3.1, Qwen 3, DeepSeek V3,
   GPT-OSS tokenizer.json; Mistral's tekken; o200k_harmony) loaded (read, SHA-256, parse) and
   counting the same 1 MB against its reference (Rust ``tokenizers``, mistral-common's tiktoken,
   tiktoken), each time a median of 3 with the CPU time beside the wall time and the machine's
   load average printed; one long piece ("a" * n and " " * n up to 1M, through the heap) on Qwen 3
   and GPT-OSS against ``tokenizers`` on the same piece; a GPT-OSS load in a new process with its
   peak and resident memory.
5. With --sentencepiece (--sentencepiece-only for this part alone): Gemma 3's and Llama 2's
   tokenizer.json loaded and counting the same 1 MB against ``tokenizers`` (load and count as
   ratios in the same run), "a" * n and " " * n up to 1M (growth per tenfold), and two small
   SentencePiece .model files trained here (BPE, Unigram) against ``sentencepiece``, the Unigram one
   also against ``tokenizers``' Unigram made of the same pieces (the peer the speed target names),
   and that peer written out as a T5-style tokenizer.json (``Precompiled``) counted by us.
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "bench")]

import _text  # noqa: E402
from _timing import median_time  # noqa: E402

from fitproof.tokenizers import exact  # noqa: E402


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
        print(
            f"  count_tokens, cold cache   {ours_cold * 1000:8.1f} ms  {count / ours_cold / 1e6:6.2f} M tokens/s"
            f"  ratio {ours_cold / theirs:5.2f}x"
        )
        print(
            f"  count_tokens, warm cache   {ours_warm * 1000:8.1f} ms  {count / ours_warm / 1e6:6.2f} M tokens/s"
            f"  ratio {ours_warm / theirs:5.2f}x"
        )
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

    from fitproof._site import server as _site

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
            print(
                f"  {name}: first use {first:6.0f} ms; 200,000 characters counted in {counting:6.1f} ms "
                f"against {cpython * 1000:6.1f} ms in CPython ({counting / 1000 / cpython:4.2f}x), same count {count:,}"
            )
        browser.close()
    server.shutdown()


MODELS = ROOT / "tests" / "data" / "models"
HF_MODELS = ("llama3_1", "qwen3", "deepseek_v3", "gptoss")

RSS_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fitproof.tokenizers import load_tokenizer

def memory(field):  # /proc's figures (ru_maxrss would hold the parent's peak: it survives exec)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith(field))

base = memory("VmRSS:")
started = time.perf_counter()
tokenizer = load_tokenizer(sys.argv[2])
seconds = time.perf_counter() - started
print(seconds, memory("VmHWM:") - base, memory("VmRSS:") - base)
"""


def machine() -> str:
    import os
    import platform

    one, five, _ = os.getloadavg()
    return f"Python {platform.python_version()}, {os.cpu_count()} cores, load average {one:.2f} (1 min) {five:.2f} (5 min)"


def timed(function, runs: int = 3) -> tuple[float, float, object]:
    """Median wall and CPU seconds of ``runs`` calls (CPU time is what this process used: on a
    shared machine the wall time also holds the neighbours' share), and the last result."""
    import statistics

    walls, cpus, result = [], [], None
    for _ in range(runs):
        result = None
        started, cpu = time.perf_counter(), time.process_time()
        result = function()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def rust_encode(reference, text: str) -> tuple[float, float, int]:
    """``tokenizers``' time on ``text``: the faster of ``encode`` and ``encode_batch_fast`` (no offsets)."""
    slow = timed(lambda: reference.encode(text, add_special_tokens=False).ids)
    fast = timed(lambda: reference.encode_batch_fast([text], add_special_tokens=False)[0].ids)
    wall, cpu, ids = min(slow, fast, key=lambda row: row[0])
    return wall, cpu, len(ids)


def models(text: str) -> None:
    """Tokenizers from model files against their reference libraries on the same text."""
    import subprocess

    from tokenizers import Tokenizer

    from fitproof.tokenizers import files as files_module, load_tokenizer, named_tokenizer

    def load_tokenizer_cold(path):  # a first load: not from the memo of files already read
        files_module._MEMO.clear()
        return load_tokenizer(path)

    print(f"\ntokenizers from model files, {len(text.encode('utf-8')):,} bytes of mixed text; {machine()}")
    print(
        "load = read + SHA-256 + parse (the memo of files read cleared); every time a median of 3, "
        "wall (CPU of this process); ratio = ours / reference, wall"
    )
    print(
        "reference: Rust tokenizers 0.23, the faster of encode and encode_batch_fast([text]); "
        "cold = piece counts and merge table emptied first"
    )
    rust = {}
    for folder in HF_MODELS:
        path = MODELS / folder / "tokenizer.json"
        load, load_cpu, ours = timed(lambda: load_tokenizer_cold(path))
        reference = Tokenizer.from_file(str(path))
        theirs, theirs_cpu, expected = rust[folder] = rust_encode(reference, text)
        cold, cold_cpu, count = timed(lambda: cold_model_count(ours, text))
        warm, warm_cpu, _ = timed(lambda: ours.count(text))
        assert count == expected, (folder, count, expected)
        print(
            f"  {folder:12} {count:>8,} tokens  load {load * 1000:5.0f} ms ({load_cpu * 1000:4.0f})  "
            f"tokenizers {theirs * 1000:6.1f} ms ({theirs_cpu * 1000:4.0f})  ours cold {cold * 1000:6.1f} ms "
            f"({cold_cpu * 1000:4.0f}) {cold / theirs:4.2f}x  warm {warm * 1000:6.1f} ms ({warm_cpu * 1000:4.0f}) "
            f"{warm / theirs:4.2f}x"
        )
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = MODELS / "mistral" / "tekken_240911.json"
    load, load_cpu, ours = timed(lambda: load_tokenizer_cold(path))
    reference = Tekkenizer.from_file(str(path))
    theirs, theirs_cpu, tokens = timed(lambda: reference.encode(text, bos=False, eos=False))
    cold, cold_cpu, count = timed(lambda: cold_model_count(ours, text))
    assert count == len(tokens)
    print(
        f"  {'tekken':12} {count:>8,} tokens  load {load * 1000:5.0f} ms ({load_cpu * 1000:4.0f})  "
        f"mistral-common (tiktoken) {theirs * 1000:6.1f} ms ({theirs_cpu * 1000:4.0f})  ours cold "
        f"{cold * 1000:6.1f} ms ({cold_cpu * 1000:4.0f}) {cold / theirs:4.2f}x"
    )
    harmony = named_tokenizer("o200k_harmony")
    reference = _text.reference_encoding("o200k_base")
    theirs, theirs_cpu, tokens = timed(lambda: reference.encode(text, allowed_special="all"))
    cold, cold_cpu, count = timed(lambda: cold_model_count(harmony, text))
    assert count == len(tokens) == rust["gptoss"][2]
    print(
        f"  {'o200k_harmony':12} {count:>8,} tokens  (o200k_base's verified rank file)  ours cold {cold * 1000:6.1f} ms "
        f"({cold_cpu * 1000:4.0f}): {cold / rust['gptoss'][0]:4.2f}x tokenizers on GPT-OSS's tokenizer.json, "
        f"{cold / theirs:4.2f}x tiktoken ({theirs * 1000:.1f} ms)"
    )

    print("\none long piece (merged through the heap), ours against tokenizers; growth per tenfold (linear: 10x, quadratic: 100x):")
    for folder in ("qwen3", "gptoss"):
        ours = load_tokenizer(MODELS / folder / "tokenizer.json")
        reference = Tokenizer.from_file(str(MODELS / folder / "tokenizer.json"))
        for letter in ("a", " "):
            previous = None
            for n in (10_000, 100_000, 1_000_000):
                piece = letter * n
                seconds, _, count = timed(lambda: cold_model_count(ours, piece))
                theirs, _, expected = rust_encode(reference, piece)
                assert count == expected, (folder, letter, n)
                growth = f"  growth {seconds / previous[0]:5.1f}x (tokenizers {theirs / previous[1]:5.1f}x)" if previous else ""
                print(
                    f"  {folder:7} {letter!r} * {n:>9,}: {seconds * 1000:8.1f} ms, tokenizers {theirs * 1000:7.1f} ms "
                    f"({seconds / theirs:4.1f}x), {count:,} tokens{growth}"
                )
                previous = seconds, theirs

    print("\na first load in a new process (imports done, tables not built), GPT-OSS's tokenizer.json:")
    result = subprocess.run(
        [sys.executable, "-c", RSS_CHILD, str(ROOT / "py"), str(MODELS / "gptoss" / "tokenizer.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, peak, kept = result.stdout.split()
    print(f"  {float(seconds) * 1000:.0f} ms; peak RSS {peak} MB above the imports' RSS, {kept} MB more resident after")
    print(f"\n{machine()}")


SENTENCEPIECE_JSON = ("gemma3", "llama2")


def trained_model(model_type: str) -> bytes:
    """A small SentencePiece model trained here, offline, on the mixed text (as the tests train them)."""
    import io

    import sentencepiece

    writer = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(_text.mixed_text(300_000).splitlines()),
        model_writer=writer,
        model_type=model_type,
        vocab_size=1500 if model_type == "bpe" else 500,
        byte_fallback=True,
        minloglevel=2,
        num_threads=1,
    )
    return writer.getvalue()


def sentencepiece_models(text: str) -> None:
    """SentencePiece tokenizers (Gemma 3, Llama 2 tokenizer.json; trained .model files) against their references."""
    import sentencepiece
    from tokenizers import Tokenizer

    from fitproof.tokenizers import from_bytes, load_tokenizer, files as files_module

    print(f"\nSentencePiece tokenizers, {len(text.encode('utf-8')):,} bytes of mixed text; {machine()}")
    print("load = read + SHA-256 + parse (memo cleared), against tokenizers' Tokenizer.from_file; medians of 3, wall (CPU)")
    for folder in SENTENCEPIECE_JSON:
        path = MODELS / folder / "tokenizer.json"
        if not path.is_file():
            print(f"  {folder}: {path} is missing (scripts/fetch_model_tokenizers)")
            continue

        def load_cold():
            files_module._MEMO.clear()
            return load_tokenizer(path)

        load, load_cpu, ours = timed(load_cold)
        their_load, their_load_cpu, reference = timed(lambda: Tokenizer.from_file(str(path)))
        theirs, theirs_cpu, expected = rust_encode(reference, text)
        cold, cold_cpu, count = timed(lambda: cold_model_count(ours, text))
        warm, warm_cpu, _ = timed(lambda: ours.count(text))
        assert count == expected, (folder, count, expected)
        print(
            f"  {folder:7} {count:>8,} tokens  load {load * 1000:5.0f} ms ({load_cpu * 1000:4.0f}), tokenizers "
            f"{their_load * 1000:5.0f} ms ({their_load_cpu * 1000:4.0f}): {load / their_load:4.2f}x  |  count: tokenizers "
            f"{theirs * 1000:6.1f} ms ({theirs_cpu * 1000:4.0f})  ours cold {cold * 1000:6.1f} ms ({cold_cpu * 1000:4.0f}) "
            f"{cold / theirs:4.2f}x  warm {warm * 1000:6.1f} ms ({warm_cpu * 1000:4.0f}) {warm / theirs:4.2f}x"
        )
        for letter in ("a", " "):
            previous = None
            for n in (10_000, 100_000, 1_000_000):
                piece = letter * n
                seconds, _, count = timed(lambda: cold_model_count(ours, piece), 1)
                their, _, expected = rust_encode(reference, piece)
                assert count == expected, (folder, letter, n)
                growth = f"  growth {seconds / previous:5.1f}x per tenfold" if previous else ""
                print(f"    {letter!r} * {n:>9,}: {seconds * 1000:8.1f} ms, tokenizers {their * 1000:7.1f} ms, {count:,} tokens{growth}")
                previous = seconds
    for model_type in ("bpe", "unigram"):
        data = trained_model(model_type)
        load, _, ours = timed(lambda: (files_module._MEMO.clear(), from_bytes(data, f"{model_type}.model"))[1])
        reference = sentencepiece.SentencePieceProcessor(model_proto=data)
        theirs, theirs_cpu, ids = timed(lambda: reference.encode(text))
        cold, cold_cpu, count = timed(lambda: cold_model_count(ours, text))
        assert count == len(ids), (model_type, count, len(ids))
        print(
            f"  trained {model_type} .model (byte fallback, nmt_nfkc): {count:,} tokens  load {load * 1000:5.0f} ms  "
            f"sentencepiece {theirs * 1000:6.1f} ms ({theirs_cpu * 1000:4.0f})  ours cold {cold * 1000:7.1f} ms "
            f"({cold_cpu * 1000:4.0f}) {cold / theirs:5.2f}x"
        )
        if model_type == "unigram":
            peer = unigram_peer(ours, data)
            peer_time, peer_cpu, peer_ids = timed(lambda: peer.encode(text, add_special_tokens=False).ids)
            print(
                f"    against tokenizers' Unigram on the same pieces and character map (its Metaspace split; "
                f"{len(peer_ids):,} tokens): {peer_time * 1000:6.1f} ms ({peer_cpu * 1000:4.0f}), ours cold {cold / peer_time:4.2f}x"
            )
            # the same peer written out as a T5-family tokenizer.json (Precompiled, per grapheme cluster), read by us
            # (each count by a tokenizer just loaded: the map's caches of clusters and pieces start empty)
            t5_json = peer.to_str().encode()
            runs = []
            for _ in range(3):
                files_module._MEMO.clear()
                t5 = from_bytes(t5_json, "t5-style tokenizer.json")
                started = time.perf_counter()
                t5_count = t5.count(text)
                runs.append(time.perf_counter() - started)
            assert t5_count == len(peer_ids), (t5_count, len(peer_ids))
            t5_cold = sorted(runs)[1]
            print(
                f"    that peer as a T5-style tokenizer.json (Precompiled per grapheme cluster), ours cold: "
                f"{t5_cold * 1000:6.1f} ms {t5_cold / peer_time:4.2f}x"
            )
    print(f"\n{machine()}")


def unigram_peer(ours, data: bytes):
    """``tokenizers``' Unigram model made of a .model file's pieces and scores, its character map
    (``Precompiled``) and a Metaspace split, as a T5-family tokenizer.json has them: the peer the
    speed target names. Its counts are close to, not equal to, sentencepiece's."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from fitproof.tokenizers.sentencepiece_model_file import _read

    peer = Tokenizer(models.Unigram(list(zip(ours.texts, ours.scores)), unk_id=ours.unk_id, byte_fallback=True))
    peer.normalizer = normalizers.Sequence([normalizers.Precompiled(_read(data, "bench")["charsmap"]), normalizers.Replace(" {2,}", " ")])
    peer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    return peer


def cold_model_count(tokenizer, text: str) -> int:
    """A count with the tokenizer's piece counts and merge table emptied (as after a first load)."""
    from fitproof.tokenizers import merges

    tokenizer._counts.clear()
    if isinstance(getattr(tokenizer, "pair_ranks", None), getattr(merges, "MergeRanks", ())):  # (absent before it)
        tokenizer.pair_ranks.clear()  # the merge table's entries are made on first use too
    return tokenizer.count(text)


if __name__ == "__main__":
    if "--models-only" not in sys.argv and "--sentencepiece-only" not in sys.argv:
        main()
    if "--sentencepiece-only" in sys.argv:
        pass
    elif "--models" in sys.argv or "--models-only" in sys.argv or (MODELS / "qwen3" / "tokenizer.json").is_file():
        models(_text.mixed_text(1_000_000))
    if "--sentencepiece" in sys.argv or "--sentencepiece-only" in sys.argv:
        sentencepiece_models(_text.mixed_text(1_000_000))
    if "--page" in sys.argv:
        page(_text.mixed_text(1_000_000))
