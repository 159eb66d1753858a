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
(`serve` is `fitproof serve`'s server with its Cache-Control headers; `static` is
`build-site` output behind Python's plain http.server, which sends no cache headers.)

With --throttled, instead: this page against an earlier commit's ("today's", --base-commit,
served by its own code from a git worktree at --base-dir), each behind a throttling proxy
(bench/_throttle.py: --mbit shared by all connections, --latency per request), every visit
in a fresh browser profile: bytes transferred until live editing (and those fetched after it,
in the background, before the next visit), time to the first report on screen and time to
live editing, on a first visit and a reload; then a private window (no disk cache) that
reloads after "Keep a copy".
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
from _throttle import ThrottlingProxy  # noqa: E402
from _timing import median_interval  # noqa: E402
from fitproof._site import bundle, writer  # noqa: E402
from fitproof._site import server as site_server  # noqa: E402
from fitproof._envelope import check_text  # noqa: E402

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
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
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
    parser.add_argument("--throttled", action="store_true", help="this page against --base-commit's, on a slow link (see above)")
    parser.add_argument("--base-commit", default="4cbf6db", help="today's page, for --throttled")
    parser.add_argument("--base-dir", type=Path, default=Path("/tmp/base-page"), help="where its git worktree is (made if missing)")
    parser.add_argument("--mbit", type=float, default=20.0, help="the link's rate for --throttled, Mbit/s")
    parser.add_argument("--latency", type=float, default=40.0, help="ms added to each request, for --throttled")
    arguments = parser.parse_args()
    if arguments.throttled:
        throttled(arguments)
        return

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
                server = site_server.make_server(0, snapshot=snapshot)  # `fitproof serve`
                server.RequestHandlerClass.files.update(extra)  # plus the bare page (no-cache, as the shell)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            bases[name] = (server, f"http://127.0.0.1:{server.server_address[1]}/")
        base, plain = bases["prebuilt"][1], bases["plain"][1]
        if json.loads(urlopen(base + "boot.json").read())["snapshot"] is None:
            print("NOTE: no prebuilt snapshot (is Node installed?): the first 'prebuilt' row boots normally")
        chromium = os.environ.get("FITPROOF_CHROMIUM", "/usr/bin/chromium")
        rows = {"bare": [], "prebuilt": [], "warm": [], "plain": [], "kept": []}
        kinds = {name: set() for name in rows}
        steps = {name: [] for name in rows}  # milestones, ms: "page" since navigation, the others since the worker started
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
            print(
                f"page ready vs bare Pyodide boot, {arguments.server} server, {arguments.runs} runs, alternating (progress: ",
                end="",
                flush=True,
            )

            def record(name, page, action):
                rows[name].append(timed(page, action))
                seen = {"seen": round(rows[name][-1] * 1000)}  # by the bench: from goto to the selector found
                if name == "bare":
                    steps[name].append({**page.evaluate("window.bareSteps"), **seen})
                else:
                    startup = page.evaluate("window.fitproof.startup")
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
                print(f"  {label}  median {median[name] * 1000:6.0f} ms  {ratio:.2f}x (start: {', '.join(sorted(kinds[name]))})")
            # Each round's first visit with no snapshot against the bare boot just before it: a busy
            # moment on a shared machine then weighs on both.
            paired = sorted(plain / bare for plain, bare in zip(rows["plain"], rows["bare"][::2]))
            low, high = median_interval(paired)
            print(
                f"  no snapshot against the bare boot just before it, round by round: median {statistics.median(paired):.2f}x "
                f"(90 % bootstrap interval {low:.2f}x to {high:.2f}x; rounds from {paired[0]:.2f}x to {paired[-1]:.2f}x)"
            )

            if arguments.steps:
                print(
                    "  start-up milestones, median ms (created, the worker, and page, heard it was ready: since navigation;"
                    " seen: by the bench, from goto; the others: since the worker was created)"
                )
                for name, samples in steps.items():
                    names = sorted(
                        {key for sample in samples for key in sample},
                        key=lambda key: statistics.median(s[key] for s in samples if key in s),
                    )
                    print(
                        f"    {name:9}" + ", ".join(f"{key} {statistics.median(s[key] for s in samples if key in s):.0f}" for key in names)
                    )
                # The same ratios from the page's own clock (navigation to the ready message heard),
                # without the bench's share: starting the navigation and noticing the ready state.
                bare_page = statistics.median(sample["page"] for sample in steps["bare"])
                print(
                    "  ready by the page's clock / the bare page's: "
                    + ", ".join(
                        f"{name} {statistics.median(sample['page'] for sample in steps[name]) / bare_page:.2f}x"
                        for name in rows
                        if name != "bare"
                    )
                )

            text = json.dumps(relevance_input(arguments.items))
            context, page = visit(browser, base)
            page.goto(base + "index.html")
            page.wait_for_selector(READY, timeout=120_000)
            in_page = [page.evaluate("t => window.fitproof.timedCheck(t).then(a => a.ms)", text) / 1000 for _ in range(arguments.runs)]
            envelope = page.evaluate("t => window.fitproof.checkText(t)", text)
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


# ---------------------------------------------------------------- --throttled
# Recorded in the page from its first script on (ms since navigation): the first report drawn
# (the summary says pass or fail) and live editing (Python ready and a report drawn by it: the
# page marks a report made at build time with #result[data-preview]). Taken at the DOM change;
# the paint follows within a frame.
MILESTONES = """
(() => {
  const seen = window.__milestones = {};
  const look = () => {
    const summary = document.getElementById("summary");
    if (!summary) return;
    const status = document.getElementById("status");
    const result = document.getElementById("result");
    const now = Math.round(performance.now());
    const drawn = summary.dataset.pass === "true" || summary.dataset.pass === "false";
    if (seen.firstReport === undefined && drawn) seen.firstReport = now;
    if (seen.live === undefined && drawn && summary.dataset.state === "done" && status && status.dataset.state === "ready"
        && !(result && "preview" in result.dataset)) seen.live = now;
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})();
"""
LIVE = "() => window.__milestones && window.__milestones.live !== undefined"
SETTLE_MS = 1000  # after live editing, for requests still on their way (the examples' prefetch) to be counted
QUIET_MS = 2500  # then the link must stay this long without a byte: what the page fetches in the background is over
QUIET_LIMIT_S = 60


def base_page(directory: Path, commit: str) -> Path:
    """A git worktree of ``commit`` at ``directory`` (made if missing), with this checkout's node_modules."""
    import subprocess

    if not (directory / "py").is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(directory), commit], check=True, capture_output=True)
    modules = directory / "node_modules"
    if modules.is_symlink() and not modules.exists():
        raise SystemExit(f"{modules} points to {os.readlink(modules)}, which is gone: give another --base-dir (made if missing)")
    if not modules.exists():
        modules.symlink_to(ROOT / "node_modules")
    return directory


class Served:
    """``fitproof serve`` run from ``root``'s own code, on a free port."""

    def __init__(self, root: Path) -> None:
        import subprocess

        # (a commit before the rename has its package as context_budget: never this checkout's fitproof)
        package = "fitproof" if (root / "py" / "fitproof").is_dir() else "context_budget"
        self.process = subprocess.Popen(
            [sys.executable, "-m", package, "serve", "--port", "0"],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root / "py")},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        if "http://127.0.0.1:" not in line:
            raise SystemExit(f"serve from {root} did not start: {line}{self.process.stderr.read()}")
        self.port = int(line.split("http://127.0.0.1:")[1].split("/")[0])

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def throttled(arguments) -> None:
    chromium = os.environ.get("FITPROOF_CHROMIUM", "/usr/bin/chromium")
    base = base_page(arguments.base_dir, arguments.base_commit)
    servers = {"today": Served(base), "this page": Served(ROOT)}
    rate, latency = arguments.mbit * 1e6, arguments.latency / 1000
    proxies = {name: ThrottlingProxy(server.port, rate, latency) for name, server in servers.items()}
    kinds = ("first visit", "reload", "private reload")
    samples = {(name, kind): [] for name in servers for kind in kinds}
    try:
        for proxy in proxies.values():
            proxy.__enter__()
        # The first request makes `serve` compress the runtime (this page) and the prebuilt snapshot
        # (both, made once by Node and kept): asked once before timing.
        for proxy in proxies.values():
            urlopen(proxy.url + "boot.json", timeout=600).read()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
            print(
                f"throttled: {arguments.mbit:g} Mbit/s shared, {arguments.latency:g} ms a request, {arguments.runs} runs, "
                f"a fresh profile each visit (progress: ",
                end="",
                flush=True,
            )

            def measure(name, page, action):
                """Bytes until live editing (and the requests then on their way: SETTLE_MS), and
                those the page fetched in the background after that, until the link was quiet
                (this page: the prebuilt snapshot for the next visit, when it did without it)."""
                proxy = proxies[name]
                proxy.reset()
                action()
                page.wait_for_function(LIVE, polling="raf", timeout=180_000)
                page.wait_for_timeout(SETTLE_MS)
                seen = page.evaluate("window.__milestones")
                until_live, by_path = proxy.bytes_down, dict(proxy.by_path)
                last, still_since, deadline = proxy.bytes_down, time.monotonic(), time.monotonic() + QUIET_LIMIT_S
                while time.monotonic() - still_since < QUIET_MS / 1000 and time.monotonic() < deadline:
                    page.wait_for_timeout(100)
                    if proxy.bytes_down != last:
                        last, still_since = proxy.bytes_down, time.monotonic()
                return {
                    "bytes": until_live,
                    "later": proxy.bytes_down - until_live,
                    "first": seen["firstReport"],
                    "live": seen["live"],
                    "by_path": by_path,
                }

            for _ in range(arguments.runs):
                for name, proxy in proxies.items():
                    # A real profile (disk cache): first visit, then a reload.
                    with tempfile.TemporaryDirectory() as profile:
                        context = playwright.chromium.launch_persistent_context(profile, executable_path=chromium, args=ARGS)
                        context.add_init_script(MILESTONES)
                        page = context.pages[0] if context.pages else context.new_page()
                        samples[(name, "first visit")].append(measure(name, page, lambda: page.goto(proxy.url)))
                        samples[(name, "reload")].append(measure(name, page, page.reload))
                        context.close()
                    # A private window (in-memory cache): "Keep a copy" where offered, then a reload.
                    context = browser.new_context()
                    context.add_init_script(MILESTONES)
                    page = context.new_page()
                    measure(name, page, lambda: page.goto(proxy.url))
                    keep = page.locator("[data-testid=keep-snapshot]")
                    if keep.is_visible():
                        keep.click()
                        page.wait_for_selector("[data-testid=snapshot-note][data-state=saved]", timeout=180_000)
                    samples[(name, "private reload")].append(measure(name, page, page.reload))
                    context.close()
                print(".", end="", flush=True)
            print(")")
            browser.close()
    finally:
        for proxy in proxies.values():
            proxy.__exit__()
        for server in servers.values():
            server.close()

    def median(name, kind, key):
        return statistics.median(sample[key] for sample in samples[(name, kind)])

    print(f"  {'':10} {'visit':15} {'transferred':>12} {'first report':>13} {'live editing':>13} {'then, in the background':>24}")
    for kind in kinds:
        for name in servers:
            print(
                f"  {name:10} {kind:15} {median(name, kind, 'bytes') / 1e6:9.2f} MB {median(name, kind, 'first') / 1000:11.2f} s"
                f" {median(name, kind, 'live') / 1000:11.2f} s {median(name, kind, 'later') / 1e6:21.2f} MB"
            )
        today, mine = (median(name, kind, "live") for name in servers)
        print(f"  {'':10} {'':15} {'':>12} {'':>13} {mine / today:11.2f}x of today's")
    for name in servers:
        last = samples[(name, "first visit")][-1]["by_path"]
        biggest = sorted(last.items(), key=lambda item: -item[1])[:6]
        print(
            f"  {name}, first visit, largest transfers: "
            + ", ".join(f"{path.rsplit('/', 1)[-1] or '/'} {size / 1e6:.2f} MB" for path, size in biggest)
        )
    print(
        "  transferred: until live editing (and a second after); then, in the background: after that, until the link was"
        f" quiet for {QUIET_MS / 1000:g} s (the reload comes after)"
    )
    print("  targets at 20 Mbit/s: first visit <= 9 MB, first report <= 1 s, live editing <= 5 s")


if __name__ == "__main__":
    main()
