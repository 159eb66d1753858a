"""`fitproof count`: tiktoken's counts of a file or standard input, and its one-line refusals."""

import io

import pytest

import _text
from fitproof.cli import run
from fitproof.tokenizers import exact


def cli(*argv, stdin=b""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), io.BytesIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", exact.EXACT)
def test_count_prints_tiktokens_count_of_a_file(tmp_path, name):
    text = _text.mixed_text(3000, seed=4) + "\r\n<|endoftext|>\n"
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode("utf-8"))
    expected = len(_text.reference_encoding(name).encode_ordinary(text))
    assert cli("count", str(path), "--tokenizer", name) == (0, f"{expected}\n", "")


def test_count_reads_standard_input_and_defaults_to_o200k_base():
    assert cli("count", stdin="hello world".encode()) == (0, "2\n", "")
    assert cli("count", "-", "--tokenizer", "estimate", stdin=b"hello world") == (0, "3\n", "")


def test_count_refuses_text_that_is_not_utf8():
    code, out, err = cli("count", stdin=b"ok \xff")
    assert (code, out) == (2, "") and err == "fitproof: cannot read standard input: not UTF-8 text (byte 0xff at offset 3)\n"


def test_count_unknown_tokenizer_is_a_usage_error():
    code, _, err = cli("count", "--tokenizer", "gpt2", stdin=b"x")
    assert code == 2 and "the model 'gpt2' uses the gpt2 encoding, which this package does not count" in err and "Traceback" not in err


def test_count_without_rank_files_is_one_line_exit_1(monkeypatch, tmp_path):
    monkeypatch.setattr(exact, "CHECKOUT_DATA", tmp_path / "none")
    monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
    monkeypatch.delenv(exact.DATA_ENV, raising=False)
    code, out, err = cli("count", "--tokenizer", "cl100k_base", stdin=b"x")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("fitproof: cl100k_base needs cl100k_base.tiktoken, not found in")
