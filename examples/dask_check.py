"""Check logged requests past one machine: ``batch.check_lines`` on Dask.

Each shard (a JSONL file of requests) becomes one partition, read in order; every worker
runs the package's standard-library entry point ``fitproof.batch.check_lines`` on its
lines and writes one envelope file per shard, with the same envelopes, line numbers and
bad-line reports as ``fitproof check --jsonl SHARD``.

    pip install 'fitproof[dask]'
    python examples/dask_check.py OUT_DIR shard-*.jsonl                    # a local cluster
    python examples/dask_check.py OUT_DIR shard-*.jsonl --scheduler tcp://scheduler:8786

OUT_DIR must be new or empty. The paths written are printed; the exit code is 0 only when
every line passed, as with ``check --jsonl``.

The same code runs on a real cluster: point the client at its scheduler (``--scheduler``),
with the shards and OUT_DIR on storage every worker can reach (a shared file system, or
``s3://...`` paths with s3fs installed) and the package installed on every worker.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import dask.bag

from fitproof.batch import checked_lines


def check_shards(shards: list[str], out_dir: str) -> tuple[list[str], bool]:
    """One envelope file per shard, in the order given (``0.jsonl``, ``1.jsonl``, ...; zero-padded
    from eleven shards on: ``00.jsonl``): their paths, and whether every report passed. Runs
    on the current Dask client (or Dask's default scheduler).

    Read as the CLI reads a file: ``blocksize=None`` keeps each shard whole in one partition,
    so its lines are numbered from 1; lines end at "\n" only (a bare "\r" is JSON whitespace);
    bytes that are not UTF-8 stay as they are, so that such a line gets its own error envelope
    instead of failing the whole shard.
    """
    lines = dask.bag.read_text(shards, blocksize=None, encoding="utf-8", errors="surrogateescape", linedelimiter="\n")
    checked = lines.map_partitions(_checked_ending_with_a_newline)  # (passed, envelope) pairs
    width = len(str(checked.npartitions - 1))  # 0..9, then 00..10 and so on, as Dask names them itself

    def name(index: int) -> str:
        return str(index).zfill(width)

    writing = checked.pluck(1).to_textfiles(f"{out_dir}/*.jsonl", name_function=name, last_endline=False, compute=False)
    # One computation: each shard is checked once, for its file and for the exit code.
    _, all_passed = dask.compute(writing, checked.pluck(0).all())
    return [f"{out_dir}/{name(index)}.jsonl" for index in range(checked.npartitions)], bool(all_passed)


def _checked_ending_with_a_newline(lines):
    """A shard's (passed, envelope) pairs, the last envelope with its line break: to_textfiles
    puts one between the others, and an empty shard then gives an empty file (with
    last_endline, a lone newline)."""
    previous = None
    for passed, envelope in checked_lines(lines):
        if previous is not None:
            yield previous
        previous = passed, envelope
    if previous is not None:
        yield previous[0], previous[1] + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("shards", nargs="+")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    arguments = parser.parse_args()
    # A local path that names no file is refused before a cluster starts, in one line; a glob
    # (read_text expands it), a URL, or any path with --scheduler (the workers may see storage
    # this machine does not) is left to Dask.
    local = [] if arguments.scheduler else [shard for shard in arguments.shards if "://" not in shard and not any(c in shard for c in "*?[")]
    missing = [shard for shard in local if not Path(shard).is_file()]
    if missing:
        parser.error(f"no such shard: {', '.join(missing)}")
    # The envelope files are named 0.jsonl, 1.jsonl, ...: never over files this run did not write.
    out_dir = Path(arguments.out_dir)
    if "://" not in arguments.out_dir and out_dir.exists():
        if not out_dir.is_dir():
            parser.error(f"{out_dir} is not a directory")
        if any(out_dir.iterdir()):
            parser.error(f"{out_dir} is not empty: give a new or empty directory (the envelope files would overwrite what is there)")
    from distributed import Client, LocalCluster

    if "://" not in arguments.out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    try:
        if arguments.scheduler:
            with Client(arguments.scheduler):
                written, all_passed = check_shards(arguments.shards, arguments.out_dir)
        else:
            # dashboard_address=None: no HTTP endpoint (it would listen on every interface, port 8787).
            with LocalCluster(n_workers=arguments.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster):
                written, all_passed = check_shards(arguments.shards, arguments.out_dir)
    except OSError as error:  # a shard that went away, a glob that matched nothing, storage that cannot be written
        raise SystemExit(f"dask_check: {error}") from None
    for path in written:
        print(path)
    raise SystemExit(0 if all_passed else 1)  # as check --jsonl: 0 only when every line passed


if __name__ == "__main__":
    main()
