"""Updating snapshots: only the text of ``expected`` changes, in the file's own style, in one rename;
expect cases, passing cases, links and files that are not cases are never written."""

import json
import os

import pytest

from fitproof import evaluate
from fitproof._fixtures import case as _fixtures, snapshots as _snapshots

INPUT = {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokens": 4}, {"id": "é", "relevance": 8, "tokens": 5}]}
REPORT = evaluate(INPUT)
STALE = {**REPORT, "summary": "an older wording", "used": 9}


def judged(path):
    return _fixtures.judge(path, path.name)


@pytest.mark.parametrize("dump", [
    lambda case: json.dumps(case, indent=2, ensure_ascii=False) + "\n",   # how the project writes its cases
    lambda case: json.dumps(case, indent=4),                               # \u escapes, no final newline
    lambda case: json.dumps(case, indent="\t", ensure_ascii=False),
    lambda case: json.dumps(case, ensure_ascii=False),                    # one line
    lambda case: json.dumps(case, separators=(",", ":")),
    lambda case: "\ufeff" + json.dumps(case, indent=2).replace("\n", "\r\n") + "\r\n",
], ids=["indent-2", "indent-4-ascii", "tabs", "one-line", "compact", "bom-crlf"])
def test_the_rewritten_file_is_what_its_writer_would_have_written(tmp_path, dump):
    path = tmp_path / "case.json"
    path.write_bytes(dump({"description": "d", "expected": STALE, "input": INPUT}).encode("utf-8"))
    changed = _snapshots.update(path, tmp_path, judged(path))
    assert changed == ['$.summary: "an older wording" -> "Selected A within 7 tokens."', "$.used: 9 -> 4"]
    assert path.read_bytes().decode("utf-8") == dump({"description": "d", "expected": REPORT, "input": INPUT})
    assert judged(path).passed and os.listdir(tmp_path) == ["case.json"]  # no temporary file left


def test_only_expected_changes_and_the_keys_keep_their_order(tmp_path):
    path = tmp_path / "case.json"
    text = '{\n  "expected": {"pass": false},\n  "description": "kept first",\n  "input": {"budget": 7, "items": []}\n}\n'
    path.write_text(text)
    os.chmod(path, 0o640)
    _snapshots.update(path, tmp_path, judged(path))
    after = path.read_text()
    assert list(json.loads(after)) == ["expected", "description", "input"]
    assert after.endswith('  "description": "kept first",\n  "input": {"budget": 7, "items": []}\n}\n')
    assert after.startswith('{\n  "expected": {"pass": true, "summary": ')  # it was on one line: it stays on one
    assert oct(os.stat(path).st_mode & 0o777) == "0o640"


def test_what_is_not_a_failing_snapshot_is_refused(tmp_path, monkeypatch):
    passing = tmp_path / "passing.json"
    passing.write_text(json.dumps({"description": "d", "input": INPUT, "expected": REPORT}))
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"description": "d", "input": INPUT, "expect": {"used": 9}}))
    broken = tmp_path / "broken.json"
    broken.write_text('{"description": "d"}')
    for path, said in ((passing, "only a case that fails is updated"), (partial, "an expect case is never updated; edit what it states by hand"),
                       (broken, "only a case that fails is updated")):
        before = path.read_bytes()
        with pytest.raises(_snapshots.UpdateRefused, match=said):
            _snapshots.update(path, tmp_path, judged(path))
        assert path.read_bytes() == before


def test_a_report_that_lacks_tokenizer_data_is_never_written(tmp_path, monkeypatch):
    from fitproof.tokenizers import exact

    data = {"budget": 7, "tokenizer": "o200k_base", "items": [{"id": "A", "relevance": 1, "content": "hello"}]}
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"description": "d", "input": data, "expected": evaluate(data)}))
    before = path.read_bytes()
    monkeypatch.setattr(exact, "CHECKOUT_DATA", tmp_path / "none")
    monkeypatch.setattr(exact, "PACKAGED_DATA", str(tmp_path / "none"))
    monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
    monkeypatch.delenv(exact.DATA_ENV, raising=False)
    judgement = judged(path)
    assert not judgement.passed and judgement.missing_data[0].startswith("o200k_base needs o200k_base.tiktoken, not found in")
    assert judgement.outcome().detail.startswith("$.pass: expected true, got false (and 12 more differences); o200k_base needs o200k_base.tiktoken")
    with pytest.raises(_snapshots.UpdateRefused, match="tokenizer data this installation lacks"):
        _snapshots.update(path, tmp_path, judgement)
    assert path.read_bytes() == before


def test_a_link_is_never_followed_out_of_the_directory(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "case.json"
    target.write_text(json.dumps({"description": "d", "input": INPUT, "expected": STALE}))
    before = target.read_bytes()
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "link.json").symlink_to(target)
    (cases / "folder").symlink_to(outside, target_is_directory=True)
    for path, said in ((cases / "link.json", "it is a symbolic link"), (cases / "folder" / "case.json", "it lies outside")):
        with pytest.raises(_snapshots.UpdateRefused, match=said):
            _snapshots.update(path, cases, judged(path))
    assert target.read_bytes() == before and (cases / "link.json").is_symlink()


def test_changes_lists_every_changed_path():
    assert _snapshots.changes({"a": 1, "b": [1, 2], "c": {"d": True}}, {"a": 1.0, "b": [1, 3], "c": {}, "e": None}) == [
        "$.a: 1 -> 1.0", "$.b[1]: 2 -> 3", "$.c.d: true -> (gone)", "$.e: (new) null"]
    assert _snapshots.changes([1], [1, 2]) == ["$: [1] -> [1, 2]"]
    assert _snapshots.changes(REPORT, REPORT) == []
