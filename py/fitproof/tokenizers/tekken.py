"""Mistral's tekken file (``tekken_*.json``): tiktoken-format ranks in JSON, read as a ``RankTokenizer``.

Counts equal mistral-common's ``Tekkenizer.encode(text, bos=False, eos=False)`` (control-token text
is ordinary text there, as in tiktoken's ``encode_ordinary``); ``count_prompt`` reads the control
tokens' text as those tokens.
"""

from __future__ import annotations

from .._base.errors import TokenizerFileError
from .base import MAX_TOKEN_ID, read_token_id, short
from .rank_tokenizer import RankTokenizer


# Mistral's control tokens when a tekken file lists none (mistral-common's DEPRECATED_SPECIAL_TOKENS).
TEKKEN_DEFAULT_SPECIALS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)


def tekken(data: dict, name: str, sha256: str, source: str) -> RankTokenizer:
    """A tekken file's ranks, pattern and control tokens, every field read by its type (a rank that
    is not a whole number from 0 to 2**32 - 1, bytes that are not base64, refused by their path)."""
    config = data.get("config")
    vocab = data.get("vocab")
    if not isinstance(config, dict) or not isinstance(vocab, list):
        raise TokenizerFileError(f'{source}: a tekken file needs "config" (an object) and "vocab" (a list)')
    pattern = config.get("pattern")
    if not isinstance(pattern, str):
        raise TokenizerFileError(f"{source}: $.config.pattern is {short(pattern)}, not a string")
    specials_count = _count(config, "default_num_special_tokens", source)
    inner = _count(config, "default_vocab_size", source) - specials_count
    if inner < 0:
        raise TokenizerFileError(f"{source}: $.config.default_vocab_size is smaller than $.config.default_num_special_tokens")
    listed = data.get("special_tokens")
    if listed is not None and not isinstance(listed, list):
        raise TokenizerFileError(f"{source}: $.special_tokens is {short(listed)}, not a list")
    specials = []
    for index, entry in enumerate(listed or ()):
        text = entry.get("token_str") if isinstance(entry, dict) else None
        if not isinstance(text, str) or not text:
            raise TokenizerFileError(f"{source}: $.special_tokens[{index}] is {short(entry)}, not an object with a token_str")
        specials.append(text)
    if not listed:
        specials = list(TEKKEN_DEFAULT_SPECIALS)
    import binascii  # here, as hashlib below: importing the package costs the page's start-up

    ranks: dict[bytes, int] = {}
    decode = binascii.a2b_base64
    for index, entry in enumerate(vocab[:inner]):
        at = f"$.vocab[{index}]"
        if not isinstance(entry, dict):
            raise TokenizerFileError(f"{source}: {at} is {short(entry)}, not an object with a rank and token_bytes")
        encoded = entry.get("token_bytes")
        if not isinstance(encoded, str):
            raise TokenizerFileError(f"{source}: {at}.token_bytes is {short(encoded)}, not a base64 string")
        try:
            token = decode(encoded, strict_mode=True)
        except ValueError:  # binascii.Error is one
            raise TokenizerFileError(f"{source}: {at}.token_bytes is {short(encoded)}, not base64") from None
        ranks[token] = read_token_id(entry.get("rank"), source, f"{at}.rank")
    if len(ranks) != inner:
        raise TokenizerFileError(f"{source}: tekken vocab has {len(ranks)} distinct tokens, expected {inner}")
    if len(set(ranks.values())) != len(ranks):  # (tiktoken refuses such ranks: two tokens would decode alike)
        raise TokenizerFileError(f"{source}: tekken vocab gives two tokens the same rank")
    missing = next((b for b in range(256) if bytes([b]) not in ranks), None)
    if missing is not None:  # (tiktoken cannot encode that byte: it stops with an error)
        raise TokenizerFileError(f"{source}: tekken vocab has no token for the byte 0x{missing:02X}")
    tokenizer = RankTokenizer(name, sha256, source, ranks, pattern, (), specials)
    tokenizer.kind = "tekken"
    return tokenizer


def _count(config: dict, key: str, source: str) -> int:
    value = config.get(key)
    if type(value) is not int or not 0 <= value <= MAX_TOKEN_ID:
        raise TokenizerFileError(f"{source}: $.config.{key} is {short(value)}, not a whole number from 0 to {MAX_TOKEN_ID:,}")
    return value
