"""SentencePiece ``.model`` files (tokenizers/sentencepiece_model_file.py, protobuf.py, charsmap.py) and Unigram tokenizer.json
files (tokenizers/sentencepiece_json.py): every count equals the reference library's.

References (test extra): ``sentencepiece`` 0.2.3 (``SentencePieceProcessor.encode(text)``) for .model
files, Hugging Face ``tokenizers`` 0.23.3 for tokenizer.json (T5's ``Precompiled`` normalizer too, cut
into grapheme clusters by tokenizers/graphemes.py, whose own reference is ``unicode-segmentation-rs``
1.0.0: the same Rust crate, unicode-segmentation 1.13.3, as tokenizers 0.23.3). The models are trained here, offline,
by ``sentencepiece.SentencePieceTrainer`` on generated text: BPE and Unigram, with and without byte
fallback, the identity normalizer and the default ``nmt_nfkc`` character map, user-defined pieces.
"""

import base64
import copy
import json
import random
import struct

import pytest

import _text
from conftest import generated_table_is_current
from _tokenizer_files import delimited, key, varint
from model_files import TRAINED, corpus, trained
from fitproof.tokenizers import TokenizerFileError, from_bytes, graphemes, load_tokenizer
from fitproof.tokenizers import files as files_module
from fitproof.tokenizers import sentencepiece_model_file as spm_module
from fitproof.tokenizers import unicode_graphemes

STRINGS = 50_000

CASES = [
    "",
    " ",
    "   ",
    "  a  b  ",
    "\u2581",
    "x\u2581 ",
    "\u2581\u2581",
    "\x00",
    "\t x \n",
    "foo<tag>foofoo",
    "Ｆｕｌｌ　ｗｉｄｔｈ ①② ﬁ ㍻ ｶﾞ",
    "\U0010fffd\U000e0001 \ufeff",
    "a" * 3000,
    " " * 3000 + "x",
    # letters and other characters followed by combining marks (NFKC composes some of them)
    "e\u0301\u0300\u0302 A\u030a n\u0303x",
    "ab\u0308\u0308c",
    "\u00e9\u0301",
    "\u0434\u0301 \uac00\u0301",
    "\U0001f600\u0301",
    "x\u0301",
    "\u0301\u0301",
    "e\u20dd",
    "1\u20e3 #\ufe0f\u20e3",
]


@pytest.fixture(scope="module")
def strings():
    return corpus(STRINGS, seed=33) + CASES


@pytest.mark.parametrize("name", TRAINED)
def test_model_file_counts_equal_sentencepiece_on_50000_strings(name, strings, tmp_path):
    import sentencepiece

    data = trained(name)
    path = tmp_path / "tokenizer.model"
    path.write_bytes(data)
    ours, ref = load_tokenizer(path), sentencepiece.SentencePieceProcessor(model_file=str(path))
    assert isinstance(ours, spm_module.SentencePieceModel)
    expected = ref.encode(strings)
    mismatches = [text for text, ids in zip(strings, expected) if ours.count(text) != len(ids)]
    assert len(strings) >= 50_000 and mismatches == []


@pytest.mark.parametrize("name", [name for name in TRAINED if "nmt_nfkc" in name])
def test_the_character_maps_runs_normalize_text_as_its_walk_rule_by_rule_does(name, strings):
    """charsmap.py copies runs of characters that no rule can start at (a regex) instead of walking
    the trie at each one; the walk alone (no runs) normalizes every string the same. (A sample:
    the walk is slow; the 50,000-string counts above go through the runs against sentencepiece.)"""
    fast = from_bytes(trained(name), "trained.model")
    walk = copy.copy(fast)
    walk.charsmap = copy.copy(fast.charsmap)
    walk.charsmap._copied = None
    texts = strings[:5000] + CASES + [_text.mixed_text(30_000)]
    assert [text for text in texts if fast.normalize(text) != walk.normalize(text)] == []
    assert fast.charsmap.chunks("plain words, copied in runs") == ["plain", " ", "words,", " ", "copied", " ", "in", " ", "runs"]


@pytest.mark.parametrize("name", TRAINED)
def test_model_file_ids_and_long_pieces_equal_sentencepiece(name):
    """Ids, not only counts; long texts (Unigram's float32 score reset runs past 100,000)."""
    import sentencepiece

    data = trained(name)
    ours, ref = from_bytes(data, "trained.model"), sentencepiece.SentencePieceProcessor(model_proto=data)
    texts = corpus(500, seed=34) + CASES + [_text.mixed_text(30_000)] + _text.long_pieces(20_000)
    for text, ids in zip(texts, ref.encode(texts)):
        assert ours.ids(text) == ids, text[:40]


def unigram_json(data: bytes, pre_tokenizer: dict) -> str:
    """A tokenizer.json for a trained Unigram model (identity normalizer), written as tokenizers writes one."""
    model = from_bytes(data, "trained.model")
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                {
                    "id": i,
                    "content": model.texts[i],
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": False,
                    "special": True,
                }
                for i in range(3)
            ],
            "normalizer": None,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": None,
            "model": {
                "type": "Unigram",
                "unk_id": model.unk_id,
                "byte_fallback": model.byte_fallback,
                "vocab": [[piece, score] for piece, score in zip(model.texts, model.scores)],
            },
        }
    )


PRE_TOKENIZERS = {
    "Metaspace": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    "WhitespaceSplit, Metaspace (T5)": {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        ],
    },
    "Metaspace first, unsplit": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False},
}


@pytest.mark.parametrize("pre", PRE_TOKENIZERS)
def test_unigram_tokenizer_json_counts_equal_tokenizers(pre, strings):
    from tokenizers import Tokenizer

    raw = unigram_json(trained("unigram, byte fallback, identity"), PRE_TOKENIZERS[pre])
    ours, ref = from_bytes(raw.encode(), "unigram.json"), Tokenizer.from_str(raw)
    assert ours.kind == "tokenizer.json (SentencePiece Unigram)"
    texts = strings if pre.startswith("WhitespaceSplit") else strings[:5_000] + CASES + ["<s>hi</s> x<unk>"]
    expected = [len(encoding.ids) for encoding in ref.encode_batch(texts, add_special_tokens=False)]
    mismatches = [text for text, count in zip(texts, expected) if ours.count(text) != count]
    assert mismatches == []
    for text in texts[:300] + CASES:
        assert ours.ids(text) == ref.encode(text, add_special_tokens=False).ids, text[:40]


# --- T5: a Precompiled normalizer, applied per grapheme cluster -----------------------------------

NFKC_UNIGRAM = "unigram, nmt_nfkc, extra whitespace kept, user-defined"
# Clusters and characters where cutting into clusters matters: a ligature or a letter NFKC folds
# followed by a combining mark (the whole cluster is replaced by the first rule: the mark goes),
# Hangul jamo (L V T join), Prepend before a letter, ZWJ emoji sequences, flags (regional
# indicators pair up), CRLF, Devanagari conjuncts (GB9c), "©" ZWJ "©" (GB11), skin tones, NUL.
GRAPHEME_CASES = [
    "ﬁ\u0301",
    "ﬁ\u0301\u0301",
    "xﬁ\u0301y",
    "Ａ\u0301",
    "①\u0308",
    "㍻\u0301",
    "ｶ\u3099",
    "か\u3099",
    "e\u0301",
    "\u1100\u1161\u11a8",
    "\u1100\u1161",
    "\u1100\u1100\u1161\u11a8\u11a8",
    "\uac00\u11a8",
    "\u3131\u314f",
    "\u0600a",
    "\u0600\u0661\u0662",
    "\u0600 ",
    "\u0600\u0301",
    "\u0600\r\n",
    "👨\u200d👩\u200d👧\u200d👦",
    "👍🏽",
    "🧑🏿\u200d💻",
    "🏳\ufe0f\u200d🌈",
    "\u200d👍",
    "🇯🇵🇺🇸🇫",
    "a🇯🇵🇺",
    "🇯\u0301🇵",
    "a\r\nb",
    "\r\r\n\n",
    "\r\u0301",
    "क्ष",
    "क्\u200dष",
    "क\u094d\u093cष",
    "क्क्क",
    "क़्ष",
    "न्\u0301स",
    "\u0915\u094d",
    "©\u200d©",
    "©\u0301\u200d©",
    "😀\u0301\u200d😀",
    "\x00ﬁ",
    "ﬁ\x00",
    "\x00\u0301",
    "ﬁﬁﬁ\u0301ﬁ",
    "\u3000\u0301 \u00a0\u0301",
    "ǅ\u0301\u0301\u0301",
    "\u1e9b\u0323",
]


def grapheme_alphabet() -> str:
    """Three characters of each class of the grapheme table (the first of three of its runs), and
    characters the nmt_nfkc map rewrites alone or with a mark after them."""
    chosen: dict[str, list[str]] = {}
    for start, code in zip(unicode_graphemes.STARTS, "".join(unicode_graphemes.CODES)):
        if not 0xD800 <= start < 0xE000 and len(chosen.setdefault(code, [])) < 3:
            chosen[code].append(chr(start))
    assert len(chosen) == 18
    return "".join(c for group in chosen.values() for c in group) + "ﬁＡ①㍻ｶか\u3099e\u0301\u0308ক\u09cd\u0915\u094d\u093c 😀🏽\u200d🇯"


def grapheme_strings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = grapheme_alphabet()
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def test_grapheme_clusters_equal_unicode_segmentation():
    """graphemes.py cuts as the crate tokenizers uses: 50,000 generated strings, the cases, and
    20,000 strings drawn from every class of the table (the rules' look-backs: GB9c, GB11, GB12)."""
    import unicode_segmentation_rs

    texts = corpus(STRINGS, seed=33) + CASES + GRAPHEME_CASES + grapheme_strings(20_000, seed=35)
    mismatches = [text for text in texts if graphemes.clusters(text) != unicode_segmentation_rs.graphemes(text, True)]
    assert len(texts) >= 70_000 and mismatches == []
    assert graphemes.clusters("") == [] and graphemes.boundaries("ab") == [0, 1, 2]


def test_grapheme_table_is_the_generators_output():
    """The committed table is what scripts/make_unicode_graphemes.py writes from Unicode 17.0.0."""
    pytest.importorskip("regex")
    generated_table_is_current("make_unicode_graphemes.py")
    assert unicode_graphemes.UNICODE_VERSION == "17.0.0"


def charsmap_blob(data: bytes) -> bytes:
    """The trained model's precompiled_charsmap, as the .model file holds it (and a converter copies it)."""
    charsmap = from_bytes(data, "trained.model").charsmap
    return (len(charsmap.units) * 4).to_bytes(4, "little") + charsmap.units.tobytes() + charsmap.replacements


def precompiled(blob: bytes) -> dict:
    return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode("ascii")}


def t5_json(normalizer: dict, pre_tokenizer: str) -> str:
    raw = json.loads(unigram_json(trained(NFKC_UNIGRAM), PRE_TOKENIZERS[pre_tokenizer]))
    raw["normalizer"] = normalizer
    return json.dumps(raw)


T5_SHAPES = {
    # t5-small's and mT5's tokenizer.json: the map alone, WhitespaceSplit then Metaspace
    "Precompiled; WhitespaceSplit, Metaspace": (lambda blob: precompiled(blob), "WhitespaceSplit, Metaspace (T5)"),
    # what transformers' SpmConverter writes today
    "Precompiled, Strip, Replace ' {2,}'; Metaspace": (
        lambda blob: {
            "type": "Sequence",
            "normalizers": [
                precompiled(blob),
                {"type": "Strip", "strip_left": False, "strip_right": True},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"},
            ],
        },
        "Metaspace",
    ),
}


@pytest.mark.parametrize("shape", T5_SHAPES)
def test_t5_tokenizer_json_counts_equal_tokenizers(shape, strings):
    from tokenizers import Tokenizer

    normalizer, pre = T5_SHAPES[shape]
    raw = t5_json(normalizer(charsmap_blob(trained(NFKC_UNIGRAM))), pre)
    ours, ref = from_bytes(raw.encode(), "t5.json"), Tokenizer.from_str(raw)
    texts = strings + GRAPHEME_CASES + grapheme_strings(2_000, seed=36)
    expected = [len(encoding.ids) for encoding in ref.encode_batch(texts, add_special_tokens=False)]
    mismatches = [text for text, count in zip(texts, expected) if ours.count(text) != count]
    assert len(texts) >= 50_000 and mismatches == []
    for text in texts[:300] + CASES + GRAPHEME_CASES:
        assert ours.ids(text) == ref.encode(text, add_special_tokens=False).ids, text[:40]


def test_precompiled_normalizes_text_as_tokenizers_does():
    """The normalized text itself, not only the counts: every cluster and character rewritten alike,
    the runs copied at C speed included (texts mostly made of characters the map rewrites)."""
    from tokenizers import Tokenizer

    raw = t5_json(precompiled(charsmap_blob(trained(NFKC_UNIGRAM))), "Metaspace")
    ours, ref = from_bytes(raw.encode(), "t5.json"), Tokenizer.from_str(raw).normalizer
    texts = corpus(5_000, seed=37) + CASES + GRAPHEME_CASES + grapheme_strings(20_000, seed=38) + [_text.mixed_text(30_000)]
    assert [text for text in texts if ours.normalize(text) != ref.normalize_str(text)] == []
    assert ours.normalize("ﬁ\u0301 ﬁ\u0301\u0301 ①") == "fi fi\u0301\u0301 1"  # a cluster of 5 bytes whole; of 7, per character


def hostile_t5(normalizer: dict) -> bytes:
    return t5_json(normalizer, "Metaspace").encode()


# A trie of one unit whose root points 1,000 units away: the first byte looked up is outside it.
OUTSIDE = (4).to_bytes(4, "little") + (1000 << 10).to_bytes(4, "little")


@pytest.mark.parametrize(
    "normalizer, path, message",
    [
        ({"type": "Precompiled", "precompiled_charsmap": "not base64!"}, "$.normalizer.precompiled_charsmap", "is not base64"),
        ({"type": "Precompiled", "precompiled_charsmap": 7}, "$.normalizer.precompiled_charsmap", "not a base64 string"),
        ({"type": "Precompiled"}, "$.normalizer.precompiled_charsmap", "not a base64 string"),
        (precompiled(b"\x01\x00"), "$.normalizer.precompiled_charsmap", "too short to hold its trie's size"),
        (precompiled(b"\x40\x00\x00\x00abcd"), "$.normalizer.precompiled_charsmap", "says its trie is 64 bytes in a map of 8"),
        (
            {"type": "Sequence", "normalizers": [precompiled(OUTSIDE + b"\xff")]},
            "$.normalizer.normalizers[0].precompiled_charsmap",
            "its replacement texts are not UTF-8 (byte 0 of them)",
        ),
        (
            {"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": "yes", "strip_right": True}]},
            "$.normalizer.normalizers[0]",
            "strip_left and strip_right are 'yes' and True",
        ),
        (
            {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
            "$.normalizer.pattern",
            "the regex '\\\\s+', which is not supported",
        ),
        ({"type": "NFKC"}, "$.normalizer", "the normalizer 'NFKC', which is not supported"),
        (
            {"type": "Replace", "pattern": {"Regex": " {3,2}"}, "content": " "},
            "$.normalizer.pattern",
            "the regex ' {3,2}', which is not valid",
        ),
    ],
)
def test_a_hostile_t5_normalizer_is_refused_with_its_name_and_json_path(normalizer, path, message):
    files_module._MEMO.clear()
    with pytest.raises(TokenizerFileError) as raised:
        from_bytes(hostile_t5(normalizer), "hostile.json")
    assert str(raised.value).startswith(f"hostile.json: {path}") and message in str(raised.value), str(raised.value)


@pytest.mark.parametrize(
    "blob, message",
    [
        (OUTSIDE, "a node points past the trie"),
        # the trained map with its replacement texts cut to one byte: the first rule met points past them
        ("cut", "a rule points at byte"),
    ],
)
def test_a_precompiled_map_pointing_outside_itself_is_refused_when_a_rule_is_met(blob, message):
    """tokenizers would panic where a rule points outside the map; the count is refused instead."""
    if blob == "cut":
        whole = charsmap_blob(trained(NFKC_UNIGRAM))
        blob = whole[: 4 + int.from_bytes(whole[:4], "little")] + b"a"
    files_module._MEMO.clear()
    tokenizer = from_bytes(hostile_t5(precompiled(blob)), "hostile.json")
    with pytest.raises(TokenizerFileError) as raised:
        tokenizer.count("ﬁ Ａ ① text")
    assert str(raised.value).startswith("hostile.json: $.normalizer.precompiled_charsmap: ") and message in str(raised.value)


def test_a_map_refused_while_counting_is_an_input_error_everywhere_never_an_internal_one(tmp_path, monkeypatch):
    """A registered file whose map breaks on this input: evaluate names $.tokenizer (the input is
    fine), count exits 2 with one line, the MCP tool call is a tool error, the page's token view says so."""
    from cli_calls import call_cli, one_line_error
    from fitproof import _page, evaluate
    from fitproof.mcp_server import tools
    from fitproof.tokenizers import TokenizerRegistry, using_tokenizers

    files_module._MEMO.clear()
    path = tmp_path / "broken.json"
    path.write_bytes(hostile_t5(precompiled(OUTSIDE)))
    registry = TokenizerRegistry()
    registry.register("t5", str(path))
    data = {"mode": "messages", "limit": 100, "tokenizer": "t5", "messages": [{"role": "user", "content": "ﬁ text"}]}
    items = {
        "mode": "required",
        "budget": 100,
        "tokenizer": "t5",
        "items": [{"id": "a", "content": "ﬁ text", "required": True, "priority": 1}],
    }
    with using_tokenizers(registry):
        report = evaluate(data)
        counted = evaluate(items)  # the items' contents are counted before the mode reads them
        tool = tools.call("count_tokens", {"text": "ﬁ text", "tokenizer": "t5"}, "2025-06-18")
    assert report["mode"] == "messages" and report["pass"] is False
    assert [error["path"] for error in report["errors"]] == ["$.tokenizer"]
    assert "a node points past the trie" in report["errors"][0]["message"]
    assert counted["mode"] == "required" and [error["path"] for error in counted["errors"]] == ["$.tokenizer"]
    assert tool["isError"] is True and "a node points past the trie" in tool["content"][0]["text"]
    text = tmp_path / "text.txt"
    text.write_text("ﬁ text")
    code, out, err = call_cli(["count", str(text), "--tokenizer-file", f"t5={path}"])
    assert code == 2 and out == "" and one_line_error(err) and "its file cannot count this text" in err, err
    monkeypatch.setattr(_page, "SESSION", TokenizerRegistry())  # the page's session, for this test alone
    chosen = json.loads(_page.load_model_tokenizer(path.read_bytes(), "broken.json"))
    answer = json.loads(_page.token_view("ﬁ text", chosen["name"]))
    assert chosen["ok"] is True and "a node points past the trie" in answer["error"]


# --- hostile files -----------------------------------------------------------------------------


def piece(text: str, score: float = 0.0, kind: int = 1, score_bits: bytes | None = None) -> bytes:
    body = delimited(1, text.encode()) + key(2, 5) + (score_bits or struct.pack("<f", score)) + key(3, 0) + varint(kind)
    return delimited(1, body)


def model_proto(pieces: bytes, model_type: int = 2) -> bytes:
    trainer = key(3, 0) + varint(model_type)
    normalizer = delimited(1, b"identity") + key(3, 0) + varint(1)
    return pieces + delimited(2, trainer) + delimited(3, normalizer)


SMALL = piece("<unk>", 0, 2) + piece("a", -1) + piece("\u2581", -2) + piece("\u2581a", -3)


def test_a_small_hand_written_model_counts_as_sentencepiece_does():
    import sentencepiece

    data = model_proto(SMALL)
    ref, ours = sentencepiece.SentencePieceProcessor(model_proto=data), from_bytes(data, "small.model")
    for text in ("a", "a a", "aa  a", "b", "ab b", ""):
        assert ours.ids(text) == ref.encode(text), text


def test_unigram_scores_reset_as_sentencepiece_resets_them():
    """Scores past 100,000 reset the path's scores (float32), at each place when pieces score that low, long pieces ending ahead."""
    import sentencepiece

    rng = random.Random(5)
    for big in (1e3, 3e4, 1e5, 7e5) * 5:
        texts = {"a", "b"} | {"".join(rng.choice("ab") for _ in range(rng.choice((2, 3, 5, 9, 12, 20, 40, 70)))) for _ in range(20)}
        data = model_proto(piece("<unk>", 0, 2) + b"".join(piece(text, -rng.random() * big) for text in sorted(texts)), model_type=1)
        ref, ours = sentencepiece.SentencePieceProcessor(model_proto=data), from_bytes(data, "reset.model")
        for size in (10, 300, 3000):
            text = "".join(rng.choice("abc") if rng.random() < 0.1 else rng.choice("ab") for _ in range(size))
            for text in (text, "a" * size):
                assert ours.ids(text) == ref.encode(text), (big, text[:40])


@pytest.mark.parametrize(
    "data, message",
    [
        (model_proto(SMALL)[:-7], "protobuf byte "),  # truncated inside the normalizer spec
        (model_proto(SMALL)[:37], "protobuf byte "),  # truncated inside a piece
        (b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "protobuf byte 1: a varint longer than 10 bytes"),
        (b"\x0a\x05ab", "protobuf byte 0: field 1 says 5 bytes, but its message has 2 left"),
        (b"\x0a\x01\x0b", "protobuf byte 2: field 1 has wire type 3 (groups and unknown types are not read)"),
        (model_proto(SMALL, model_type=3), "a SentencePiece word model: only Unigram and BPE models are supported"),
        (model_proto(SMALL, model_type=4), "a SentencePiece char model"),
        (
            model_proto(piece("<unk>", 0, 2) + piece("a", score_bits=struct.pack("<f", float("nan")))),
            "piece 1's score is nan, not a finite number",
        ),
        (
            model_proto(piece("<unk>", 0, 2) + piece("a", score_bits=struct.pack("<f", float("inf")))),
            "piece 1's score is inf, not a finite number",
        ),
        (model_proto(piece("a", -1)), "needs exactly one unknown piece, this one has 0"),
        (model_proto(piece("<unk>", 0, 2) + piece("a", -1) + piece("a", -2)), "piece 2 ('a') is already defined"),
        (model_proto(piece("<unk>", 0, 2) + piece("a", -1, kind=9)), "piece 1 has the unknown type 9"),
        (model_proto(piece("<unk>", 0, 2) + delimited(1, key(2, 5) + b"\0\0\0\0")), "piece 1 has no text"),
        (model_proto(piece("<unk>", 0, 2) + delimited(1, delimited(1, b"\xff"))), "piece 1's text is not UTF-8"),
        (model_proto(SMALL) + delimited(3, delimited(2, b"\x01\x00")), "too short to hold its trie's size"),
        (model_proto(SMALL) + delimited(3, delimited(2, b"\x40\x00\x00\x00abcd")), "says its trie is 64 bytes in a map of 8"),
    ],
)
def test_a_hostile_model_file_is_refused_with_its_name_and_byte_offset(tmp_path, data, message):
    path = tmp_path / "hostile.model"
    path.write_bytes(data)
    with pytest.raises(TokenizerFileError) as raised:
        load_tokenizer(path)
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value)


def test_a_model_with_too_many_pieces_is_refused(monkeypatch):
    monkeypatch.setattr(spm_module, "MAX_PIECES", 3)
    files_module._MEMO.clear()  # parsed anew, not the earlier test's tokenizer of the same bytes
    with pytest.raises(TokenizerFileError, match=r"big\.model: .*protobuf byte \d+: more than 3 pieces"):
        from_bytes(model_proto(SMALL), "big.model")


def test_a_model_file_is_read_from_bytes_as_the_page_gives_them():
    """``from_bytes`` (the page's way in) tells a .model file by its first byte, and records its digest."""
    import hashlib

    data = trained("bpe, byte fallback, identity")
    model = from_bytes(data, "tokenizer.model", "model")
    assert model.sha256 == hashlib.sha256(data).hexdigest() and model.kind == "SentencePiece .model (BPE, byte fallback)"
    text = "Hello  world 日本\U0010fffd"
    assert b"".join(model.tokens(text)) == b" " + text.replace("  ", " ").encode()
    assert [model.by_bytes.get(token) for token in model.tokens(text)] == model.ids(text)
