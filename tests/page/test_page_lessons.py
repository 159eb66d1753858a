"""Every lesson, completed by keyboard alone (Tab, Space, Enter and the arrow keys) at 1280x800
and 390x844, with axe-core finding nothing on any step; progress kept in the browser and
forgotten by "Start this lesson again"; "Take this with you" giving a case that passes and the
Python call that prints the same summary. The intended answers are the lessons' own data (the
same that tests/docs/test_lessons_replay.py replays through CPython). Tests wait on the page's
attributes, never on sleeps."""

import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES
from fitproof import evaluate
from fitproof._envelope import check_text
from fitproof._evaluation.claims import LIST_KEY
from lesson_text import pattern, said
from test_page import open_page

ROOT = FIXTURES.parent
FIRST = json.loads((ROOT / "web" / "lesson.json").read_text())
LESSONS = {FIRST["id"]: FIRST} | {
    entry["id"]: json.loads((ROOT / "web" / "lessons" / f"{entry['id']}.json").read_text()) for entry in FIRST["lessons"][1:]
}
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WIDE, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
MOST_TABS = 400  # a focusable element further than this many Tabs away counts as unreachable


def summary_of(data):
    return json.loads(check_text(json.dumps(data)))["result"]["summary"]


def open_lessons(browser, site_url, size):
    routes = [("**/test-only/axe.min.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))]
    context, page, guard, problems = open_page(browser, site_url + "?view=lesson", routes=routes)
    page.set_viewport_size(size)
    return context, page, guard, problems


@pytest.fixture(params=[WIDE, PHONE], ids=["1280x800", "390x844"])
def lessons_page(request, browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, request.param)
    yield page
    assert problems == [], "the page logged errors"
    assert guard.foreign == []
    context.close()


def tab_to(page, selector):
    """Press Tab until the focus is on ``selector`` (forward, wrapping): keyboard alone."""
    for _ in range(MOST_TABS):
        if page.evaluate("(s) => Boolean(document.activeElement && document.activeElement.matches(s))", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} is not reached by Tab")


def axe_violations(page):
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(url=page.url.split("?")[0].split("#")[0] + "test-only/axe.min.js")
    results = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [
        (violation["id"], violation["impact"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]


def choose_lesson(page, key):
    tab_to(page, f"[data-testid=lesson-choice][data-lesson={key}]")
    page.keyboard.press("Enter")
    expect(page.locator(f"[data-testid=lesson-choice][data-lesson={key}]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-testid=lesson-step]")).to_have_count(len(LESSONS[key]["steps"]))
    expect(page.locator("[data-testid=lesson-step][data-step='1']")).to_be_visible()


def step_through(page):
    """Next ▶ under "Step through the decisions", by keyboard, until the last decision."""
    tab_to(page, "[data-testid=step-next]")
    for _ in range(50):
        if page.locator("[data-testid=step-next]").is_disabled():
            return
        page.keyboard.press("Enter")
    raise AssertionError("the step-through has no last decision")


def answer_step(page, step, why=True):
    """The step's intended prediction (or the claim it asks to be refused) and its right "why"
    (unless not ``why``), by keyboard; the step is then done but for its number to drag."""
    if step.get("focus") == "steps":
        step_through(page)
    predict = step.get("predict")
    answer = step.get("refuse", predict["answer"] if predict else step.get("answer"))
    if answer is not None:
        expect(page.locator("[data-testid=claim-item]")).to_have_count(len(predict["choices"]) if predict else len(step["input"]["items"]))
        for value in answer:
            tab_to(page, f"[data-testid=claim-item][data-id='{value}']")
            page.keyboard.press("Space")
            expect(page.locator(f"[data-testid=claim-item][data-id='{value}']")).to_have_attribute("aria-pressed", "true")
        tab_to(page, "[data-testid=claim-check]")
        page.keyboard.press("Enter")
        holds = "refuse" not in step
        expect(page.locator("[data-testid=claim-result]")).to_have_attribute("data-pass", str(holds).lower())
        expect(page.locator("[data-testid=claim-result]")).to_contain_text("Your prediction holds." if holds else "does not hold.")
    expect(page.locator("[data-testid=summary]")).to_have_attribute("data-state", "done")
    expect(page.locator("[data-testid=summary]")).to_have_text(summary_of(step["input"]))
    if "why" in step and not why:
        return
    if "why" in step:
        expect(page.locator("[data-testid=why]")).to_be_visible()
        right = [option["right"] for option in step["why"]["options"]].index(True)
        tab_to(page, "[data-testid=why-option]")
        if right == 0:
            page.keyboard.press("Space")
        for _ in range(right):
            page.keyboard.press("ArrowDown")  # moves to the next answer and chooses it
        expect(page.locator("[data-testid=why-option]").nth(right)).to_be_checked()
        tab_to(page, "[data-testid=why-check]")
        page.keyboard.press("Enter")
        result = page.locator("[data-testid=why-result]")
        expect(result).to_have_attribute("data-pass", "true")
        expect(result).to_have_attribute("data-answered", "done")
        expect(result).to_contain_text(pattern(step["why"]["options"][right]["explain"], evaluate(step["input"])))
    expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", str("explore" not in step).lower())


SHOWN_NUMBERS = """() => [...document.querySelectorAll('#lesson span.lesson-number')]
  .filter((span) => span.offsetParent !== null).map((span) => [span.dataset.fill, span.textContent])"""


def assert_numbers_are_the_report_s(page, data):
    """Every number in the step's text on screen is the package's report's for ``data``."""
    report = evaluate(data)
    page.wait_for_function(f"() => ({SHOWN_NUMBERS})().every(([path, text]) => text !== '…')")
    for path, text in page.evaluate(SHOWN_NUMBERS):
        expected = said(report, path)
        assert text == expected or (expected is None and text), (path, text, expected)


def with_value(data, path, value):
    copy = json.loads(json.dumps(data))
    place = copy
    for part in path[:-1]:
        place = place[part]
    place[path[-1]] = value
    return copy


def choice_of(data):
    report = evaluate(data)
    return report["pass"], report[LIST_KEY[data.get("mode", "relevance")]]


def first_change(step):
    """The fewest arrow presses, and which arrow, that change the rule's choice for the step."""
    spec = step["explore"]
    value = step["input"]
    for part in spec["path"]:
        value = value[part]
    own = choice_of(step["input"])
    for presses in range(1, (spec["max"] - spec["min"]) // spec["step"] + 1):
        for sign in (1, -1):
            moved = value + sign * presses * spec["step"]
            if spec["min"] <= moved <= spec["max"] and choice_of(with_value(step["input"], spec["path"], moved)) != own:
                return presses, sign, moved
    raise AssertionError("no value changes the rule's choice")


def drag_by_keyboard(page, step):
    """The number in the text, moved by the arrow keys until the rule's choice changes: the
    package's summary follows, the step's numbers with it, and only then is the step done."""
    spec = step["explore"]
    presses, sign, moved = first_change(step)
    tab_to(page, "[data-testid=drag-number]")
    for press in range(presses):
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", "false")
        page.keyboard.press("ArrowRight" if sign > 0 else "ArrowLeft")
    expect(page.locator("[data-testid=drag-number]")).to_have_attribute("aria-valuenow", str(moved))
    expected = summary_of(with_value(step["input"], spec["path"], moved))
    expect(page.locator("[data-testid=lesson-explore-result]")).to_have_text(f"→ {expected}")
    expect(page.locator("[data-testid=summary]")).to_have_text(expected)
    assert_numbers_are_the_report_s(page, with_value(step["input"], spec["path"], moved))
    expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", "true")


def test_every_lesson_is_completed_by_keyboard_alone_and_axe_finds_nothing(lessons_page):
    page = lessons_page
    page.emulate_media(color_scheme="light")
    found = []
    for key, lesson in LESSONS.items():
        choose_lesson(page, key)
        for number, step in enumerate(lesson["steps"], 1):
            expect(page.locator(f"[data-testid=lesson-step][data-step='{number}']")).to_be_visible()
            # Not done on arrival: every step asks something to show first.
            expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", "false")
            answer_step(page, step)
            assert_numbers_are_the_report_s(page, step["input"])
            if "explore" in step:
                drag_by_keyboard(page, step)
            found += [(key, number, *violation) for violation in axe_violations(page)]
            if number < len(lesson["steps"]):
                tab_to(page, "[data-testid=lesson-next]")
                page.keyboard.press("Enter")
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-done", str(len(lesson["steps"])))
        expect(page.locator(f"[data-testid=lesson-choice][data-lesson={key}]")).to_have_attribute("data-done", str(len(lesson["steps"])))
        page.keyboard.press("Shift+Tab")  # leave the step's buttons, so the next Tab search starts above
    assert found == []


def test_a_wrong_why_is_explained_with_the_packages_own_failure_and_can_be_answered_again(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        choose_lesson(page, "chat")
        step = LESSONS["chat"]["steps"][0]
        answer_step(page, step, why=False)
        wrong = next(i for i, option in enumerate(step["why"]["options"]) if "claim" in option)
        page.locator("[data-testid=why-option]").nth(wrong).check()
        page.click("[data-testid=why-check]")
        result = page.locator("[data-testid=why-result]")
        expect(result).to_have_attribute("data-pass", "false")
        expect(result).to_have_attribute("data-answered", "done")
        report = json.loads(check_text(json.dumps({**step["input"], "claim": step["why"]["options"][wrong]["claim"]})))["result"]
        expect(result.locator("[data-testid=claim-failure]")).to_have_text(
            [f"{f['check']}: {f['detail']}" for f in report["claim"]["failures"]]
        )
        # Not done until the right answer is given.
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", "false")
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_a_wrong_prediction_is_not_done_until_revised_and_next_stays_free(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        choose_lesson(page, "required")
        step = LESSONS["required"]["steps"][0]
        progress = page.locator("[data-testid=lesson-progress]")
        page.click("[data-testid=claim-item][data-id='older']")
        page.click("[data-testid=claim-check]")
        expect(page.locator("[data-testid=claim-result]")).to_have_attribute("data-pass", "false")
        expect(progress).to_have_attribute("data-step-done", "false")
        expect(progress).to_contain_text("○ a prediction that holds")
        expect(page.locator("[data-testid=lesson-next]")).to_be_enabled()  # never locked
        page.click("[data-testid=claim-item][data-id='older']")
        for value in step["predict"]["answer"]:
            page.click(f"[data-testid=claim-item][data-id='{value}']")
        page.click("[data-testid=claim-check]")  # revised after the verdict
        expect(page.locator("[data-testid=claim-result]")).to_have_attribute("data-pass", "true")
        expect(progress).to_contain_text("✓ a prediction that holds; ○ the “why” answered right")
        expect(progress).to_have_attribute("data-step-done", "false")
        right = [option["right"] for option in step["why"]["options"]].index(True)
        page.locator("[data-testid=why-option]").nth(right).check()
        page.click("[data-testid=why-check]")
        expect(progress).to_have_attribute("data-step-done", "true")
        # A step that asks something is not done on arrival.
        page.click("[data-testid=lesson-next]")
        expect(progress).to_have_attribute("data-step-done", "false")
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_on_a_phone_the_first_step_starts_on_the_first_screen(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, PHONE)
    try:
        top = page.locator("[data-testid=lesson-step][data-step='1']").evaluate("n => n.getBoundingClientRect().top + window.scrollY")
        assert top + 240 < PHONE["height"], top  # its first lines on the first screen (it was 990 px down)
        expect(page.locator("[data-testid=lesson-choice]")).to_have_count(len(LESSONS))
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_a_reload_comes_back_to_the_step_and_the_tool_gets_the_focus(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        # The lesson screen has no input to edit, and its ready line does not ask for one.
        expect(page.locator("[data-testid=status]")).to_have_attribute("data-state", "ready")
        expect(page.locator("[data-testid=status]")).not_to_contain_text("edit the input")
        choose_lesson(page, "chat")
        tab_to(page, "[data-testid=lesson-next]")
        page.keyboard.press("Enter")
        expect(page.locator("[data-testid=lesson-step][data-step='2']")).to_be_visible()
        page.reload()
        page.wait_for_selector("[data-testid=summary][data-state=done]")
        expect(page.locator("[data-testid=lesson-choice][data-lesson=chat]")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("[data-testid=lesson-step][data-step='2']")).to_be_visible()
        # The step's own input is checked once Python is ready (a reload may start it anew).
        expect(page.locator("[data-testid=summary]")).to_have_text(summary_of(LESSONS["chat"]["steps"][1]["input"]), timeout=120_000)
        # "Edit this input in the tool": the focus is on the editor's heading, not the body.
        tab_to(page, "[data-testid=lesson-edit]")
        page.keyboard.press("Enter")
        expect(page.locator("#input-heading")).to_be_focused()
        expect(page.locator("[data-testid=status]")).to_contain_text("edit the input")
        # The last lesson's last step opens the tool, with the same focus.
        page.click("[data-testid=show-lesson]")
        choose_lesson(page, FIRST["lessons"][-1]["id"])
        for _ in LESSONS[FIRST["lessons"][-1]["id"]]["steps"][1:]:
            page.click("[data-testid=lesson-next]")
        expect(page.locator("[data-testid=lesson-next]")).to_have_text("Open the tool ▶")
        tab_to(page, "[data-testid=lesson-next]")
        page.keyboard.press("Enter")
        expect(page.locator("#input-heading")).to_be_focused()
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_progress_is_kept_across_a_reload_and_start_again_forgets_it(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        choose_lesson(page, "required")
        answer_step(page, LESSONS["required"]["steps"][0])
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-done", "1")
        stored = page.evaluate("JSON.parse(localStorage.getItem('fitproof-lessons'))")
        assert stored == {"required": [1]}  # which steps are done, and nothing else
        page.reload()
        page.wait_for_selector("[data-testid=summary][data-state=done]")
        expect(page.locator("[data-testid=lesson-choice][data-lesson=required]")).to_have_attribute("data-done", "1")
        expect(page.locator("[data-testid=lesson-choice][data-lesson=required]")).to_contain_text("1 of 2 steps done")
        choose_lesson(page, "required")
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-step-done", "true")
        tab_to(page, "[data-testid=lesson-restart]")
        page.keyboard.press("Enter")
        expect(page.locator("[data-testid=lesson-progress]")).to_have_attribute("data-done", "0")
        expect(page.locator("[data-testid=lesson-choice][data-lesson=required]")).to_have_attribute("data-done", "0")
        expect(page.locator("[data-testid=claim-result]")).to_be_hidden()
        assert page.evaluate("localStorage.getItem('fitproof-lessons')") is None
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_take_this_with_you_gives_a_case_that_passes_and_the_python_that_prints_the_summary(browser, site_url, tmp_path):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        choose_lesson(page, "chat")
        step = LESSONS["chat"]["steps"][1]
        tab_to(page, "[data-testid=lesson-next]")
        page.keyboard.press("Enter")
        answer_step(page, step)
        tab_to(page, "[data-testid=take-away]")
        page.keyboard.press("Enter")
        expect(page.locator("[data-testid=take-away-block]")).to_have_attribute("data-state", "done")
        case = json.loads(page.inner_text("[data-testid=take-away-case]"))
        assert case["input"] == step["input"]
        assert case["expect"] == {"pass": True, "kept": step["predict"]["answer"]}
        assert case["description"] == f"From the lesson Chat histories, step 2: {step['title']}."
        (tmp_path / "case.json").write_text(page.inner_text("[data-testid=take-away-case]"))
        run = subprocess.run([sys.executable, "-m", "fitproof", "fixtures", str(tmp_path)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        program = page.inner_text("[data-testid=take-away-python]")
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == summary_of(step["input"])
        with page.expect_download() as download:
            page.click("[data-testid=take-away-case-download]")
        assert json.loads(open(download.value.path()).read()) == case
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_a_number_in_the_text_follows_the_pointer_and_the_result_follows_it(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        step = FIRST["steps"][3]  # the counterexample: A's cost
        for _ in range(3):
            page.click("[data-testid=lesson-next]")
        expect(page.locator("[data-testid=lesson-step][data-step='4']")).to_be_visible()
        number = page.locator("[data-testid=drag-number]")
        expect(number).to_have_attribute("aria-valuenow", "6")
        box = number.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x - 8 * 2, y, steps=4)  # 8 px a step: 6 -> 4
        page.mouse.up()
        expect(number).to_have_attribute("aria-valuenow", "4")
        expected = summary_of(with_value(step["input"], step["explore"]["path"], 4))
        expect(page.locator("[data-testid=lesson-explore-result]")).to_have_text(f"→ {expected}")
        # The editor holds the input with that one number changed, as the tool would check it.
        assert json.loads(page.evaluate("document.getElementById('input').value")) == with_value(step["input"], ["items", 0, "tokens"], 4)
        assert problems == [] and guard.foreign == []
    finally:
        context.close()


def test_the_other_lessons_are_fetched_once_ready_and_open_offline(browser, site_url):
    context, page, guard, problems = open_lessons(browser, site_url, WIDE)
    try:
        expect(page.locator("[data-testid=lesson-picker]")).to_have_attribute("data-prefetched", "true")
        page.context.set_offline(True)
        try:
            for key in ("stable", "passages"):
                choose_lesson(page, key)
                expect(page.locator("#lesson-title")).to_have_text(LESSONS[key]["steps"][0]["title"])
                expect(page.locator("[data-testid=summary]")).to_have_attribute("data-state", "done")
        finally:
            page.context.set_offline(False)
        assert problems == [] and guard.foreign == []
    finally:
        context.close()
