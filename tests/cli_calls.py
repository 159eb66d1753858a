"""What several CLI test files share: the command run in-process, and what its output must look like."""

import io
import os
from pathlib import Path

from hypothesis import strategies as st

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


# A port nothing listens on (discard): a model call there is refused at once, on loopback.
CLOSED_PORT_URL = "http://127.0.0.1:9/v1"

# The settings `compose` reads, as FITPROOF_<name>.
SETTING_NAMES = [
    "CONTEXT_TOKENS",
    "RESERVED_OUTPUT_TOKENS",
    "FIXED_PROMPT_TOKENS",
    "BASE_URL",
    "API_KEY",
    "MODEL",
    "TEMPERATURE",
    "CALL_MODEL",
    "TIMEOUT_SECONDS",
]


def setting_values(secret: str):
    """Setting values a careless or hostile environment holds: odd digits, half URLs, a key with a header injected."""
    return st.one_of(
        st.sampled_from(
            [
                "",
                "0",
                "850",
                "²",
                "①",
                "٣٠٠٠",
                "1_000",
                "1e3",
                "nan",
                "-1",
                "0.5",
                "true",
                "yes",
                "maybe",
                "9" * 5000,
                "http://[::1",
                "http://例え.jp/v1",
                "http://u:pw@127.0.0.1:9/v1",
                "ftp://x",
                "http://",
                CLOSED_PORT_URL,
                secret + "\r\nX: 1",
                "ключ",
                "\x1b[2J",
            ]
        ),
        st.text(max_size=20).filter(lambda text: "\x00" not in text),
    )
