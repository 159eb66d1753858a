"""The per-line work on Dask: two worker processes give the CLI's envelopes, a bad line in its place."""

import io
import json
import sys

import pytest

from conftest import ROOT
from fitproof.cli import run
from seeds import SEED_000

distributed = pytest.importorskip("distributed")  # the test extra installs it; the core never needs it
sys.path.insert(0, str(ROOT / "examples"))
from dask_check import check_shards  # noqa: E402


def cli_envelopes(path):
    stdout = io.StringIO()
    run(["check", "--jsonl", str(path)], io.BytesIO(), stdout, io.StringIO())
    return stdout.getvalue()


def test_two_worker_processes_give_the_clis_envelopes(tmp_path):
    shards = []
    for index, bad in enumerate(['{"budget": 3, "items": [', '{"budget": -1, "items": []}']):
        shard = tmp_path / f"shard-{index}.jsonl"
        lines = [json.dumps(SEED_000), bad, "", json.dumps(dict(SEED_000, budget=index + 4))]
        shard.write_text("\n".join(lines) + "\n")
        shards.append(shard)
    out = tmp_path / "envelopes"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            written, all_passed = check_shards([str(shard) for shard in shards], str(out))
    assert len(written) == 2 and all_passed is False
    for shard, path in zip(shards, sorted(written)):
        text = open(path).read()
        assert text == cli_envelopes(shard)
        envelopes = [json.loads(line) for line in text.splitlines()]
        assert [(envelope["input_line"], envelope["ok"]) for envelope in envelopes] == [(1, True), (2, False), (4, True)]
        assert "result" in envelopes[1] or envelopes[1]["error"].startswith("invalid JSON")


def test_awkward_shards_give_the_clis_envelopes_too(tmp_path):
    """read_text's defaults failed the whole shard on one line that is not UTF-8, split a line
    at a bare CR (JSON whitespace), and wrote a lone newline for an empty shard; check_lines
    skipped a line of U+3000 given as text that the CLI reports."""
    good = json.dumps(SEED_000).encode()
    shards = {
        "latin1.jsonl": good + b"\n" + b'{"budget": 1, "items": [{"id": "caf\xe9", "relevance": 1, "tokens": 1}]}\n' + good + b"\n",
        "cr.jsonl": b'{"budget": 1,\r"items": []}\n' + "\u3000".encode() + b"\n" + good + b"\r\n",
        "empty.jsonl": b"",
    }
    paths = []
    for name, data in shards.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            written, all_passed = check_shards(paths, str(tmp_path / "out"))
    assert all_passed is False
    for shard, path in zip(paths, sorted(written)):
        assert open(path, encoding="utf-8").read() == cli_envelopes(shard), shard
    assert open(sorted(written)[2]).read() == ""
    assert [json.loads(line)["ok"] for line in open(sorted(written)[0])] == [True, False, True]
    assert [json.loads(line)["input_line"] for line in open(sorted(written)[1])] == [1, 2, 3]


def test_the_script_refuses_a_directory_with_files_and_exits_as_the_cli(tmp_path):
    """It wrote its envelopes over 0.jsonl, 1.jsonl... of any directory, and exited 0 with bad lines."""
    import subprocess

    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(SEED_000) + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(SEED_000) + "\n{\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "0.jsonl").write_text("precious\n")
    script = [sys.executable, str(ROOT / "examples" / "dask_check.py"), "--workers", "1"]
    done = subprocess.run([*script, str(out), str(good)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "is not empty: give a new or empty directory" in done.stderr
    assert (out / "0.jsonl").read_text() == "precious\n"
    for shard, code in ((good, 0), (bad, 1)):
        target = tmp_path / f"out-{shard.stem}"
        done = subprocess.run([*script, str(target), str(shard)], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout) == (code, f"{target}/0.jsonl\n"), done.stderr[-2000:]
        assert (target / "0.jsonl").read_text() == cli_envelopes(shard)
