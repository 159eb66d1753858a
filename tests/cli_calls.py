"""What several CLI test files share: the command run in-process, and what its output must look like."""

import io
import os
from pathlib import Path

from fitproof.cli import run


def call_cli(argv, stdin=b"", environ=None):
    """(exit code, stdout, stderr) of ``run`` with ``stdin`` bytes and only ``environ`` as the environment."""
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin), stdout, stderr, environ or {})
    return code, stdout.getvalue(), stderr.getvalue()


def one_line_error(err):
    return err.count("\n") == 1 and err.startswith("fitproof: ") and "Traceback" not in err


def file_tree(directory: Path) -> dict:
    """Every path under ``directory`` with its kind, content and modification time."""
    tree = {}
    for path in sorted(directory.rglob("*")):
        stat = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else os.readlink(path) if path.is_symlink() else None
        tree[path.relative_to(directory).as_posix()] = (stat.st_mode, stat.st_mtime_ns, content)
    return tree
