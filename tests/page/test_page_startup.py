"""The page's start-up in Chromium: the prebuilt memory snapshot, the one kept in Cache
Storage (made after the page is ready, by a second Pyodide), every way either can go wrong
(each must end in a normal boot with the same results), the progress bar, and what happens
to input typed or buttons pressed while Python loads."""

import json
import re
import shutil
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES, ROOT
from fitproof._fixtures import case as _fixtures
from fitproof._envelope import check_text, format_json
from test_page import DONE, LOAD_TIMEOUT, READY, as_tool, check, loading_error, random_inputs
from test_page import open_page as open_shared_page

SAVED = "[data-testid=snapshot-note][data-state=saved]"
SAVING = "[data-testid=snapshot-note][data-state=saving]"
OFFER = "[data-testid=snapshot-note][data-state=offer]"
CACHE = "fitproof-snapshot"

# The states the status line and the snapshot note go through, in order, from the first paint.
STATE_RECORDER = """
window.__states = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const id = change.target.dataset && change.target.dataset.testid;
    if (id === "status" || id === "snapshot-note") window.__states.push(id + ":" + change.target.dataset.state);
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
"""


def startup(page):
    return page.evaluate("window.fitproof.startup")


def reload(page):
    page.reload()
    page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
    page.wait_for_selector(DONE, timeout=LOAD_TIMEOUT)
    return startup(page)["snapshot"]


def keep_a_copy(page):
    """Nothing is stored until the user asks: wait for the offer and take it."""
    page.wait_for_selector(OFFER, timeout=LOAD_TIMEOUT)
    page.click("[data-testid=keep-snapshot]")


def cached_keys(page):
    return page.evaluate(f"caches.open({CACHE!r}).then(c => c.keys()).then(keys => keys.map(k => k.url))")


def assert_same_results_as_cpython(page, count=60):
    paths = _fixtures.fixture_files(FIXTURES)
    texts = [json.dumps(_fixtures.load(path)["input"]) for path in paths] + random_inputs(count, seed=14)
    answers = page.evaluate("texts => Promise.all(texts.map(t => window.fitproof.checkText(t)))", texts)
    assert [text for text, answer in zip(texts, answers) if answer != check_text(text)] == []


NEEDS_NODE = pytest.mark.skipif(shutil.which("node") is None, reason="the prebuilt snapshot is made with Node")


# boot.json's `link` times (web/worker/link-times.js) that make the start a test is about the one
# the page takes, however busy this machine is: which start the page chooses is decided by how
# fast the .wasm and the prebuilt snapshot arrive, and a busy machine serves them from 127.0.0.1
# slower than the defaults allow (the .wasm over 1.2 s after it was asked for).
FAST_LINK = {"fast_ms": 60_000}  # every first visit's link is fast (the .wasm is whole within LOAD_TIMEOUT)
IN_TIME = {
    **FAST_LINK,
    "cached_ms": 60_000,
    "decide_ms": 60_000,
    "saves_ms": 60_000,
    "no_answer_ms": 60_000,
}  # and the prebuilt snapshot always arrives in time
SLOW_LINK = {"fast_ms": 0}  # every first visit's link is slow: no .wasm is whole 0 ms after it was asked for


def with_link(times):
    """A route serving boot.json with ``times`` as its `link`."""

    def route(route):
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "link": times})

    return route


def open_page(browser, url, prebuilt="allow", routes=(), link=None):
    """A fresh context and page; prebuilt="allow", "block" (request fails) or "garbage" (wrong
    bytes); ``link``: boot.json's `link` times (FAST_LINK, IN_TIME, SLOW_LINK), else the page's own."""
    handlers = {
        "allow": [],
        "block": [lambda route: route.abort()],
        "garbage": [lambda route: route.fulfill(status=200, body=b"\x1f\x8b" + bytes(4096), content_type="application/gzip")],
    }[prebuilt]
    routes = (
        [("**/*.snapshot.gz", handler) for handler in handlers]
        + ([("**/boot.json", with_link(link))] if link is not None else [])
        + list(routes)
    )
    return open_shared_page(browser, url, routes=routes, init_script=STATE_RECORDER)


class HeldMaker:
    """Holds the snapshot maker before it boots Pyodide: every request made from snapshot-maker.js
    waits until released (then none is held any more). (Its own script request cannot be held: Playwright does not see the
    script request of a worker started by a worker, only the requests that worker makes.)
    Registered last, so tried first; every other request falls back to the earlier routes."""

    def __init__(self):
        self.held = []
        self.holding = True
        self.routes = [("**/*", self)]

    def __call__(self, route):
        if self.holding and route.request.headers.get("referer", "").endswith("/snapshot-maker.js"):
            self.held.append(route)
        else:
            route.fallback()

    def release(self):
        self.holding = False
        while self.held:
            route = self.held.pop()
            try:
                route.fallback()
            except Exception:  # noqa: BLE001 (its worker is gone: the page was reloaded or the maker stopped)
                pass


@pytest.fixture(scope="module")
def visited(browser, site_url):
    """One browser context for the kept-snapshot tests (the prebuilt one cannot be fetched
    there), after its first visit booted normally and kept a snapshot."""
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block")
    keep_a_copy(page)
    page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
    yield page, problems
    assert guard.foreign == []
    context.close()


def boot_config(site_url):
    with urllib.request.urlopen(site_url + "boot.json", timeout=30) as response:
        return json.loads(response.read())


def test_first_visit_boots_normally_and_keeps_one_snapshot_under_the_sources_hash(visited, site_url):
    page, problems = visited
    assert startup(page)["snapshot"] == "normal"
    # Ready first; only then was the snapshot started (so it cannot have delayed the start).
    states = page.evaluate("window.__states")
    assert (
        states.index("status:ready")
        < states.index("snapshot-note:offer")
        < states.index("snapshot-note:saving")
        < states.index("snapshot-note:saved")
    )
    config = boot_config(site_url)
    stdlib = "" if config["pyodide"]["stdlib"] == "python_stdlib.zip" else "-" + config["pyodide"]["stdlib"].removesuffix(".zip")
    key = f"{site_url}snapshot/pyodide-{config['pyodide']['version']}{stdlib}/{config['package']['sources_sha256']}.bin"
    assert cached_keys(page) == [key]
    assert "kept for the next visit" in page.inner_text("[data-testid=snapshot-note]")
    assert "never your input" in page.inner_text("#privacy")
    assert problems == []


def test_the_next_visit_starts_from_the_snapshot_with_the_same_results(visited):
    page, problems = visited
    assert reload(page) == "used"
    steps = startup(page)["steps"]
    assert "snapshot read" in steps and "import" not in steps  # nothing was imported again
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, C within 7 tokens.")
    assert_same_results_as_cpython(page)
    assert problems == []


@pytest.mark.parametrize(
    "corruption",
    [
        "truncated",  # cut short: gunzip's length and CRC-32 checks refuse it
        "bit flipped",  # one flipped bit in the compressed data: the CRC-32
        "not a snapshot",  # well-formed gzip of something else: Pyodide's magic-number check
    ],
)
def test_a_damaged_snapshot_means_a_normal_boot_and_the_same_results(visited, corruption):
    page, problems = visited
    page.evaluate(
        """async ([cacheName, corruption]) => {
          const cache = await caches.open(cacheName);
          const [key] = await cache.keys();
          const saved = await cache.match(key);
          const bytes = new Uint8Array(await saved.arrayBuffer());
          let damaged;
          if (corruption === "truncated") {
            damaged = bytes.slice(0, bytes.length >> 1);
          } else if (corruption === "bit flipped") {
            damaged = bytes.slice();
            damaged[damaged.length >> 1] ^= 4;
          } else {
            const junk = new Uint8Array(1 << 20).fill(7);
            damaged = await new Response(new Blob([junk]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
          }
          await cache.put(key, new Response(damaged, { headers: saved.headers }));
        }""",
        [CACHE, corruption],
    )
    assert reload(page) == "normal"  # booted normally, and saves a good one again
    assert_same_results_as_cpython(page, count=20)
    page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
    assert problems == []


def test_a_snapshot_that_answers_the_probe_differently_is_not_used(visited):
    page, problems = visited

    def other_probe(route):
        config = json.loads(route.fetch().text())
        config["probe"]["envelope"] = '{"ok": true, "result": "something else"}'
        route.fulfill(status=200, body=json.dumps(config), content_type="application/json")

    page.context.route("**/boot.json", other_probe)
    try:
        assert reload(page) == "normal"
    finally:
        page.context.unroute("**/boot.json", other_probe)
    page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
    assert reload(page) == "used"  # the one saved after the refusal is good
    assert_same_results_as_cpython(page, count=20)
    assert problems == []


def test_a_stale_snapshot_is_never_used_and_is_removed(visited):
    """Kept for other sources (or another Pyodide): a different key, so never even read."""
    page, problems = visited
    stale = page.evaluate(
        """async (cacheName) => {
          const cache = await caches.open(cacheName);
          const [key] = await cache.keys();
          const saved = await cache.match(key);
          const stale = key.url.replace(/[0-9a-f]{64}\\.bin$/, "0".repeat(64) + ".bin");
          await cache.put(stale, saved);
          await cache.delete(key);
          return stale;
        }""",
        CACHE,
    )
    assert reload(page) == "normal"
    page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
    keys = cached_keys(page)
    assert stale not in keys and len(keys) == 1
    assert problems == []


def test_the_snapshot_can_be_removed_from_the_page(visited):
    page, problems = visited
    assert cached_keys(page) != []
    page.click("[data-testid=forget-snapshot]")
    expect(page.locator("[data-testid=snapshot-note]")).to_have_attribute("data-state", "cleared")
    assert page.evaluate(f"caches.has({CACHE!r})") is False
    assert reload(page) == "normal"  # and the next visit starts normally, and keeps nothing unasked
    page.wait_for_selector(OFFER, timeout=LOAD_TIMEOUT)
    assert page.evaluate(f"caches.has({CACHE!r})") is False
    assert problems == []


def test_nothing_is_stored_unless_the_user_asks(browser, site_url):
    """A site without a prebuilt snapshot had the page keep ~6 MB in Cache Storage unasked."""
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block")
    try:
        assert startup(page)["snapshot"] == "normal"
        page.wait_for_selector(OFFER, timeout=LOAD_TIMEOUT)
        expect(page.locator("[data-testid=keep-snapshot]")).to_be_visible()
        expect(page.locator("[data-testid=forget-snapshot]")).to_be_hidden()
        check(page, '{"budget": 3, "items": [{"id": "x", "relevance": 1, "tokens": 2}]}')  # the first answer once started the maker
        # Past the old idle delay (1 s) by the Python worker's own timers: one started after it with
        # a longer delay runs after it (HTML orders timers so), however busy the machine. Then one
        # more answer: the worker's messages come in order, so a "saving" sent before it is shown.
        python = next(worker for worker in page.workers if worker.url.endswith("/worker.js"))
        python.evaluate("() => new Promise((resolve) => setTimeout(resolve, 2500))")
        page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
        check(page, '{"budget": 3, "items": [{"id": "y", "relevance": 1, "tokens": 2}]}')
        assert page.get_attribute("[data-testid=snapshot-note]", "data-state") == "offer"
        assert page.evaluate("caches.keys()") == []
        assert reload(page) == "normal"
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


def test_the_page_is_usable_while_the_snapshot_is_made_and_a_reload_then_leaves_nothing(browser, site_url):
    maker = HeldMaker()
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", routes=maker.routes)
    try:
        assert startup(page)["snapshot"] == "normal"
        keep_a_copy(page)
        page.wait_for_selector(SAVING, timeout=LOAD_TIMEOUT)
        check(page, '{"budget": 3, "items": [{"id": "x", "relevance": 1, "tokens": 2}]}')
        expect(page.locator("[data-testid=summary]")).to_have_text("Selected x within 3 tokens.")
        assert_same_results_as_cpython(page, count=20)
        assert page.get_attribute("[data-testid=snapshot-note]", "data-state") == "saving"
        assert page.evaluate(f"caches.has({CACHE!r})") is False
        # Reloaded before the snapshot was stored: nothing half-made is left, the next start is normal.
        assert reload(page) == "normal"
        assert page.evaluate(f"caches.has({CACHE!r})") is False
        keep_a_copy(page)  # nothing was stored, so the reloaded page asks again
        page.wait_for_selector(SAVING, timeout=LOAD_TIMEOUT)
        maker.release()
        page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
        assert reload(page) == "used"
        assert guard.foreign == [] and problems == []
    finally:
        maker.release()
        context.close()


def test_remove_it_while_the_snapshot_is_made_stops_it_and_keeps_nothing(browser, site_url):
    maker = HeldMaker()
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", routes=maker.routes)
    try:
        keep_a_copy(page)
        page.wait_for_selector(SAVING, timeout=LOAD_TIMEOUT)
        page.click("[data-testid=forget-snapshot]")
        expect(page.locator("[data-testid=snapshot-note]")).to_have_attribute("data-state", "cleared")
        assert "Removed" in page.inner_text("[data-testid=snapshot-note]")
        maker.release()  # the stopped maker's script arrives too late to run
        assert page.get_attribute("[data-testid=snapshot-note]", "data-state") == "cleared"
        assert reload(page) == "normal"  # nothing was kept
        assert problems == []
    finally:
        maker.release()
        context.close()


# ---------------------------------------------------------------- the prebuilt snapshot


@NEEDS_NODE
def test_a_first_visit_starts_from_the_prebuilt_snapshot_and_keeps_nothing(browser, site_url):
    context, page, guard, problems = open_page(browser, site_url, link=IN_TIME)
    try:
        assert startup(page)["snapshot"] == "prebuilt"
        assert "prebuilt" in page.inner_text("[data-testid=snapshot-note]")
        expect(page.locator("[data-testid=forget-snapshot]")).to_be_hidden()  # nothing is kept: nothing to remove
        assert_same_results_as_cpython(page)
        assert page.evaluate(f"caches.has({CACHE!r})") is False
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


@NEEDS_NODE
def test_a_damaged_prebuilt_snapshot_means_a_normal_boot_the_same_results_and_a_kept_one(browser, site_url):
    context, page, guard, problems = open_page(browser, site_url, prebuilt="garbage", link=IN_TIME)
    try:
        assert startup(page)["snapshot"] == "normal"
        steps = startup(page)["steps"]
        assert "prebuilt dropped" not in steps and "prebuilt not asked for: a slow link" not in steps, steps  # it was tried
        assert_same_results_as_cpython(page, count=20)
        keep_a_copy(page)
        page.wait_for_selector(SAVED, timeout=LOAD_TIMEOUT)
        assert reload(page) == "used"  # the kept one comes first from now on
        assert problems == []
    finally:
        context.close()


LINK_DEFAULTS = {"fast_ms": 1200, "cached_ms": 300, "decide_ms": 400, "saves_ms": 2000, "no_answer_ms": 3000}
LINK_CASES = [
    (None, {}),
    ("fast", {}),
    ([60_000], {}),
    (5, {}),
    ({}, {}),  # no `link`, or not an object: the defaults
    ({"fast_ms": 0}, {"fast_ms": 0}),
    ({"fast_ms": 60_000, "cached_ms": 2.5, "other_ms": 7}, {"fast_ms": 60_000, "cached_ms": 2.5}),
    ({"fast_ms": -1, "cached_ms": "300", "decide_ms": None, "saves_ms": [1], "no_answer_ms": True}, {}),  # each ignored
    ({"saves_ms": 1e300}, {"saves_ms": 2**31 - 1}),  # setTimeout's longest delay: a longer one fires at once
]


def test_boot_jsons_link_times_are_milliseconds_else_the_defaults(browser, site_url):
    """worker/link-times.js, imported in a page: a time in boot.json's `link` is used when it is
    a number of ms at least 0, else ignored for the default; the defaults are the page's own."""
    context = browser.new_context()
    context.route("**/boot.json", lambda route: None)  # held: Python never loads here
    page = context.new_page()
    try:
        page.goto(as_tool(site_url))
        defaults, results = page.evaluate(
            """async (cases) => {
            const { LINK_DEFAULTS, linkTimes } = await import('./worker/link-times.js');
            return [LINK_DEFAULTS, cases.map((given) => linkTimes(given))]; }""",
            [given for given, _ in LINK_CASES],
        )
        assert defaults == LINK_DEFAULTS
        assert results == [{**LINK_DEFAULTS, **changed} for _, changed in LINK_CASES]
    finally:
        context.close()


@pytest.mark.parametrize("link", ["fast", {"fast_ms": "soon", "cached_ms": -300, "decide_ms": None, "saves_ms": [1], "no_answer_ms": {}}])
def test_a_link_in_boot_json_that_is_not_times_changes_nothing(browser, site_url, link):
    """A start with such a `link` (each time ignored for its default) is a start like any other."""
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", link=link)
    try:
        assert startup(page)["snapshot"] == "normal"
        assert page.evaluate('window.fitproof.checkText(\'{"budget": 1, "items": []}\')') == check_text('{"budget": 1, "items": []}')
        assert guard.foreign == [] and problems == []
    finally:
        context.close()


def test_the_prebuilt_snapshot_imports_the_package_as_the_page_does():
    """scripts/make_snapshot.mjs (run by Node) cannot import web/worker/python-package.js: same Python text."""

    def python(path):
        text = (ROOT / path).read_text()
        block = re.search(r"runPython\(`(.*?)`\)", text, re.DOTALL).group(1)
        return re.sub(r"\$\{[^}]*\}", "${}", block)

    assert python("scripts/make_snapshot.mjs") == python("web/worker/python-package.js")
    assert "import fitproof" in python("web/worker/python-package.js")


# ---------------------------------------------------------------- while loading

PROGRESS_RECORDER = """
window.__progress = [];
new MutationObserver(() => {
  const bar = document.getElementById("progress");
  if (bar) window.__progress.push([bar.dataset.phase, bar.value, bar.max, bar.hidden]);
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["value", "max", "data-phase", "hidden"] });
"""


def open_held(browser, site_url, names):
    """A page whose requests for ``names`` (URL endings) are held until the test releases them."""
    context = browser.new_context()
    context.add_init_script(PROGRESS_RECORDER)
    routes = {name: [] for name in names}

    def holder(held):
        return lambda route: held.append(route)  # one argument: Playwright passes the request too to two

    for name in names:
        context.route(f"**/{name}", holder(routes[name]))
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.goto(as_tool(site_url))
    page.wait_for_selector("[data-testid=example] option", state="attached")

    def release(ready=True):
        # The worker asks on its own thread: under load that can come after the examples the
        # page loads (what the fixture waited for). Playwright hands the request to the route
        # handler only while the test waits in a Playwright call, hence the loop.
        deadline = time.monotonic() + LOAD_TIMEOUT / 1000
        while not all(routes.values()) and time.monotonic() < deadline:
            page.wait_for_timeout(20)
        assert all(len(held) == 1 for held in routes.values()), routes
        assert page.get_attribute("[data-testid=status]", "data-state") == "loading"
        for held in routes.values():
            held.pop().continue_()
        if ready:
            page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)

    return context, page, release, problems


@pytest.fixture
def held(browser, site_url):
    """A page whose boot.json and Pyodide's unversioned loader are held until the test releases
    them: Python cannot load, and none of Pyodide's files is asked for."""
    context, page, release, problems = open_held(browser, site_url, ["boot.json", "pyodide/pyodide.mjs"])
    yield page, release, problems
    context.close()


@pytest.fixture
def held_boot_json(browser, site_url):
    """A page whose boot.json is held until the test releases it; the loader arrives meanwhile."""
    context, page, release, problems = open_held(browser, site_url, ["boot.json"])
    yield page, release, problems
    context.close()


def test_the_first_example_is_in_the_editor_before_python_loads(held):
    page, release, problems = held
    examples = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
    fixture = (FIXTURES / examples[0]["fixture"]).read_text()
    assert page.input_value("[data-testid=input]") == json.loads(format_json(fixture, "input"))["text"]
    assert page.inner_text("#example-description") == examples[0].get("description", json.loads(fixture)["description"])
    # Its report, made when the site was built, is on screen, marked as waiting (tests/page/test_page_loading.py).
    summary = _fixtures.load(FIXTURES / examples[0]["fixture"])["expected"]["summary"]
    assert page.get_attribute("#result", "data-preview") == ""
    expect(page.locator("[data-testid=summary]")).to_have_text(summary)
    release()
    expect(page.locator("#result")).not_to_have_attribute("data-preview", "")
    expect(page.locator("[data-testid=summary]")).to_have_text(summary)
    assert problems == []


def test_typing_format_and_check_during_loading_are_kept_and_run_once_ready(held):
    page, release, problems = held
    typed = '{"budget": 3, "items": [{"id": "typed", "relevance": 1, "tokens": 2.0}]}'
    page.fill("[data-testid=input]", "")
    page.locator("[data-testid=input]").press_sequentially(typed)
    page.click("#format")
    page.click("[data-testid=run]")
    release()
    expected = json.loads(format_json(typed))["text"]
    expect(page.locator("[data-testid=input]")).to_have_value(expected)  # formatted, not replaced by an example
    assert '"tokens": 2.0' in expected
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected typed within 3 tokens.")
    assert problems == []


def test_format_pressed_during_loading_never_overwrites_later_typing(held):
    page, release, problems = held
    page.fill("[data-testid=input]", '{"budget": 1, "items": []}')
    page.click("#format")
    page.fill("[data-testid=input]", '{"budget": 2, "items": []}')
    release()
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected nothing within 2 tokens.")
    assert page.input_value("[data-testid=input]") == '{"budget": 2, "items": []}'
    assert problems == []


def test_the_progress_bar_counts_the_bytes_then_the_start_up_steps(browser, site_url):
    context, page, release, problems = open_held(browser, site_url, ["boot.json", "pyodide/pyodide.mjs"])
    try:
        package = []  # the package's file, held until the bar has shown the bytes of the others
        context.route("**/fitproof-*.json", lambda route: package.append(route))
        assert page.get_attribute("#progress", "value") == "0"
        release(ready=False)
        # Not a count of updates (how many come depends on the machine's speed): while one file
        # is held, the bar shows some bytes but not all of them.
        page.wait_for_function(
            "() => window.__progress.some(([phase, value, maximum]) => phase === 'download' && value > 0 && value < maximum)",
            timeout=LOAD_TIMEOUT,
        )
        deadline = time.monotonic() + LOAD_TIMEOUT / 1000
        while not package and time.monotonic() < deadline:  # (handed over only while the test waits in Playwright)
            page.wait_for_timeout(20)
        package.pop().continue_()
        page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
        expect(page.locator("#progress")).to_be_hidden()
        config = boot_config(site_url)
        total = sum(config["pyodide"]["bytes"].values()) + config["package"]["bytes"] + (config["snapshot"] or {"bytes": 0})["bytes"]
        records = page.evaluate("window.__progress")
        downloads = [(value, maximum) for phase, value, maximum, _ in records if phase == "download"]
        assert downloads and all(maximum == total for _, maximum in downloads)
        assert [value for value, _ in downloads] == sorted(value for value, _ in downloads)
        assert downloads[-1][0] == total  # every byte was counted
        assert downloads[0][0] < total  # it moved while downloading
        phases = [phase for phase, *_ in records]
        assert phases.index("download") < phases.index("start") < phases.index("done")
        assert page.inner_text("[data-testid=status]").startswith("Ready: edit the input")
        assert re.fullmatch(r"fitproof \S+ on Python 3\.\S+, loaded in \d+\.\d s\.", page.inner_text("[data-testid=status-detail]"))
        assert problems == []
    finally:
        context.close()


def test_pyodides_files_are_requested_before_boot_json_arrives(held_boot_json):
    """The worker asks for Pyodide's files as soon as the unversioned loader names its version,
    so the downloads do not wait for boot.json (held here until released)."""
    page, release, problems = held_boot_json
    downloaded = "() => performance.getEntriesByType('resource').map(entry => entry.name.split('/').pop())"
    deadline = time.monotonic() + LOAD_TIMEOUT / 1000
    while not set(PYODIDE_FILES) <= set(page.workers[0].evaluate(downloaded)) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert set(PYODIDE_FILES) <= set(page.workers[0].evaluate(downloaded))  # all there while boot.json is held
    release()
    assert startup(page)["snapshot"] in ("normal", "prebuilt")
    assert problems == []


def test_a_wasm_served_with_the_wrong_type_is_a_clear_error(browser, site_url):
    mistyped = lambda route: route.fulfill(status=200, body=b"\0asm", content_type="text/plain")  # noqa: E731
    assert 'served as "text/plain"; it must be served as application/wasm' in loading_error(
        browser, site_url, "**/pyodide.asm.wasm", mistyped
    )


# ---------------------------------------------------------------- Pyodide's loader

PYODIDE_FILES = ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide-lock.json")  # the standard library: boot.json names which
WRONG_LOADER = 'export const version = "0.0.1"; export function loadPyodide() { throw new Error("not this loader"); }'


def without_prebuilt(route):
    """boot.json without the prebuilt snapshot: one loadPyodide, not one for the (blocked) prebuilt snapshot and one after."""
    response = route.fetch()
    route.fulfill(response=response, json={**response.json(), "snapshot": None})


@pytest.mark.parametrize("loader", ["served", "missing", "another version", "another version, after boot.json"])
def test_the_worker_imports_the_unversioned_loader_only_when_it_is_boot_jsons_version(browser, site_url, loader):
    """pyodide/pyodide.mjs is imported alongside boot.json; when it is missing or names another
    version than boot.json, the versioned copy is imported instead, with the same results.
    Pyodide's files are requested early (from the loader's version, else boot.json's) and
    handed to loadPyodide: each is downloaded once from boot.json's folder, whatever the loader.
    A loader held until boot.json was read and Pyodide's files are on their way changes nothing:
    nothing is asked from its version's folder."""
    version = boot_config(site_url)["pyodide"]["version"]
    requested, held = [], []

    def serve(route):
        url = route.request.url
        if url.endswith(".snapshot.gz"):
            return route.fallback()  # to open_page's route, which blocks the prebuilt snapshot
        requested.append(url[len(site_url) :])
        if url.endswith("/pyodide/pyodide.mjs") and loader == "missing":
            route.fulfill(status=404, body="not here")
        elif url.endswith("/pyodide/pyodide.mjs") and loader == "another version":
            route.fulfill(status=200, body=WRONG_LOADER, content_type="text/javascript")
        elif url.endswith("/pyodide/pyodide.mjs") and loader == "another version, after boot.json":
            held.append(route)
        else:
            route.continue_()
            if url.endswith(f"/pyodide/{version}/pyodide.asm.wasm"):  # boot.json was read: now the loader
                while held:
                    held.pop().fulfill(status=200, body=WRONG_LOADER, content_type="text/javascript")

    maker = HeldMaker()  # the snapshot maker imports the versioned copy itself: kept from starting
    routes = [("**/boot.json", without_prebuilt), ("**/pyodide/**", serve), *maker.routes]
    context, page, guard, problems = open_page(browser, site_url, prebuilt="block", routes=routes)
    try:
        assert startup(page)["snapshot"] == "normal"
        assert_same_results_as_cpython(page, count=10)
        assert requested[0] == "pyodide/pyodide.mjs"
        assert (f"pyodide/{version}/pyodide.mjs" in requested) == (loader != "served")
        assert {name: requested.count(f"pyodide/{version}/{name}") for name in PYODIDE_FILES} == dict.fromkeys(PYODIDE_FILES, 1)
        if loader == "another version, after boot.json":
            assert [path for path in requested if path.startswith("pyodide/0.0.1/")] == []
        assert problems == [] and guard.foreign == []
    finally:
        context.close()
