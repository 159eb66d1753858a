"""Page benchmark, in one run in Chromium:

1. time until the page is ready, against a bare page that only boots the same Pyodide;
2. time to evaluate a 10,000-item input in the page, against CPython in this process.

Targets: ready within 1.1x the bare boot; in-page evaluation within 3x CPython.
Run: .venv/bin/python bench/page.py [--runs N]
"""

import argparse
import http.server
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from _inputs import relevance_input  # noqa: E402
from context_budget import _site  # noqa: E402
from context_budget._envelope import check_text  # noqa: E402

BARE_HTML = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title>
<p id="status" data-state="loading">loading</p>
<script type="module">
const worker = new Worker("bare-worker.js", {type: "module"});
worker.onmessage = (event) => { const s = document.getElementById("status"); s.dataset.state = event.data; s.textContent = event.data; };
</script>"""
BARE_WORKER = """import { loadPyodide } from "./pyodide/pyodide.mjs";
loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href, stdout: () => {} })
  .then((py) => { py.runPython("import sys"); postMessage("ready"); }, () => postMessage("error"));
"""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".mjs": "text/javascript"}

    def log_message(self, *args):
        pass


def serve(directory: Path):
    handler = lambda *a, **k: QuietHandler(*a, directory=str(directory), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def time_ready(browser, url: str) -> float:
    context = browser.new_context()
    page = context.new_page()
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#status[data-state=ready]", timeout=120_000)
    elapsed = time.perf_counter() - started
    context.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--items", type=int, default=10_000)
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        site = Path(temporary) / "site"
        _site.build_site(site)
        (site / "bare.html").write_text(BARE_HTML)
        (site / "bare-worker.js").write_text(BARE_WORKER)
        server, base = serve(site)
        chromium = os.environ.get("CONTEXT_BUDGET_CHROMIUM", "/usr/bin/chromium")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
            print(f"page ready vs bare Pyodide boot, {arguments.runs} runs each, alternating (progress: ", end="", flush=True)
            page_times, bare_times = [], []
            for _ in range(arguments.runs):
                bare_times.append(time_ready(browser, base + "bare.html"))
                page_times.append(time_ready(browser, base + "index.html"))
                print(".", end="", flush=True)
            print(")")
            page_ready, bare_ready = statistics.median(page_times), statistics.median(bare_times)
            print(f"  bare Pyodide boot  median {bare_ready * 1000:8.0f} ms")
            print(f"  context-budget page median {page_ready * 1000:8.0f} ms")
            print(f"  ratio {page_ready / bare_ready:.2f}x (target <= 1.10x)")

            text = json.dumps(relevance_input(arguments.items))
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "index.html")
            page.wait_for_selector("#status[data-state=ready]", timeout=120_000)
            in_page = [page.evaluate("t => window.contextBudget.timedCheck(t).then(a => a.ms)", text) / 1000 for _ in range(arguments.runs)]
            envelope = page.evaluate("t => window.contextBudget.checkText(t)", text)
            context.close()
            browser.close()
        server.shutdown()

    cpython = []
    for _ in range(arguments.runs):
        started = time.perf_counter()
        local = check_text(text)
        cpython.append(time.perf_counter() - started)
    same = json.loads(local) == json.loads(envelope)
    page_eval, cpython_eval = statistics.median(in_page), statistics.median(cpython)
    print(f"evaluate {arguments.items:,} relevance items (parse + evaluate + checks), median of {arguments.runs}")
    print(f"  CPython {sys.version.split()[0]:>8}  {cpython_eval * 1000:8.1f} ms")
    print(f"  in page (Pyodide)  {page_eval * 1000:8.1f} ms")
    print(f"  ratio {page_eval / cpython_eval:.2f}x (target <= 3.00x); same report: {same}")


if __name__ == "__main__":
    main()
