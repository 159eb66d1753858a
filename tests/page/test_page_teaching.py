"""The page as a teaching page, in Chromium at 1280x800 and 390x844, every mode: the budget
bar, stepping through the decisions, the why in view, the slider, clickable errors, large
inputs, accessibility. One loaded page is shared; tests wait on attributes, never on sleeps."""

import json
import re

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof._envelope import check_text
from test_page import CHOOSE, DONE, loaded  # noqa: F401 (the module's one loaded page, a fixture)

EXAMPLES = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
SIZES = {"wide": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def report_of(example):
    if "template" in example:
        text = json.dumps(json.loads((FIXTURES.parent / "web" / example["template"]).read_text())["input"])
    else:
        text = json.dumps(_fixtures.load(FIXTURES / example["fixture"])["input"])
    return json.loads(check_text(text))["result"]


# Every example and template that has decisions to show, named by its label. Chat histories
# (mode messages) have turns, not ids, and their own conversation view and budget lane:
# tests/test_page_messages.py.
TRACED = [
    (index, example)
    for index, example in enumerate(EXAMPLES)
    if report_of(example).get("trace") and report_of(example)["mode"] != "messages"
]
MODES_SEEN = {report_of(example)["mode"] for _, example in TRACED}


@pytest.fixture(params=list(SIZES))
def page(loaded, request):
    page, _, problems = loaded
    page.set_viewport_size(SIZES[request.param])
    page.emulate_media(reduced_motion="reduce", color_scheme="light")  # as open_page opens it: scrolls at once
    yield page
    assert problems == [], "the page logged errors"


def choose(page, index):
    """Select an example and wait until its own result is shown."""
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")  # wait for a fresh result
    # One change event, also when the example is already chosen: selecting "" first would put the
    # replaced text back and check it, a second check that stops Play and redraws the report.
    page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
    expected = report_of(EXAMPLES[index])
    page.wait_for_selector(DONE)
    expect(page.locator("[data-testid=summary]")).to_have_text(expected["summary"])
    return expected


def check(page, text):
    page.fill("[data-testid=input]", text)
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)


def test_every_mode_has_an_example_with_decisions():
    assert MODES_SEEN >= {"relevance", "required", "blocks", "passages"}


def test_bar_has_a_segment_per_kept_item_and_a_ghost_per_left_out_item(page):
    for index, _ in TRACED:
        bar_matches_trace(page, choose(page, index))


def bar_matches_trace(page, report):
    kept = [row["id"] for row in report["trace"] if row["kept"]]
    left_out = [row["id"] for row in report["trace"] if not row["kept"]]
    bar = page.locator("[data-testid=budget-bar]")
    expect(bar).to_be_visible()
    assert page.locator("[data-testid=bar-segment]").evaluate_all("nodes => nodes.map(n => n.dataset.id)") == kept
    assert page.locator("[data-testid=bar-ghost]").evaluate_all("nodes => nodes.map(n => n.dataset.id)") == left_out
    # Each segment's width is its cost against the same scale: proportional to the trace.
    widths = page.locator("[data-testid=bar-segment]").evaluate_all("nodes => nodes.map(n => n.getBoundingClientRect().width)")
    costs = [row.get("tokens", row.get("cost")) for row in report["trace"] if row["kept"]]
    for width, cost in zip(widths, costs):
        assert abs(width / max(widths) - cost / max(costs)) < 0.05 if max(costs) else True
    # Each has its id and count in text for screen readers.
    for node in page.locator("[data-testid=bar-segment]").all():
        assert node.get_attribute("data-id") in node.inner_text() or node.get_attribute("data-id") in node.text_content()
    width = page.viewport_size["width"]
    box = bar.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width


def test_decision_and_reason_are_in_view_next_to_the_id(page):
    for index, _ in TRACED:
        reasons_in_view(page, choose(page, index))


def reasons_in_view(page, report):
    reasons = page.locator("[data-testid=reason]")
    expect(reasons).to_have_count(len(report["trace"]))
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    region = page.locator("#table-scroll").bounding_box()
    for box in reasons.evaluate_all("nodes => nodes.map(n => n.getBoundingClientRect().toJSON())"):
        assert box["left"] >= 0 and box["right"] <= min(width, region["x"] + region["width"]) + 0.5, box
    # The order in each row: position, id, decision, why, then the rest.
    first = page.locator("[data-testid=items] tbody tr").first
    classes = first.locator("th, td").evaluate_all("nodes => nodes.map(n => n.className)")
    assert classes[:4] == ["position", "item-id", "decision", "reason"]
    decisions = page.locator("[data-testid=decision]").all_inner_texts()
    assert [text.startswith("✓ kept") for text in decisions] == [row["kept"] for row in report["trace"]]


@pytest.mark.parametrize("mode", sorted(MODES_SEEN))
def test_step_through_every_decision_with_the_buttons_and_the_keyboard(page, mode):
    # Motion is reduced (the fixture), so Play takes a beat of 3 s instead of 1.4 s.
    index = next(index for index, example in TRACED if report_of(example)["mode"] == mode)
    report = choose(page, index)
    rows = report["trace"]
    current = page.locator("[data-testid=items] tbody tr[aria-current=step]")
    expect(current).to_have_count(0)
    page.click("[data-testid=step-next]")
    for step, row in enumerate(rows):
        expect(current).to_have_attribute("data-id", row["id"])
        text = page.inner_text("[data-testid=step-text]")
        assert row["id"] in text and ("left out" in text or "not considered" in text or "kept" in text or "taken first" in text), text
        assert ("left out" in text or "not considered" in text or "nothing is kept" in text) == (not row["kept"]), text
        # The bar shows the kept items up to this step, no further.
        visible = page.locator("[data-testid=bar-segment]:not(.pending)").evaluate_all("nodes => nodes.map(n => n.dataset.id)")
        assert visible == [r["id"] for r in rows[: step + 1] if r["kept"]]
        if step < len(rows) - 1:
            page.click("[data-testid=step-next]")
    expect(page.locator("[data-testid=step-next]")).to_be_disabled()
    # The keyboard: arrows inside the step controls.
    page.focus("[data-testid=step-prev]")
    page.keyboard.press("ArrowLeft")
    if len(rows) > 1:
        expect(current).to_have_attribute("data-id", rows[-2]["id"])
        page.keyboard.press("ArrowRight")
    expect(current).to_have_attribute("data-id", rows[-1]["id"])
    # Play at the end starts again from the first decision...
    page.click("[data-testid=step-play]")
    expect(page.locator("[data-testid=step-play]")).to_have_attribute("aria-pressed", "true")
    expect(current).to_have_attribute("data-id", rows[0]["id"])
    page.click("[data-testid=step-play]")
    expect(page.locator("[data-testid=step-play]")).to_have_attribute("aria-pressed", "false")
    # ...and from one before the end walks to the last on its own, then stops.
    if len(rows) > 1:
        for _ in range(len(rows) - 2):
            page.click("[data-testid=step-next]")
        expect(current).to_have_attribute("data-id", rows[-2]["id"])
        page.click("[data-testid=step-play]")
        expect(current).to_have_attribute("data-id", rows[-1]["id"], timeout=15_000)  # one beat (3 s) on a busy machine
        expect(page.locator("[data-testid=step-play]")).to_have_attribute("aria-pressed", "false", timeout=15_000)


def test_sentences_say_what_was_needed_and_what_remained(page):
    report = choose(page, 0)  # the teaching note's example (seed 000): A 4 of 7, B 5 with 3 left, C 3 of 3
    assert [row["id"] for row in report["trace"]] == ["A", "B", "C"]
    page.click("[data-testid=step-next]")
    page.click("[data-testid=step-next]")
    expect(page.locator("[data-testid=step-text]")).to_have_text("Step 2 of 3: B needs 5 tokens; 3 tokens remain; left out.")
    page.click("[data-testid=step-prev]")
    expect(page.locator("[data-testid=step-text]")).to_have_text("Step 1 of 3: A needs 4 tokens; 7 tokens remain; kept, leaving 3 tokens.")


def test_the_bars_segments_are_reached_with_the_keyboard(page):
    choose(page, 0)
    page.focus("[data-testid=budget-bar]")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.id") == "A"
    expect(page.locator("#budget-block .bar-focus")).to_have_text("A: 4 tokens, kept")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.id") == "C"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.id") == "A"


def test_play_respects_reduced_motion(page):
    page.emulate_media(reduced_motion="reduce")
    choose(page, 0)
    duration = page.eval_on_selector("[data-testid=bar-segment]", "n => getComputedStyle(n).transitionDuration")
    assert duration == "0s"
    page.click("[data-testid=step-play]")
    expect(page.locator("[data-testid=items] tbody tr[aria-current=step]")).to_have_attribute("data-id", "A")
    page.click("[data-testid=step-play]")  # pause
    expect(page.locator("[data-testid=step-play]")).to_have_attribute("aria-pressed", "false")
    page.emulate_media(reduced_motion="no-preference")
    assert page.eval_on_selector("[data-testid=bar-segment]", "n => getComputedStyle(n).transitionDuration") != "0s"
    page.emulate_media(reduced_motion="reduce")  # as the module's page was opened


def example_index(fixture):
    return next(index for index, example in enumerate(EXAMPLES) if example.get("fixture") == fixture)


def test_failures_are_drawn_as_failures_without_colour_alone(page):
    choose(page, example_index("blocks/refund-required-overflow.json"))
    block = page.locator("#budget-block")
    expect(block).to_have_class(re.compile(r"\bfailed\b"))
    assert "Cannot proceed" in page.inner_text("#budget-block .failure-badge")
    assert page.locator("[data-testid=bar-ghost].fail").evaluate_all("nodes => nodes.map(n => n.dataset.id)") == ["REFUND_POLICY"]
    expect(page.locator("[data-testid=prompt-warning]")).to_be_visible()
    assert "Do not send" in page.inner_text("[data-testid=prompt-warning]")
    assert page.eval_on_selector("[data-testid=summary]", "n => getComputedStyle(n, '::before').content") == '"✗ "'
    # A passing run: no badge, no warning.
    choose(page, example_index("blocks/refund-optional-excluded.json"))
    expect(page.locator("#budget-block .failure-badge")).to_have_count(0)
    expect(page.locator("[data-testid=prompt-warning]")).to_be_hidden()


def test_blocks_bar_shows_the_whole_window(page):
    report = choose(page, example_index("blocks/refund-optional-excluded.json"))
    lane = page.locator("#budget-block .window-lane")
    # Each part says its name and count where they fit, else its count (never a clipped label); its title says both.
    labels = ["reserved output 300", "fixed prompt 400", f"available {report['available']}"]
    assert lane.locator(".window-part").evaluate_all("ns => ns.map(n => n.title)") == labels
    for shown, label in zip(lane.locator(".window-part").all_inner_texts(), labels):
        assert shown in (label, label.split()[-1])
    if page.viewport_size["width"] >= 1280:
        assert lane.locator(".window-part").all_inner_texts() == labels
    prompt = page.locator("#budget-block .prompt-lane").get_attribute("aria-label")
    assert f"{report['rendered_overhead']} of headers" in prompt and "within the 550" in prompt


def test_passages_speak_in_the_counters_unit(page):
    choose(page, example_index("passages/seed-004-example.json"))
    legend = page.inner_text("#budget-legend")
    assert "words" in legend and "token" not in legend
    assert "(words)" in " ".join(page.locator("[data-testid=items] thead th").all_inner_texts())
    assert "token" not in " ".join(page.locator("[data-testid=reason]").all_inner_texts())
    assert page.locator(".bar-base").count() == 1  # the question and headings, counted first


def test_slider_rechecks_and_edits_the_json(page):
    choose(page, 0)
    slider = page.locator("[data-testid=budget-slider]")
    expect(slider).to_have_value("7")
    slider.fill("12")
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, B, C within 12 tokens.")
    assert '"budget": 12' in page.input_value("[data-testid=input]")
    assert page.locator("[data-testid=bar-segment]").count() == 3
    # blocks: the slider moves window.context_tokens and nothing else in the text.
    choose(page, example_index("blocks/refund-optional-excluded.json"))
    before = page.input_value("[data-testid=input]")
    page.locator("[data-testid=budget-slider]").fill("1000")
    expect(page.locator("[data-testid=summary]")).to_contain_text("of 300 available tokens used")
    after = page.input_value("[data-testid=input]")
    assert after == before.replace('"context_tokens": 850', '"context_tokens": 1000')


def test_the_slider_on_a_large_input_checks_at_once_and_edits_the_text_when_still(loaded):
    """Each step of the slider replaced a 1.7 MB editor text (1.3 s of layout a step): the page froze."""
    page, _, problems = loaded
    page.set_viewport_size(SIZES["wide"])
    items = [{"id": f"item-{i:05d}", "relevance": i % 97, "tokens": 1 + i % 40} for i in range(12_000)]
    text = json.dumps({"budget": 5000, "items": items})
    assert len(text) > 200_000
    check(page, text)
    slider = page.locator("[data-testid=budget-slider]")
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    slider.fill("4000")
    page.wait_for_selector(DONE, timeout=60_000)
    expect(page.locator("[data-testid=summary]")).to_contain_text("within 4000 tokens.")  # checked with the new number
    expect(page.locator("[data-testid=input]")).to_have_value(text.replace('"budget": 5000', '"budget": 4000'), timeout=10_000)
    # Five steps with the keyboard: the editor's text is replaced once, when the slider is still.
    page.evaluate("""() => { const input = document.getElementById('input');
        const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
        window.__sets = 0;
        Object.defineProperty(input, 'value', { configurable: true, get() { return Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').get.call(this); },
            set(v) { window.__sets += 1; setter.call(this, v); } }); }""")
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-testid=input]")).to_have_value(text.replace('"budget": 5000', '"budget": 3995'), timeout=10_000)
    assert page.evaluate("window.__sets") == 1
    page.evaluate("() => { delete document.getElementById('input').value; }")
    page.wait_for_selector(DONE, timeout=60_000)
    # Text that arrives without a key or a click (a drop, dictation, an IME) lands in the editor
    # with the slider's number already there, and is never overwritten by it later.
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.focus("[data-testid=input]")
    page.keyboard.insert_text("DROPPED")
    # Past the moment the slider's number would have been put in (its 800 ms timer): a page timer
    # started after it with a longer delay runs after it (HTML orders timers so), however busy
    # the machine, where a wait in the test could end before the page had got that far.
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 1200))")
    held = page.input_value("[data-testid=input]")
    assert "DROPPED" in held and '"budget": 3996' in held
    check(page, text)
    # Moved, then something else pressed at once: the editor has the number before that runs.
    slider.fill("3000")
    page.click("[data-testid=run]")
    assert '"budget": 3000' in page.input_value("[data-testid=input]")
    page.wait_for_selector(DONE, timeout=60_000)
    check(page, '{"budget": 0, "items": []}')
    assert problems == []


@pytest.mark.parametrize("mode", ["relevance", "required", "blocks", "passages", "messages"])
def test_each_mode_has_a_template_and_says_how_it_decides(page, mode):
    index = next(i for i, example in enumerate(EXAMPLES) if example.get("template") == f"templates/{mode}.json")
    report = choose(page, index)
    assert report["pass"] is True
    help_panel = page.locator("[data-testid=mode-help]")
    expect(help_panel).to_be_visible()
    assert mode in help_panel.inner_text()


def test_error_paths_select_their_place_in_the_editor(page):
    text = '{"budget": -1,\n "items": [{"id": "a", "relevance": 1, "tokens": 1}, {"id": "", "relevance": 1, "tokens": 1}]}'
    check(page, text)
    paths = page.locator("[data-testid=error-path]")
    expect(paths.first).to_be_visible()
    for node in paths.all():
        path = node.inner_text()
        node.click()
        selected = page.evaluate(
            "() => { const t = document.getElementById('input'); return [t.selectionStart, t.selectionEnd, document.activeElement === t]; }"
        )
        assert selected[2], path
        chosen = text[selected[0] : selected[1]]
        expected = {"$.budget": "-1", "$.items[1].id": '""'}.get(path)
        if expected is not None:
            assert chosen == expected, (path, chosen)


def test_syntax_error_says_its_location_once_and_goes_there(page):
    check(page, '{"budget": 7,\n  "items": [,]}')
    message = page.inner_text("[data-testid=syntax-error]")
    assert len(re.findall(r"line", message, re.IGNORECASE)) == 1, message
    page.click("[data-testid=syntax-location]")
    assert page.evaluate("document.getElementById('input').selectionStart") == len('{"budget": 7,\n  "items": [')


def test_description_only_while_the_example_is_unedited(page):
    choose(page, 1)
    description = page.locator("[data-testid=example-description]")
    expect(description).to_be_visible()
    page.locator("[data-testid=input]").press("End")
    page.locator("[data-testid=input]").type(" ")
    expect(description).to_be_hidden()
    assert page.input_value("[data-testid=example]") == ""


def test_wording_singular_and_columns(page):
    check(page, '{"budget": 1, "items": [{"id": "x", "relevance": 1, "tokens": 1}]}')
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected x within 1 token.")
    headings = page.locator("[data-testid=items] thead th").all_inner_texts()
    assert headings[:4] == ["#", "id", "decision", "why"]
    assert not any("_" in heading for heading in headings)
    assert page.locator("[data-testid=items] thead th[scope=col]").count() == len(headings)
    assert "1 item in the order considered" in page.inner_text("#items-caption")


def contrast(a, b):
    def luminance(rgb):
        channels = [value / 255 for value in rgb]
        channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    high, low = sorted([luminance(a), luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(css):
    return [int(part) for part in re.findall(r"\d+", css)[:3]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_focus_ring_contrast_names_and_busy_state(page, scheme):
    page.emulate_media(color_scheme=scheme)
    choose(page, 0)
    page.focus("[data-testid=run]")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    paper = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert contrast(rgb(ring), rgb(paper)) >= 3, (ring, paper)
    ink = page.evaluate("getComputedStyle(document.body).color")
    assert contrast(rgb(ink), rgb(paper)) >= 7
    if scheme == "dark":
        assert sum(rgb(paper)) < 150
    assert page.get_attribute("#result", "aria-busy") == "false"
    assert page.get_attribute("[data-testid=prompt]", "aria-labelledby") == "prompt-heading"
    # Every focusable region has a name.
    unnamed = page.evaluate("""() => [...document.querySelectorAll('[tabindex="0"], [role=region], [role=group], [role=list]')]
        .filter(n => !n.closest('[hidden]') && !(n.getAttribute('aria-label') || n.getAttribute('aria-labelledby')))
        .map(n => n.id || n.className)""")
    assert unnamed == []


def test_large_input_is_shown_a_page_at_a_time(loaded):
    """70,000 items: the first page of rows, a page turn, a step past the first page; prints the
    longest main-thread task from the check's answer on (a long-task observer in the page)."""
    page, _, problems = loaded
    page.set_viewport_size(SIZES["wide"])
    items = [{"id": f"item{i:05d}", "relevance": (i * 7919) % 1000, "tokens": 1 + (i * 31) % 50} for i in range(70_000)]
    text = json.dumps({"budget": 600_000, "items": items})
    expected = json.loads(check_text(text))["result"]
    page.evaluate("text => { document.getElementById('input').value = text; }", text)
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    # Observe from the moment the worker's answer arrives (the page marks it): what follows is rendering.
    page.evaluate("""() => { window.__tasks = [];
        window.__observer = new PerformanceObserver(list => { for (const e of list.getEntries()) window.__tasks.push([e.startTime, e.duration]); });
        window.__observer.observe({type: 'longtask'}); }""")
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE, timeout=120_000)
    rows = page.locator("[data-testid=items] tbody tr")
    expect(rows).to_have_count(200)
    assert page.locator("[data-testid=reason]").first.inner_text().startswith("fits")
    page.click("[data-testid=page-next]")
    expect(rows.first).to_have_attribute("data-id", expected["trace"][200]["id"])
    expect(page.locator("[data-testid=rows-note]")).to_have_text("Items 201–400 of 70,000.")
    page.click("[data-testid=page-prev]")
    expect(rows.first).to_have_attribute("data-id", expected["trace"][0]["id"])
    # Step to the last row of the first page, then past it: the next page is drawn. Without
    # motion: each step smooth-scrolls its row into view, and after 200 steps the page went on
    # scrolling for over 2 s while Next, in the panel that sticks to the top, moved from y = 775
    # to 47, so a pointer click could land where the button had been (the test failed so, under
    # load, staying at row 199). With reduced motion (open_page's) every step scrolls at once.
    page.evaluate("""async () => { const next = document.querySelector('[data-testid=step-next]');
        for (let i = 0; i < 200; i++) { next.click(); await new Promise(r => setTimeout(r, 0)); } }""")
    current = page.locator("[data-testid=items] tbody tr[aria-current=step]")
    expect(current).to_have_attribute("data-id", expected["trace"][199]["id"])
    page.click("[data-testid=step-next]")
    expect(current).to_have_attribute("data-id", expected["trace"][200]["id"])
    assert "Step 201 of 70000" in page.inner_text("[data-testid=step-text]")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 100)))")
    tasks = page.evaluate("""() => { const answer = performance.getEntriesByName('fitproof:answer').pop().startTime;
        return window.__tasks.filter(([start, duration]) => start + duration >= answer).map(([, duration]) => duration); }""")
    render = page.evaluate("performance.getEntriesByName('fitproof:render').pop().duration")
    page.evaluate("window.__observer.disconnect()")
    longest = max(tasks, default=0)
    # The figure is printed, not asserted: the project times nothing in tests (the machine is
    # shared), and on a quiet machine the longest task is well under the 200 ms asked for.
    print(f"\n70,000 items: render {render:.0f} ms after the answer; {len(tasks)} long tasks from then on, the longest {longest:.0f} ms")
    assert page.evaluate("PerformanceObserver.supportedEntryTypes.includes('longtask')")
    assert rows.count() == 200  # one page of rows in the document, never all 70,000
    check(page, '{"budget": 0, "items": []}')  # leave a small page for the tests after this one
    assert problems == []


def test_the_dimmed_report_of_an_invalid_input_still_turns_pages_and_steps(loaded):
    """The report store holds the report on screen beside the newest one loaded. It once held the
    newest only: an invalid input's report (loaded, never drawn: the last valid one stays, dimmed)
    made every page of rows the page asked for the dimmed report come back empty, so Next page
    and stepping past its first page did nothing (as they would after a check overtaken by a
    newer edit, until the newer report was drawn)."""
    page, _, problems = loaded
    page.set_viewport_size(SIZES["wide"])
    items = [{"id": f"item{i:03d}", "relevance": (i * 37) % 100, "tokens": 1 + i % 9} for i in range(450)]
    text = json.dumps({"budget": 1500, "items": items})
    expected = json.loads(check_text(text))["result"]
    check(page, text)
    check(page, text.replace('"budget": 1500', '"budget": -1'))  # invalid: its report is loaded, not drawn
    expect(page.locator("#stale-note")).to_be_visible()
    rows = page.locator("[data-testid=items] tbody tr")
    page.click("[data-testid=page-next]")
    expect(rows.first).to_have_attribute("data-id", expected["trace"][200]["id"])
    page.click("[data-testid=page-prev]")
    expect(rows.first).to_have_attribute("data-id", expected["trace"][0]["id"])
    page.evaluate("""async () => { const next = document.querySelector('[data-testid=step-next]');
        for (let i = 0; i < 201; i++) { next.click(); await new Promise(r => setTimeout(r, 0)); } }""")
    current = page.locator("[data-testid=items] tbody tr[aria-current=step]")
    expect(current).to_have_attribute("data-id", expected["trace"][200]["id"])
    # A valid input drawn again lets the dimmed report go: its pages are the new report's.
    check(page, text.replace('"budget": 1500', '"budget": 1400'))
    expect(page.locator("#stale-note")).to_be_hidden()
    page.click("[data-testid=page-next]")
    expect(rows.first).to_have_attribute(
        "data-id", json.loads(check_text(text.replace('"budget": 1500', '"budget": 1400')))["result"]["trace"][200]["id"]
    )
    check(page, '{"budget": 0, "items": []}')
    assert problems == []


def test_a_long_summary_is_shortened_above_the_decisions_and_shown_whole_on_request(loaded):
    """5,000 kept items: the summary named every id, 62,000 px tall on a phone, with the checks
    and the steps below it; the screen reader's region got all 58,000 characters too."""
    page, _, problems = loaded
    page.set_viewport_size(SIZES["phone"])
    items = [{"id": f"item-{i:05d}", "relevance": (i * 7919) % 1000, "tokens": 1 + (i * 31) % 40} for i in range(5_000)]
    text = json.dumps({"budget": 100_000, "items": items})
    expected = json.loads(check_text(text))["result"]
    check(page, text)
    summary = page.locator("[data-testid=summary]")
    shown = summary.inner_text()
    assert len(expected["summary"]) > 50_000 and len(shown) < 420, len(shown)
    kept = expected["selected"]
    assert shown.startswith(f"Selected {kept[0]}, {kept[1]}") and f", … {len(kept) - shown.count('item-'):,} more …, " in shown
    assert f", {kept[-1]} within 100000 tokens." in shown and f"more …, {kept[-1]}" in shown
    assert len(page.inner_text("#announce")) < 500
    assert page.locator("#steps-block").bounding_box()["y"] < 3 * 844  # the decisions are near the top
    optimal = page.inner_text("#optimal-block")
    assert optimal.count("item-") <= 20
    page.click("[data-testid=summary-all]")
    expect(summary).to_have_text(expected["summary"])
    check(page, '{"budget": 0, "items": []}')
    assert problems == []


def test_a_long_id_is_shortened_in_the_step_sentence_and_the_row_stays_in_view(loaded):
    """2,000-character ids made the sticky step panel taller than the phone's screen, over the row it explains."""
    page, _, problems = loaded
    page.set_viewport_size(SIZES["phone"])
    long_a, long_b = "B" * 2000 + "1", "B" * 2000 + "2"
    check(
        page,
        json.dumps(
            {
                "budget": 10,
                "items": [
                    {"id": long_a, "relevance": 3, "tokens": 4},
                    {"id": long_b, "relevance": 2, "tokens": 8},
                    {"id": "short", "relevance": 1, "tokens": 3},
                ],
            }
        ),
    )
    # Where the row ends up is the question, not the motion: with reduced motion each step
    # scrolls at once (open_page's), so the place is read when it is final, not after a guessed 800 ms.
    for step in range(2):
        page.click("[data-testid=step-next]")
        said = page.locator("[data-testid=step-text]")
        expect(said).to_contain_text(f"Step {step + 1} of 3")
        assert "…" in said.inner_text() and len(said.inner_text()) < 300
        current = page.locator("[data-testid=items] tbody tr[aria-current=step]")
        expect(current).to_have_attribute("data-id", [long_a, long_b][step])
        panel_bottom, panel_height, row_top = page.evaluate("""() => {
            const panel = document.getElementById('steps-block').getBoundingClientRect();
            return [panel.bottom, panel.height, document.querySelector('#items tbody tr[aria-current=step]').getBoundingClientRect().top]; }""")
        assert panel_height <= 0.4 * 844 + 1
        assert panel_bottom - 1 <= row_top < 844, (panel_bottom, row_top)  # in view, not under the panel
    check(page, '{"budget": 0, "items": []}')
    assert problems == []


def test_share_link_over_the_limit_is_refused(loaded):
    page, _, problems = loaded
    text = json.dumps({"budget": 1, "items": [{"id": "x" * 1_600_000, "relevance": 1, "tokens": 1}]})
    page.evaluate("text => { document.getElementById('input').value = text; }", text)
    before = page.url
    page.click("[data-testid=share]")
    expect(page.locator("#share-note")).to_contain_text("too large for a share link")
    assert "Download input" in page.inner_text("#share-note")
    assert page.url == before
    check(page, '{"budget": 0, "items": []}')
    assert problems == []


# ---------------------------------------------------------------- what a first walk through the page meets


def test_the_slider_stays_live_while_the_input_is_invalid(page):
    """An invalid budget once hid the slider, so there was no sliding back; it stays, with the
    number as written, and moves the budget back. (`.slider { display: flex }` once overrode the
    hidden attribute: hidden still hides it.)"""
    choose(page, 0)
    expect(page.locator("#slider-block")).to_be_visible()
    check(page, '{"budget": -1, "items": []}')
    expect(page.locator("#slider-block")).to_be_visible()
    expect(page.locator("#slider-value")).to_have_text("-1")
    check(page, '{"budget": 5, "items": [}')
    expect(page.locator("#slider-block")).to_be_visible()
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.locator("[data-testid=budget-slider]").fill("3")
    page.wait_for_selector(DONE)
    assert page.input_value("[data-testid=input]") == '{"budget": 3, "items": [}'
    assert (
        page.eval_on_selector(
            "#slider-block", "n => { n.hidden = true; const d = getComputedStyle(n).display; n.hidden = false; return d; }"
        )
        == "none"
    )


def test_exact_counts_say_so_instead_of_a_margin(page):
    """With exact counts the report has no margin: the page said "An error of NaN% ..."."""
    index = next(i for i, example in enumerate(EXAMPLES) if "exactly" in example["label"] and example["mode"] == "blocks")
    choose(page, index)
    text = page.inner_text("#optimal-text")
    assert "NaN" not in text and "The counts are exact (o200k_base)" in text


def test_sums_of_scores_read_as_a_person_writes_them(page):
    check(
        page,
        '{"budget": 10, "items": [{"id": "a", "relevance": 0.9, "tokens": 1}, {"id": "b", "relevance": 0.8, "tokens": 1}, {"id": "c", "relevance": 0.62, "tokens": 1}]}',
    )
    assert "Greedy scores 2.32," in page.inner_text("#optimal-text")  # 2.3200000000000003 in doubles


def test_numbers_and_short_words_in_the_table_are_never_broken(page):
    choose(page, 0)
    cells = page.locator("#items td.value")
    assert cells.count() > 0
    if page.viewport_size["width"] < 500:
        return  # cards, which wrap freely with room to spare
    assert all(style == "nowrap" for style in cells.evaluate_all("cells => cells.map(c => getComputedStyle(c).whiteSpace)"))


def test_a_share_link_opened_in_the_same_tab_is_loaded_and_notes_about_an_older_input_go(page):
    set_hash = "text => { window.location.hash = 'input=' + encodeURIComponent(text); }"
    try:
        choose(page, 0)
        page.evaluate("document.getElementById('share-note').textContent = 'Report copied.'")
        text = '{"budget": 3, "items": [{"id": "z", "relevance": 1, "tokens": 2}]}'
        page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
        page.evaluate(set_hash, text)
        page.wait_for_selector(DONE)
        expect(page.locator("[data-testid=summary]")).to_have_text("Selected z within 3 tokens.")
        assert page.input_value("[data-testid=input]") == text
        assert page.inner_text("#share-note") == ""
        # Never over the user's own edits: the link waits, and says so.
        check(page, '{"budget": 4, "items": []}')
        page.evaluate(set_hash, '{"budget": 9, "items": []}')
        expect(page.locator("#share-note")).to_contain_text("would replace your edits")
        assert page.input_value("[data-testid=input]") == '{"budget": 4, "items": []}'
    finally:
        page.evaluate("history.replaceState(null, '', location.pathname)")


def test_the_token_views_item_menu_follows_an_example_chosen_from_the_menu(page):
    """The menu refreshed only on typing or focus, which a disabled menu never gets."""
    choose(page, 0)  # relevance: no item has text
    try:
        page.eval_on_selector("[data-testid=tokens]", "node => { node.open = true; }")
        expect(page.locator("[data-testid=tokens-item]")).to_be_disabled()
        index = next(i for i, example in enumerate(EXAMPLES) if example["mode"] == "messages")
        choose(page, index)
        expect(page.locator("[data-testid=tokens-item]")).to_be_enabled()
        assert page.locator("[data-testid=tokens-item] option").count() > 1
    finally:
        page.eval_on_selector("[data-testid=tokens]", "node => { node.open = false; }")  # closed for the other tests


def test_format_on_broken_json_says_why_nothing_changed(page):
    check(page, '{"budget": 5, "items": [}')
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("#format")
    page.wait_for_selector(DONE)
    assert page.input_value("[data-testid=input]") == '{"budget": 5, "items": [}'
    expect(page.locator("#share-note")).to_contain_text("Not formatted: the JSON has an error")
    expect(page.locator("[data-testid=syntax-error]")).to_be_visible()


@pytest.mark.parametrize("index, example", TRACED, ids=[example["label"][:40] for _, example in TRACED])
def test_every_number_is_in_view_without_a_sideways_scroll(page, index, example):
    """At 1280 px a 988 px wide blocks table in a 703 px column would put its numbers off to the
    right. A table that does not fit its column becomes one card per item."""
    choose(page, index)
    box = page.evaluate("(() => { const b = document.getElementById('table-scroll'); return [b.scrollWidth, b.clientWidth]; })()")
    assert box[0] <= box[1] + 1, box
    cards = "cards" in (page.get_attribute("[data-testid=items]", "class") or "")
    if page.viewport_size["width"] < 500:
        assert cards  # a phone: always cards
    elif index == 0:
        assert not cards  # the first example's few short columns: a table still fits the wide column
