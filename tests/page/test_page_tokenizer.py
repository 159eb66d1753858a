"""The exact tokenizers in the page (Pyodide): the same counts as tiktoken, the rank files fetched on demand."""

import json
import re

import pytest
from playwright.sync_api import expect

from conftest import ROOT
from test_page import check, open_page

COUNTS = json.loads((ROOT / "tests" / "data" / "token_counts.json").read_text(encoding="utf-8"))
REFUND = json.loads((ROOT / "examples" / "refund-case.json").read_text(encoding="utf-8"))

# A worker of the page's own, asked directly: {type: "count"} answers a JSON list of counts.
ASK_WORKER = """async ([kind, text, key]) => {
  const worker = new Worker(new URL("worker.js", location.href), { type: "module" });
  const progress = [];
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => {
        if (data.type === "ready") worker.postMessage({ type: kind, id: 1, text, key });
        else if (data.type === "tokenizer") progress.push([data.loaded, data.total]);
        else if (data.type === "error") reject(new Error(data.message));
        else if (data.type === "result") resolve({ ...data, progress });
      };
    });
  } finally {
    worker.terminate();
  }
}"""


@pytest.fixture(scope="module")
def tokenizer_page(browser, site_url):
    context, page, guard, problems = open_page(browser, site_url)
    yield page, guard, problems
    context.close()


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_page_counts_equal_tiktokens(tokenizer_page, name):
    """tests/data/token_counts.json holds tiktoken's own counts (checked in CPython by test_tokenizer.py)."""
    page, guard, problems = tokenizer_page
    texts = [case["text"] for case in COUNTS]
    answer = page.evaluate(ASK_WORKER, ["count", json.dumps(texts), name])
    assert "failure" not in answer, answer
    assert json.loads(answer["envelope"]) == [case[name] for case in COUNTS]
    loaded, total = answer["progress"][-1]  # the rank file came with progress, to the last byte
    assert loaded == total > 1_000_000
    assert guard.foreign == [] and problems == []


def test_page_token_view_cuts_text_at_token_boundaries(tokenizer_page):
    page, _, _ = tokenizer_page
    answer = page.evaluate(ASK_WORKER, ["tokens", "Hello 日本語 👍🏽 world", "o200k_base"])
    view = json.loads(answer["envelope"])
    assert view["count"] == 7 and view["estimate"] == 5
    assert "".join(segment["text"] for segment in view["segments"]) == "Hello 日本語 👍🏽 world"
    assert any(
        segment["text"] == "🏽" and segment["tokens"] == 2 == len(segment["ids"]) for segment in view["segments"]
    )  # two tokens inside one character, shown as one


def test_page_checks_the_refund_case_counted_exactly(tokenizer_page):
    page, _, problems = tokenizer_page
    check(page, json.dumps({**REFUND, "tokenizer": "o200k_base"}))
    assert "229 of 680 available tokens" in page.text_content("[data-testid=summary]")
    # The status line keeps the version it showed at "ready"; the tokenizer's arrival is added to it.
    expect(page.locator("[data-testid=status-detail]")).to_contain_text("fitproof ")
    expect(page.locator("[data-testid=status]")).to_contain_text(re.compile(r"The (o200k|cl100k)_base tokenizer is loaded\."))
    check(page, json.dumps(REFUND))
    assert "255 of 680 available tokens" in page.text_content("[data-testid=summary]")
    assert problems == []


def test_a_pasted_text_counts_as_the_cli_counts(tokenizer_page):
    """A new user opens "Count tokens exactly", pastes text, picks a tokenizer: the CLI's count."""
    import io

    from fitproof.cli import run

    page, _, problems = tokenizer_page
    text = "Résumé: the blender jar arrived cracked 🫙, 4 days late.\n\n日本語も数えます。  "
    page.click("[data-testid=tokens] summary")
    for name in ("cl100k_base", "o200k_base"):
        out = io.StringIO()
        assert run(["count", "-", "--tokenizer", name], io.BytesIO(text.encode()), out, io.StringIO()) == 0
        page.select_option("[data-testid=tokens-tokenizer]", name)
        page.fill("[data-testid=tokens-input]", text)
        # The count and the name together: both tokenizers may give this text the same count.
        count = page.locator(f"[data-testid=tokens-count][data-count='{out.getvalue().strip()}']", has_text=f"({name}, exact)")
        count.wait_for()
        spans = page.locator("[data-testid=tokens-view] .token")
        assert "".join(spans.all_text_contents()) == text
        assert spans.first.get_attribute("class").startswith("token token-a")
    assert problems == []


def test_an_item_of_the_input_can_be_picked(tokenizer_page):
    page, _, problems = tokenizer_page
    check(page, json.dumps(REFUND))
    page.click("[data-testid=tokens-item]")  # focusing it reads the items of the current input
    page.select_option("[data-testid=tokens-item]", label="ORDER_DATA")
    page.locator("[data-testid=tokens-count][data-count='61']").wait_for()
    assert "the estimate says 48" in page.text_content("[data-testid=tokens-count]")
    assert problems == []


CONCURRENT = """async ([texts]) => {
  const worker = new Worker(new URL("worker.js", location.href), { type: "module" });
  try {
    await new Promise((resolve) => { worker.onmessage = ({ data }) => { if (data.type === "ready") resolve(); }; });
    const answers = new Map();
    const done = new Promise((resolve) => {
      worker.onmessage = ({ data }) => {
        if (data.type !== "result") return;
        answers.set(data.id, data);
        if (answers.size === texts.length) resolve();
      };
    });
    texts.forEach((text, index) => worker.postMessage({ type: "check", id: index, text }));
    await done;
    return texts.map((_, index) => answers.get(index));
  } finally {
    worker.terminate();
  }
}"""


def test_concurrent_checks_share_one_download_of_a_rank_file(tokenizer_page):
    """Every fixture sent at once (as a page test does) fetches each rank file once, and all answer."""
    from fitproof._envelope import check_text

    page, _, problems = tokenizer_page
    fetched = []
    page.on("request", lambda request: request.url.endswith(".tiktoken") and fetched.append(request.url))
    texts = [json.dumps({**REFUND, "tokenizer": "cl100k_base", "system": f"case {n}"}) for n in range(12)]
    answers = page.evaluate(CONCURRENT, [texts])
    assert [json.loads(answer["envelope"]) for answer in answers] == [json.loads(check_text(text)) for text in texts]
    assert len(fetched) == 1 and fetched[0].endswith("/tokenizers/cl100k_base.tiktoken")
    assert problems == []


def test_both_numbers_of_a_long_count_have_thousands_separators(tokenizer_page):
    """The exact count and the estimate are told apart, never "20,001 tokens ... the estimate says 25000"."""
    page, _, problems = tokenizer_page
    if page.get_attribute("[data-testid=tokens]", "open") is None:
        page.click("[data-testid=tokens] summary")
    page.select_option("[data-testid=tokens-tokenizer]", "o200k_base")
    page.fill("[data-testid=tokens-input]", "word " * 3000)
    count = page.locator("[data-testid=tokens-count][data-state=done]")
    expect(count).to_contain_text("3,001 tokens")  # the trailing space is a token of its own
    assert re.search(r"the estimate says \d,\d{3}", count.text_content()), count.text_content()
    assert problems == []
