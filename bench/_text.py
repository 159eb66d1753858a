"""Generated text for the tokenizer's differential tests and benchmark: every kind a pre-tokenizer meets.

Deterministic for a given seed. Kinds: English prose with contractions in every case, code with
indentation and CRLF, whitespace runs, digit runs, CJK, Arabic, Devanagari and Thai, emoji with
joiners, skin tones and flags, stacked combining marks, letters that Unicode 15 and 16 added, and
random code points from every plane (surrogates included).
"""

from __future__ import annotations

import random

WORDS = (
    "the refund policy order customer shipping damaged replacement evidence photo claim window "
    "budget token context prompt model answer question source passage block priority"
).split()
CONTRACTIONS = [
    "'s",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'d",
    "'S",
    "'T",
    "'RE",
    "'Ve",
    "'rE",
    "'M",
    "'LL",
    "'lL",
    "'D",
    "'\u017f",
    "\u2019s",
    "'x",
    "'",
]
CODE = [
    "def f(x):\n    return x + 1\n",
    "for (let i = 0; i < n; i++) {\r\n\tsum += a[i];\r\n}\r\n",
    "SELECT id, name FROM users WHERE id = 42;\n",
    "    \n\n\t\t  \n",
    "x==1&&y!=2||z>=3",
    "https://example.org/a/b?c=1&d=%20",
    "/usr/local/bin//python3\n/",
    '{"key": [1, 2.5e-3, null]}',
    "#include <stdio.h>\n",
    "a/b/c\r\n\r\n/d",
    "__init__.py",
    "camelCaseWord PascalCase snake_case CONSTANT",
]
MULTILINGUAL = [
    "日本語のテキストです。",
    "中文文本，包括标点符号！",
    "한국어 문장입니다.",
    "مرحبا بالعالم، كيف حالك؟",
    "नमस्ते दुनिया",
    "สวัสดีชาวโลก",
    "Привет, мир! ЁЖИК",
    "Ελληνικά κείμενα",
    "עברית טקסט",
    "Straße ÄÖÜ ß ǅ ǈ ǋ ᾈ",
    "e\u0301\u0300\u0302 a\u0308 n\u0303",
    "Z\u0351\u0352\u0353\u0354a\u0355lgo",
]
EMOJI = ["👨‍👩‍👧‍👦", "👍🏽", "🇫🇷🇯🇵", "🏳️‍🌈", "❤️", "😀😃😄", "🧑🏿‍💻", "#️⃣", "\u200d", "\ufe0f"]
SPACES = [" ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "\u2028", "\u0085", "\x0b", "\x0c", "\x1c", "\u200b", "\u180e"]


def new_letters() -> list[str]:
    """Characters our Unicode 16 table classes as letters, marks or numbers that Unicode 14 left unassigned."""
    import unicodedata
    from bisect import bisect_right

    from fitproof.tokenizers import unicode_classes as table

    found = []
    for index, start in enumerate(table.STARTS):
        if table.CODES[index] in "Aaok0":
            end = table.STARTS[index + 1] if index + 1 < len(table.STARTS) else 0x110000
            for code_point in range(start, min(end, start + 40)):
                if unicodedata.category(chr(code_point)) == "Cn":
                    found.append(chr(code_point))
    assert found and all(table.CODES[bisect_right(table.STARTS, ord(c)) - 1] != "." for c in found)
    return found


def random_code_point(rng: random.Random) -> str:
    plane = rng.random()
    if plane < 0.5:
        return chr(rng.randint(0, 0x7F))
    if plane < 0.8:
        return chr(rng.randint(0x80, 0xFFFF))  # the BMP, surrogates included
    return chr(rng.randint(0x10000, 0x10FFFF))


def fragment(rng: random.Random, newer: list[str]) -> str:
    kind = rng.randrange(10)
    if kind == 0:
        word = rng.choice(WORDS)
        word = rng.choice([word, word.upper(), word.title(), word[:1] + word[1:].upper()])
        return word + rng.choice(CONTRACTIONS)
    if kind == 1:
        return rng.choice(CODE)
    if kind == 2:
        return "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 6)))
    if kind == 3:
        return str(rng.randint(0, 10 ** rng.randint(1, 12)))
    if kind == 4:
        return rng.choice(MULTILINGUAL)
    if kind == 5:
        return rng.choice(EMOJI)
    if kind == 6:
        return "".join(rng.choice(newer) for _ in range(rng.randint(1, 4)))
    if kind == 7:
        return "".join(random_code_point(rng) for _ in range(rng.randint(1, 8)))
    if kind == 8:
        return rng.choice(".,;:!?-()[]{}'\"/\\@#$%^&*_+=<>|~`") * rng.randint(1, 3)
    return " " + rng.choice(WORDS)


def strings(count: int, seed: int = 0) -> list[str]:
    """``count`` short strings (0 to ~12 fragments each) mixing every kind above."""
    rng = random.Random(seed)
    newer = new_letters()
    return ["".join(fragment(rng, newer) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def long_pieces(length: int = 20_000, seed: int = 0) -> list[str]:
    """Strings of ``length`` characters that pre-tokenize to one huge piece, or a few."""
    rng = random.Random(seed)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(length))
    return [
        "a" * length,
        letters,  # a minified blob of letters: one piece, merged through the heap
        "".join(rng.choice("日本語中文字漢") for _ in range(length)),
        "!" * length,
        "".join(rng.choice("!@#$%^&*()") for _ in range(length)),
        " " * length + "x",
        "\n" * length,
        "9" * length,
        "é" * length,
        "".join(rng.choice(["\u0301", "a", "\u0308"]) for _ in range(length)),
    ]


def mixed_text(size: int = 1_000_000, seed: int = 0) -> str:
    """About ``size`` characters of prose, code, multilingual text and emoji, as a document has them."""
    rng = random.Random(seed)
    parts = []
    total = 0
    while total < size:
        kind = rng.random()
        if kind < 0.55:
            sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 20)))
            part = sentence.capitalize() + rng.choice([".", "?", "!", ", and it's fine."]) + rng.choice([" ", "\n", "\n\n"])
        elif kind < 0.8:
            part = rng.choice(CODE)
        elif kind < 0.95:
            part = rng.choice(MULTILINGUAL) + rng.choice([" ", "\n"])
        else:
            part = rng.choice(EMOJI) + " "
        parts.append(part)
        total += len(part)
    return "".join(parts)[:size]


def reference_encoding(name: str):
    """tiktoken's ``Encoding`` for ``name``, built from the local rank file (tiktoken would download it).

    The pattern and special tokens are tiktoken_ext.openai_public's own; only the loader is redirected
    to the verified file that fitproof reads too. Needs the test extra (tiktoken).
    """
    from unittest import mock

    import tiktoken
    import tiktoken.load
    from tiktoken_ext import openai_public

    from fitproof.tokenizers import exact

    path = exact.rank_file(name)
    ranks = tiktoken.load.load_tiktoken_bpe(str(path), exact.RANK_FILES[name].sha256)
    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks):
        spec = getattr(openai_public, name)()
    return tiktoken.Encoding(**spec)
