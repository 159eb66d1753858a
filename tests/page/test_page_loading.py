"""Loading, in Chromium: the default input's report on screen before Python has loaded (made by
evaluate when the site was built), replaced by the live one; the runtime served gzipped; the
runtime's copy in Cache Storage, kept when asked, so that a private window's reload downloads
no .wasm; a prebuilt snapshot that arrives slowly dropped for a normal start; a reload that
starts from the HTTP cache, never waiting for a snapshot it does not have."""

import collections
import io
import json
import re
import threading
import time
import urllib.request
import zipfile
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from fitproof._envelope import check_text
from fitproof._site import server as site_server
from fitproof._site.bundle import content_of
from test_page import LOAD_TIMEOUT, READY
from test_page_startup import FAST_LINK, IN_TIME, NEEDS_NODE, SAVED, SLOW_LINK, boot_config, open_held, open_page, startup

RUNTIME = "fitproof-runtime"
SNAPSHOT = "fitproof-snapshot"
FIRST = re.compile(r'<script type="application/json" id="first-report">(.*?)</script>', re.DOTALL)


def carried(page):
    return json.loads(page.evaluate("document.getElementById('first-report').textContent"))


def shown(page):
    """What the result column shows: the summary, each check with its mark, each item's decision."""
    return {
        "summary": page.inner_text("[data-testid=summary]"),
        "checks": [
            (row.query_selector("strong").inner_text(), row.get_attribute("data-pass"))
            for row in page.query_selector_all("[data-testid=check]")
        ],
        "rows": [
            (row.get_attribute("data-id"), "kept" in (row.get_attribute("class") or "").split())
            for row in page.query_selector_all("#items tbody tr")
        ],
    }


def expected(envelope):
    report = envelope["result"]
    return {
        "summary": report["summary"],
        "checks": [(check["name"], str(check["pass"]).lower()) for check in report["checks"]],
        "rows": [(row["id"], row["kept"]) for row in report["trace"]],
    }


@pytest.fixture
def held(browser, site_url):
    """Python cannot load until released: boot.json and Pyodide's loader are held."""
    context, page, release, problems = open_held(browser, site_url, ["boot.json", "pyodide/pyodide.mjs"])
    yield page, release, problems
    context.close()


def test_the_default_inputs_report_is_on_screen_before_python_and_is_evaluates(held):
    page, release, problems = held
    data = carried(page)
    evaluated = json.loads(check_text(json.dumps(data["input"])))
    assert data["envelope"] == evaluated  # made by the real evaluate, for the input in the editor
    assert json.loads(page.input_value("[data-testid=input]")) == data["input"]
    expect(page.locator("#result")).to_have_attribute("data-preview", "")
    assert shown(page) == expected(evaluated)
    note = page.locator("[data-testid=first-report-note]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Live editing starts once Python has loaded")
    assert page.get_attribute("[data-testid=status]", "data-state") == "loading"
    release()
    # Python's own report replaces it: the same, no longer marked as waiting.
    expect(page.locator("#result")).not_to_have_attribute("data-preview", "")
    expect(note).to_have_count(0)
    assert shown(page) == expected(evaluated)
    assert problems == []


def test_the_comparison_fails_on_a_corrupted_first_report(browser, site_url):
    """The check above can fail: a page whose carried report was changed shows what it carries,
    which is no longer evaluate's."""

    def corrupted(route):
        html = route.fetch().text()
        data = json.loads(FIRST.search(html).group(1))
        data["envelope"]["result"]["summary"] = "Selected nothing."
        data["envelope"]["result"]["trace"][0]["kept"] = not data["envelope"]["result"]["trace"][0]["kept"]
        block = json.dumps(data).replace("<", "\\u003c")
        route.fulfill(
            status=200,
            body=FIRST.sub(lambda _: f'<script type="application/json" id="first-report">{block}</script>', html),
            content_type="text/html; charset=utf-8",
        )

    context = browser.new_context()
    context.route("**/boot.json", lambda route: None)  # held for ever: Python never loads here
    context.route(re.compile(r".*/(index\.html)?$"), corrupted)
    page = context.new_page()
    try:
        page.goto(site_url)
        expect(page.locator("#result")).to_have_attribute("data-preview", "")
        data = carried(page)
        assert shown(page) == expected(data["envelope"])  # it draws what it carries...
        assert shown(page) != expected(json.loads(check_text(json.dumps(data["input"]))))  # ...and that is caught
    finally:
        context.close()


def test_an_edit_while_python_loads_takes_the_first_report_down(held):
    page, release, problems = held
    expect(page.locator("#result")).to_have_attribute("data-preview", "")
    page.fill("[data-testid=input]", '{"budget": 2, "items": [{"id": "mine", "relevance": 1, "tokens": 2}]}')
    expect(page.locator("#result")).not_to_have_attribute("data-preview", "")
    expect(page.locator("[data-testid=summary]")).to_have_text("Waiting for the runtime…")
    assert page.query_selector_all("#items tbody tr") == []  # nothing of the other input's report is left
    release()
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected mine within 2 tokens.")
    assert problems == []


def test_a_share_link_opens_without_the_first_report(browser, site_url):
    text = '{"budget": 4, "items": [{"id": "linked", "relevance": 1, "tokens": 1}]}'
    context = browser.new_context()
    context.route("**/boot.json", lambda route: None)
    page = context.new_page()
    try:
        page.goto(f"{site_url}#length={len(text)}&input={quote(text)}")
        expect(page.locator("[data-testid=input]")).to_have_value(text)
        expect(page.locator("[data-testid=summary]")).to_have_text("Waiting for the runtime…")
        assert page.get_attribute("#result", "data-preview") is None
    finally:
        context.close()


def test_when_python_cannot_load_the_first_report_stays_saying_so(browser, site_url):
    context = browser.new_context()
    context.route("**/*.wasm", lambda route: route.abort())
    page = context.new_page()
    try:
        page.goto(site_url)
        expect(page.locator("[data-testid=status]")).to_have_attribute("data-state", "error", timeout=LOAD_TIMEOUT)
        expect(page.locator("[data-testid=first-report-note]")).to_have_attribute("data-state", "failed")
        expect(page.locator("[data-testid=first-report-note]")).to_contain_text("Live editing is not available")
        assert shown(page) == expected(carried(page)["envelope"])
    finally:
        context.close()


def test_the_runtime_reaches_the_browser_gzipped(browser, site_url):
    context = browser.new_context()  # no routes: Playwright's interception would hide the sizes
    page = context.new_page()
    try:
        page.goto(site_url)
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        sizes = page.workers[0].evaluate("""() => Object.fromEntries(performance.getEntriesByType('resource')
            .filter((e) => e.name.endsWith('/pyodide.asm.wasm')).map((e) => [e.name, [e.encodedBodySize, e.decodedBodySize]]))""")
        ((encoded, decoded),) = sizes.values()
        assert decoded > 9_000_000 and encoded < decoded / 2  # 9.6 MB sent as 3.5
        # The page preloads exactly the modules its scripts import (the browser's own graph).
        preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', page.content()))
        loaded = {
            name[len(site_url) :]
            for name in page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
            if name.endswith(".js")
        }
        # The workers' own modules (worker/…) show in this timeline too; the page imports only report-head.js of them.
        # CodeMirror (codemirror/…) is imported by page/code-editor.js only after the first paint, so it is not preloaded.
        of_the_page = {name for name in loaded if not name.startswith(("worker", "codemirror/"))} | (loaded & {"worker/report-head.js"})
        # Imported after the first report, so never preloaded, and loaded or not by now depending on timing:
        # page/drag-number.js when a lesson step has a number to drag, lesson-numbers.js and lesson-tasks.js with lesson.json.
        later = {"page/drag-number.js", "page/lesson-numbers.js", "page/lesson-tasks.js"}
        assert preloaded and of_the_page - {"app.js", "page/tokens.js"} - later == preloaded
        assert not preloaded & later
    finally:
        context.close()


# ---------------------------------------------------------------- the runtime's copy


def counting(names):
    """A route that counts the network requests for URLs ending in ``names`` and lets them through."""
    counts = {name: 0 for name in names}

    def route(route):
        for name in names:
            if route.request.url.endswith(name):
                counts[name] += 1
        route.fallback()

    return counts, route


def runtime_keys(page):
    return page.evaluate(f"caches.open({RUNTIME!r}).then(c => c.keys()).then(keys => keys.map(k => k.url.split('/').slice(-2).join('/')))")


def test_keep_a_copy_in_a_private_window_then_a_reload_downloads_no_wasm(browser, site_url):
    """A fresh context is a private window: its HTTP cache is in memory (and off here, under
    Playwright's routes). After "Keep a copy", the reload takes Pyodide's files from Cache Storage."""
    stdlib = boot_config(site_url)["pyodide"]["stdlib"]
    counts, count = counting([".wasm", stdlib, "pyodide-lock.json"])
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", routes=[("**/pyodide/**", count)])
    try:
        assert startup(page)["snapshot"] == "normal" and counts[".wasm"] == 1
        page.click("[data-testid=keep-snapshot]")
        page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
        # Keeping fetched them again (the snapshot maker's Pyodide, then the copy): Playwright's
        # routes turn the HTTP cache off. From here on, each request counts.
        before = dict(counts)
        version = json.loads(page.evaluate("fetch('boot.json').then(r => r.text())"))["pyodide"]["version"]
        assert sorted(runtime_keys(page)) == sorted(f"{version}/{name}" for name in ("pyodide.asm.wasm", stdlib, "pyodide-lock.json"))
        # A copy of another Pyodide, as an earlier version of the site would have left it.
        page.evaluate(f"""caches.open({RUNTIME!r}).then(c => c.put(new URL('pyodide/0.0.1/pyodide.asm.wasm', location.href).href,
            new Response('old', {{headers: {{'Content-Type': 'application/wasm'}}}})))""")
        page.reload()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        assert startup(page)["snapshot"] == "used"
        assert counts == before  # none fetched again
        expect(page.locator("[data-testid=summary]")).not_to_have_text("Waiting for the runtime…")
        deadline = time.monotonic() + LOAD_TIMEOUT / 1000  # brought in line once the page is idle
        while any(key.startswith("0.0.1/") for key in runtime_keys(page)) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert not any(key.startswith("0.0.1/") for key in runtime_keys(page)), runtime_keys(page)  # the stale one is gone
        # "Remove it" removes both copies; the next start downloads again.
        page.click("[data-testid=forget-snapshot]")
        expect(page.locator("[data-testid=snapshot-note]")).to_have_attribute("data-state", "cleared")
        assert page.evaluate(f"Promise.all([caches.has({RUNTIME!r}), caches.has({SNAPSHOT!r})])") == [False, False]
        page.reload()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        assert counts[".wasm"] == before[".wasm"] + 1
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


@NEEDS_NODE
def test_after_a_prebuilt_start_keep_a_copy_keeps_the_runtime_and_that_snapshot(browser, site_url):
    counts, count = counting([".wasm", ".snapshot.gz"])
    context, page, guard, problems = open_page(browser, site_url, routes=[("**/pyodide/**", count)], link=IN_TIME)
    try:
        assert startup(page)["snapshot"] == "prebuilt"
        expect(page.locator("[data-testid=snapshot-note]")).to_have_attribute("data-state", "offer-prebuilt")
        assert page.evaluate("caches.keys()") == []  # nothing stored unasked
        page.click("[data-testid=keep-snapshot]")
        page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
        before = dict(counts)  # keeping fetched them again: Playwright's routes turn the HTTP cache off
        assert any(key.endswith(".snapshot.gz") for key in runtime_keys(page))
        assert page.evaluate(f"caches.has({SNAPSHOT!r})") is False  # the prebuilt one is kept as it is: no second snapshot made
        page.reload()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        assert startup(page)["snapshot"] == "prebuilt"
        assert counts == before
        expect(page.locator("[data-testid=snapshot-note]")).to_have_attribute("data-state", "saved", timeout=LOAD_TIMEOUT)
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


@NEEDS_NODE
def test_a_prebuilt_snapshot_that_arrives_slowly_is_dropped_for_a_normal_start(browser, site_url):
    held = []
    # A fast link (else the snapshot is not asked for); the page's own time for an answer.
    context, page, guard, problems = open_page(
        browser, site_url, routes=[("**/*.snapshot.gz", lambda route: held.append(route))], link=FAST_LINK
    )
    try:
        assert held  # asked for, never answered
        assert startup(page)["snapshot"] == "normal"
        assert "prebuilt dropped" in startup(page)["steps"]
        assert page.evaluate('window.fitproof.checkText(\'{"budget": 1, "items": []}\')') == check_text('{"budget": 1, "items": []}')
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


MISSING_ONCE = set()  # paths the counted site answers 404 the first time they are asked for


@pytest.fixture
def counted_site():
    """A site of its own (`serve`'s server) whose requests are counted by path, and whose
    prebuilt snapshot a test can hide (404) and bring back."""
    server = site_server.make_server(0)
    handler = server.RequestHandlerClass
    hits = collections.Counter()
    answer = handler.do_GET

    def counting(self):
        path = self.path.split("?", 1)[0].lstrip("/")
        hits[path] += 1
        if path in MISSING_ONCE:
            MISSING_ONCE.discard(path)
            return self.send_error(404)
        answer(self)

    handler.do_GET = counting
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = json.loads(content_of(handler.files["boot.json"]))
    yield f"http://127.0.0.1:{server.server_address[1]}/", hits, handler.files, config
    server.shutdown()
    server.server_close()


def serve_link(files, times):
    """The counted site's boot.json from now on, with ``times`` as its `link` (its ETag changes
    with it: a reload gets the new one)."""
    files["boot.json"] = json.dumps({**json.loads(content_of(files["boot.json"])), "link": times}).encode()


@NEEDS_NODE
def test_a_snapshot_dropped_over_a_fast_link_is_fetched_once_live_for_the_next_visit(
    browser_type, browser_type_launch_args, counted_site, tmp_path
):
    """A first visit over a fast link whose prebuilt snapshot did not come (here: the first answer
    is a 404) starts normally, and once live fetches the snapshot in the background; the reload
    starts from that copy, which the HTTP cache gives, asking the network for neither it nor the
    .wasm. (A real profile: Playwright's routes would turn the HTTP cache off, so nothing here is
    routed; the server counts the requests.)"""
    url, hits, files, config = counted_site
    snapshot, wasm = config["snapshot"]["url"], config["pyodide"]["url"] + "pyodide.asm.wasm"
    MISSING_ONCE.add(snapshot)
    serve_link(files, IN_TIME)  # a fast link, and the reload's snapshot from the HTTP cache in time
    context = browser_type.launch_persistent_context(str(tmp_path / "profile"), **browser_type_launch_args)
    finished = []
    context.on("requestfinished", lambda request: finished.append(request.url))
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url + "?editor=plain&view=tool")
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        assert startup(page)["snapshot"] == "normal" and "prebuilt dropped" in startup(page)["steps"]
        assert hits[wasm] == 1
        # The fetch for later, once live, read to its end (the 404 before it was aborted: not "finished").
        deadline = time.monotonic() + LOAD_TIMEOUT / 1000
        while (hits[snapshot] < 2 or not any(done.endswith(snapshot) for done in finished)) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert hits[snapshot] == 2 and sum(done.endswith(snapshot) for done in finished) == 1

        page.reload()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        assert startup(page)["snapshot"] == "prebuilt" and "prebuilt cached" in startup(page)["steps"], startup(page)
        assert hits[snapshot] == 2 and hits[wasm] == 1  # both from the HTTP cache
        answer = page.evaluate('window.fitproof.checkText(\'{"budget": 1, "items": []}\')')
        assert answer == check_text('{"budget": 1, "items": []}')
    finally:
        MISSING_ONCE.clear()
        context.close()


def past_the_fetch_for_later(page, url):
    """Past the moment the snapshot would be fetched for later (1 s after the first answer) by the
    page's own clocks, not the test's: the first answer is shown; then a timer of the Python
    worker, started after that one with a longer delay, has run (HTML orders timers so); then a
    request the worker makes after it has reached the server, as one made before would have."""
    page.wait_for_selector("[data-testid=summary][data-state=done]", timeout=LOAD_TIMEOUT)
    python = next(worker for worker in page.workers if worker.url.endswith("/worker.js"))
    python.evaluate(
        """async (probe) => { await new Promise((resolve) => setTimeout(resolve, 1500));
        await (await fetch(probe, { cache: "no-store", priority: "low" })).arrayBuffer(); }""",
        url + "index.html?after-the-fetch-for-later",
    )


@NEEDS_NODE
def test_a_first_visit_over_a_slow_link_never_downloads_the_snapshot(browser_type, browser_type_launch_args, counted_site, tmp_path):
    """The .wasm takes longer than a fast link allows (boot.json's `link` allows 0 ms): Python
    starts normally, and the prebuilt snapshot is asked for neither before nor after the page is
    live, nor on the reload, which starts normally from the HTTP cache."""
    url, hits, files, config = counted_site
    snapshot, wasm = config["snapshot"]["url"], config["pyodide"]["url"] + "pyodide.asm.wasm"
    serve_link(files, SLOW_LINK)
    context = browser_type.launch_persistent_context(str(tmp_path / "profile"), **browser_type_launch_args)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url + "?editor=plain&view=tool")
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        steps = startup(page)["steps"]
        assert startup(page)["snapshot"] == "normal" and "prebuilt not asked for: a slow link" in steps, steps
        past_the_fetch_for_later(page, url)
        assert hits[wasm] == 1 and hits[snapshot] == 0
        # The reload starts normally from the cached .wasm, and fetches no snapshot either (a fast
        # link now: a .wasm from the cache is judged "cached" only once it is whole).
        serve_link(files, FAST_LINK)
        page.reload()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        steps = startup(page)["steps"]
        assert startup(page)["snapshot"] == "normal" and "prebuilt not cached" in steps, steps
        past_the_fetch_for_later(page, url)
        assert hits[wasm] == 1 and hits[snapshot] == 0
    finally:
        context.close()


TYPO = '{"budget": 7, "items": [{"id": "A", "relevance": 9, "tokenz": 4}]}'  # "did you mean" imports difflib


def without(zip_bytes, name):
    """The zip without its member ``name``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != name:
                target.writestr(info, source.read(info))
    return out.getvalue()


@NEEDS_NODE
def test_the_compiled_standard_library_holds_what_the_page_imports_and_a_missing_module_loads_the_whole_one(browser, site_url):
    """Python starts from the compiled standard library boot.json names, never asking for the whole
    python_stdlib.zip; a module missing from it (difflib, here taken out of it; a typo's "did you
    mean" imports it) is found in the whole zip, fetched once, and the answer is CPython's."""
    config = boot_config(site_url)
    stdlib = config["pyodide"]["stdlib"]
    assert stdlib != "python_stdlib.zip"
    with urllib.request.urlopen(site_url + config["pyodide"]["url"] + stdlib, timeout=30) as response:
        compiled = response.read()
    assert "difflib.pyc" in zipfile.ZipFile(io.BytesIO(compiled)).namelist()
    counts, count = counting(["python_stdlib.zip", stdlib])
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", routes=[("**/pyodide/**", count)])
    try:
        assert counts == {"python_stdlib.zip": 0, stdlib: 1}
        assert page.evaluate("t => window.fitproof.checkText(t)", TYPO) == check_text(TYPO)
        assert counts["python_stdlib.zip"] == 0  # everything the page used was in the compiled one
    finally:
        context.close()
    # The same, from a compiled standard library without difflib.
    missing = without(compiled, "difflib.pyc")
    serve = lambda route: route.fulfill(status=200, body=missing, content_type="application/zip")  # noqa: E731
    counts, count = counting(["python_stdlib.zip"])
    context, page, guard, problems = open_page(
        browser, site_url, prebuilt="block", routes=[("**/pyodide/**", count), (f"**/{stdlib}", serve)]
    )
    messages = []
    page.on("console", lambda message: messages.append(message.text))
    try:
        assert counts["python_stdlib.zip"] == 0
        assert page.evaluate("t => window.fitproof.checkText(t)", TYPO) == check_text(TYPO)
        assert counts["python_stdlib.zip"] == 1
        assert any("the whole one is loaded" in text for text in messages)
        assert page.evaluate("t => window.fitproof.checkText(t)", TYPO.replace("tokenz", "tokenss")) == check_text(
            TYPO.replace("tokenz", "tokenss")
        )
        assert counts["python_stdlib.zip"] == 1  # once
        assert guard.foreign == [] and problems == []
    finally:
        context.close()
