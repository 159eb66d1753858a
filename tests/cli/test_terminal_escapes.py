"""Every line a command writes to a terminal is escaped the same way: block ids in compose's
summary, a site's directory name, bidirectional controls in a model's answer."""

import io
import json
import re

from conftest import ROOT
from fitproof.cli import run
from fitproof.cli._streams import printable

ESCAPES = "\u001b]0;owned\u0007\u001b[31mRED"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_compose_escapes_block_ids_in_its_summary_on_stderr(tmp_path):
    document = json.loads((ROOT / "examples" / "refund-case.json").read_text())
    document["blocks"][0]["id"] = ESCAPES
    failing = {**document, "claim": {"included": [ESCAPES], "used": 1}}  # the check fails: the summary names the ids
    for environ, sent in (
        ({"FITPROOF_CONTEXT_TOKENS": "850", "FITPROOF_FIXED_PROMPT_TOKENS": "470"}, document),
        ({}, document),
        ({}, failing),
    ):
        path = tmp_path / "input.json"
        path.write_text(json.dumps(sent))
        stdout, stderr = io.StringIO(), io.StringIO()
        run(["compose", str(path)], io.BytesIO(b""), stdout, stderr, environ)
        assert not RAW.search(stderr.getvalue().replace("\n", "")), stderr.getvalue()
        assert not RAW.search(stdout.getvalue().replace("\n", "").replace("\t", ""))
    assert "The claim fails" in stderr.getvalue() and "]0;owned" in stderr.getvalue()  # shown, escapes removed


def test_bidirectional_controls_are_removed():
    text = "refund \u202eapproved\u202c \u2066x\u2067y\u2068z\u2069 \u200f\u061c done"
    assert printable(text) == "refund approved xyz  done"


def test_build_site_success_message_escapes_the_directory(tmp_path):
    target = tmp_path / "site\u001b[2J\u001b]0;owned\u0007"
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["build-site", str(target)], io.BytesIO(), stdout, stderr) == 0, stderr.getvalue()
    assert "Wrote " in stdout.getvalue() and not RAW.search(stdout.getvalue().replace("\n", ""))
