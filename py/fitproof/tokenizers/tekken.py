"""Mistral's tekken file (``tekken_*.json``): tiktoken-format ranks in JSON, read as a ``RankTokenizer``.

Counts equal mistral-common's ``Tekkenizer.encode(text, bos=False, eos=False)`` (control-token text
is ordinary text there, as in tiktoken's ``encode_ordinary``); ``count_prompt`` reads the control
tokens' text as those tokens.
"""

from __future__ import annotations

from .._base.errors import TokenizerFileError
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
    config = data.get("config")
    vocab = data.get("vocab")
    if not isinstance(config, dict) or not isinstance(vocab, list):
        raise TokenizerFileError(f'{source}: a tekken file needs "config" and "vocab"')
    try:
        pattern = config["pattern"]
        specials_count = int(config["default_num_special_tokens"])
        inner = int(config["default_vocab_size"]) - specials_count
    except (KeyError, TypeError, ValueError) as error:
        raise TokenizerFileError(f"{source}: tekken config lacks or mistypes {error}") from None
    listed = data.get("special_tokens")
    specials = [t["token_str"] for t in listed] if listed else list(TEKKEN_DEFAULT_SPECIALS)
    import base64  # here, as hashlib below: importing the package costs the page's start-up

    ranks: dict[bytes, int] = {}
    decode = base64.b64decode
    for entry in vocab[:inner]:
        ranks[decode(entry["token_bytes"])] = entry["rank"]
    if len(ranks) != inner:
        raise TokenizerFileError(f"{source}: tekken vocab has {len(ranks)} distinct tokens, expected {inner}")
    tokenizer = RankTokenizer(name, sha256, source, ranks, pattern, (), specials)
    tokenizer.kind = "tekken"
    return tokenizer
