"""Page benchmark, in one run in Chromium, every first visit in a fresh browser context:

1. time until the page is ready, against a bare page that only boots the same Pyodide
   (cold, nothing cached), alternating:
   - cold first visit to a site with the prebuilt snapshot (`serve`/`build-site` with Node),
   - then a warm reload (HTTP cache),
   - cold first visit to a site without it (no Node: a normal boot; asked to, the page keeps a snapshot),
   - then cold with that kept snapshot (HTTP cache emptied, Cache Storage kept);
2. time to evaluate a 10,000-item input in the page, against CPython in this process.

Prints a first visit, with and without a snapshot, and a warm reload against the bare boot;
in-page evaluation against CPython.
Run: .venv/bin/python bench/page.py [--runs N] [--server serve|static]
(`serve` is `context-budget serve`'s server with its Cache-Control headers; `static` is
`build-site` output behind Python's plain http.server, which sends no cache headers.)
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
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from _inputs import relevance_input  # noqa: E402
from _timing import median_interval  # noqa: E402
from context_budget._site import bundle, writer  # noqa: E402
from context_budget._site import server as site_server  # noqa: E402
from context_budget._envelope import check_text  # noqa: E402

BARE_HTML = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title>
<p id="status" data-state="loading">loading</p>
<script type="module" src="bare.js"></script>"""
BARE_JS = """const worker = new Worker("bare-worker.js", {type: "module"});
const created = Math.round(performance.now());
worker.onmessage = (event) => {
  const s = document.getElementById("status");
  window.bareSteps = { created, "pyodide.mjs": event.data.started, loadPyodide: event.data.ms, ...event.data.arrived, page: Math.round(performance.now()) };
  s.dataset.state = event.data.state;
  s.textContent = event.data.state;
};
"""
BARE_WORKER = """import { loadPyodide } from "./pyodide/%s/pyodide.mjs";
const started = Math.round(performance.now());
loadPyodide({ indexURL: new URL("./pyodide/%s/", import.meta.url).href, stdout: () => {} })
  .then((py) => {
    py.runPython("import sys");
    const ms = Math.round(performance.now());
    const arrived = {};
    for (const entry of performance.getEntriesByType("resource")) arrived[entry.name.slice(entry.name.lastIndexOf("/") + 1) + " arrived"] = Math.round(entry.responseEnd);
    postMessage({ state: "ready", started, ms, arrived });
  },
        () => postMessage({ state: "error" }));
"""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
READY = "#status[data-state=ready]"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".mjs": "text/javascript"}

    def log_message(self, *args):
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A browser context closed mid-download resets its connections: no traceback for that.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def static_server(directory: Path):
    handler = lambda *a, **k: QuietHandler(*a, directory=str(directory), **k)  # noqa: E731
    return QuietServer(("127.0.0.1", 0), handler)


def timed(page, action) -> float:
    started = time.perf_counter()
    action()
    # Checked on every animation frame: wait_for_selector backs off to a check every 500 ms
    # or so, which added 0-0.5 s at random to the ~3 s rows (measured: 0.2 and 0.35 s median).
    page.wait_for_function(f"() => document.querySelector({json.dumps(READY)}) !== null", polling="raf", timeout=120_000)
    return time.perf_counter() - started


def visit(browser, url):
    context = browser.new_context()
    return context, context.new_page()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--server", choices=("serve", "static"), default="serve")
    parser.add_argument("--steps", action="store_true", help="also print the median start-up milestones of each row")
    arguments = parser.parse_args()

    version = bundle.pyodide_version(ROOT / "node_modules" / "pyodide")
    extra = {"bare.html": BARE_HTML.encode(), "bare.js": BARE_JS.encode(), "bare-worker.js": (BARE_WORKER % (version, version)).encode()}
    with tempfile.TemporaryDirectory() as temporary:
        bases = {}
        for name, snapshot in (("prebuilt", True), ("plain", False)):
            if arguments.server == "static":
                site = Path(temporary) / name
                writer.build_site(site, snapshot=snapshot)
                for file_name, data in extra.items():
                    (site / file_name).write_bytes(data)
                server = static_server(site)
            else:
                server = site_server.make_server(0, snapshot=snapshot)  # `context-budget serve`
                server.RequestHandlerClass.files.update(extra)  # plus the bare page (no-cache, as the shell)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            bases[name] = (server, f"http://127.0.0.1:{server.server_address[1]}/")
        base, plain = bases["prebuilt"][1], bases["plain"][1]
        if json.loads(urlopen(base + "boot.json").read())["snapshot"] is None:
            print("NOTE: no prebuilt snapshot (is Node installed?): the first 'prebuilt' row boots normally")
        chromium = os.environ.get("CONTEXT_BUDGET_CHROMIUM", "/usr/bin/chromium")
        rows = {"bare": [], "prebuilt": [], "warm": [], "plain": [], "kept": []}
        kinds = {name: set() for name in rows}
        steps = {name: [] for name in rows}  # milestones, ms: "page" since navigation, the others since the worker started
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
            print(f"page ready vs bare Pyodide boot, {arguments.server} server, {arguments.runs} runs, alternating (progress: ", end="", flush=True)

            def record(name, page, action):
                rows[name].append(timed(page, action))
                seen = {"seen": round(rows[name][-1] * 1000)}  # by the bench: from goto to the selector found
                if name == "bare":
                    steps[name].append({**page.evaluate("window.bareSteps"), **seen})
                else:
                    startup = page.evaluate("window.contextBudget.startup")
                    kinds[name].add(startup["snapshot"])
                    steps[name].append({"created": startup["created"], "page": startup["page"], **startup["steps"], **seen})

            for _ in range(arguments.runs):
                # A bare boot before each kind of first visit: the baseline gets twice the samples.
                context, page = visit(browser, base)
                record("bare", page, lambda: page.goto(base + "bare.html"))
                context.close()

                context, page = visit(browser, plain)
                record("plain", page, lambda: page.goto(plain + "index.html"))
                page.click("#keep-snapshot", timeout=120_000)  # stored only when asked
                page.wait_for_selector("#snapshot-note[data-state=saved]", timeout=120_000)
                page.close()
                # Empty the HTTP cache (and V8's compiled code kept with it); Cache Storage stays.
                page = context.new_page()
                context.new_cdp_session(page).send("Network.clearBrowserCache")
                record("kept", page, lambda: page.goto(plain + "index.html"))
                context.close()

                context, page = visit(browser, base)
                record("bare", page, lambda: page.goto(base + "bare.html"))
                context.close()

                context, page = visit(browser, base)
                record("prebuilt", page, lambda: page.goto(base + "index.html"))
                record("warm", page, page.reload)
                context.close()
                print(".", end="", flush=True)
            print(")")
            median = {name: statistics.median(times) for name, times in rows.items()}
            bare = median["bare"]
            print(f"  bare Pyodide boot, cold                       median {bare * 1000:6.0f} ms  (of {len(rows['bare'])})")
            for name, label in (
                ("prebuilt", "page, cold first visit, prebuilt snapshot  "),
                ("plain", "page, cold first visit, no snapshot at all  "),
                ("kept", "page, cold, snapshot kept by the browser    "),
                ("warm", "page, warm reload                           "),
            ):
                ratio = median[name] / bare
                print(f"  {label}  median {median[name] * 1000:6.0f} ms  {ratio:.2f}x ("
                      f"start: {', '.join(sorted(kinds[name]))})")
            # Each round's first visit with no snapshot against the bare boot just before it: a busy
            # moment on a shared machine then weighs on both.
            paired = sorted(plain / bare for plain, bare in zip(rows["plain"], rows["bare"][::2]))
            low, high = median_interval(paired)
            print(f"  no snapshot against the bare boot just before it, round by round: median {statistics.median(paired):.2f}x "
                  f"(90 % bootstrap interval {low:.2f}x to {high:.2f}x; rounds from {paired[0]:.2f}x to {paired[-1]:.2f}x)")

            if arguments.steps:
                print("  start-up milestones, median ms (created, the worker, and page, heard it was ready: since navigation;"
                      " seen: by the bench, from goto; the others: since the worker was created)")
                for name, samples in steps.items():
                    names = sorted({key for sample in samples for key in sample}, key=lambda key: statistics.median(s[key] for s in samples if key in s))
                    print(f"    {name:9}" + ", ".join(f"{key} {statistics.median(s[key] for s in samples if key in s):.0f}" for key in names))
                # The same ratios from the page's own clock (navigation to the ready message heard),
                # without the bench's share: starting the navigation and noticing the ready state.
                bare_page = statistics.median(sample["page"] for sample in steps["bare"])
                print("  ready by the page's clock / the bare page's: " + ", ".join(
                    f"{name} {statistics.median(sample['page'] for sample in steps[name]) / bare_page:.2f}x" for name in rows if name != "bare"))

            text = json.dumps(relevance_input(arguments.items))
            context, page = visit(browser, base)
            page.goto(base + "index.html")
            page.wait_for_selector(READY, timeout=120_000)
            in_page = [page.evaluate("t => window.contextBudget.timedCheck(t).then(a => a.ms)", text) / 1000 for _ in range(arguments.runs)]
            envelope = page.evaluate("t => window.contextBudget.checkText(t)", text)
            context.close()
            browser.close()
        for server, _ in bases.values():
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
    print(f"  ratio {page_eval / cpython_eval:.2f}x; same report: {same}")


if __name__ == "__main__":
    main()
