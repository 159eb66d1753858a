"""Each mode declares its words once (``WORDS``: kept, left out, used, limit, what is listed), and
everything that names them reads them: the report itself, ``select``, the claims, the schemas'
claim shapes and the MCP tools' descriptions."""

import json

import pytest

from conftest import FIXTURES, ROOT
from fitproof import evaluate, select
from fitproof._evaluation.claims import LIST_KEY, WHAT
from fitproof.mcp_server import tools
from fitproof.modes import MODES


def first_passing_case(mode):
    for path in sorted((FIXTURES / mode).glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case.get("expected", {}).get("pass") is True or case.get("expect", {}).get("pass") is True:
            return case["input"]
    raise AssertionError(f"no passing case for {mode}")


@pytest.mark.parametrize("name", sorted(MODES))
def test_a_mode_s_report_has_the_keys_its_words_name_and_select_reads_them(name):
    words = MODES[name].WORDS
    data = first_passing_case(name)
    report = evaluate(data)
    assert report["mode"] == name and report["pass"] is True
    for key in (words.kept, words.left_out, words.used, words.limit):
        assert key in report, f"mode {name}'s report has no {key!r}"
    selection = select(data)
    assert (selection.used, selection.limit) == (report[words.used], report[words.limit])
    assert len(selection.kept) == len(report[words.kept]) and len(selection.left_out) == len(report[words.left_out])


@pytest.mark.parametrize("name", sorted(MODES))
def test_the_claims_and_the_schema_s_claim_shape_use_the_mode_s_words(name):
    words = MODES[name].WORDS
    assert (LIST_KEY[name], WHAT[name]) == (words.kept, words.listed)
    schema = json.loads((ROOT / "py" / "fitproof" / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert next(iter(schema["properties"]["claim"]["properties"])) == words.kept


def test_the_mcp_tools_name_every_mode_and_describe_each_claim_in_its_words():
    assert tuple(tools.MODES) == tuple(MODES)
    described = tools.claim_words(True)
    for name, mode in MODES.items():
        assert f"{{{mode.WORDS.kept}: [" in described and name in described
