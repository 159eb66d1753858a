"""Mode messages on the page: the chat shown as a conversation (bubbles by role, dropped turns
struck through with their reason, a tool call framed with its results), its budget lane, and
the step-through followed in the conversation. Chromium, wide and phone; waits on attributes."""

import json

import pytest
from playwright.sync_api import expect

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof._envelope import check_text
from test_page import CHOOSE, DONE, loaded  # noqa: F401 (the module's one loaded page, a fixture)

EXAMPLES = json.loads((FIXTURES.parent / "web" / "examples.json").read_text())
SIZES = {"wide": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def example_index(fixture):
    return next(index for index, example in enumerate(EXAMPLES) if example.get("fixture") == fixture)


@pytest.fixture(params=list(SIZES))
def page(loaded, request):
    page, _, problems = loaded
    page.set_viewport_size(SIZES[request.param])
    yield page
    assert problems == [], "the page logged errors"


def choose(page, fixture):
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.eval_on_selector("[data-testid=example]", CHOOSE, str(example_index(fixture)))  # one change event
    page.wait_for_selector(DONE)
    report = json.loads(check_text(json.dumps(_fixtures.load(FIXTURES / fixture)["input"])))["result"]
    expect(page.locator("[data-testid=summary]")).to_have_text(report["summary"])
    return report


def test_the_chat_is_a_conversation_with_dropped_turns_struck_through(page):
    report = choose(page, "messages/support-chat.json")
    messages = _fixtures.load(FIXTURES / "messages/support-chat.json")["input"]["messages"]
    bubbles = page.locator("[data-testid=chat-view] [data-testid=chat-message]")
    expect(bubbles).to_have_count(len(messages))
    assert bubbles.evaluate_all("nodes => nodes.map(n => Number(n.dataset.index))") == list(range(len(messages)))
    kept = bubbles.evaluate_all("nodes => nodes.map(n => n.dataset.kept === 'true')")
    assert [index for index, flag in enumerate(kept) if flag] == report["kept"]
    rows = {row["index"]: row for row in report["trace"]}
    for index in range(len(messages)):
        bubble = bubbles.nth(index)
        assert f"role-{messages[index]['role']}" in bubble.get_attribute("class")
        reason = bubble.locator("[data-testid=chat-reason]").inner_text()
        if index in report["dropped"]:
            # Struck through, with the text that was dropped and the reason it went.
            assert bubble.locator("del").count() == 1 and messages[index]["content"][:20] in bubble.locator("del").inner_text()
            assert reason.startswith("✗ dropped")
        else:
            assert bubble.locator("del").count() == 0 and reason.startswith("✓ kept")
        words = {
            "older_than_a_dropped_message": "older than a turn",
            "history_must_start_with_user": "must start with a user",
            "exceeds_remaining_budget": "does not fit",
            "pinned": "pinned",
            "fits_remaining_budget": "fits",
            "live_turn": "live turn",
        }[rows[index]["reason"]]
        assert words in reason, reason
    # The tool call and its result sit in one frame, kept together.
    unit = page.locator("[data-testid=chat-unit]")
    expect(unit).to_have_count(1)
    assert unit.locator("[data-testid=chat-message]").evaluate_all("nodes => nodes.map(n => Number(n.dataset.index))") == [6, 7]
    assert "kept together" in unit.inner_text() and "track_order" in unit.inner_text()
    # Nothing sticks out of a phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_the_budget_lane_shows_priming_pinned_walk_and_stop(page):
    report = choose(page, "messages/support-chat.json")
    lane = page.locator("[data-testid=chat-budget]")
    expect(lane).to_be_visible()
    parts = lane.locator(".chat-part")
    classes = parts.evaluate_all("nodes => nodes.map(n => n.className)")
    assert classes[0] == "chat-part priming"
    assert sum("pinned" in name for name in classes) == 2 and sum("stop" in name for name in classes) == 1
    label = lane.get_attribute("aria-label")
    assert f"the prompt counts {report['tokens']} of {report['limit']} tokens" in label
    stop = next(row for row in report["trace"] if row["reason"] == "exceeds_remaining_budget")
    assert f"#{stop['index']} needed {stop['unit_tokens']} with {stop['remaining_before']} left" in label


def test_a_dropped_tool_unit_is_framed_as_dropped(page):
    choose(page, "messages/tool-unit-dropped-whole.json")
    unit = page.locator("[data-testid=chat-unit]")
    expect(unit).to_have_count(1)
    assert "dropped" in unit.get_attribute("class") and "dropped together" in unit.inner_text()
    assert unit.locator("del").count() == 3


def test_stepping_through_marks_each_turn_newest_first(page):
    report = choose(page, "messages/support-chat.json")
    current = page.locator("[data-testid=chat-view] [data-testid=chat-message].current")
    # The table names each turn by its index and role (turns have no ids).
    labels = page.locator("[data-testid=items] tbody th.item-id").all_inner_texts()
    assert labels == [f"#{row['index']} {row['role']}" for row in report["trace"]]
    page.click("[data-testid=step-next]")
    for step, row in enumerate(report["trace"]):
        expect(current).to_have_attribute("data-index", str(row["index"]))
        # The turns not decided yet (the older ones) are faded.
        pending = page.locator("[data-testid=chat-view] [data-testid=chat-message].pending")
        expect(pending).to_have_count(len(report["trace"]) - step - 1)
        text = page.inner_text("[data-testid=step-text]")
        assert f"#{row['index']} {row['role']}" in text, text
        if step < len(report["trace"]) - 1:
            page.click("[data-testid=step-next]")


def test_a_long_history_shows_its_newest_turns_and_says_so(page):
    messages = [{"role": "system", "content": "Be brief."}] + [
        {"role": "user" if index % 2 == 0 else "assistant", "content": f"turn {index} " + "word " * (index % 7)} for index in range(499)
    ]
    data = {"mode": "messages", "limit": 2000, "tokenizer": "estimate", "messages": messages}
    report = json.loads(check_text(json.dumps(data)))["result"]
    page.fill("[data-testid=input]", json.dumps(data))
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)
    expect(page.locator("[data-testid=summary]")).to_have_text(report["summary"])
    headings = page.locator("[data-testid=items] thead th").all_inner_texts()
    assert "this message (estimated tokens)" in headings and "left before it (estimated tokens)" in headings, headings  # one unit in both
    bubbles = page.locator("[data-testid=chat-view] [data-testid=chat-message]")
    expect(bubbles).to_have_count(200)
    assert bubbles.first.get_attribute("data-index") == "300" and bubbles.last.get_attribute("data-index") == "499"
    expect(page.locator("[data-testid=chat-older]")).to_have_text("300 older messages not shown here: the table lists every decision.")
    kept = set(report["kept"])
    flags = bubbles.evaluate_all("nodes => nodes.map(n => [Number(n.dataset.index), n.dataset.kept === 'true'])")
    assert all(flag == (index in kept) for index, flag in flags)


@pytest.mark.parametrize(
    "fixture, system, call",
    [
        ("messages/anthropic-tool-use-with-its-result.json", "system prompt", "→ lookup("),
        ("messages/responses-reasoning-with-its-call.json", "instructions", "→ lookup("),
    ],
)
def test_anthropic_and_responses_histories_show_their_calls_results_and_system_prompt(page, fixture, system, call):
    report = choose(page, fixture)
    case = _fixtures.load(FIXTURES / fixture)["input"]
    items = case.get("messages") or case["input"]
    bubbles = page.locator("[data-testid=chat-view] [data-testid=chat-message]")
    expect(bubbles).to_have_count(len(items))
    kept = bubbles.evaluate_all("nodes => nodes.map(n => n.dataset.kept === 'true')")
    assert [index for index, flag in enumerate(kept) if flag] == report["kept"]
    expect(page.locator("[data-testid=chat-system]")).to_contain_text(system)
    unit = page.locator("[data-testid=chat-unit]")
    expect(unit).to_have_count(1)
    assert call in unit.inner_text() and "← " in unit.inner_text() and "kept together" in unit.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_cleared_tool_results_are_marked_with_their_cost_before_and_after(page):
    report = choose(page, "messages/clear-old-tool-results.json")
    clearing = report["clearing"]
    note = page.locator("[data-testid=chat-clearing]")
    expect(note).to_contain_text(f"would count {clearing['tokens_before']} tokens, over the trigger of {clearing['trigger']} tokens")
    expect(note).to_contain_text(f"2 items cleared now, {clearing['freed']} tokens freed, {clearing['tokens_after']} tokens left")
    marks = page.locator("[data-testid=chat-view] [data-testid=chat-cleared]")
    expect(marks).to_have_count(len(report["cleared"]))
    for mark, row in zip(marks.all(), report["cleared"]):
        bubble = page.locator(f"[data-testid=chat-message][data-index='{row['index']}']")
        assert bubble.locator("[data-testid=chat-cleared]").inner_text() == mark.inner_text()
        assert mark.inner_text().startswith(f"read_file result cleared: {row['tokens_before']} tokens → {row['tokens_after']} tokens")
    # The input's own text is shown (the report sends the placeholder): the editor still holds it.
    kept_cleared = page.locator("[data-testid=chat-message][data-index='7']")
    assert "Returns are accepted" in kept_cleared.inner_text() and kept_cleared.get_attribute("data-kept") == "true"
    assert page.locator("[data-testid=chat-message][data-index='11'] [data-testid=chat-cleared]").count() == 0  # keep 1: the newest stays
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
