"""A model's own tokenizer file chosen on the page: read in the browser, moved to the worker,
named for the session; the token view and the checks count with it as CPython does. And the
messages mode's images and tool definitions: shown in the conversation, counted in its budget lane."""

import json

import pytest

from conftest import ROOT
import _text
from test_page import DONE, open_page
from test_page_lesson import AXE, axe_serious

QWEN3 = ROOT / "tests" / "data" / "models" / "qwen3" / "tokenizer.json"
STATUS = "[data-testid=model-status]"
TEXT = "Résumé: the blender jar arrived cracked 🫙, 4 days late.\n<|im_start|>user\n日本語も数えます 12345"


@pytest.fixture(scope="module")
def model_page(browser, site_url):
    # axe-core served to this test's page only, from its own origin (the CSP stays as it is).
    routes = [("**/test-only/axe.min.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))]
    context, page, guard, problems = open_page(browser, site_url, routes=routes)
    page.click("[data-testid=tokens] summary")
    yield page, guard, problems
    context.close()


def choose(page, files):
    page.eval_on_selector(STATUS, "node => { node.dataset.state = 'idle'; }")  # not the previous file's answer
    page.set_input_files("[data-testid=model-file]", files)
    page.wait_for_selector(f"{STATUS}[data-state=done], {STATUS}[data-state=error]")
    return page.locator(STATUS)


def test_a_chosen_tokenizer_json_counts_as_the_package_does(model_page):
    from fitproof._envelope import check_text
    from fitproof.tokenizers import TokenizerRegistry, load_tokenizer, using_tokenizers

    page, guard, problems = model_page
    model = load_tokenizer(QWEN3, "model")
    status = choose(page, str(QWEN3))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert '"tokenizer": "model"' in status.text_content() and model.sha256 in status.text_content()
    # The token view switched to it: the count is the package's, the pieces give back the text.
    assert page.input_value("[data-testid=tokens-tokenizer]") == "model"
    page.fill("[data-testid=tokens-input]", TEXT)
    # Wait for the count and the name together: the tokenizer shown before may give the same count.
    count = page.locator(f"[data-testid=tokens-count][data-count='{model.count(TEXT)}']", has_text="(model, your file, SHA-256 ")
    count.wait_for()
    spans = page.locator("[data-testid=tokens-view] .token")
    assert "".join(spans.all_text_contents()) == TEXT
    assert spans.count() > 10
    # An input naming it is checked with it: the report equals CPython's with the same file registered.
    registry = TokenizerRegistry()
    registry.register("model", model)
    text = json.dumps(
        {
            "budget": 40,
            "tokenizer": "model",
            "items": [{"id": "a", "content": TEXT, "relevance": 3}, {"id": "b", "content": "short note", "relevance": 2}],
        }
    )
    with using_tokenizers(registry):
        expected = json.loads(check_text(text))
    assert expected["ok"] and expected["result"]["tokenizer_file"]["sha256"] == model.sha256
    assert json.loads(page.evaluate("text => window.fitproof.checkText(text)", text)) == expected
    page.fill("[data-testid=input]", text)
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)
    assert guard.foreign == [] and problems == []


def test_a_name_nothing_registered_is_refused_in_words(model_page):
    """The check can fail: the same input naming a tokenizer never chosen is an input error."""
    page, _, problems = model_page
    text = json.dumps({"budget": 40, "tokenizer": "never-chosen", "items": [{"id": "a", "content": "x", "relevance": 1}]})
    envelope = json.loads(page.evaluate("text => window.fitproof.checkText(text)", text))
    assert envelope["ok"] is False and "never-chosen" in envelope["error"]
    assert problems == []


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("notes.json", b'{"title": "not a tokenizer"}', "neither a Hugging Face tokenizer.json"),
        ("wordpiece.json", b'{"model": {"type": "WordPiece", "vocab": {}}}', "is not supported"),
        ("unigram.json", b'{"model": {"type": "Unigram", "vocab": []}}', "$.model.unk_id is None"),
        ("tokenizer.model", b"\x0a\x05ab", "protobuf byte 0: field 1 says 5 bytes"),
        ("model.gguf", b"GGUF\x03\x00\x00\x00\x02\x00", "truncated"),
        ("picture.json", b"\x89PNG\r\n\x1a\n", "not JSON"),
    ],
)
def test_a_bad_file_gets_one_line_in_words(model_page, name, data, words):
    page, guard, problems = model_page
    status = choose(page, {"name": name, "mimeType": "application/octet-stream", "buffer": data})
    text = status.text_content()
    assert status.get_attribute("data-state") == "error"
    assert words in text and name in text, text
    assert "\n" not in text.strip() and "Traceback" not in text
    assert guard.foreign == [] and problems == []


def test_a_chosen_gguf_file_counts_as_its_header_says(model_page, tmp_path):
    """A GGUF model file (written here with PyPI gguf from the same tokenizer.json): its header read in the page."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "package"))
    from model_files import write_gguf

    from fitproof.tokenizers import load_tokenizer

    page, guard, problems = model_page
    path = tmp_path / "qwen3-test.gguf"
    write_gguf(path, "qwen3")
    model = load_tokenizer(path, "qwen3-test")
    status = choose(page, str(path))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert '"tokenizer": "qwen3-test"' in status.text_content() and model.sha256 in status.text_content()
    page.fill("[data-testid=tokens-input]", TEXT)
    page.locator(
        f"[data-testid=tokens-count][data-count='{model.count(TEXT)}']", has_text="(qwen3-test, your file"
    ).wait_for()  # the count and the name together
    assert guard.foreign == [] and problems == []


def test_a_chosen_sentencepiece_model_file_counts_as_the_package_does(model_page, tmp_path):
    """A SentencePiece .model file (trained here, offline, as the package tests train them): read by
    the protobuf reader in the page's Python, its counts and tokens the package's."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "package"))
    from model_files import trained

    from fitproof.tokenizers import load_tokenizer

    page, guard, problems = model_page
    path = tmp_path / "spm-test.model"
    path.write_bytes(trained("unigram, byte fallback, identity"))
    model = load_tokenizer(path, "spm-test")
    status = choose(page, str(path))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert '"tokenizer": "spm-test"' in status.text_content() and model.sha256 in status.text_content()
    page.fill("[data-testid=tokens-input]", TEXT)
    page.locator(f"[data-testid=tokens-count][data-count='{model.count(TEXT)}']", has_text="(spm-test, your file").wait_for()
    assert guard.foreign == [] and problems == []


GEMMA3 = ROOT / "tests" / "data" / "models" / "gemma3" / "tokenizer.json"


def test_gemma_3s_tokenizer_json_counts_in_the_page_as_hugging_faces_tokenizers(model_page, tmp_path):
    """Gemma 3's tokenizer.json (33 MB, SentencePiece BPE with byte fallback), the file Gemini's
    local tokenizer is built on: chosen on the page, counted by the page's Python exactly as
    ``tokenizers`` 0.23.3 counts it."""
    from tokenizers import Tokenizer

    page, guard, problems = model_page
    path = tmp_path / "gemma3.json"  # the file's name is the name it is given on the page
    path.write_bytes(GEMMA3.read_bytes())
    text = TEXT + "\n  two  spaces,\ttabs, \u0000 and a character no piece holds: \U000e0041"
    expected = len(Tokenizer.from_file(str(GEMMA3)).encode(text, add_special_tokens=False).ids)
    status = choose(page, str(path))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert '"tokenizer": "gemma3"' in status.text_content()
    page.fill("[data-testid=tokens-input]", text)
    page.locator(f"[data-testid=tokens-count][data-count='{expected}']", has_text="(gemma3, your file").wait_for()
    assert guard.foreign == [] and problems == []


def t5_file(path):
    """A T5-family tokenizer.json, as transformers' converter writes one (Precompiled, Strip, Replace;
    WhitespaceSplit, Metaspace), of a small Unigram model trained here with its nmt_nfkc map;
    and ``tokenizers``' own Tokenizer of it."""
    import io

    import sentencepiece
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from fitproof.tokenizers.sentencepiece_model_file import _read

    lines = [line for line in _text.mixed_text(300_000).splitlines() if line.strip()]
    writer = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=writer, model_type="unigram", vocab_size=300, minloglevel=2, num_threads=1
    )
    spm = sentencepiece.SentencePieceProcessor(model_proto=writer.getvalue())
    pieces = [(spm.id_to_piece(i), spm.get_score(i)) for i in range(spm.get_piece_size())]
    reference = Tokenizer(models.Unigram(pieces, unk_id=spm.unk_id()))
    reference.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(_read(writer.getvalue(), "trained")["charsmap"]),
            normalizers.Strip(left=False, right=True),
            normalizers.Replace(" {2,}", "\u2581"),
        ]
    )
    reference.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")]
    )
    reference.save(str(path))
    return reference


def test_a_t5_tokenizer_json_counts_in_the_page_as_hugging_faces_tokenizers(model_page, tmp_path):
    """A T5-family file: its Precompiled map applied per grapheme cluster, in the page's Python
    (Pyodide) exactly as ``tokenizers`` applies it (ligature + accent, full width, Hangul + mark,
    a Prepend before letters, an emoji with its skin tone)."""
    page, guard, problems = model_page
    path = tmp_path / "t5small.json"
    reference = t5_file(path)
    text = "Ｆｕｌｌ　ｗｉｄｔｈ \ufb01\u0301 cafe\u0301 \u2460 \uac00\u0301 \u0600ab \U0001f44d\U0001f3fd  x " + TEXT
    expected = len(reference.encode(text, add_special_tokens=False).ids)
    status = choose(page, str(path))
    assert status.get_attribute("data-state") == "done", status.text_content()
    assert "SentencePiece Unigram" in status.text_content()
    page.fill("[data-testid=tokens-input]", text)
    page.locator(f"[data-testid=tokens-count][data-count='{expected}']", has_text="(t5small, your file").wait_for()
    assert guard.foreign == [] and problems == []


DROP = """([name, text]) => {
  const transfer = new DataTransfer();
  transfer.items.add(new File([text], name, { type: "application/json" }));
  document.getElementById("model-drop").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
}"""


def test_a_file_dropped_on_the_box_is_read_too(model_page):
    page, guard, problems = model_page
    page.eval_on_selector(STATUS, "node => { node.dataset.state = 'idle'; }")
    page.evaluate(DROP, ["dropped.json", "[1, 2, 3]"])
    page.wait_for_selector(f"{STATUS}[data-state=error]")
    assert page.text_content(STATUS) == "dropped.json: a JSON list, not a tokenizer file (an object)"
    assert guard.foreign == [] and problems == []


# ------------------------------------------------------------ images and tool definitions
IMAGES_AND_TOOLS = "messages/image-and-tool-definition.json"


def test_images_and_tool_definitions_are_parts_of_the_conversation_and_its_lane(model_page):
    from fitproof._fixtures import case as _fixtures
    from fitproof._envelope import check_text

    page, guard, problems = model_page
    examples = json.loads((ROOT / "web" / "examples.json").read_text())
    index = next(i for i, example in enumerate(examples) if example.get("fixture") == IMAGES_AND_TOOLS)
    data = _fixtures.load(ROOT / "fixtures" / IMAGES_AND_TOOLS)["input"]
    report = json.loads(check_text(json.dumps(data)))["result"]
    page.eval_on_selector("[data-testid=summary]", "node => { node.dataset.state = 'stale'; }")
    page.select_option("[data-testid=example]", str(index))
    page.wait_for_selector(DONE)
    assert page.text_content("[data-testid=summary]") == report["summary"]
    view = page.locator("[data-testid=chat-view]")
    # Each image part as a chip in its message: its size, or counted at the most without one.
    chips = view.locator("[data-testid=chat-message][data-index='3'] [data-testid=chat-image]")
    assert chips.all_text_contents() == ["image 16×8, detail auto: 255 tokens", "image, size unknown: counted at the most, 1,445 tokens"]
    assert [image["tokens"] for image in report["images"]] == [255, 1445]
    assert view.locator("[data-testid=chat-image]").count() == len(report["images"])
    # The tool definitions: a pinned block at the top of the conversation, with their tokens.
    tools = view.locator(".chat > :first-child")
    assert tools.get_attribute("data-testid") == "chat-tools"
    text = tools.inner_text()
    assert "lookup_order: 35 tokens" in text and "47 tokens" in text and "pinned" in text
    # The lane: priming, then the tools, the pinned system message, the live turn with its images inside.
    lane = view.locator("[data-testid=chat-budget]")
    parts = lane.locator(".chat-part")
    classes = parts.evaluate_all("nodes => nodes.map(n => n.className.split(' ')[1])")
    assert classes[:4] == ["priming", "tools", "pinned", "live"] and classes.count("image") == 2
    assert lane.locator(".chat-part.tools").get_attribute("title") == f"tool definitions, pinned: {report['tools_tokens']} tokens"
    priming, tool_part, live = (lane.locator(f".chat-part.{name}").bounding_box() for name in ("priming", "tools", "live"))
    assert abs(tool_part["x"] - (priming["x"] + priming["width"])) < 1.5  # right after the priming
    for image in lane.locator(".chat-part.image").all():
        inside = image.bounding_box()
        assert live["x"] - 1 <= inside["x"] and inside["x"] + inside["width"] <= live["x"] + live["width"] + 1
    titles = lane.locator(".chat-part.image").evaluate_all("nodes => nodes.map(n => n.title)")
    assert titles == ["#3: image 16×8, detail auto: 255 tokens", "#3: image, size unknown: counted at the most, 1,445 tokens"]
    key = view.locator(".chat-key").inner_text()
    assert "tool definitions (47)" in key and "images, inside their message" in key and "the live turn" in key
    assert "tool definitions (47)" in lane.get_attribute("aria-label")
    # Readable in both colour schemes (axe-core's contrast and the rest).
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found, _ = axe_serious(page, scheme)
        assert found == []
    page.emulate_media(color_scheme="light")
    assert guard.foreign == [] and problems == []


def test_a_conversation_without_images_or_tools_shows_neither(model_page):
    """The chips and the tools block come from the report: a plain chat has none of them."""
    page, _, problems = model_page
    text = json.dumps({"mode": "messages", "limit": 200, "messages": [{"role": "user", "content": "Hello there"}]})
    page.fill("[data-testid=input]", text)
    page.click("[data-testid=run]")
    page.wait_for_selector(DONE)
    view = page.locator("[data-testid=chat-view]")
    view.wait_for()
    assert view.locator("[data-testid=chat-image]").count() == 0 and view.locator("[data-testid=chat-tools]").count() == 0
    assert view.locator(".chat-part.tools, .chat-part.image").count() == 0
    assert view.locator(".chat-part.live").count() == 1
    assert problems == []


def test_the_chosen_tokenizer_lasts_as_long_as_the_page(model_page):
    """Nothing is stored: after a reload the name is unknown again (this test reloads: keep it last)."""
    from test_page import READY

    page, guard, problems = model_page
    if page.locator("[data-testid=tokens-tokenizer] option[value=model]").count() == 0:
        choose(page, str(QWEN3))  # run alone: choose it first
    text = json.dumps({"budget": 40, "tokenizer": "model", "items": [{"id": "a", "content": "x", "relevance": 1}]})
    assert json.loads(page.evaluate("text => window.fitproof.checkText(text)", text))["ok"] is True
    page.reload()
    page.wait_for_selector(READY)
    page.wait_for_selector(DONE)
    envelope = json.loads(page.evaluate("text => window.fitproof.checkText(text)", text))
    assert envelope["ok"] is False and '"model"' in envelope["error"]
    assert page.locator("[data-testid=tokens-tokenizer] option[value=model]").count() == 0
    assert guard.foreign == [] and problems == []
