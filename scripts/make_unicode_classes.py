#!/usr/bin/env python3
"""Write py/fitproof/tokenizers/unicode_classes.py: the pre-tokenizer's character classes, frozen at Unicode 16.0.

Why a generated table: the split patterns of o200k_base and cl100k_base use \\p{L}, \\p{Lu}, \\p{N},
\\p{M} and \\s, which Python's ``re`` lacks. The tokenizer maps every character to a one-character
class code and runs an equivalent pattern on the codes. The classes must come from the Unicode
version that tiktoken's own regex engine uses (16.0 for tiktoken 0.14), not from the running
interpreter's ``unicodedata`` (Unicode 14 in CPython 3.11, 16 in Pyodide's 3.14): otherwise the CLI
and the page would count some texts differently.

Re-run it (the output is deterministic, so an unchanged table gives no diff):

    python -m pip install unicodedata2==16.0.0     # Unicode 16.0's database as a module
    python scripts/make_unicode_classes.py          # rewrites the table
    python scripts/make_unicode_classes.py --check  # exit 1 if the committed table differs

To move to another Unicode version (when tiktoken's engine does), install the matching
``unicodedata2`` and pass ``--version X.Y.Z``; then run the differential tests against tiktoken.

It writes two more tables beside it, from the same database:

- ``unicode_categories.py``: every code point's general category (``Lu``, ``Po``, ``Cn``...) and the
  White_Space ranges, which the pattern translator of tokenizers loaded from a model's own files
  (``tokenizers/regex.py``) turns into class codes for whatever ``\\p{..}`` its patterns use.
- ``unicode_nfc.py``: canonical decompositions, combining classes and the primary composites, for
  the NFC normalizer of Hugging Face tokenizer files (Qwen 3's). It is frozen at Unicode 9.0.0, the
  version of the normalization tables in Hugging Face ``tokenizers`` 0.23.3 (the reference: its NFC
  equals CPython 3.6's, whose database is Unicode 9.0.0, on every code point, and differs from 11.0's).
  Normalization data never changes for a character once assigned, so Unicode 9.0's tables are
  Unicode 16.0's without the characters assigned later: ``NFC_NEWER`` lists those that matter here
  (characters after 9.0 with a combining class or a canonical decomposition, or part of one;
  from Unicode's DerivedAge.txt), and the generator leaves them out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "py" / "fitproof" / "tokenizers" / "unicode_classes.py"

# Unicode's White_Space property (PropList.txt), which is what \s means in tiktoken's regex engine.
# unicodedata has no property lookup; this list has not changed since Unicode 6.3 (U+180E left it).
# Python's str.isspace() differs (it includes U+001C..U+001F), so it cannot be used instead.
WHITE_SPACE = [
    (0x09, 0x0D),
    (0x20, 0x20),
    (0x85, 0x85),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
]

# The class codes. The tokenizer module documents what each means in its patterns.
CODE_OF_CATEGORY = {
    "Lu": "A",
    "Lt": "A",  # upper and title case letters
    "Ll": "a",  # lower case letters
    "Lm": "o",
    "Lo": "o",  # modifier and other letters (both patterns treat them alike)
    "Mn": "k",
    "Mc": "k",
    "Me": "k",  # marks
    "Nd": "0",
    "Nl": "0",
    "No": "0",  # numbers
}
WHITE_SPACE_CODE = "_"
OTHER = "."  # punctuation, symbols, controls, separators that are not white space, unassigned


def classify(unicodedata, code_point: int, white: set[int]) -> str:
    if code_point in white:
        return WHITE_SPACE_CODE
    return CODE_OF_CATEGORY.get(unicodedata.category(chr(code_point)), OTHER)


def runs(unicodedata) -> list[tuple[int, str]]:
    """(first code point, class) for each maximal run of code points with the same class."""
    white = {cp for first, last in WHITE_SPACE for cp in range(first, last + 1)}
    result: list[tuple[int, str]] = []
    for code_point in range(0x110000):
        code = classify(unicodedata, code_point, white)
        if not result or result[-1][1] != code:
            result.append((code_point, code))
    return result


def run_lines(starts: list[int], codes: str, name: str = "CODES") -> list[str]:
    """``STARTS = (...)`` and ``<name> = (...)``: the runs' first code points and their codes, joined."""
    lines = ["STARTS = ("]
    for i in range(0, len(starts), 12):
        lines.append("    " + ", ".join(f"0x{s:X}" for s in starts[i : i + 12]) + ",")
    lines.append(")")
    lines.append(f"{name} = (")
    for i in range(0, len(codes), 96):
        lines.append(f"    {codes[i : i + 96]!r}")
    lines.append(")")
    return lines


def write_or_check(outputs: list[tuple[Path, str, str]], check: bool) -> int:
    """Write each (path, text, Unicode version), or with ``check`` compare: 1 if any differs."""
    status = 0
    for path, text, version in outputs:
        if check:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            print(f"{path}: {'up to date' if same else 'differs from the generated table'}")
            status |= 0 if same else 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path} (Unicode {version})")
    return status


def render(version: str, table: list[tuple[int, str]]) -> str:
    starts = [start for start, _ in table]
    codes = "".join(code for _, code in table)
    lines = [
        '"""Character classes for the exact tokenizers\' pre-tokenizer, frozen at Unicode ' + version + ".",
        "",
        "Generated by scripts/make_unicode_classes.py from unicodedata2 " + version + "; do not edit by hand.",
        "Run ``i`` covers the code points from ``STARTS[i]`` up to ``STARTS[i + 1] - 1`` and has the class",
        "``CODES[i]``: "
        + ", ".join(
            f"{c!r} {what}"
            for c, what in (
                ("A", "Lu/Lt"),
                ("a", "Ll"),
                ("o", "Lm/Lo"),
                ("k", "M"),
                ("0", "N"),
                (WHITE_SPACE_CODE, "White_Space"),
                (OTHER, "anything else"),
            )
        )
        + ".",
        '"""',
        "",
        f"UNICODE_VERSION = {version!r}",
        "",
        "# fmt: off",
        *run_lines(starts, codes),
        "# fmt: on",
    ]
    return "\n".join(lines) + "\n"


CATEGORIES_OUTPUT = OUTPUT.with_name("unicode_categories.py")
NFC_OUTPUT = OUTPUT.with_name("unicode_nfc.py")
NFC_VERSION = "9.0.0"
# Code points assigned after Unicode 9.0 that have a canonical combining class or decomposition, or
# appear in one (DerivedAge.txt ages 10.0 to 16.0); Unicode 9.0's normalization is 16.0's without them.
NFC_NEWER = [
    (0x7FD, 0x7FD),
    (0x897, 0x89F),
    (0x8CA, 0x8D3),
    (0x9FE, 0x9FE),
    (0xC3C, 0xC3C),
    (0xD3B, 0xD3C),
    (0xEBA, 0xEBA),
    (0x1715, 0x1715),
    (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFA),
    (0xA82C, 0xA82C),
    (0x105C9, 0x105C9),
    (0x105D2, 0x105D2),
    (0x105DA, 0x105DA),
    (0x105E4, 0x105E4),
    (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D),
    (0x10EAB, 0x10EAC),
    (0x10EFD, 0x10EFF),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x1133B, 0x1133B),
    (0x11382, 0x11385),
    (0x1138B, 0x1138B),
    (0x1138E, 0x1138E),
    (0x11390, 0x11391),
    (0x113B8, 0x113B8),
    (0x113BB, 0x113BB),
    (0x113C2, 0x113C2),
    (0x113C5, 0x113C5),
    (0x113C7, 0x113C9),
    (0x113CE, 0x113D0),
    (0x1145E, 0x1145E),
    (0x11839, 0x1183A),
    (0x11930, 0x11930),
    (0x11935, 0x11935),
    (0x11938, 0x11938),
    (0x1193D, 0x1193E),
    (0x11943, 0x11943),
    (0x119E0, 0x119E0),
    (0x11A34, 0x11A34),
    (0x11A47, 0x11A47),
    (0x11A99, 0x11A99),
    (0x11D42, 0x11D42),
    (0x11D44, 0x11D45),
    (0x11D97, 0x11D97),
    (0x11F41, 0x11F42),
    (0x1611E, 0x16129),
    (0x1612F, 0x1612F),
    (0x16D63, 0x16D63),
    (0x16D67, 0x16D6A),
    (0x16FF0, 0x16FF1),
    (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E4EC, 0x1E4EF),
    (0x1E5EE, 0x1E5EF),
]


def render_categories(version: str, unicodedata) -> str:
    starts, names = [], []
    for code_point in range(0x110000):
        category = unicodedata.category(chr(code_point))
        if not names or names[-1] != category:
            starts.append(code_point)
            names.append(category)
    lines = [
        'r"""Every code point\'s general category, frozen at Unicode ' + version + ", and the White_Space ranges.",
        "",
        "Generated by scripts/make_unicode_classes.py from unicodedata2 " + version + "; do not edit by hand.",
        "Run ``i`` covers the code points from ``STARTS[i]`` up to ``STARTS[i + 1] - 1`` and has the general",
        "category ``CATEGORIES[2 * i:2 * i + 2]`` (``Lu``, ``Mn``, ``Po``, ``Cn``...). ``WHITE_SPACE`` holds the",
        "(first, last) ranges of the White_Space property, which is what ``\\s`` means in the tokenizers' regex engines.",
        '"""',
        "",
        f"UNICODE_VERSION = {version!r}",
        "",
        "# fmt: off",
        "WHITE_SPACE = (" + ", ".join(f"(0x{a:X}, 0x{b:X})" for a, b in WHITE_SPACE) + ")",
        *run_lines(starts, "".join(names), "CATEGORIES"),
        "# fmt: on",
    ]
    return "\n".join(lines) + "\n"


def render_nfc(unicodedata) -> str:
    newer = {cp for first, last in NFC_NEWER for cp in range(first, last + 1)}
    classes, decompositions, composites = [], {}, []
    for code_point in range(0x110000):
        if code_point in newer:
            continue
        character = chr(code_point)
        combining = unicodedata.combining(character)
        if combining:
            if classes and classes[-1][1] == code_point - 1 and classes[-1][2] == combining:
                classes[-1][1] = code_point
            else:
                classes.append([code_point, code_point, combining])
        mapping = unicodedata.decomposition(character)
        if mapping and not mapping.startswith("<"):
            parts = tuple(int(part, 16) for part in mapping.split())
            decompositions[code_point] = parts
            if len(parts) == 2 and unicodedata.normalize("NFC", character) == character:
                composites.append(code_point)
    lines = [
        '"""Canonical decompositions, combining classes and primary composites, frozen at Unicode ' + NFC_VERSION + ".",
        "",
        "Generated by scripts/make_unicode_classes.py from unicodedata2 16.0.0 without the characters",
        "assigned after Unicode " + NFC_VERSION + " (its ``NFC_NEWER``); do not edit by hand. Hangul syllables are",
        "composed and decomposed by Unicode's algorithm in ``normalize.py``, not listed here.",
        "",
        "- ``COMBINING``: (first, last, class) runs of a non-zero canonical combining class;",
        "- ``DECOMPOSITION``: code point -> its canonical decomposition (one level; applied recursively);",
        "- ``COMPOSITES``: the code points whose two-character decomposition NFC composes back",
        "  (every other decomposition is a singleton, starts with a non-starter or is excluded).",
        '"""',
        "",
        f"UNICODE_VERSION = {NFC_VERSION!r}",
        "",
        "# fmt: off",
        "COMBINING = (",
    ]
    for i in range(0, len(classes), 6):
        lines.append("    " + " ".join(f"(0x{a:X}, 0x{b:X}, {c})," for a, b, c in classes[i : i + 6]))
    lines.append(")")
    lines.append("DECOMPOSITION = {")
    items = sorted(decompositions.items())
    for i in range(0, len(items), 5):
        lines.append(
            "    " + " ".join(f"0x{k:X}: ({', '.join(f'0x{p:X}' for p in v)}{',' if len(v) == 1 else ''})," for k, v in items[i : i + 5])
        )
    lines.append("}")
    lines.append("COMPOSITES = frozenset((")
    for i in range(0, len(composites), 12):
        lines.append("    " + ", ".join(f"0x{c:X}" for c in composites[i : i + 12]) + ",")
    lines.append("))")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default="16.0.0", help="the Unicode version to freeze (default 16.0.0)")
    parser.add_argument("--check", action="store_true", help="compare with the committed table, write nothing")
    options = parser.parse_args(argv)
    try:
        import unicodedata2
    except ImportError:
        print(f"needs unicodedata2=={options.version}: python -m pip install unicodedata2=={options.version}", file=sys.stderr)
        return 2
    if unicodedata2.unidata_version != options.version:
        print(
            f"unicodedata2 has Unicode {unicodedata2.unidata_version}, not {options.version}: "
            f"python -m pip install unicodedata2=={options.version}",
            file=sys.stderr,
        )
        return 2
    outputs = [
        (OUTPUT, render(options.version, runs(unicodedata2)), options.version),
        (CATEGORIES_OUTPUT, render_categories(options.version, unicodedata2), options.version),
        (NFC_OUTPUT, render_nfc(unicodedata2), NFC_VERSION),
    ]
    return write_or_check(outputs, options.check)


if __name__ == "__main__":
    sys.exit(main())
