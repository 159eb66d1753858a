"""What a learner's own work and attention keep on the page, from a keyboard-and-screen-reader
walkthrough: an example never silently replaces the user's input, an example that cannot be
fetched changes nothing, focus stays in the step buttons at their ends, a failed check is
announced, superseded checks are dropped unrun, and long or empty chat results stay readable.
One loaded page is shared; tests wait on attributes, never on sleeps."""

import json

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES

from test_page import DONE, loaded, open_page  # noqa: F401 (loaded: the module's one loaded page, a fixture)

OWN = '{"budget": 3, "items": [{"id": "MINE", "relevance": 1, "tokens": 2}]}'


@pytest.fixture
def page(loaded):
    page, _, problems = loaded
    page.set_viewport_size({"width": 1280, "height": 800})
    yield page
    assert problems == [], "the page logged errors"


def check(page, text):
    page.fill("[data-testid=input]", text)
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)


def test_an_example_over_the_users_input_says_so_and_can_put_it_back(page):
    """The menu replaced the editor's text at once (arrow keys on a closed menu do it), and the
    editor's undo could not bring it back: the page set its value."""
    check(page, OWN)
    page.focus("[data-testid=example]")
    page.keyboard.press("ArrowDown")  # a keyboard user reading the list: the first example loads
    expect(page.locator("#share-note")).to_contain_text("The example replaced your input.")
    assert page.input_value("[data-testid=input]") != OWN
    page.keyboard.press("ArrowDown")  # the next one: what can be put back is still the user's own
    expect(page.locator("[data-testid=restore-input]")).to_be_visible()
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("[data-testid=restore-input]")
    page.wait_for_selector(DONE)
    assert page.input_value("[data-testid=input]") == OWN
    assert page.input_value("[data-testid=example]") == ""
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected MINE within 3 tokens.")
    # Editing an example makes the edit what is put back next time.
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", "0")
    page.wait_for_selector(DONE)
    page.fill("[data-testid=input]", OWN.replace("MINE", "EDITED"))
    page.select_option("[data-testid=example]", "1")
    expect(page.locator("[data-testid=restore-input]")).to_be_visible()
    page.click("[data-testid=restore-input]")
    assert page.input_value("[data-testid=input]") == OWN.replace("MINE", "EDITED")


def test_the_offer_to_put_it_back_outlives_the_pages_own_changes_and_the_menu_can_take_it(page):
    """Moving the slider or pressing Format dropped "Put it back" (the user's text was then lost),
    and choosing "Your own input" in the menu did nothing."""
    check(page, OWN)
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", "0")
    page.wait_for_selector(DONE)
    expect(page.locator("[data-testid=restore-input]")).to_be_visible()
    page.locator("[data-testid=budget-slider]").fill("9")
    page.click("#format")
    expect(page.locator("[data-testid=restore-input]")).to_be_visible()
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", "")  # "Your own input"
    page.wait_for_selector(DONE)
    assert page.input_value("[data-testid=input]") == OWN
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected MINE within 3 tokens.")
    expect(page.locator("[data-testid=restore-input]")).to_have_count(0)
    # With nothing to put back, "Your own input" makes the example in the editor the user's own.
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", "0")
    page.wait_for_selector(DONE)
    page.fill("[data-testid=input]", page.input_value("[data-testid=input]"))  # typed over: the offer goes
    expect(page.locator("[data-testid=restore-input]")).to_have_count(0)
    page.select_option("[data-testid=example]", "")
    expect(page.locator("#example-description")).to_be_hidden()
    assert page.input_value("[data-testid=example]") == ""


def test_an_example_that_cannot_be_fetched_changes_nothing(browser, site_url):
    """The server refuses the examples (they are fetched once the page is ready): the menu
    showed the new example, the editor kept the old text, and the page threw "Failed to fetch"."""
    refuse = [(pattern, lambda route: route.abort()) for pattern in ("**/fixtures/**", "**/templates/**")]
    context, page, guard, problems = open_page(browser, site_url, routes=refuse)
    try:
        check(page, OWN)
        page.select_option("[data-testid=example]", "1")
        expect(page.locator("#share-note")).to_contain_text("The example could not be loaded")
        expect(page.locator("#share-note")).to_contain_text("Your input is unchanged.")
        assert page.input_value("[data-testid=example]") == ""
        assert page.input_value("[data-testid=input]") == OWN
        # Chromium's own lines for the refused requests; the page itself threw nothing.
        assert [problem for problem in problems if problem != "Failed to load resource: net::ERR_FAILED"] == []
        assert guard.foreign == []
    finally:
        context.close()


def test_the_examples_still_load_when_the_connection_goes_away(page, loaded):
    """Offline after loading, only the examples already chosen could be shown: each was fetched when chosen."""
    check(page, OWN)
    page.context.set_offline(True)
    try:
        for index in ("3", "1"):
            page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
            page.select_option("[data-testid=example]", index)
            page.wait_for_selector(DONE)
            assert page.input_value("[data-testid=input]") != OWN
            expect(page.locator("#share-note")).not_to_contain_text("could not be loaded")
    finally:
        page.context.set_offline(False)
    check(page, OWN)


def test_focus_stays_in_the_step_buttons_at_either_end(page):
    """Next disabled under the focus dropped it to the page's top, and ←/→ stopped working."""
    page.select_option("[data-testid=example]", "")
    page.select_option("[data-testid=example]", "0")  # three decisions
    page.wait_for_selector(DONE)
    page.focus("#step-next")
    for _ in range(3):
        page.keyboard.press("Enter")
    # A step is taken asynchronously: wait for the last one before looking at the focus, which
    # an immediate look could see before the step moved it.
    expect(page.locator("#step-text")).to_contain_text("Step 3 of 3")
    expect(page.locator("#step-prev")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step-text")).to_contain_text("Step 2 of 3")
    page.keyboard.press("Enter")  # Previous, to the first step: focus goes back to Next
    expect(page.locator("#step-text")).to_contain_text("Step 1 of 3")
    expect(page.locator("#step-next")).to_be_focused()


def test_a_failed_check_is_announced(page):
    """ "No result: ..." was shown but never announced: the last words stayed an earlier "Pass"."""
    check(page, OWN)
    page.evaluate("""() => {
      const worker = window.pythonWorker.worker;
      worker.realPost = worker.postMessage;
      worker.postMessage = (message) => message.type === "check"
        ? setTimeout(() => worker.onmessage({ data: { type: "result", id: message.id, failure: "the test broke it" } }), 0)
        : worker.realPost(message);
    }""")
    try:
        page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
        page.click("[data-testid=run]")
        page.wait_for_selector(DONE)
        expect(page.locator("#announce")).to_have_text("No result: the test broke it")
    finally:
        page.evaluate("() => { const worker = window.pythonWorker.worker; worker.postMessage = worker.realPost; }")
    check(page, OWN)
    expect(page.locator("#announce")).to_contain_text("Pass.")


def test_checks_asked_for_while_one_runs_are_dropped_but_the_newest(page):
    """Ten presses of Check on a 5 MB input took 8.7 s: every one was computed in turn."""
    check(page, OWN)
    page.evaluate("""() => {
      const worker = window.pythonWorker.worker;
      window.checksSent = 0;
      worker.realPost = worker.postMessage;
      worker.postMessage = (message) => { if (message.type === "check") window.checksSent += 1; worker.realPost(message); };
    }""")
    try:
        page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
        page.evaluate("() => { for (let press = 0; press < 10; press += 1) document.getElementById('run').click(); }")
        page.wait_for_selector(DONE)
        assert page.evaluate("window.checksSent") == 2  # the first, then the newest of the nine after it
        expect(page.locator("[data-testid=summary]")).to_have_text("Selected MINE within 3 tokens.")
    finally:
        page.evaluate("() => { const worker = window.pythonWorker.worker; worker.postMessage = worker.realPost; }")


def test_a_long_message_is_cut_in_its_bubble_and_an_empty_result_says_nothing_is_sent(page):
    """A 300,000-character turn made the page ~120,000 px tall; "counts 0 of 3" came with a ✓ and no word."""
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "x" * 5000}, {"role": "user", "content": "next?"}]
    check(page, json.dumps({"mode": "messages", "limit": 40, "tokenizer": "estimate", "messages": messages}))
    bubble = page.locator("[data-testid=chat-view] [data-testid=chat-message]").nth(1)
    assert len(bubble.locator(".bubble-text").inner_text()) < 2100
    expect(bubble.locator(".cut-note")).to_have_text(" … 3,000 more characters not shown")
    check(
        page,
        json.dumps(
            {
                "mode": "messages",
                "limit": 3,
                "tokenizer": "estimate",
                "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            }
        ),
    )
    # The live turn does not fit: the run fails and says nothing is sent (it once passed, keeping nothing).
    expect(page.locator("[data-testid=chat-view] .legend")).to_contain_text("over the limit of 3. Nothing is sent.")


def test_a_turn_dropped_for_the_user_start_never_takes_a_kept_turns_colour(page):
    """A CSS rule for every second part outranked the user-start one: a dropped turn looked kept."""

    def message(role, content, **more):
        return {"role": role, "content": content, **more}

    messages = [
        message("system", "sys"),
        message("user", "first task, long long long long long long long long", pinned=True),
        message("assistant", "a1 long long long long long long"),
        message("user", "u2" + " long" * 15),
        message("assistant", "a2"),
        message("assistant", "a2b"),
        message("user", "u3"),
    ]  # 4 and 5 fit, but follow the dropped 3
    check(page, json.dumps({"mode": "messages", "limit": 60, "tokenizer": "estimate", "messages": messages}))
    colours = page.locator(".chat-part.user-start").evaluate_all("nodes => nodes.map(n => getComputedStyle(n).backgroundColor)")
    kept = page.locator(".chat-part.walked:not(.user-start)").evaluate_all("nodes => nodes.map(n => getComputedStyle(n).backgroundColor)")
    assert len(colours) >= 2 and len(set(colours)) == 1 and not set(colours) & set(kept), (colours, kept)


def test_a_long_history_shows_the_whole_walk_and_the_slider_reaches_everything(page):
    """Past 200 messages (the rows in hand) the lane stopped early, the sentence lost where the
    walk stopped, the heading lost "N of M sent", and the slider's range covered 200 rows only."""
    from fitproof._envelope import check_text

    messages = [{"role": "system", "content": "Be brief."}] + [
        {"role": "user" if turn % 2 == 0 else "assistant", "content": f"turn {turn} " + "word " * (turn % 9)} for turn in range(1999)
    ]
    data = {"mode": "messages", "limit": 3000, "tokenizer": "estimate", "messages": messages}
    report = json.loads(check_text(json.dumps(data)))["result"]
    stop = next(row for row in report["trace"] if row["reason"] == "exceeds_remaining_budget")
    assert report["trace"].index(stop) > 200  # past the first page of rows
    check(page, json.dumps(data))
    view = page.locator("[data-testid=chat-view]")
    expect(view).to_contain_text(f"{len(report['kept'])} of 2000 messages sent, oldest first.")
    expect(view.locator(".legend")).to_contain_text(f"#{stop['index']} needed {stop['unit_tokens']} with {stop['remaining_before']} left")
    assert view.locator(".chat-part.walked.rest").count() == 1 and view.locator(".chat-part.stop").count() == 1
    right = view.locator(".chat-part.walked").evaluate_all(
        "nodes => Math.max(...nodes.map(n => parseFloat(n.style.left) + parseFloat(n.style.width)))"
    )
    assert right > 95  # the kept turns reach the limit (they stopped at 88 % of it)
    needed = sum(row["tokens"] for row in report["trace"]) + 3
    assert float(page.get_attribute("#budget-slider", "max")) >= needed


def test_quick_choices_end_on_the_last_one_and_the_slider_keeps_what_can_be_put_back(page):
    """From a second read: three quick arrow presses showed the first example under the third's
    name (each load took the others for typing), and a slider step on an example dropped the
    user's own text that "Put it back" was keeping."""
    check(page, OWN)
    page.focus("[data-testid=example]")
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.wait_for_selector(DONE)
    chosen = page.input_value("[data-testid=example]")
    expect(page.locator("#example-description")).not_to_be_empty()
    examples = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
    # examples.json's own description, in plain words, where it gives one; else the fixture's.
    wanted = (
        examples[int(chosen)].get("description") or json.loads((FIXTURES / examples[int(chosen)]["fixture"]).read_text())["description"]
    )
    expect(page.locator("#example-description")).to_have_text(wanted)
    page.locator("[data-testid=budget-slider]").press("ArrowRight")  # the page edits the example: not the user's typing
    page.select_option("[data-testid=example]", "0")
    expect(page.locator("[data-testid=restore-input]")).to_be_visible()
    page.click("[data-testid=restore-input]")
    assert page.input_value("[data-testid=input]") == OWN


def test_share_links_say_what_is_wrong_and_never_outlive_the_input_they_hold(page):
    """A hand-mangled link was ignored without a word; an input with half an emoji got
    "URI malformed"; after Copy share link the address bar kept the old input through later
    edits, so a reload silently brought that back."""
    check(page, OWN)
    page.evaluate("() => { window.location.hash = '#length=abc&input=x'; }")
    expect(page.locator("#share-note")).to_contain_text("not a share link this page can read")
    assert page.input_value("[data-testid=input]") == OWN  # the editor keeps what it holds
    page.evaluate("() => history.replaceState(null, '', location.pathname)")
    page.evaluate("""() => { const input = document.getElementById('input');
        input.value = '{"budget": 3,\\n "items": [], "x": "a\\uDC00"}'; input.dispatchEvent(new Event('input')); }""")
    page.click("#share")
    expect(page.locator("#share-note")).to_contain_text("half of a character (an unpaired surrogate) at line 2, column 22")
    check(page, OWN)
    page.click("#share")
    expect(page.locator("#share-note")).to_contain_text("Share link")  # copied, or in the address bar
    assert page.evaluate("location.hash").startswith("#length=")
    page.locator("[data-testid=input]").press("End")
    page.keyboard.type(" ")
    expect(page).not_to_have_url(__import__("re").compile("#length="))
    page.evaluate("() => history.replaceState(null, '', location.pathname)")


def test_a_link_in_the_address_bar_stays_while_it_is_what_the_editor_holds_or_was_refused(page):
    """A link whose input has CRLF line ends was dropped from the address bar at once (the
    editor holds LF); one refused over the user's edits ("reload to open it") was dropped by Format."""
    page.select_option("[data-testid=example]", "")
    # The summary is the previous test's until the example's own check is done: mark it stale
    # first, or DONE is met at once and the example's report lands after the link has opened.
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", "0")
    page.wait_for_selector(DONE)
    crlf = '{"budget": 3,\r\n "items": [{"id": "L", "relevance": 1, "tokens": 2}]}'
    page.evaluate("text => { location.hash = `length=${text.length}&input=${encodeURIComponent(text)}`; }", crlf)
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected L within 3 tokens.")
    assert page.evaluate("location.hash").startswith("#length=")
    # another link opens over it: the editor still holds the first link's input (as LF), no edit of the user's
    second = '{"budget": 3, "items": [{"id": "L2", "relevance": 1, "tokens": 2}]}'
    page.evaluate("text => { location.hash = `length=${text.length}&input=${encodeURIComponent(text)}`; }", second)
    expect(page.locator("[data-testid=summary]")).to_have_text("Selected L2 within 3 tokens.")
    check(page, OWN)  # the user's own edits (typed: the link is dropped from the address bar)
    assert page.evaluate("location.hash") == ""
    other = '{"budget": 3, "items": [{"id": "OTHER", "relevance": 1, "tokens": 2}]}'
    page.evaluate("text => { location.hash = `length=${text.length}&input=${encodeURIComponent(text)}`; }", other)
    expect(page.locator("#share-note")).to_contain_text("Reload the page to open it")
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("#format")
    page.wait_for_selector(DONE)  # Format has done all it does: its check after formatting is answered
    assert page.evaluate("location.hash").startswith("#length=")  # reloading still opens it
    assert '"MINE"' in page.input_value("[data-testid=input]")
    page.evaluate("() => history.replaceState(null, '', location.pathname)")
