"""The exact tokenizers where counts are made: the count command, the modes, and their checks."""

import copy
import json
from pathlib import Path

import pytest

import _text
from conftest import ROOT
from fitproof import evaluate, tokenizers
from fitproof.tokenizers import exact


REFUND = json.loads((ROOT / "examples" / "refund-case.json").read_text(encoding="utf-8"))


def test_evaluate_without_rank_files_reports_the_path_never_raises(monkeypatch, tmp_path):
    monkeypatch.setattr(exact, "CHECKOUT_DATA", tmp_path / "none")
    monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
    monkeypatch.delenv(exact.DATA_ENV, raising=False)
    cases = {
        "$.tokenizer": [
            {"budget": 5, "tokenizer": "o200k_base", "items": []},
            {"mode": "required", "budget": 5, "tokenizer": "o200k_base", "items": []},
            {**REFUND, "tokenizer": "cl100k_base"},
            {"mode": "messages", "limit": 10, "tokenizer": "o200k_base", "messages": [{"role": "user", "content": "hi"}]},
            {"mode": "messages", "limit": 10, "messages": [{"role": "user", "content": "hi"}]},  # o200k_base by default
        ],
        "$.counter": [{"mode": "passages", "question": "q", "limit": 9, "counter": "o200k_base", "passages": []}],
    }
    for path, inputs in cases.items():
        for data in inputs:
            report = evaluate(data)
            assert report["pass"] is False and report["errors"][0]["path"] == path
            assert "not found in" in report["errors"][0]["message"]
            # The input is fine, this installation is not: the summary says so, never "Input needs a
            # non-negative integer budget and items array.".
            assert report["summary"] == f"The {data.get('tokenizer', data.get('counter', 'o200k_base'))} tokenizer is not available here."
    # An unknown name is the input's fault: the mode's summary of what it needs stays.
    assert evaluate({"budget": 5, "tokenizer": "gpt2", "items": []})["summary"].startswith("Input needs")


def test_counted_input_is_not_mutated():
    data = {"budget": 20, "tokenizer": "o200k_base", "items": [{"id": "a", "relevance": 1, "content": "hello world"}]}
    before = copy.deepcopy(data)
    report = evaluate(data)
    assert data == before and report["trace"][0]["tokens"] == 2 and report["counted"] == ["a"]


def failing(report):
    return [check["name"] for check in report["checks"] if not check["pass"]]


def test_relevance_checks_fail_when_a_counted_cost_is_misreported():
    from fitproof._shared.counted import with_counts
    from fitproof.modes import relevance

    data = {
        "budget": 3,
        "tokenizer": "o200k_base",
        "items": [{"id": "a", "relevance": 2, "content": "hello world"}, {"id": "b", "relevance": 1, "content": "one two"}],
    }
    counted, _, _ = with_counts(data, "tokens", relevance.INPUT_SUMMARY)
    result = relevance.run(counted)
    assert all(check["pass"] for check in relevance.verify(counted, result))
    result["trace"][1]["kept"] = True  # b (2 tokens) claimed to fit the 1 left
    assert "deterministic relevance order" in [c["name"] for c in relevance.verify(counted, result) if not c["pass"]]


@pytest.mark.parametrize("name", exact.EXACT)
def test_blocks_checks_recount_with_the_tokenizer(name):
    from fitproof.modes import blocks

    data = {**REFUND, "tokenizer": name}
    result = blocks.run(data)
    assert all(check["pass"] for check in blocks.verify(data, result))
    wrong = copy.deepcopy(result)
    wrong["included"][2]["tokens"] = 48  # the estimate's count of ORDER_DATA, not the tokenizer's
    assert "context budget" in [c["name"] for c in blocks.verify(data, wrong) if not c["pass"]]
    wrong = copy.deepcopy(result)
    wrong["rendered_tokens"] += 1
    failed = [c for c in blocks.verify(data, wrong) if not c["pass"]]
    assert [c["name"] for c in failed] == ["rendered prompt fits window"] and "re-counts to" in failed[0]["detail"]


def test_blocks_exact_counts_list_no_flips_and_say_so():
    report = evaluate({**REFUND, "tokenizer": "o200k_base", "margin": 0.5})
    assert report["sensitivity"]["exact"] is True and report["sensitivity"]["flips"] == []
    estimated = evaluate({**REFUND, "margin": 0.5})
    assert "exact" not in estimated["sensitivity"]


def test_passages_check_recounts_the_prompt_with_the_tokenizer():
    from fitproof.modes import passages

    data = {
        "mode": "passages",
        "question": "q",
        "limit": 30,
        "counter": "cl100k_base",
        "passages": [{"id": "a", "text": "hello world"}, {"id": "b", "text": "日本語のテキストです。"}],
    }
    result = passages.run(data)
    assert all(check["pass"] for check in passages.verify(data, result))
    result["units"] -= 1
    assert "prompt within limit" in [c["name"] for c in passages.verify(data, result) if not c["pass"]]


def test_page_helper_names_only_what_an_input_needs(monkeypatch):
    from fitproof import _page

    monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
    assert _page.tokenizers_needed('{"mode": "blocks", "tokenizer": "cl100k_base"}') == ["cl100k_base"]
    assert _page.tokenizers_needed('{"mode": "passages", "counter": "o200k_base"}') == ["o200k_base"]
    assert _page.tokenizers_needed('{"mode": "messages", "limit": 9, "messages": []}') == ["o200k_base"]
    assert _page.tokenizers_needed('{"items": [{"content": "say o200k_base"}]}') == []  # in content, not a setting
    assert _page.tokenizers_needed("[" * 5000 + '"o200k_base"') == []  # deep nesting is never parsed
    path = Path(exact.rank_file("cl100k_base"))
    assert _page.provide_ranks("cl100k_base", b"IQ== 0\n").startswith("cl100k_base's rank file has SHA-256")
    assert _page.provide_ranks("cl100k_base", path.read_bytes()) == ""
    assert _page.tokenizers_needed('{"tokenizer": "cl100k_base"}') == []
    parsed = []  # the check parses the text anyway: here only when a named tokenizer is not loaded
    monkeypatch.setattr(_page._strict_json, "loads", lambda text: parsed.append(text) or json.loads(text))
    assert _page.tokenizers_needed('{"tokenizer": "cl100k_base", "items": []}') == [] and parsed == []
    assert _page.tokenizers_needed('{"tokenizer": "o200k_base", "items": []}') == ["o200k_base"] and len(parsed) == 1
    escaped = '{"tokenizer": "o200k\\u005fbase", "items": [{"id": "a", "content": "cl100k_base"}]}'  # a JSON escape
    assert _page.tokenizers_needed(escaped) == ["o200k_base"]


def test_token_view_segments_add_up_to_the_count():
    from fitproof import _page

    for text in ["", "plain words", "日本語のテキスト", "👨‍👩‍👧 family", "\ud800 lone", _text.mixed_text(2000, seed=9)]:
        view = json.loads(_page.token_view(text, "o200k_base"))
        assert view["count"] == tokenizers.count_tokens(text) == sum(s["tokens"] for s in view["segments"])
        assert "".join(s["text"] for s in view["segments"]) == exact.without_lone_surrogates(text).replace("\ud800", "\ufffd")


@pytest.mark.parametrize("rank_files", ["installed", "missing"])
def test_only_an_unloadable_tokenizer_gets_the_not_available_summary(monkeypatch, tmp_path, rank_files):
    """With the rank files installed, an unknown "counter" key holding a tokenizer's name (or "tokenizer" in
    passages) is not summarised as "The ... tokenizer is not available here."."""
    if rank_files == "missing":
        monkeypatch.setattr(exact, "CHECKOUT_DATA", tmp_path / "none")
        monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
        monkeypatch.delenv(exact.DATA_ENV, raising=False)
    misplaced = [
        {"budget": 5, "items": [], "counter": "cl100k_base"},
        {"mode": "passages", "question": "q", "limit": 9, "counter": "words", "tokenizer": "o200k_base", "passages": []},
    ]
    for data in misplaced:
        report = evaluate(data)
        assert report["summary"].startswith("Input needs") and "unknown key" in report["errors"][0]["message"]


@pytest.mark.parametrize(
    "mode, item",
    [
        ("relevance", {"id": "", "relevance": "x", "tokens": -5}),
        ("required", {"id": "", "priority": "x", "cost": -5}),
    ],
)
def test_a_bad_tokenizer_is_reported_with_every_other_problem(mode, item):
    """It does not hide the rest ("every problem is reported"); an item with content but no
    count is not one of them: the tokenizer would have counted it."""
    data = {
        "mode": mode,
        "budget": -1,
        "tokenizer": "bogus",
        "extra": 1,
        "items": [item, {"id": "c", "relevance": 1, "priority": 1, "content": "hi"}],
    }
    del data["items"][1]["priority" if mode == "relevance" else "relevance"]
    paths = [error["path"] for error in evaluate(data)["errors"]]
    assert paths[0] == "$.tokenizer"
    assert {"$.extra", "$.budget", "$.items[0].id"} <= set(paths)
    assert "$.items[1]" not in paths, evaluate(data)["errors"]


@pytest.mark.parametrize("mode", ["relevance", "required"])
def test_a_misspelt_tokenizer_key_gets_its_suggestion(mode):
    errors = evaluate({"mode": mode, "budget": 1, "tokenizr": "o200k_base", "items": []})["errors"]
    assert errors == [
        {"path": "$.tokenizr", "message": 'unknown key "tokenizr" (did you mean "tokenizer"? expected mode, budget, items, tokenizer)'}
    ]


def test_the_other_mode_hint_holds_with_a_tokenizer():
    data = {"mode": "required", "tokenizer": "o200k_base", "budget": 5, "items": [{"id": "a", "relevance": 1, "content": "hello"}]}
    assert evaluate(data)["errors"][0] == {
        "path": "$.mode",
        "message": 'this input is valid in mode "relevance", not "required": set "mode": "relevance"',
    }
    assert evaluate({**data, "mode": "relevance"})["pass"] is True


def test_a_misspelt_messages_tokenizer_gets_its_suggestion():
    report = evaluate({"mode": "messages", "limit": 10, "tokenizer": "o200k", "messages": [{"role": "user", "content": "hi"}]})
    assert report["errors"][0]["message"].endswith('got "o200k"; did you mean "o200k_base"?')
