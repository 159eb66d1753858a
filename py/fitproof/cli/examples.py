"""``fitproof examples``: the example inputs and fixture cases shipped with the package,
listed, or written into a directory (never over an existing file); also where ``check --example``,
``compose --example`` and ``fixtures --shipped`` find them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from ._exits import EXIT_PASS, UsageError

PACKAGE_DIR = Path(__file__).resolve().parent.parent
CHECKOUT_ROOT = PACKAGE_DIR.parent.parent


def shipped(kind: str) -> Path:
    """The folder of ``examples`` or ``fixtures``: an installed wheel's copy, else the checkout's own."""
    packaged = PACKAGE_DIR / "_data" / kind
    return packaged if packaged.is_dir() else CHECKOUT_ROOT / kind


def example_files() -> dict[str, Path]:
    """The example inputs by name (``refund-case`` for ``refund-case.json``)."""
    folder = shipped("examples")
    return {path.stem: path for path in sorted(folder.glob("*.json")) if path.is_file()} if folder.is_dir() else {}


def example_path(name: str) -> str:
    """The file of the example called ``name``; a usage error naming the known ones otherwise."""
    files = example_files()
    if name not in files:
        known = ", ".join(files) or f"none (no examples at {shipped('examples')})"
        raise UsageError(f"no example {name!r}; the examples are: {known} (fitproof examples lists them)")
    return str(files[name])


def _to_write() -> list[tuple[Path, str]]:
    """(source, relative target) of every file ``--write`` writes."""
    files = []
    for kind in ("examples", "fixtures"):
        folder = shipped(kind)
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and (kind == "examples" or path.suffix == ".json"):
                    files.append((path, f"{kind}/{path.relative_to(folder).as_posix()}"))
    return files


def run(write: str | None, stdout: IO[str]) -> int:
    if write is None:
        files = example_files()
        cases = sum(1 for _, target in _to_write() if target.startswith("fixtures/"))
        stdout.write(f"Example inputs shipped with fitproof (in {shipped('examples')}):\n")
        width = max(map(len, files), default=0)
        for name, path in files.items():
            stdout.write(f"  {name:<{width}}  fitproof check --example {name}\n")
        stdout.write(f"Fixture cases: {cases} (in {shipped('fixtures')}): fitproof fixtures --shipped\n")
        stdout.write("Copy them all to edit: fitproof examples --write DIR (writes DIR/examples/ and DIR/fixtures/, overwriting nothing)\n")
        return EXIT_PASS
    if write == "":
        raise UsageError("examples --write needs a directory name, got an empty one")
    directory = Path(write)
    plan = _to_write()
    if not plan:
        raise UsageError(f"no examples to write: none at {shipped('examples')} or {shipped('fixtures')}")
    present = [target for _, target in plan if os.path.lexists(directory / target)]
    if present:
        shown = ", ".join(present[:3]) + (f" and {len(present) - 3} more" if len(present) > 3 else "")
        raise UsageError(
            f"{directory} already holds {shown}: nothing written (choose a new directory; existing files are never overwritten)"
        )
    written = 0
    try:
        for source, target in plan:
            path = directory / target
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as handle:  # "x": never over a file that appeared meanwhile
                handle.write(source.read_bytes())
            written += 1
    except OSError as error:
        raise UsageError(
            f"cannot write {error.filename or directory}: {error.strerror or error} ({written} files written before)"
        ) from None
    stdout.write(f"Wrote {written} files to {directory}: examples/ and fixtures/\n")
    stdout.write(f"Try: fitproof check {directory / 'examples' / 'refund-case.json'}   fitproof fixtures {directory / 'fixtures'}\n")
    return EXIT_PASS
