"""base.AddedTokens: the one matcher of added tokens (tokenizer.json's added_tokens, a .model's
user-defined pieces, tekken's and harmony's control tokens). It cuts them out leftmost-longest, as a
regex alternation sorted longest first does, and keeps prefixes of the first ``SHORT`` characters
only: a very long added token costs its length, not every prefix of it."""

import json
import re
import tracemalloc

from hypothesis import given, settings, strategies as st

from fitproof.tokenizers import base, byte_level_json, from_bytes


def alternation_split(texts, text):
    """The rule written plainly: a regex alternation of the texts, longest first (leftmost-longest)."""
    texts = sorted(set(texts), key=lambda t: (-len(t), t))
    if not texts or not text:
        return [(text, False)] if text else []
    parts, done = [], 0
    for match in re.finditer("|".join(map(re.escape, texts)), text):
        if match.start() > done:
            parts.append((text[done : match.start()], False))
        parts.append((match.group(0), True))
        done = match.end()
    if done < len(text):
        parts.append((text[done:], False))
    return parts


class Walk(base.AddedTokens):
    ALTERNATION_UP_TO = 0  # the walk of prefixes (Gemma's thousands), not the alternation


class ShortPrefixes(Walk):
    SHORT = 3  # so that generated texts take the long texts' path too


ALPHABET = "ab<>]^-\\"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(ALPHABET, min_size=1, max_size=9), max_size=8), st.text(ALPHABET, max_size=40))
def test_added_tokens_split_as_a_longest_first_alternation(texts, text):
    expected = alternation_split(texts, text)
    assert base.AddedTokens(texts).split(text) == expected
    assert Walk(texts).split(text) == expected
    assert ShortPrefixes(texts).split(text) == expected


LONG = "<" + "x" * 59_998 + ">"  # one added token of 60,000 characters


def sentencepiece_file() -> bytes:
    return json.dumps(
        {
            "version": "1.0",
            "added_tokens": [{"id": 3, "content": LONG, "special": True}],
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            "pre_tokenizer": None,
            "model": {
                "type": "BPE",
                "byte_fallback": True,
                "unk_token": None,
                "vocab": {"a": 0, "\u2581": 1, "\u2581a": 2, LONG: 3},
                "merges": [["\u2581", "a"]],
            },
        }
    ).encode()


def byte_level_file() -> bytes:
    vocab = {char: byte for byte, char in byte_level_json.CHAR_OF_BYTE.items()}
    vocab[LONG] = 256
    return json.dumps(
        {
            "version": "1.0",
            "added_tokens": [{"id": 256, "content": LONG, "special": True}],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
            "model": {"type": "BPE", "vocab": vocab, "merges": []},
        }
    ).encode()


def test_a_60000_character_added_token_loads_in_bounded_memory():
    for data in (sentencepiece_file(), byte_level_file()):
        tracemalloc.start()
        try:
            tokenizer = from_bytes(data, "long-added-token.json")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 50 * 1024 * 1024, peak  # every prefix of it would be 1.8 GB
        assert tokenizer.count(LONG) == 1
        assert tokenizer.count("a" + LONG + "a") == tokenizer.count("a") + 1 + tokenizer.count("a")
        assert tokenizer.count(LONG[:-1]) != 1  # its prefix is no added token
        assert LONG.encode() in tokenizer.tokens("a" + LONG)


def test_the_walk_keeps_short_prefixes_only():
    """The walk (used past ALTERNATION_UP_TO texts) with a 60,000-character text among many."""
    texts = [LONG, LONG[:-1] + "y", "<xx>", "<", "b"] + [f"<unused{i}>" for i in range(3000)]
    tracemalloc.start()
    try:
        matcher = base.AddedTokens(texts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert matcher.pattern is None and peak < 50 * 1024 * 1024, peak
    text = "a<xx>" + LONG + "<" + LONG[:-1] + "yb<unused7><unused"
    assert matcher.split(text) == alternation_split(texts, text)
    assert [part for part, added in matcher.split(text) if added] == ["<xx>", LONG, "<", LONG[:-1] + "y", "b", "<unused7>", "<"]
