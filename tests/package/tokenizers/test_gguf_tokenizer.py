"""The tokenizer and chat template in a GGUF file's header: small GGUF files written here with PyPI
``gguf`` from the same tokenizer.json count exactly as that tokenizer.json does."""

import json

import pytest

import _text
from model_files import PRE, corpus, model_file, ours, write_gguf

from fitproof.tokenizers import TokenizerFileError, from_bytes, load_tokenizer
from fitproof.tokenizers import gguf as reader


def test_each_pre_tokenizer_name_stands_for_that_models_tokenizer_json():
    """A GGUF file stores the pre-tokenizer's name only: what the name stands for is the model's own."""
    for folder, pre in PRE.items():
        data = json.loads(model_file(folder, "tokenizer.json").read_bytes())
        pre_tokenizer, normalizer, ignore_merges = reader.PRE_TOKENIZERS[pre]
        splits = [step["pattern"]["Regex"] for step in data["pre_tokenizer"]["pretokenizers"] if step["type"] == "Split"]
        assert [step["pattern"]["Regex"] for step in pre_tokenizer["pretokenizers"] if step["type"] == "Split"] == splits
        assert (normalizer or {}).get("type") == (
            (data["normalizer"] or {}).get("type") if data["normalizer"] and data["normalizer"].get("type") != "Sequence" else None
        )
        assert ignore_merges == data["model"].get("ignore_merges", False)


# GPT-OSS's file (200,000 tokens, 446,189 merges) takes gguf's writer longer than the rest together; its
# pre-tokenizer name is checked above, and the reading is the same for every model
@pytest.mark.parametrize("folder", ["llama3_1", "qwen3", "deepseek_v3"])
def test_gguf_counts_equal_the_tokenizer_json(tmp_path, folder):
    path = tmp_path / "model.gguf"
    template = write_gguf(path, folder)
    loaded = load_tokenizer(path)
    assert loaded.chat_template == template
    expected = ours(folder)
    texts = corpus(500, seed=41) + [_text.mixed_text(20_000), "<|im_start|>user\nhi<|im_end|>", "<|eot_id|><｜User｜>"]
    assert [loaded.count(text) for text in texts] == [expected.count(text) for text in texts]
    assert from_bytes(path.read_bytes(), "dropped.gguf").sha256 == loaded.sha256  # the header's digest either way


def test_only_the_header_is_read(tmp_path):
    """The file cut right after the metadata (no tensor info, no weights) loads the same tokenizer."""
    path = tmp_path / "model.gguf"
    write_gguf(path, "qwen3")
    with open(path, "rb") as handle:
        reader.read_metadata(handle, str(path))
        header_end = handle.tell()
    cut = tmp_path / "header-only.gguf"
    cut.write_bytes(path.read_bytes()[:header_end])
    assert load_tokenizer(cut).count("Hello, 世界") == ours("qwen3").count("Hello, 世界")
    assert header_end < path.stat().st_size - 16_000  # the 16 KB tensor was after it, never needed


@pytest.mark.parametrize("cut_at, message", [(3, "truncated|file ends"), (20, "file ends|truncated"), (5_000, "file ends|truncated")])
def test_truncated_header_is_refused_with_where_it_broke(tmp_path, cut_at, message):
    path = tmp_path / "model.gguf"
    write_gguf(path, "deepseek_v3", with_tensor=False)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(path.read_bytes()[:cut_at])
    with pytest.raises(TokenizerFileError, match=message) as raised:
        load_tokenizer(cut)
    assert str(cut) in str(raised.value)


def test_hostile_sizes_are_refused_before_anything_is_allocated(tmp_path):
    import struct

    path = tmp_path / "hostile.gguf"
    key = b"tokenizer.ggml.tokens"
    # one key whose array claims 2**40 strings
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key + struct.pack("<IIQ", 9, 8, 1 << 40))
    with pytest.raises(TokenizerFileError, match="an array of 1,099,511,627,776 items"):
        load_tokenizer(path)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 50))
    with pytest.raises(TokenizerFileError, match="a string of"):
        load_tokenizer(path)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 1, 0, 0))
    with pytest.raises(TokenizerFileError, match="GGUF version 1 is not supported"):
        load_tokenizer(path)


def test_unsupported_gguf_tokenizers_are_refused(tmp_path):
    import gguf

    for model, pre, message in (
        ("llama", None, "'llama' SentencePiece"),
        ("gpt2", "falcon", "pre-tokenizer 'falcon' is not supported"),
        (None, None, "has no tokenizer"),
    ):
        path = tmp_path / "m.gguf"
        writer = gguf.GGUFWriter(str(path), "llama")
        if model:
            writer.add_tokenizer_model(model)
        if pre:
            writer.add_tokenizer_pre(pre)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.close()
        with pytest.raises(TokenizerFileError, match=message):
            load_tokenizer(path)
