"""Load time, count time and peak memory for every tokenizer-file kind, on synthetic files of growing
size and texts of growing length (the hostile shapes among them: huge vocabularies, long pieces, many literals), against the peer
library measured in the same run: Hugging Face ``tokenizers`` for a tokenizer.json (and the GGUF
file's equivalent tokenizer.json), ``sentencepiece`` for a ``.model``, ``tiktoken`` for a tekken
rank file.

    .venv/bin/python bench/hostile_tokenizers.py            # files of 1, 5, 25 and 50 MB
    .venv/bin/python bench/hostile_tokenizers.py --quick    # 0.5, 1 and 2 MB

Each measurement runs in a process of its own (peak memory: its ``VmHWM``, the interpreter's
own ~15 MB included). For each kind and size: the load (read, parse, index), a count of ordinary
words and of the hostile text (``a`` * n: one long piece, or runs of one letter), each at two
lengths. "growth per doubling" is 2 ** (log of the ratio of times / log of the ratio of sizes):
linear is ~2x, quadratic ~4x.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "py"), str(HERE)]

import _tokenizer_files as tf  # noqa: E402

TEXT_CHARS = (100_000, 200_000)


def build(kind: str, megabytes: float, folder: Path) -> tuple[Path, Path | None]:
    """A file of ``kind`` of about ``megabytes`` MB (and the peer's file, when it needs another)."""
    base, per_word = len(make(kind, 2000)), (len(make(kind, 4000)) - len(make(kind, 2000))) / 2000  # (the long pieces: base)
    words = max(50, int((megabytes * 1e6 - (base - 2000 * per_word)) / per_word))
    data = make(kind, words)
    path = folder / f"{kind}-{megabytes}.{'model' if kind == 'model' else 'gguf' if kind == 'gguf' else 'json'}"
    path.write_bytes(data)
    peer = None
    if kind == "gguf":  # the same tokenizer as a tokenizer.json, for tokenizers
        metadata = tf.gguf_metadata(words)
        peer = folder / f"gguf-{megabytes}.tokenizer.json"
        peer.write_text(json.dumps(gguf_as_json(metadata)))
    return path, peer


def make(kind: str, words: int) -> bytes:
    if kind == "unigram":  # with long pieces of one letter (the shape that cost every prefix)
        data = tf.unigram_json(words)
        data["model"]["vocab"] += [["a" * n, -1.0 - n / 100] for n in (100, 1000, 4000)]
        return json.dumps(data).encode()
    if kind == "model":
        return tf.model_file(words, long_pieces=8)
    return tf.as_bytes(kind, words)


def gguf_as_json(metadata: dict) -> dict:
    from fitproof.tokenizers.gguf import PRE_TOKENIZERS

    tokens = metadata["tokenizer.ggml.tokens"]
    pre, normalizer, ignore_merges = PRE_TOKENIZERS[metadata["tokenizer.ggml.pre"]]
    pre = json.loads(json.dumps(pre))
    for step in pre.get("pretokenizers", [pre]):
        if step["type"] == "ByteLevel":
            step.setdefault("trim_offsets", True)  # tokenizers refuses a ByteLevel without it (offsets only)
    added = [
        tf.added_token(i, token) for i, (token, kind) in enumerate(zip(tokens, metadata["tokenizer.ggml.token_type"])) if kind in (3, 4)
    ]
    return {
        "version": "1.0",
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre,
        "model": {
            "type": "BPE",
            "vocab": {token: i for i, token in enumerate(tokens)},
            "merges": metadata["tokenizer.ggml.merges"],
            "ignore_merges": ignore_merges,
        },
    }


CHILD = r"""
import json, resource, sys, time, random
sys.path[:0] = [sys.argv[4], sys.argv[5]]
which, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
lengths = json.loads(sys.argv[6])
rng = random.Random(7)
words = [w for w in open(sys.argv[7]).read().split()]
def ordinary(n):
    out, size = [], 0
    while size < n:
        w = rng.choice(words); out.append(w); size += len(w) + 1
    return " ".join(out)[:n]
start = time.perf_counter()
if which == "ours":
    from fitproof.tokenizers import load_tokenizer
    tokenizer = load_tokenizer(path)
    count = tokenizer.count
elif kind in ("byte_level", "unigram", "gguf"):
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(path)
    count = lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)
elif kind == "model":
    import sentencepiece
    tokenizer = sentencepiece.SentencePieceProcessor(model_file=path)
    count = lambda text: len(tokenizer.encode(text))
else:  # tekken: tiktoken on the same ranks and pattern
    import base64, tiktoken
    data = json.load(open(path))
    inner = data["config"]["default_vocab_size"] - data["config"]["default_num_special_tokens"]
    ranks = {base64.b64decode(e["token_bytes"]): e["rank"] for e in data["vocab"][:inner]}
    tokenizer = tiktoken.Encoding("tekken", pat_str=data["config"]["pattern"], mergeable_ranks=ranks, special_tokens={})
    count = lambda text: len(tokenizer.encode_ordinary(text))
load = time.perf_counter() - start
result = {"load": load}
for name, text_of in (("words", ordinary), ("hostile", lambda n: "a" * n)):
    for n in lengths:
        text = text_of(n)
        start = time.perf_counter()
        tokens = count(text)
        result[f"{name} {n}"] = time.perf_counter() - start
        result[f"{name} {n} tokens"] = tokens
# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child would report its parent's peak
high = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
result["peak_mb"] = int(high[0].split()[1]) / 1024 if high else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""


def measure(which: str, kind: str, path: Path, words_file: Path) -> dict:
    argv = [
        sys.executable,
        "-c",
        CHILD,
        which,
        kind,
        str(path),
        str(HERE.parent / "py"),
        str(HERE),
        json.dumps(TEXT_CHARS),
        str(words_file),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout)


def growth(small: float, large: float, ratio: float) -> str:
    if small <= 0 or large <= 0:
        return "-"
    return f"{2 ** (math.log(large / small) / math.log(ratio)):.1f}x"


PEERS = {"byte_level": "tokenizers", "unigram": "tokenizers", "gguf": "tokenizers", "model": "sentencepiece", "tekken": "tiktoken"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="files of 0.5, 1 and 2 MB (not 1, 5, 25 and 50)")
    parser.add_argument("--kinds", default=",".join(tf.KINDS), help="which kinds (default: all of " + ", ".join(tf.KINDS) + ")")
    arguments = parser.parse_args()
    sizes = (0.5, 1, 2) if arguments.quick else (1, 5, 25, 50)
    print(f"load {os.getloadavg()[0]:.2f}, python {sys.version.split()[0]}; texts of {TEXT_CHARS[0]:,} and {TEXT_CHARS[1]:,} characters")
    with tempfile.TemporaryDirectory() as folder:
        words_file = Path(folder) / "words.txt"
        words_file.write_text(" ".join(tf._words(3000)) + " the of and to in is hello world")
        for kind in arguments.kinds.split(","):
            print(f"\n{kind} (peer: {PEERS[kind]})")
            print(
                f"  {'MB':>5} {'load s':>8} {'x peer':>7} {'count s':>8} {'x peer':>7} {'a*n s':>8} {'x peer':>7} {'peak MB':>8} {'x peer':>7}"
            )
            rows = []
            for megabytes in sizes:
                path, peer_path = build(kind, megabytes, Path(folder))
                real = path.stat().st_size / 1e6
                ours = measure("ours", kind, path, words_file)
                peer = measure("peer", kind, peer_path or path, words_file)
                path.unlink()
                if peer_path:
                    peer_path.unlink()
                if "error" in ours:
                    print(f"  {real:5.1f} ours failed: {ours['error']}")
                    continue
                rows.append((real, ours, peer))
                big = TEXT_CHARS[1]

                def cell(key: str) -> str:
                    if "error" in peer or not peer.get(key):
                        return f"{ours[key]:8.3f} {'-':>7}"
                    return f"{ours[key]:8.3f} {ours[key] / peer[key]:6.1f}x"

                peak = f"{ours['peak_mb']:8.0f} " + (f"{ours['peak_mb'] / peer['peak_mb']:6.1f}x" if "error" not in peer else f"{'-':>7}")
                print(f"  {real:5.1f} {cell('load')} {cell(f'words {big}')} {cell(f'hostile {big}')} {peak}")
                if "error" in peer:
                    print(f"        (peer: {peer['error']})")
            if len(rows) >= 2:
                (s0, o0, _), (s1, o1, _) = rows[0], rows[-1]
                ratio = s1 / s0
                print(
                    f"  growth per doubling of the file ({s0:.1f} -> {s1:.1f} MB): load {growth(o0['load'], o1['load'], ratio)}, "
                    f"peak memory {growth(o0['peak_mb'] - 15, o1['peak_mb'] - 15, ratio)} (past the interpreter's ~15 MB)"
                )
                last = rows[-1][1]
                small, large = TEXT_CHARS
                print(
                    f"  growth per doubling of the text ({small:,} -> {large:,} characters, the largest file): "
                    f"words {growth(last[f'words {small}'], last[f'words {large}'], large / small)}, "
                    f"a*n {growth(last[f'hostile {small}'], last[f'hostile {large}'], large / small)}"
                )


if __name__ == "__main__":
    main()
