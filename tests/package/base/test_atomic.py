"""A file replaced in one rename: the new content or the old, and never a temporary file left."""

import os

import pytest

from fitproof._base import atomic
from fitproof._base.atomic import replace_file


def test_the_target_holds_the_new_bytes_and_mode_and_nothing_else_is_left(tmp_path):
    target = tmp_path / "report.json"
    target.write_bytes(b"old")
    replace_file(target, b"new", 0o600)
    assert target.read_bytes() == b"new"
    assert (os.stat(target).st_mode & 0o777) == 0o600
    assert os.listdir(tmp_path) == ["report.json"]


def test_a_link_at_the_target_is_replaced_never_written_through(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"keep")
    target = tmp_path / "target"
    target.symlink_to(elsewhere)
    replace_file(target, b"new", 0o644)
    assert elsewhere.read_bytes() == b"keep" and not target.is_symlink() and target.read_bytes() == b"new"


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, OSError])
def test_an_interruption_mid_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch, interruption):
    target = tmp_path / "case.json"
    target.write_bytes(b"old")

    def stopped(_descriptor):
        raise interruption()

    monkeypatch.setattr(atomic.os, "fsync", stopped)
    with pytest.raises(interruption):
        replace_file(target, b"new", 0o644)
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["case.json"]


def _interrupted_at(step, target):
    """replace_file with KeyboardInterrupt raised at its ``step``-th line event (counting every
    Python line it runs, in the standard library too: a signal handler can raise at any of them).
    True when it ran to the end before that step."""
    import sys

    seen = 0

    def tracer(frame, event, arg):
        nonlocal seen
        if event == "line":
            seen += 1
            if seen == step:
                raise KeyboardInterrupt
        return tracer

    sys.settrace(tracer)
    try:
        replace_file(target, b"new", 0o644)
        return True
    except KeyboardInterrupt:
        return False
    finally:
        sys.settrace(None)


def test_an_interruption_at_any_line_leaves_the_old_file_or_the_new_and_no_temporary_one(tmp_path):
    # The build-site leak: a SIGTERM that lands just after the temporary file is made, before
    # the code that would remove it is in force.
    target = tmp_path / "report.js"
    for step in range(1, 500):
        target.write_bytes(b"old")
        finished = _interrupted_at(step, target)
        assert sorted(os.listdir(tmp_path)) == ["report.js"], step
        assert target.read_bytes() in (b"old", b"new")
        if finished:
            assert target.read_bytes() == b"new"
            break
    else:
        pytest.fail("replace_file never ran to the end within 500 lines")
    assert step > 5  # the loop went through the call's lines, not around them


def test_temporary_names_are_told_apart_from_anything_else():
    assert atomic.temporary_of(".report.js.0123456789ab.tmp") == "report.js"
    assert atomic.temporary_of(".report.js.a9xoqzi0.tmp") == "report.js"  # tempfile.mkstemp's, before 0.5
    for other in ["report.js", ".report.js.tmp", "report.js.0123456789ab.tmp", ".report.js.0123456789AB.tmp", ".report.js.abc.tmp"]:
        assert atomic.temporary_of(other) is None, other
