"""_base/capped.py: a file is read whole up to its cap and refused one byte past it, by path or stream."""

import io

import pytest

from fitproof._base.capped import TooLarge, read_capped


def test_a_file_exactly_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "input.json"
    path.write_bytes(b"x" * 10)
    assert read_capped(path, 10) == b"x" * 10
    assert read_capped(str(path), 11) == b"x" * 10
    with pytest.raises(TooLarge) as refused:
        read_capped(path, 9)
    assert refused.value.limit == 9


def test_a_stream_is_read_from_where_it_stands_and_the_refusal_names_the_cap_in_mebibytes():
    stream = io.BytesIO(b"head" + b"y" * (2 << 20))
    stream.read(4)
    with pytest.raises(TooLarge, match=r"^larger than 1 MiB$"):
        read_capped(stream, 1 << 20)
    assert read_capped(io.BytesIO(b"abc"), 1 << 20) == b"abc"


def test_a_missing_file_is_the_os_error_of_opening_it(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_capped(tmp_path / "absent.json", 10)
