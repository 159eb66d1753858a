"""The per-line work on Dask: two worker processes give the CLI's envelopes, a bad line in its place."""

import io
import json
import sys

import pytest

from conftest import ROOT
from context_budget.cli import run
from test_seeds import SEED_000

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
            written = check_shards([str(shard) for shard in shards], str(out))
    assert len(written) == 2
    for shard, path in zip(shards, sorted(written)):
        text = open(path).read()
        assert text == cli_envelopes(shard)
        envelopes = [json.loads(line) for line in text.splitlines()]
        assert [(envelope["input_line"], envelope["ok"]) for envelope in envelopes] == [(1, True), (2, False), (4, True)]
        assert "result" in envelopes[1] or envelopes[1]["error"].startswith("invalid JSON")
