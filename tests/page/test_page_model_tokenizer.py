"""A model's own tokenizer file chosen on the page: read in the browser, moved to the worker,
named for the session; the token view and the checks count with it as CPython does."""

import json

import pytest

from conftest import ROOT
from test_page import DONE, open_page

QWEN3 = ROOT / "tests" / "data" / "models" / "qwen3" / "tokenizer.json"
STATUS = "[data-testid=model-status]"
TEXT = "Résumé: the blender jar arrived cracked 🫙, 4 days late.\n<|im_start|>user\n日本語も数えます 12345"


@pytest.fixture(scope="module")
def model_page(browser, site_url):
    context, page, guard, problems = open_page(browser, site_url)
    page.click("[data-testid=tokens] summary")
    yield page, guard, problems
    context.close()


def choose(page, files):
    page.set_input_files("[data-testid=model-file]", files)
    page.wait_for_selector(f"{STATUS}[data-state=done], {STATUS}[data-state=error]")
    return page.locator(STATUS)


def test_a_chosen_tokenizer_json_counts_as_the_package_does(model_page):
    from context_budget._envelope import check_text
    from context_budget.tokenizers import TokenizerRegistry, load_tokenizer, using_tokenizers

    page, guard, problems = model_page
    model = load_tokenizer(QWEN3, "model")
    status = choose(page, str(QWEN3))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert '"tokenizer": "model"' in status.text_content() and model.sha256 in status.text_content()
    # The token view switched to it: the count is the package's, the pieces give back the text.
    assert page.input_value("[data-testid=tokens-tokenizer]") == "model"
    page.fill("[data-testid=tokens-input]", TEXT)
    count = page.locator(f"[data-testid=tokens-count][data-count='{model.count(TEXT)}']")
    count.wait_for()
    assert "(model, your file, SHA-256 " in count.text_content()
    spans = page.locator("[data-testid=tokens-view] .token")
    assert "".join(spans.all_text_contents()) == TEXT
    assert spans.count() > 10
    # An input naming it is checked with it: the report equals CPython's with the same file registered.
    registry = TokenizerRegistry()
    registry.register("model", model)
    text = json.dumps({"budget": 40, "tokenizer": "model", "items": [
        {"id": "a", "content": TEXT, "relevance": 3}, {"id": "b", "content": "short note", "relevance": 2}]})
    with using_tokenizers(registry):
        expected = json.loads(check_text(text))
    assert expected["ok"] and expected["result"]["tokenizer_file"]["sha256"] == model.sha256
    assert json.loads(page.evaluate("text => window.contextBudget.checkText(text)", text)) == expected
    page.fill("[data-testid=input]", text)
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)
    assert guard.foreign == [] and problems == []


def test_a_name_nothing_registered_is_refused_in_words(model_page):
    """The check can fail: the same input naming a tokenizer never chosen is an input error."""
    page, _, problems = model_page
    text = json.dumps({"budget": 40, "tokenizer": "never-chosen", "items": [{"id": "a", "content": "x", "relevance": 1}]})
    envelope = json.loads(page.evaluate("text => window.contextBudget.checkText(text)", text))
    assert envelope["ok"] is False and "never-chosen" in envelope["error"]
    assert problems == []


@pytest.mark.parametrize("name, data, words", [
    ("notes.json", b'{"title": "not a tokenizer"}', "neither a Hugging Face tokenizer.json"),
    ("unigram.json", b'{"model": {"type": "Unigram", "vocab": []}}', "is not supported"),
    ("model.gguf", b"GGUF\x03\x00\x00\x00\x02\x00", "truncated"),
    ("picture.json", b"\x89PNG\r\n\x1a\n", "not JSON"),
])
def test_a_bad_file_gets_one_line_in_words(model_page, name, data, words):
    page, guard, problems = model_page
    status = choose(page, {"name": name, "mimeType": "application/octet-stream", "buffer": data})
    text = status.text_content()
    assert status.get_attribute("data-state") == "error"
    assert words in text and name in text, text
    assert "\n" not in text.strip() and "Traceback" not in text
    assert guard.foreign == [] and problems == []
