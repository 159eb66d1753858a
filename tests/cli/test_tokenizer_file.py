"""``--tokenizer-file NAME=PATH`` on ``count`` and ``check``: a model's own tokenizer, named for the run."""

import json

import pytest

from cli_calls import call_cli, one_line_error
from conftest import ROOT

import _text

QWEN = ROOT / "tests" / "data" / "models" / "qwen3" / "tokenizer.json"
TEKKEN = ROOT / "tests" / "data" / "models" / "mistral" / "tekken_240911.json"


@pytest.fixture(scope="module")
def qwen():
    if not QWEN.is_file():
        pytest.fail(f"{QWEN} is missing: run python3 scripts/fetch_model_tokenizers (scripts/test runs it)")
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(QWEN))


def test_count_counts_with_the_files_tokenizer(tmp_path, qwen):
    text = _text.mixed_text(5_000, seed=9) + "<|im_start|>"
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode("utf-8"))
    expected = len(qwen.encode(text, add_special_tokens=False).ids)
    assert call_cli(["count", str(path), "--tokenizer-file", f"qwen3={QWEN}"]) == (0, f"{expected}\n", "")
    # with several files, --tokenizer picks one; the built-in names stay available
    code, out, _ = call_cli(["count", str(path), "--tokenizer-file", f"m={TEKKEN}", "--tokenizer-file", f"q={QWEN}", "--tokenizer", "q"])
    assert (code, out) == (0, f"{expected}\n")
    code, out, _ = call_cli(["count", str(path), "--tokenizer-file", f"q={QWEN}", "--tokenizer", "o200k_base"])
    assert code == 0 and out != f"{expected}\n"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("qwen3", "expected NAME=PATH, got 'qwen3'"),
        ("=x", "expected NAME=PATH"),
        ("estimate=" + str(QWEN), "'estimate' is a built-in tokenizer name"),
        ("q=/no/such/tokenizer.json", "/no/such/tokenizer.json: cannot read it"),
        ("q=" + str(ROOT / "README.md"), "README.md: not JSON"),
    ],
)
def test_a_bad_tokenizer_file_is_a_one_line_usage_error(spec, message):
    code, out, err = call_cli(["count", "--tokenizer-file", spec], stdin=b"hello")
    assert code == 2 and out == "" and one_line_error(err) and message in err, err


def test_check_names_the_file_in_the_input_and_the_report_records_its_digest(qwen):
    data = {
        "mode": "required",
        "budget": 100,
        "tokenizer": "qwen3",
        "items": [{"id": "a", "content": "Where is my refund?", "required": True, "priority": 1}],
    }
    code, out, err = call_cli(["check", "-", "--format", "json", "--tokenizer-file", f"qwen3={QWEN}"], stdin=json.dumps(data).encode())
    envelope = json.loads(out)
    report = envelope["result"]
    assert code == 0 and report["pass"] is True, err
    assert report["used"] == len(qwen.encode("Where is my refund?", add_special_tokens=False).ids)
    assert report["tokenizer_file"]["name"] == "qwen3" and len(report["tokenizer_file"]["sha256"]) == 64
    code, out, _ = call_cli(["check", "-", "--format", "json"], stdin=json.dumps(data).encode())  # without the file: unknown name
    assert code == 1 and "qwen3" in out


def test_check_refuses_tokenizer_files_with_worker_processes():
    code, _, err = call_cli(["check", "-", "--jsonl", "--jobs", "2", "--tokenizer-file", f"q={QWEN}"], stdin=b"{}\n")
    assert code == 2 and "--tokenizer-file works in one process" in err
