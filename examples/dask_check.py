"""Check logged requests past one machine: ``batch.check_lines`` on Dask.

Each shard (a JSONL file of requests) becomes one partition, read in order; every worker
runs the package's standard-library entry point ``context_budget.batch.check_lines`` on its
lines and writes one envelope file per shard, with the same envelopes, line numbers and
bad-line reports as ``context-budget check --jsonl SHARD``.

    pip install 'context-budget[dask]'
    python examples/dask_check.py OUT_DIR shard-*.jsonl                    # a local cluster
    python examples/dask_check.py OUT_DIR shard-*.jsonl --scheduler tcp://scheduler:8786

The same code runs on a real cluster: point the client at its scheduler (``--scheduler``),
with the shards and OUT_DIR on storage every worker can reach (a shared file system, or
``s3://...`` paths with s3fs installed) and the package installed on every worker.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import dask.bag

from context_budget.batch import check_lines


def check_shards(shards: list[str], out_dir: str) -> list[str]:
    """One envelope file per shard (``0.jsonl``, ``1.jsonl``, ... in the order given); their paths.

    ``blocksize=None`` keeps each shard whole in one partition, so its lines are numbered
    from 1 as the CLI numbers them. Runs on the current Dask client (or Dask's default scheduler).
    """
    lines = dask.bag.read_text(shards, blocksize=None)
    envelopes = lines.map_partitions(check_lines)
    return envelopes.to_textfiles(f"{out_dir}/*.jsonl", last_endline=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("shards", nargs="+")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    arguments = parser.parse_args()
    from distributed import Client, LocalCluster

    Path(arguments.out_dir).mkdir(parents=True, exist_ok=True)
    if arguments.scheduler:
        with Client(arguments.scheduler):
            written = check_shards(arguments.shards, arguments.out_dir)
    else:
        with LocalCluster(n_workers=arguments.workers, threads_per_worker=1, processes=True) as cluster, Client(cluster):
            written = check_shards(arguments.shards, arguments.out_dir)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
