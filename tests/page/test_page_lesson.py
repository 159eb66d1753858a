"""The lesson, the first screen, in Chromium at 1280x800 and 390x844: its steps in order, a
prediction judged by the package's claim judgement, checks that say what they re-derived, the
counterexample's two bars on one scale, token ids, the code editor (CodeMirror) marking an
error, an invalid input keeping the last report, the phone's Edit / Result switch, and axe-core
on every step and example. One page is shared; tests wait on attributes, never on sleeps."""

import contextlib
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES
from fitproof import _page
from fitproof._envelope import check_text
from test_page import CHOOSE, DONE, open_page

ROOT = FIXTURES.parent
LESSON = json.loads((ROOT / "web" / "lesson.json").read_text())["steps"]
EXAMPLES = json.loads((ROOT / "web" / "examples.json").read_text())
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WIDE, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


def report_of(data):
    return json.loads(check_text(json.dumps(data)))["result"]


@pytest.fixture(scope="module")
def lesson_page(browser, site_url):
    # axe-core is served to this test's page only (never part of the site), as a script of the
    # page's own origin, so that the page's Content-Security-Policy stays as it is.
    routes = [("**/test-only/axe.min.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))]
    context, page, guard, problems = open_page(browser, site_url + "?view=lesson", routes=routes)
    page.set_viewport_size(WIDE)
    yield page, guard, problems
    context.close()


@pytest.fixture
def page(lesson_page):
    page, guard, problems = lesson_page
    page.set_viewport_size(WIDE)
    page.emulate_media(color_scheme="light")
    yield page
    assert problems == [], "the page logged errors"
    assert guard.foreign == []


def fresh(page):
    """The next result shown is a new one."""
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")


def to_step(page, number):
    if page.get_attribute("body", "data-view") != "lesson":
        page.click("[data-testid=show-lesson]")
    current = int(page.locator("[data-testid=lesson-step]:visible").get_attribute("data-step"))
    while current != number:
        page.click("[data-testid=lesson-next]" if current < number else "[data-testid=lesson-back]")
        current += 1 if current < number else -1
        expect(page.locator(f"[data-testid=lesson-step][data-step='{current}']")).to_be_visible()
    expected = report_of(LESSON[number - 1]["input"])
    expect(page.locator("[data-testid=summary]")).to_have_attribute("data-state", "done")
    if LESSON[number - 1].get("reveal") != "after-claim" or page.get_attribute("body", "data-reveal") == "shown":
        expect(page.locator("[data-testid=summary]")).to_have_text(expected["summary"])
    return expected


def editor_text(page):
    return page.evaluate("document.getElementById('input').value")


# ---------------------------------------------------------------- the lesson's order
def test_the_lesson_is_the_first_screen_and_its_step_1_input_is_the_pages_default(page):
    expect(page.locator("[data-testid=lesson]")).to_be_visible()
    steps = page.locator("[data-testid=lesson-step]")
    assert steps.evaluate_all("nodes => nodes.map(n => n.dataset.step)") == [str(n) for n in range(1, len(LESSON) + 1)]
    assert len(LESSON) == 5
    expect(page.locator("[data-testid=lesson-step][data-step='1']")).to_be_visible()
    expect(page.locator("[data-testid=lesson-next]")).to_be_visible()
    expect(page.locator("[data-testid=lesson-back]")).to_be_visible()
    expect(page.locator("[data-testid=lesson-back]")).to_be_disabled()
    # index.html's editor holds step 1's input, as the page formats it (the site's first paint).
    html = (ROOT / "web" / "index.html").read_text()
    default = re.search(r'<textarea id="input"[^>]*>(.*?)</textarea>', html, re.S).group(1)
    assert default == json.dumps(LESSON[0]["input"], indent=2) == editor_text(page)
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, C within 7 tokens.")
    # The rule as one predicate, on A/B/C with a budget of 7; the editor is one click away.
    assert "keep an item exactly when its tokens fit what is left of the budget" in page.inner_text(
        "[data-testid=lesson-step][data-step='1']"
    )
    expect(page.locator("main > .editor")).to_be_hidden()
    assert [step["title"] for step in LESSON][1:4] == [
        "Predict, then check",
        "The independent check",
        "The counterexample: greedy is not the best",
    ]


def test_stepping_through_says_where_the_budget_stands_not_the_final_legend(page):
    to_step(page, 1)
    legend = page.locator("#budget-legend")
    final = legend.inner_text()
    assert final.startswith("Used 7 of 7 tokens")
    page.click("[data-testid=step-next]")
    expect(legend).to_have_text("After decision 1: kept A; 4 of 7 tokens used, 3 remaining.")
    page.click("[data-testid=step-next]")
    expect(legend).to_have_text("After decision 2: left out B; 4 of 7 tokens used, 3 remaining.")
    page.click("[data-testid=step-next]")
    expect(legend).to_have_text("After decision 3: kept C; 7 of 7 tokens used, 0 remaining.")


# ---------------------------------------------------------------- predict and check
def press(page, ids):
    """Set the claim items pressed to exactly ``ids`` (A by keyboard, the others by click)."""
    for button in page.locator("[data-testid=claim-item]").all():
        wanted = button.get_attribute("data-id") in ids
        if (button.get_attribute("aria-pressed") == "true") != wanted:
            if button.get_attribute("data-id") == "A":
                button.focus()
                page.keyboard.press("Space")
            else:
                button.click()
        expect(button).to_have_attribute("aria-pressed", str(wanted).lower())


def test_a_wrong_prediction_is_told_the_packages_failure_before_the_rules_choice_is_shown(page):
    to_step(page, 2)
    # The rule's choice is not shown before a prediction is checked.
    expect(page.locator("[data-testid=reveal-note]")).to_be_visible()
    expect(page.locator("[data-testid=summary]")).to_be_hidden()
    expect(page.locator("[data-testid=budget-bar]")).to_be_hidden()
    press(page, {"A", "B"})
    page.click("[data-testid=claim-check]")
    result = page.locator("[data-testid=claim-result]")
    expect(result).to_have_attribute("data-pass", "false")
    claim = report_of({**LESSON[1]["input"], "claim": {"selected": ["A", "B"]}})["claim"]
    assert not claim["pass"] and claim["failures"]
    failures = page.locator("[data-testid=claim-failure]").all_inner_texts()
    assert failures == [f"{failure['check']}: {failure['detail']}" for failure in claim["failures"]]
    assert "the claimed items cost 11 tokens (A 5 + B 6), over the budget of 9 by 2" in result.inner_text()
    # Now the rule's own choice.
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected A, C within 9 tokens.")
    expect(page.locator("[data-testid=budget-bar]")).to_be_visible()


def test_a_right_prediction_holds(page):
    to_step(page, 2)
    press(page, {"A", "C"})
    page.click("[data-testid=claim-check]")
    result = page.locator("[data-testid=claim-result]")
    expect(result).to_have_attribute("data-pass", "true")
    expect(result).to_contain_text("Your prediction holds. You kept A, C.")
    press(page, set())  # claiming nothing: C and A fit but are not claimed
    page.click("[data-testid=claim-check]")
    expect(result).to_have_attribute("data-pass", "false")
    expect(result).to_contain_text("A fits the 9 tokens that remain (it needs 5) but is not claimed")


def test_the_verdict_is_pythons_even_when_the_page_claims_otherwise(page):
    """The claim is judged by evaluate in Python: a verdict written by a corrupted answer shows as such."""
    to_step(page, 2)
    press(page, {"A", "C"})
    page.evaluate("""() => {
      const real = window.pythonWorker.worker.postMessage.bind(window.pythonWorker.worker);
      window.pythonWorker.worker.postMessage = (message) => {
        if (message.type === 'check' && message.text.includes('"claim"')) {
          const data = JSON.parse(message.text); data.claim.selected = ['B']; message = {...message, text: JSON.stringify(data)};
        }
        real(message);
      };
      window.__restoreWorker = () => { window.pythonWorker.worker.postMessage = real; };
    }""")
    try:
        page.click("[data-testid=claim-check]")
        expect(page.locator("[data-testid=claim-result]")).to_have_attribute("data-pass", "false")
        claim = report_of({**LESSON[1]["input"], "claim": {"selected": ["B"]}})["claim"]
        expect(page.locator("[data-testid=claim-failure]")).to_have_text([f"{f['check']}: {f['detail']}" for f in claim["failures"]])
    finally:
        page.evaluate("window.__restoreWorker()")


# ---------------------------------------------------------------- checks you can read
def test_every_check_opens_to_what_it_re_derived_with_the_numbers(page):
    to_step(page, 3)
    details = page.locator("[data-testid=check-detail]")
    expect(details).to_have_count(2)
    expect(details.nth(0)).to_be_visible()  # open on this step
    assert (
        details.nth(0).inner_text() == "Re-added the kept items' costs from the input: 5 + 4 = 9 ≤ 9 (the budget), leaving 0, as reported."
    )
    assert "A 5 ≤ 9 left: kept; B 6 > 4 left: left out; C 4 ≤ 4 left: kept" in details.nth(1).inner_text()
    assert "A (relevance 9), B (relevance 8), C (relevance 7)" in details.nth(1).inner_text()
    # A claim that breaks one: over the budget.
    press(page, {"A", "B"})
    page.click("[data-testid=claim-check]")
    expect(page.locator("[data-testid=claim-failure]").first).to_have_text(
        "token budget: the claimed items cost 11 tokens (A 5 + B 6), over the budget of 9 by 2"
    )


def test_every_example_s_checks_have_a_detail_in_the_tool(page):
    page.click("[data-testid=show-tool]")
    try:
        for index, example in enumerate(EXAMPLES):
            if example["mode"] == "invalid":
                continue
            fresh(page)
            page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
            page.wait_for_selector(DONE)
            checks = page.locator("[data-testid=check]")
            count = checks.count()
            assert count > 0, example["label"]
            assert page.locator("[data-testid=check] [data-testid=check-detail]").count() == count, example["label"]
            for text in page.locator("[data-testid=check-detail]").all_text_contents():
                assert re.search(r"\d", text) or "order" in text or "tool call" in text, (example["label"], text)
    finally:
        page.click("[data-testid=show-lesson]")


# ---------------------------------------------------------------- the counterexample shown
def test_greedy_and_the_best_combination_on_one_scale(page):
    report = to_step(page, 4)
    greedy, best = page.locator("[data-testid=bar-greedy]"), page.locator("[data-testid=bar-best]")
    expect(greedy).to_be_visible()
    expect(best).to_be_visible()
    costs = {row["id"]: row["tokens"] for row in report["trace"]}
    scores = {row["id"]: row["relevance"] for row in report["trace"]}
    assert greedy.locator(".compare-part").evaluate_all("ns => ns.map(n => n.dataset.id)") == report["selected"] == ["A"]
    assert (
        sorted(best.locator(".compare-part").evaluate_all("ns => ns.map(n => n.dataset.id)"))
        == sorted(report["optimal"]["selected"])
        == ["B", "C"]
    )
    assert greedy.get_attribute("data-cost") == "6" and greedy.get_attribute("data-score") == str(report["optimal"]["greedy_value"])
    assert best.get_attribute("data-cost") == str(report["optimal"]["cost"]) and best.get_attribute("data-score") == str(
        report["optimal"]["value"]
    )
    assert "Greedy kept: A, 6 of 10 tokens, score 10" in page.inner_text("#compare-bars")
    assert "The best combination: B + C, 10 of 10 tokens, score 18" in page.inner_text("#compare-bars")
    assert "score is the sum of its items' relevance" in page.inner_text("#compare-bars")
    # One scale: pixels per token are the same in both bars, and the whole bar is the budget.
    bar_width = greedy.evaluate("n => n.getBoundingClientRect().width")
    assert best.evaluate("n => n.getBoundingClientRect().width") == pytest.approx(bar_width, abs=0.5)
    for lane in (greedy, best):
        for part in lane.locator(".compare-part").all():
            width = part.evaluate("n => n.getBoundingClientRect().width")
            assert width == pytest.approx(bar_width * costs[part.get_attribute("data-id")] / report["budget"], abs=1.0)
    assert scores["B"] + scores["C"] == report["optimal"]["value"]


def test_the_budget_bar_has_the_budget_as_its_scale_and_overflow_hatched(page):
    to_step(page, 1)
    bar = page.locator("[data-testid=budget-bar]")
    ghost = page.locator("[data-testid=bar-ghost][data-id=B]")
    limit_x = page.eval_on_selector("#budget-bar .bar-limit", "n => n.getBoundingClientRect().left")
    origin = bar.evaluate("n => n.getBoundingClientRect().left")
    # The same origin and scale in the left-out row: B starts after A (4) and needs 5 of a budget of 7.
    a_width = page.locator("[data-testid=bar-segment][data-id=A]").evaluate("n => n.getBoundingClientRect().width")
    per_token = a_width / 4
    box = ghost.evaluate("n => { const r = n.getBoundingClientRect(); return [r.left, r.width]; }")
    assert box[0] == pytest.approx(origin + 4 * per_token, abs=1.5)
    assert box[1] == pytest.approx(5 * per_token, abs=1.5)
    assert limit_x == pytest.approx(origin + 7 * per_token, abs=2)
    # Past the budget's end: hatched, and the main bar has no free-room colour past its end.
    over = ghost.locator(".ghost-over")
    expect(over).to_have_count(1)
    assert "repeating-linear-gradient" in over.evaluate("n => getComputedStyle(n).backgroundImage")
    room_end = page.eval_on_selector_all("#budget-bar .bar-room", "ns => ns.map(n => n.getBoundingClientRect().right)")
    assert all(end <= limit_x + 2 for end in room_end)
    # Each segment says its id and count where they fit.
    assert page.locator("[data-testid=bar-segment][data-id=A] .segment-name").inner_text() == "A 4"


# ---------------------------------------------------------------- what a pass does not prove
def test_the_last_step_shows_each_items_tokens_with_their_ids(page):
    report = to_step(page, 5)
    items = page.locator("[data-testid=lesson-token-item]")
    expect(items).to_have_count(len(LESSON[4]["input"]["items"]), timeout=60_000)
    counts = {row["id"]: row["tokens"] for row in report["trace"]}
    for item, data in zip(items.all(), LESSON[4]["input"]["items"]):
        view = json.loads(_page.token_view(data["content"], "o200k_base"))
        assert int(item.get_attribute("data-count")) == view["count"] == counts[data["id"]]
        chips = item.locator("[data-testid=token-chip] .token-id").all_inner_texts()
        assert chips == [" ".join(map(str, segment["ids"])) for segment in view["segments"]]
    text = page.inner_text("[data-testid=lesson-step][data-step='5']")
    assert "does not prove" in text and "relevance scores" in text and "token counts" in text and "best one" in text
    # The last step's Next opens the next lesson, not the tool.
    expect(page.locator("[data-testid=lesson-next]")).to_have_text("Next lesson: Chat histories ▶")
    page.click("[data-testid=lesson-next]")
    expect(page.locator("[data-testid=lesson-choice][data-lesson=chat]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#lesson-title")).to_have_text(
        json.loads((ROOT / "web" / "lessons" / "chat.json").read_text())["steps"][0]["title"]
    )
    page.click("[data-testid=lesson-choice][data-lesson=relevance]")
    expect(page.locator("[data-testid=lesson-step][data-step='1']")).to_be_visible()


def test_a_share_link_of_an_example_opens_the_tool_with_its_name(page, browser):
    page.click("[data-testid=show-tool]")
    try:
        index = next(i for i, example in enumerate(EXAMPLES) if example.get("fixture") == "relevance/greedy-counterexample.json")
        fresh(page)
        page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
        page.wait_for_selector(DONE)
        page.click("[data-testid=share]")
        expect(page).to_have_url(re.compile(r"#example=relevance%2Fgreedy-counterexample\.json&length=\d+&input="))
        link = page.url.replace("?view=lesson", "")
        context, other, guard, problems = open_page(browser, link.replace("/#", "/?view=lesson#"))
        try:
            expect(other.locator("main > .editor")).to_be_visible()  # a link opens the tool
            expect(other.locator("[data-testid=example]")).to_have_value(str(index))
            expect(other.locator("[data-testid=example-description]")).to_contain_text("B and C together would give 18")
            assert problems == [] and guard.foreign == []
        finally:
            context.close()
    finally:
        page.evaluate("history.replaceState(null, '', location.pathname + location.search)")
        page.click("[data-testid=show-lesson]")


# ---------------------------------------------------------------- the code editor, invalid input
@contextlib.contextmanager
def editing_step_1(page):
    """The tool opened from the lesson's step 1 ("Edit this input in the tool"): its code editor."""
    to_step(page, 1)
    page.click("[data-testid=lesson-edit]")
    try:
        code = page.locator("[data-testid=code-input]")
        expect(code).to_be_visible()
        code.click()
        yield code
    finally:
        page.click("[data-testid=show-lesson]")


def test_the_code_editor_has_line_numbers_brackets_and_marks_the_error_keeping_the_report(page):
    with editing_step_1(page):
        expect(page.locator("[data-testid=input]")).to_be_hidden()  # the textarea is the model underneath
        assert page.locator(".cm-lineNumbers .cm-gutterElement").count() >= 10
        # Bracket matching: the cursor after the first "{" marks it and its partner.
        page.keyboard.press("Control+Home")
        page.keyboard.press("ArrowRight")
        expect(page.locator(".cm-matchingBracket")).to_have_count(2)
        # Typing breaks the JSON: the error is marked in the text, the last report stays, dimmed.
        fresh(page)
        page.keyboard.press("Control+End")
        page.keyboard.type(",")
        page.wait_for_selector(DONE)
        expect(page.locator(".cm-lintRange-error")).to_have_count(1)
        expect(page.locator("[data-testid=stale-note]")).to_be_visible()
        expect(page.locator("[data-testid=stale-note]")).to_contain_text("Below, dimmed: the result of the last valid input")
        expect(page.locator("[data-testid=budget-bar]")).to_be_visible()
        expect(page.locator("[data-testid=items] tbody tr")).to_have_count(3)
        assert page.locator("#result").evaluate("n => n.classList.contains('stale')")
        expect(page.locator("[data-testid=budget-slider]")).to_be_visible()
        # Fixed: the report is current again, and the mark goes.
        fresh(page)
        page.keyboard.press("Backspace")
        page.wait_for_selector(DONE)
        expect(page.locator(".cm-lintRange-error")).to_have_count(0)
        expect(page.locator("[data-testid=stale-note]")).to_be_hidden()
        assert json.loads(editor_text(page)) == LESSON[0]["input"]


def test_a_negative_budget_keeps_the_slider_to_slide_back(page):
    with editing_step_1(page):
        page.keyboard.press("Control+a")
        fresh(page)
        page.keyboard.type('{"budget": -1, "items": [{"id": "A", "relevance": 9, "tokens": 4}]}')
        page.wait_for_selector(DONE)
        expect(page.locator("[data-testid=summary]")).to_have_attribute("data-pass", "false")
        expect(page.locator("[data-testid=error-path]")).to_have_text("$.budget")
        expect(page.locator(".cm-lintRange-error")).to_have_count(1)  # the error path marked in the text
        slider = page.locator("[data-testid=budget-slider]")
        expect(slider).to_be_visible()
        expect(page.locator("#slider-value")).to_have_text("-1")
        fresh(page)
        slider.fill("5")
        page.wait_for_selector(DONE)
        expect(page.locator("[data-testid=summary]")).to_have_text("Selected A within 5 tokens.")
        assert '"budget": 5' in editor_text(page)
        assert page.locator("[data-testid=code-input]").inner_text().startswith('{"budget": 5')


# ---------------------------------------------------------------- the phone
def test_on_a_phone_the_verdict_of_a_prediction_is_brought_into_view(page):
    page.set_viewport_size(PHONE)  # motion is reduced (open_page), so the scroll is immediate
    try:
        to_step(page, 2)
        press(page, {"A", "B"})
        page.evaluate("scrollTo(0, 0)")
        page.click("[data-testid=claim-check]")  # the button at the screen's foot, the verdict below it
        result = page.locator("[data-testid=claim-result]")
        expect(result).to_have_attribute("data-pass", "false")
        expect(result).to_be_in_viewport(ratio=0.9)
    finally:
        page.set_viewport_size(WIDE)


def test_on_a_phone_the_result_is_one_tap_from_the_editor(page):
    page.set_viewport_size(PHONE)
    page.click("[data-testid=show-tool]")
    try:
        switch_edit, switch_result = page.locator("[data-testid=switch-edit]"), page.locator("[data-testid=switch-result]")
        expect(switch_edit).to_be_visible()
        in_view = "n => { const r = n.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
        switch_result.click()  # one tap: the summary in view, below the switch that stays on top
        assert page.locator("[data-testid=summary]").evaluate(in_view)
        assert switch_edit.evaluate(in_view) and switch_result.evaluate(in_view)
        assert page.evaluate("document.activeElement.id") == "result-heading"
        switch_edit.click()  # and back to the editor
        assert page.locator("#input-heading").evaluate(in_view)
        assert page.locator("[data-testid=code-input]").evaluate("n => n.getBoundingClientRect().top < innerHeight")
        switch_result.click()
        # messages leads with the conversation and its labelled budget lane, with a legend.
        index = next(i for i, example in enumerate(EXAMPLES) if example.get("fixture") == "messages/support-chat.json")
        fresh(page)
        page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
        page.wait_for_selector(DONE)
        chat_y = page.locator("[data-testid=chat-view]").bounding_box()["y"]
        assert chat_y < page.locator("[data-testid=items]").bounding_box()["y"]
        assert chat_y < page.locator("[data-testid=check]").first.bounding_box()["y"] + 2000
        expect(page.locator(".chat-key")).to_be_visible()
        assert "The budget: a limit of" in page.inner_text("[data-testid=chat-view]")
        assert page.locator("[data-testid=chat-budget] .segment-name:not(.no-fit)").count() >= 2
        # One card per message: its own count and its unit's, never two different "needs".
        for card in page.locator("[data-testid=items] tbody tr").all():
            text = card.inner_text()
            assert len(re.findall(r"\bneeds\b", text)) <= 1 or "its tool unit" in text, text
        assert_no_clipped_labels(page)
    finally:
        page.set_viewport_size(WIDE)
        page.click("[data-testid=show-lesson]")


def assert_no_clipped_labels(page):
    clipped = page.evaluate("""() => [...document.querySelectorAll('.segment-name:not(.no-fit)')]
      .filter(n => n.offsetParent !== null && n.scrollWidth > n.clientWidth + 1).map(n => n.textContent)""")
    assert clipped == []


def test_no_clipped_labels_in_any_bar_at_390_px(page):
    page.set_viewport_size(PHONE)
    page.click("[data-testid=show-tool]")
    try:
        page.click("[data-testid=switch-result]")
        for index, example in enumerate(EXAMPLES):
            fresh(page)
            page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
            page.wait_for_selector(DONE)
            page.evaluate("() => new Promise(requestAnimationFrame)")
            assert_no_clipped_labels(page)
    finally:
        page.set_viewport_size(WIDE)
        page.click("[data-testid=show-lesson]")


# ---------------------------------------------------------------- contrast and the rest of axe
# The rules of axe's default run (WCAG A and AA) that read colours: the dark scheme changes
# colours only (web/style.css's prefers-color-scheme blocks set colour custom properties and
# backgrounds, and no script reads the scheme), so every other rule sees there the same page as
# in the light scheme, already checked; the AAA color-contrast-enhanced is not in the default run.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_serious(page, where, rules=None):
    """axe-core's serious and critical violations on the page, all its default rules or ``rules`` only."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(url=page.url.split("?")[0].split("#")[0] + "test-only/axe.min.js")
    options = {"resultTypes": ["violations"]}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": rules}
    results = page.evaluate("(options) => axe.run(document, options)", options)
    found = [
        (where, violation["id"], violation["impact"], [node["target"] for node in violation["nodes"]][:3])
        for violation in results["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
    return found, results["violations"]


def test_axe_finds_nothing_serious_on_any_step_or_example_at_both_sizes_and_in_both_schemes(page):
    found, seen = [], {}
    # Colours are the same at both sizes: the dark scheme is checked on the desktop layout only,
    # and by the rules that read colours only (COLOUR_RULES: nothing else differs from light).
    for size_name, size, schemes in (("desktop", WIDE, ("light", "dark")), ("phone", PHONE, ("light",))):
        page.set_viewport_size(size)
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            for number in range(1, len(LESSON) + 1):
                to_step(page, number)
                if number == 5:
                    expect(page.locator("[data-testid=lesson-token-item]")).to_have_count(3, timeout=60_000)
                if number == 1:  # mid step-through too: the undecided rows are muted, not faded
                    page.click("[data-testid=step-next]")
                serious, all_found = axe_serious(page, f"{size_name} {scheme} step {number}", COLOUR_RULES if scheme == "dark" else None)
                found += serious
                for violation in all_found:
                    seen[violation["impact"]] = seen.get(violation["impact"], 0) + 1
            page.click("[data-testid=show-tool]")
            if size_name == "phone":
                page.click("[data-testid=switch-result]")
            for index, example in enumerate(EXAMPLES):
                fresh(page)
                page.eval_on_selector("[data-testid=example]", CHOOSE, str(index))
                page.wait_for_selector(DONE)
                serious, all_found = axe_serious(
                    page, f"{size_name} {scheme} {example['label']}", COLOUR_RULES if scheme == "dark" else None
                )
                found += serious
                for violation in all_found:
                    seen[violation["impact"]] = seen.get(violation["impact"], 0) + 1
            page.click("[data-testid=show-lesson]")
    page.set_viewport_size(WIDE)
    page.emulate_media(color_scheme="light")
    print(f"axe-core: violations by impact over every step and example, both sizes and schemes: {seen}")
    summary = {}
    for where, rule, impact, targets in found:
        summary.setdefault((rule, impact), []).append((where, targets))
    assert found == [], {key: (len(value), sorted({str(target) for _, target in value})[:8]) for key, value in summary.items()}


def test_without_codemirror_the_page_keeps_the_plain_text_box(browser, site_url):
    """CodeMirror's files refused: the textarea is the editor, and the page says so."""
    context, page, guard, problems = open_page(browser, site_url + "?view=tool", routes=[("**/codemirror/**", lambda route: route.abort())])
    try:
        expect(page.locator("#editor-note")).to_have_text("The code editor could not load; this is a plain text box.")
        expect(page.locator("[data-testid=input]")).to_be_visible()
        assert page.get_attribute("body", "data-editor") is None
        page.fill("[data-testid=input]", '{"budget": 3, "items": [{"id": "A", "relevance": 1, "tokens": 3}]}')
        expect(page.locator("[data-testid=summary]")).to_have_text("Selected A within 3 tokens.")
        assert guard.foreign == []
        # The refused modules are logged by the browser as failed loads; nothing else went wrong.
        assert [problem for problem in problems if "codemirror" not in problem and "Failed to load resource" not in problem] == []
    finally:
        context.close()
