"""Strategy stable on the page, over three calls of one chat: the prompt cache lane (the previous
call's reused prefix, the part billed as cached, the new part, on the budget's scale), the saving
and where the cut came from, all read from the report. Chromium, wide and phone."""

import pytest
from playwright.sync_api import expect

from test_page import loaded  # noqa: F401 (the module's one loaded page, a fixture)
from test_page_messages import SIZES, choose

CALLS = {5: "messages/cache-stable-call-5.json", 6: "messages/cache-stable-call-6.json", 7: "messages/cache-stable-call-7.json"}


@pytest.fixture(params=list(SIZES))
def page(loaded, request):
    page, _, problems = loaded
    page.set_viewport_size(SIZES[request.param])
    yield page
    assert problems == [], "the page logged errors"


def width_share(page, testid):
    """A lane part's width as a share of its lane's."""
    return page.eval_on_selector(
        f"[data-testid=chat-cache-lane] [data-testid={testid}]",
        "node => node.getBoundingClientRect().width / node.parentElement.getBoundingClientRect().width",
    )


@pytest.mark.parametrize("call", [5, 6])
def test_a_kept_cut_shows_the_reused_prefix_the_cached_part_and_the_saving(page, call):
    report = choose(page, CALLS[call])
    reuse = report["reuse"]
    box = page.locator("[data-testid=chat-cache]")
    expect(box).to_have_count(1)
    legend = box.locator(".legend").inner_text()
    assert f"{reuse['prefix_tokens']} tokens of this prompt's {report['tokens']} are the previous prompt's" in legend
    assert f"{reuse['cached_tokens']} billed as cached" in legend and f"{reuse['input_tokens']} as plain input" in legend
    scale = max(report["limit"], report["tokens"])
    assert width_share(page, "cache-cached") == pytest.approx(reuse["cached_tokens"] / scale, abs=0.01)
    assert width_share(page, "cache-new") == pytest.approx(reuse["new_tokens"] / scale, abs=0.01)
    saving = page.locator("[data-testid=cache-saving]").inner_text()
    saved = reuse["cost_without_caching"] - reuse["cost"]
    assert f"${reuse['cost']}" in saving and f"${reuse['cost_without_caching']}" in saving
    assert f"({round(100 * saved / reuse['cost_without_caching'])} %)" in saving
    assert "the previous one with the new turns appended" in page.locator("[data-testid=cache-cut]").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_a_new_cut_goes_down_to_the_watermark_and_caches_nothing(page):
    report = choose(page, CALLS[7])
    assert report["cut_from"] == "low_watermark" and report["reuse"]["cached_tokens"] == 0
    cut = page.locator("[data-testid=cache-cut]").inner_text()
    assert f"#{report['cut']}" in cut and "cut again" in cut and f"{report['walk_limit']} tokens" in cut
    expect(page.locator("[data-testid=chat-cache-lane] [data-testid=cache-cached]")).to_have_count(0)
    assert "the same as without caching" in page.locator("[data-testid=cache-saving]").inner_text()
    # The budget lane marks the watermark the walk ran to, and the dropped turns give the rule's reason.
    expect(page.locator("[data-testid=chat-budget] .chat-limit.watermark")).to_have_count(1)
    assert "low watermark" in page.locator("[data-testid=chat-view] .chat-budget .legend").first.inner_text()


def test_a_report_without_previous_has_no_cache_lane(page):
    choose(page, "messages/support-chat.json")
    expect(page.locator("[data-testid=chat-cache]")).to_have_count(0)
