"""One vocabulary: each mode's names for its report's keys are declared once, in Python
(``fitproof.modes.MODES[name].WORDS``); the site's builder writes them for the page
(``common/modes_words.json``) and web/common/modes.js reads them there, with no table of its own."""

import dataclasses
import json
import re
import urllib.request

from conftest import ROOT
from fitproof._site import bundle
from fitproof.modes import MODES
from fitproof.modes.protocol import Words

DECLARED = {name: {field.name: getattr(mode.WORDS, field.name) for field in dataclasses.fields(Words)} for name, mode in MODES.items()}

# modes.js as the page and the report store import it: its WORDS, and each mode's capacity read
# from a report that holds only the mode's own name for its limit.
READ_MODES = """async () => {
  const modes = await import(new URL("common/modes.js", location.href));
  const capacity = Object.fromEntries(Object.entries(modes.MODES).map(([name, mode]) =>
    [name, mode.capacity({ mode: name, [modes.WORDS[name].limit]: 42 })]));
  return { words: modes.WORDS, capacity };
}"""


def test_the_site_map_writes_every_modes_words_as_the_mode_declares_them():
    files = bundle.site_map(snapshot=False)
    assert json.loads(files[bundle.MODES_WORDS]) == DECLARED
    assert set(DECLARED) == set(MODES) and DECLARED["blocks"]["limit"] == "available"  # not a copy of one mode's
    assert not (ROOT / "web" / bundle.MODES_WORDS).exists()  # generated, never a file of the checkout


def test_serve_sends_the_same_words(site_url):
    with urllib.request.urlopen(site_url + bundle.MODES_WORDS) as response:
        assert response.headers["Content-Type"].startswith("application/json")  # a JSON module needs it
        assert json.loads(response.read()) == DECLARED


def test_modes_js_keeps_no_table_of_the_report_s_key_names():
    source = (ROOT / "web" / "common" / "modes.js").read_text(encoding="utf-8")
    limits = {words["limit"] for words in DECLARED.values()} | {words["used"] for words in DECLARED.values()}
    assert re.findall(rf"report\.({'|'.join(sorted(limits))})\b", source) == []
    assert 'from "./modes_words.json" with { type: "json" }' in source


def test_the_page_reads_the_words_the_site_gives_it(browser, site_url):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(site_url + "?view=tool")
        shown = page.evaluate(READ_MODES)
        assert shown["words"] == DECLARED
        assert shown["capacity"] == {**{name: 42 for name in MODES}, "messages": None}  # chat.js draws its own lane
    finally:
        context.close()


def test_a_word_renamed_in_the_words_is_the_one_the_page_reads(browser, site_url):
    """No fallback: with blocks' limit called `room`, modes.js reads `room`."""
    renamed = {**DECLARED, "blocks": {**DECLARED["blocks"], "limit": "room"}}
    context = browser.new_context()
    context.route(f"**/{bundle.MODES_WORDS}", lambda route: route.fulfill(content_type="application/json", body=json.dumps(renamed)))
    try:
        page = context.new_page()
        page.goto(site_url + "?view=tool")
        shown = page.evaluate(READ_MODES)
        assert shown["words"]["blocks"]["limit"] == "room" and shown["capacity"]["blocks"] == 42
        assert (
            page.evaluate("""() => import(new URL("common/modes.js", location.href))
          .then((modes) => modes.MODES.blocks.capacity({ mode: "blocks", available: 7 }))""")
            is None
        )
    finally:
        context.close()
