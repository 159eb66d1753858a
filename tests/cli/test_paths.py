"""Path problems are one line on stderr and exit 2, never a traceback: a name too long for
the system, a path past 4,096 characters, folders nested deeper than Python's stack."""

import io
import os

import pytest

from fitproof.cli import run


def call(argv):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def _one_line(stderr):
    return stderr.count("\n") == 1 and stderr.startswith("fitproof: ") and "Traceback" not in stderr


@pytest.mark.parametrize("command", ["fixtures", "build-site"])
@pytest.mark.parametrize("name", ["a" * 300, "/".join(["ab"] * 1500)])
def test_a_name_the_system_refuses_is_one_line_and_exit_2(tmp_path, command, name):
    code, _, stderr = call([command, str(tmp_path / name)])
    assert code == 2 and _one_line(stderr), stderr
    assert not list(tmp_path.iterdir())


@pytest.fixture
def deep(tmp_path):
    """Folders nested 1,100 levels under tmp_path (made and removed through descriptors: the
    path is past what the system takes whole)."""
    fds = [os.open(tmp_path, os.O_RDONLY)]
    try:
        for _ in range(1100):
            os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        yield tmp_path
    finally:
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("d", dir_fd=fds[-1])
        os.close(fds[0])


def test_fixtures_nested_too_deep_is_one_line_and_exit_2(deep):
    code, _, stderr = call(["fixtures", str(deep)])
    assert code == 2 and _one_line(stderr), stderr
