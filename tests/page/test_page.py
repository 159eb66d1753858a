"""The page in Chromium: one loaded page shared by most tests, waiting on attributes, never on sleeps."""

import hashlib
import json
import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof._envelope import check_text

READY = "[data-testid=status][data-state=ready]"
# Chooses an example with one change event, also when it is already chosen (a helper of the page tests).
CHOOSE = "(node, value) => { node.value = value; node.dispatchEvent(new Event('change', {bubbles: true})); }"

DONE = "[data-testid=summary][data-state=done]"
LOAD_TIMEOUT = 60_000


class Guard:
    """Records and aborts every request that leaves the page's own origin."""

    def __init__(self, origin):
        self.origin = origin
        self.foreign = []

    def __call__(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" == self.origin or parts.scheme in ("data", "blob"):
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()


# The page's tool with the plain text box: the tests of the tool's behaviour (reports, the
# slider, links, examples) drive the textarea, which stays the page's model under the code
# editor; the lesson and CodeMirror have their own tests (test_page_lesson.py).
TOOL = "?editor=plain&view=tool"


def as_tool(url):
    """``url`` opening the tool with the plain text box, unless it already says how to open."""
    if "?" in url:
        return url
    base, hash_mark, fragment = url.partition("#")
    return base + TOOL + hash_mark + fragment


def open_page(browser, url, routes=(), init_script=None):
    """A fresh context and page, loaded and checked; ``routes`` are (pattern, handler) pairs
    added after the guard (Playwright tries the last added first); ``init_script`` runs
    before the page's own scripts. The page opens as the tool (``as_tool``)."""
    url = as_tool(url)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    # Motion is reduced, so every scroll happens at once: a smooth scroll (a step's row, a
    # prediction's verdict) could move the next control a test clicks between the press and the
    # release on a busy machine, and that click then reached nothing (seen twice under load).
    # A test about motion asks for it with emulate_media(reduced_motion="no-preference").
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    # Playwright's waits on this page (wait_for_selector, locator.wait_for, ...) for Python (a
    # rank file counted, a second Pyodide booted) get the load's margin, not its default 30 s:
    # on a shared 2-core machine under load they have taken longer. expect() keeps its own 5 s.
    context.set_default_timeout(LOAD_TIMEOUT)
    if init_script:
        context.add_init_script(init_script)
    guard = Guard(origin)
    context.route("**/*", guard)
    for pattern, handler in routes:
        context.route(pattern, handler)
    page, problems = open_in(context, url)
    return context, page, guard, problems


def open_in(context, url):
    """A page in ``context`` (its routes and guard), loaded, with its own list of problems; also
    for a link opened where a fresh context is not the point (the page keeps nothing of a visit
    unasked but lesson progress, and Cache Storage only when the user asks), at the cost of a
    page's boot without a new context's."""
    page = context.new_page()
    problems = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(as_tool(url))
    page.wait_for_selector(READY, timeout=LOAD_TIMEOUT)
    page.wait_for_selector(DONE, timeout=LOAD_TIMEOUT)
    return page, problems


@pytest.fixture(scope="module")
def loaded(browser, site_url):
    context, page, guard, problems = open_page(browser, site_url)
    yield page, guard, problems
    context.close()


@pytest.fixture
def page(loaded):
    page, _, problems = loaded
    yield page
    assert problems == [], "the page logged errors"


def check(page, text):
    """Put text in the editor and check it with the button; wait for the result."""
    page.fill("[data-testid=input]", text)
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)


def test_ready_with_no_request_to_another_origin(loaded):
    page, guard, _ = loaded
    assert page.get_attribute("[data-testid=status]", "data-state") == "ready"
    assert guard.foreign == []


def test_the_guard_does_catch_a_foreign_request(loaded):
    page, guard, _ = loaded
    probe = page.context.new_page()
    probe.set_content('<img src="http://example.invalid/pixel.png">')
    probe.wait_for_load_state()
    probe.close()
    assert "http://example.invalid/pixel.png" in guard.foreign
    guard.foreign.remove("http://example.invalid/pixel.png")


def test_every_fixture_gives_the_cpython_report(page):
    paths = _fixtures.fixture_files(FIXTURES)
    texts = [json.dumps(_fixtures.load(path)["input"]) for path in paths]
    answers = page.evaluate("texts => Promise.all(texts.map(t => window.fitproof.checkText(t)))", texts)
    for path, text, answer in zip(paths, texts, answers):
        difference = _fixtures.first_difference(json.loads(check_text(text)), json.loads(answer))
        assert difference is None, f"{path.name}: {difference}"
        assert json.loads(answer)["result"] == _fixtures.load(path)["expected"], path.name


def test_seed_example_typed_in_shows_summary_and_two_passing_checks(page):
    page.fill("[data-testid=input]", "")
    page.locator("[data-testid=input]").press_sequentially(
        '{"budget":7,"items":[{"id":"A","relevance":9,"tokens":4},{"id":"B","relevance":8,"tokens":5},{"id":"C","relevance":7,"tokens":3}]}'
    )
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, C within 7 tokens.")
    expect(page.locator("[data-testid=summary]")).to_have_attribute("data-pass", "true")
    checks = page.locator("[data-testid=check]")
    expect(checks).to_have_count(2)
    assert [checks.nth(i).get_attribute("data-pass") for i in range(2)] == ["true", "true"]
    assert "token budget" in checks.nth(0).inner_text()
    assert page.locator("[data-testid=items] tbody tr").count() == 3


def test_ctrl_enter_checks_at_once(page):
    page.fill("[data-testid=input]", '{"budget": 0, "items": []}')
    page.press("[data-testid=input]", "Control+Enter")
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected nothing within 0 tokens.")


def test_invalid_input_shows_every_path(page):
    check(page, '{"budget": -1, "items": [{"id": "", "relevance": 1, "tokens": 1}]}')
    assert page.get_attribute("[data-testid=summary]", "data-pass") == "false"
    errors = page.locator("[data-testid=error]").all_inner_texts()
    assert any(text.startswith("$.budget") and "got -1" in text for text in errors)
    assert any(text.startswith("$.items[0].id") for text in errors)
    assert page.get_attribute("[data-testid=check]", "data-pass") == "false"


def test_broken_json_shows_line_and_column(page):
    check(page, '{"budget": 7,\n  "items": [,]}')
    message = page.inner_text("[data-testid=syntax-error]")
    assert "Line 2, column 13" in message
    assert page.get_attribute("[data-testid=summary]", "data-pass") == "false"


def test_duplicate_key_is_rejected_with_its_position(page):
    check(page, '{"budget": 7, "budget": 8, "items": []}')
    assert "duplicate key" in page.inner_text("[data-testid=syntax-error]")


def test_markup_in_strings_is_shown_as_text(page):
    markup = '<img src=x onerror="window.__ran=1"><b>bold</b>'
    check(page, json.dumps({"budget": 5, "items": [{"id": markup, "relevance": 1, "tokens": 9}]}))
    cell = page.locator("[data-testid=items] tbody tr th.item-id").nth(0)
    assert cell.inner_text() == markup
    assert page.locator("main img, main b").count() == 0
    assert page.evaluate("window.__ran") is None
    assert markup in page.inner_text("[data-testid=summary]") or "nothing" in page.inner_text("[data-testid=summary]")


def test_share_link_round_trips(page, loaded):
    _, guard, _ = loaded
    text = '{"budget": 3, "items": [{"id": "ü & <x>", "relevance": 2, "tokens": 3}]}'
    check(page, text)
    page.click("[data-testid=share]")
    expect(page).to_have_url(re.compile(r"#length=\d+&input="))
    other, problems = open_in(page.context, page.url)
    try:
        assert other.input_value("[data-testid=input]") == text
        expect(other.locator("[data-testid=summary]")).to_have_text("Selected ü & <x> within 3 tokens.")
        assert guard.foreign == [] and problems == []
    finally:
        other.close()


def test_a_share_link_cut_short_says_so(page, loaded):
    """A link holds its input's length first: one cut between characters shows what it holds
    (and its JSON error) and says the link was cut; one cut inside
    an escape says so too. A link without the length (as they were first made) still opens."""
    from urllib.parse import quote

    text = '{"budget": 3, "items": [{"id": "ü & <x>", "relevance": 2, "tokens": 3}]}'
    check(page, text)
    page.click("[data-testid=share]")
    expect(page).to_have_url(re.compile(f"#length={len(text)}&input="))
    base, encoded = page.url.split("&input=")
    page.evaluate("history.replaceState(null, '', location.pathname)")
    _, guard, _ = loaded
    for link, shown, note in (
        (f"{base}&input={encoded[: encoded.index('%', 30)]}", None, "The link was cut short (copied or sent only in part): it holds "),
        (
            f"{base}&input={encoded[: encoded.index('%C3') + 2]}",
            "",
            "The link was cut short (copied or sent only in part), so its input is incomplete; showing an example instead.",
        ),
        (
            f"{base}&input={encoded[: encoded.index('%C3') + 3]}",
            "",
            "The link was cut short (copied or sent only in part), so its input is incomplete",
        ),  # between the escapes of "ü"
        (f"{base.split('#')[0]}#input={quote(text, safe='')}", text, ""),
    ):
        other, problems = open_in(page.context, link)
        try:
            expect(other.locator("#share-note")).to_have_text(re.compile("^" + re.escape(note)))
            value = other.input_value("[data-testid=input]")
            if shown is None:  # cut between characters: what the link holds, and the JSON error where it ends
                assert text.startswith(value) and len(value) < len(text)
                assert f"of its input's {len(text)} characters" in other.inner_text("#share-note")
                expect(other.locator("[data-testid=syntax-error]")).to_contain_text("Line 1, column ")
            elif shown:
                assert value == shown
                expect(other.locator("[data-testid=summary]")).to_have_text("Selected ü & <x> within 3 tokens.")
            else:
                assert value != text  # an example instead
            assert guard.foreign == [] and problems == []
        finally:
            other.close()


def test_a_cut_link_opened_in_the_same_tab_leaves_the_editor_as_it_was(page):
    """It said "showing an example instead" while the editor kept its text."""
    text = '{"budget": 2, "items": []}'
    check(page, text)
    try:
        page.evaluate("window.location.hash = 'length=30&input=%7B%22budget%2'")
        expect(page.locator("#share-note")).to_have_text(
            "The link was cut short (copied or sent only in part), so its input is incomplete; the editor keeps what it holds. "
            "Ask for the whole link, or for the input as a file."
        )
        assert page.input_value("[data-testid=input]") == text
    finally:
        page.evaluate("history.replaceState(null, '', location.pathname)")


def test_each_example_loads_and_passes_or_fails_as_it_should(page):
    examples = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
    assert len(examples) >= 5
    for index, example in enumerate(examples):
        if "template" in example:
            continue  # tests/test_page_teaching.py checks the templates
        expected = _fixtures.load(FIXTURES / example["fixture"])["expected"]
        page.select_option("[data-testid=example]", str(index))
        summary = page.locator("[data-testid=summary]")
        expect(summary).to_have_text(expected["summary"])
        expect(summary).to_have_attribute("data-pass", "true" if expected["pass"] else "false")
        expect(page.locator("[data-testid=check]")).to_have_count(len(expected["checks"]))


def test_readable_at_360_pixels(page):
    page.set_viewport_size({"width": 360, "height": 800})
    try:
        page.select_option("[data-testid=example]", "0")
        page.wait_for_selector(DONE)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_results_are_announced(page):
    check(page, '{"budget": 0, "items": []}')
    assert page.get_attribute("#announce", "aria-live") == "polite"
    assert "Selected nothing within 0 tokens." in page.text_content("#announce")


def loading_error(browser, site_url, pattern, handler):
    """The status line's text once the page has given up loading, with ``pattern`` routed to ``handler``."""
    context = browser.new_context()
    context.route(pattern, handler)
    page = context.new_page()
    try:
        page.goto(as_tool(site_url))
        status = page.locator("[data-testid=status]")
        expect(status).to_have_attribute("data-state", "error", timeout=20_000)
        return status.inner_text()
    finally:
        context.close()


def test_a_runtime_that_cannot_load_shows_the_error_state(browser, site_url):
    assert "could not load" in loading_error(browser, site_url, "**/*.wasm", lambda route: route.abort())


def test_built_site_works_from_a_plain_static_server(browser, tmp_path):
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "fitproof", "build-site", str(site)], check=True, capture_output=True, timeout=120)
    manifest = json.loads((site / "manifest.json").read_text())["files"]
    on_disk = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()} - {"manifest.json"}
    assert set(manifest) == on_disk
    for name, digest in manifest.items():
        assert hashlib.sha256((site / name).read_bytes()).hexdigest() == digest, name
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        port = re.search(r"port (\d+)", server.stdout.readline()).group(1)
        context, page, guard, problems = open_page(browser, f"http://127.0.0.1:{port}/")
        try:
            expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, C within 7 tokens.")
            assert guard.foreign == [] and problems == []
        finally:
            context.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_counterexample_shows_what_greedy_cost(page):
    examples = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
    index = next(i for i, example in enumerate(examples) if example["fixture"] == "relevance/greedy-counterexample.json")
    page.select_option("[data-testid=example]", str(index))
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A within 10 tokens.")
    text = page.inner_text("[data-testid=optimal]")
    assert "Greedy scores 10; B, C would score 18" in text
    best = page.locator("[data-testid=items] tbody tr.in-best th.item-id").all_inner_texts()
    assert sorted(best) == ["B", "C"]


def test_blocks_example_shows_prompt_overhead_and_flips(page):
    text = json.dumps(_fixtures.load(FIXTURES / "blocks" / "sensitivity-margin.json")["input"])
    check(page, text)
    assert "Rendered prompt overhead:" in page.inner_text("#budget-legend")
    assert page.locator("[data-testid=items] tbody tr.flips").count() == 1
    assert "would flip" in page.inner_text("[data-testid=optimal]")
    assert page.inner_text("[data-testid=prompt]").startswith("System:")


def test_awkward_inputs_give_the_cpython_envelope(page):
    texts = [
        '{"budget": 2, "items": [{"id": "\\ud800", "relevance": 1, "tokens": 1}, {"id": "\\ud83d\\ude00", "relevance": 1, "tokens": 1}]}',
        '{"budget": 1, "items": [{"id": "a", "relevance": 1' + "0" * 400 + ', "tokens": 1}]}',
        '{"budget": 9007199254740991, "items": [{"id": "x", "relevance": -0.0, "tokens": 4.0}]}',
        '{"budget": 1, "budget": 2}',
        "[" * 5000,
        '"just a string"',
        '{"budget": 1, "items": [],}',
        "[1, 2,]",
        '{"budget" 1}',
        '{"items": ["\\x"]}',
        '{"mode": "passages", "question": "\\u3000", "limit": 20, "counter": "estimate", "passages": [{"id": "p", "text": "\\u0085 a\\u2028b"}]}',
    ]
    answers = page.evaluate("texts => Promise.all(texts.map(t => window.fitproof.checkText(t)))", texts)
    for text, answer in zip(texts, answers):
        assert json.loads(answer) == json.loads(check_text(text)), text[:60]


def random_inputs(count, seed=2026):
    """Varied inputs for all four modes, valid and not, with awkward strings and numbers."""
    import random

    rng = random.Random(seed)
    ids = ["a", "b", "B", "\uff5e", "\U0001f600", "\ud800", " ", "\u0085", "x y", "<b>"]
    numbers = [0, 1, 2, 3, 5, 8, -1, 2.5, 4.0, -0.0, 1e300, 9007199254740993, True, None, "3"]
    texts = ["", "one two", " \u3000 ", "line\nbreak", "\U0001f600" * 3, "a\u0085b", "[x] {y}"]
    inputs = []
    for _ in range(count):
        mode = rng.choice(["relevance", "required", "blocks", "passages"])
        n = rng.randint(0, 6)
        pick = lambda values: values[rng.randrange(len(values))]  # noqa: E731
        if mode == "relevance":
            data = {
                "budget": pick(numbers),
                "items": [{"id": pick(ids), "relevance": pick(numbers), "tokens": pick(numbers)} for _ in range(n)],
            }
        elif mode == "required":
            data = {
                "mode": mode,
                "budget": pick(numbers),
                "items": [
                    {"id": pick(ids), "cost": pick(numbers), "priority": pick(numbers), "required": rng.random() < 0.3} for _ in range(n)
                ],
            }
        elif mode == "blocks":
            data = {
                "mode": mode,
                "window": {"context_tokens": rng.randint(0, 900), "reserved_output_tokens": 50, "fixed_prompt_tokens": 50},
                "blocks": [
                    {
                        "id": pick(ids),
                        "source": "s",
                        "content": pick(texts),
                        "priority": rng.randint(0, 100),
                        "observed_at": pick(["2026-03-13T12:00:00Z", "2026-03-13T15:00:00+05:00", "2026-02-30T00:00:00Z"]),
                        "required": rng.random() < 0.2,
                    }
                    for _ in range(n)
                ],
            }
        else:
            data = {
                "mode": mode,
                "question": pick(texts),
                "limit": rng.randint(0, 60),
                "counter": pick(["words", "estimate"]),
                "passages": [{"id": pick(ids), "text": pick(texts)} for _ in range(n)],
            }
        inputs.append(json.dumps(data))
    return inputs


def test_random_inputs_give_the_same_envelope_in_the_page_and_in_cpython(page):
    texts = random_inputs(300)
    answers = page.evaluate("texts => Promise.all(texts.map(t => window.fitproof.checkText(t)))", texts)
    mismatches = [text for text, answer in zip(texts, answers) if answer != check_text(text)]
    assert mismatches == []
    assert sum('"ok": true' in answer for answer in answers) > 20  # some of them pass


def test_format_and_download_keep_every_number_as_written(page, tmp_path):
    text = (
        '{"budget": 4, "items": [{"id": "a", "relevance": 9007199254740993, "tokens": 4.0}, {"id": "b", "relevance": -0.0, "tokens": 0}]}'
    )
    # Typing schedules a check a moment later; a check running disables the download button, and
    # one that started just as the test clicked it swallowed the click (seen under load). So the
    # typed text is checked at once (Ctrl+Enter: nothing left scheduled), then Format's own check
    # is the only one left, and the button is pressed once it is done.
    stale = "node => { node.dataset.state = 'stale'; }"
    page.fill("[data-testid=input]", text)
    page.eval_on_selector("[data-testid=summary]", stale)
    page.press("[data-testid=input]", "Control+Enter")
    page.wait_for_selector(DONE)
    page.eval_on_selector("[data-testid=summary]", stale)
    page.click("#format")
    expect(page.locator("[data-testid=input]")).to_have_value(re.compile("9007199254740993"))
    formatted = page.input_value("[data-testid=input]")
    assert '"tokens": 4.0' in formatted and '"relevance": -0.0' in formatted
    page.wait_for_selector(DONE)
    expect(page.locator("#download-report")).to_be_enabled()
    with page.expect_download() as download:
        page.click("#download-report")
    saved = open(download.value.path(), encoding="utf-8").read()
    assert json.loads(saved) == json.loads(check_text(text))["result"]
    assert '"relevance": 9007199254740993' in saved


def test_required_overflow_shows_what_the_required_items_need(page):
    check(page, json.dumps(_fixtures.load(FIXTURES / "required" / "required-overflow.json")["input"]))
    assert page.get_attribute("[data-testid=summary]", "data-pass") == "false"
    assert page.inner_text("#budget-legend").startswith("The required items need 7 tokens: 2 more than the budget of 5.")
    # Both required items are drawn as failures, one after the other, past the end of the budget.
    assert page.locator("#budget-block .bar-ghost.fail").count() == 2
    assert page.locator("#budget-block .ghost-over").count() == 1
    assert "Fails" in page.inner_text("#budget-block .failure-badge")
