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
