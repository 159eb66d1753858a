#!/usr/bin/env python3
"""Write py/fitproof/tokenizers/unicode_graphemes.py: the grapheme cluster break classes, frozen at Unicode 17.0.

Why a generated table: Hugging Face ``tokenizers`` applies a ``Precompiled`` normalizer (T5's) per
extended grapheme cluster, cut by the Rust crate ``unicode-segmentation`` (1.13.3 in tokenizers
0.23.3: Unicode 17.0.0). ``graphemes.py`` cuts text the same way from this table, which must come
from that Unicode version, not from the running interpreter (Python's ``unicodedata`` has no
Grapheme_Cluster_Break at all), so that the CLI and the page cut the same clusters.

The classes are the crate's (its ``scripts/unicode.py``): the Grapheme_Cluster_Break value, except
that InCB=Consonant and Extended_Pictographic characters are classes of their own (they never
overlap a break value other than Other), plus the two InCB flags GB9c reads (Linker, Extend).
Like the crate's generated ``is_incb_linker``, a range of InCB=Linker characters counts only its
first code point (every Linker is a single code point in Unicode 17.0, so this changes nothing).

The source is the ``regex`` module, pinned to 2026.9.10: the last release whose database is
Unicode 17.0 (2026.9.29 moved to 18.0). Re-run it (the output is deterministic):

    python -m pip install regex==2026.9.10
    python scripts/make_unicode_graphemes.py          # rewrites the table
    python scripts/make_unicode_graphemes.py --check  # exit 1 if the committed table differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from make_unicode_classes import run_lines, write_or_check  # scripts/ is on the path when run as a script

OUTPUT = Path(__file__).resolve().parent.parent / "py" / "fitproof" / "tokenizers" / "unicode_graphemes.py"
VERSION = "17.0.0"
REGEX_VERSION = "2026.9.10"
# A character assigned in Unicode 17.0 and one assigned in 18.0: regex's database must have the first only.
NEW_IN_17, NEW_IN_18 = 0x088F, 0x0558

BREAKS = ("CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator", "Prepend", "SpacingMark", "L", "V", "T", "LV", "LVT")
# (class, InCB=Linker, InCB=Extend) -> code; a combination not listed stops the generator.
CODES = {
    ("Other", False, False): ".",
    ("CR", False, False): "r",
    ("LF", False, False): "n",
    ("Control", False, False): "c",
    ("Extend", False, False): "e",
    ("Extend", False, True): "x",
    ("Extend", True, False): "k",
    ("ZWJ", False, True): "z",
    ("Regional_Indicator", False, False): "R",
    ("Prepend", False, False): "p",
    ("SpacingMark", False, False): "s",
    ("L", False, False): "L",
    ("V", False, False): "V",
    ("T", False, False): "T",
    ("LV", False, False): "v",
    ("LVT", False, False): "t",
    ("InCB_Consonant", False, False): "C",
    ("Extended_Pictographic", False, False): "E",
}
MEANING = {
    ".": "Other",
    "r": "CR",
    "n": "LF",
    "c": "Control",
    "e": "Extend",
    "x": "Extend, InCB=Extend",
    "k": "Extend, InCB=Linker",
    "z": "ZWJ (InCB=Extend)",
    "R": "Regional_Indicator",
    "p": "Prepend",
    "s": "SpacingMark",
    "L": "L",
    "V": "V",
    "T": "T",
    "v": "LV",
    "t": "LVT",
    "C": "InCB=Consonant",
    "E": "Extended_Pictographic",
}


def members(regex, pattern: str, everything: str) -> list[int]:
    return [ord(m.group()) for m in regex.finditer(pattern, everything)]


def ranges(points: list[int]) -> list[tuple[int, int]]:
    result: list[list[int]] = []
    for point in sorted(points):
        if result and result[-1][1] == point - 1:
            result[-1][1] = point
        else:
            result.append([point, point])
    return [(a, b) for a, b in result]


def runs(regex) -> list[tuple[int, str]]:
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    kind = ["Other"] * 0x110000
    for surrogate in range(0xD800, 0xE000):  # Control in the data; never in a Python str given to the cutter
        kind[surrogate] = "Control"
    for name in BREAKS:
        for point in members(regex, r"\p{Grapheme_Cluster_Break=" + name + "}", everything):
            kind[point] = name
    for name, pattern in (
        ("InCB_Consonant", r"\p{Indic_Conjunct_Break=Consonant}"),
        ("Extended_Pictographic", r"\p{Extended_Pictographic}"),
    ):
        for point in members(regex, pattern, everything):
            if kind[point] != "Other":
                raise SystemExit(f"U+{point:04X} is {name} and {kind[point]}: the crate keeps them apart")
            kind[point] = name
    linker = set()
    for first, _last in ranges(members(regex, r"\p{Indic_Conjunct_Break=Linker}", everything)):
        linker.add(first)  # as the crate's is_incb_linker: the first of a range only
    extend = set(members(regex, r"\p{Indic_Conjunct_Break=Extend}", everything))
    result: list[tuple[int, str]] = []
    for point in range(0x110000):
        key = (kind[point], point in linker, point in extend)
        if key not in CODES:
            raise SystemExit(f"U+{point:04X} has the unexpected combination {key}")
        code = CODES[key]
        if not result or result[-1][1] != code:
            result.append((point, code))
    return result


def render(table: list[tuple[int, str]]) -> str:
    starts = [start for start, _ in table]
    codes = "".join(code for _, code in table)
    lines = [
        '"""Grapheme cluster break classes (UAX #29), frozen at Unicode ' + VERSION + ".",
        "",
        f"Generated by scripts/make_unicode_graphemes.py from regex {REGEX_VERSION}; do not edit by hand.",
        "Run ``i`` covers the code points from ``STARTS[i]`` up to ``STARTS[i + 1] - 1`` and has the class",
        "``CODES[i]``: " + ", ".join(f"{code!r} {what}" for code, what in MEANING.items()) + ".",
        '"""',
        "",
        f"UNICODE_VERSION = {VERSION!r}",
        "",
        "# fmt: off",
        *run_lines(starts, codes),
        "# fmt: on",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table, write nothing")
    options = parser.parse_args(argv)
    try:
        import regex
    except ImportError:
        print(f"needs regex=={REGEX_VERSION}: python -m pip install regex=={REGEX_VERSION}", file=sys.stderr)
        return 2
    unassigned = regex.compile(r"\p{Cn}")
    if unassigned.match(chr(NEW_IN_17)) or not unassigned.match(chr(NEW_IN_18)):
        print(
            f"regex {regex.__version__} does not have Unicode {VERSION}'s database: python -m pip install regex=={REGEX_VERSION}",
            file=sys.stderr,
        )
        return 2
    return write_or_check([(OUTPUT, render(runs(regex)), VERSION)], options.check)


if __name__ == "__main__":
    sys.exit(main())
