"""Tokenizer split patterns (Oniguruma / fancy-regex syntax with ``\\p{..}``) run with Python's ``re``.

``re`` has no Unicode properties, and the running Python's Unicode version is not the reference's.
So every character is mapped to a *code* (one private-use character) by ``str.translate``, the
pattern is rewritten to match codes, and the text is cut at the offsets the codes matched at.

How the codes are chosen: the patterns' character tests (``\\p{L}``, ``\\s``, a literal ``'``, a
range ``\\u4e00-\\u9fa5``, a class ``[^\\r\\n\\p{L}\\p{N}]``...) are collected; the code space is cut at
every boundary any of them can see (general-category runs of ``unicode_categories``, White_Space
ranges, literal characters, range ends); each piece's answers to all the tests form its signature,
and one code stands for each distinct signature. Two characters with the same code are then
indistinguishable to the pattern, so the rewritten pattern matches the codes exactly where the
original matches the text.

Supported syntax: literals and escapes (``\\r \\n \\t \\f \\v \\xHH \\x{H..} \\uHHHH``, escaped
punctuation), ``.``, classes with ranges and negation, ``\\p{X}``/``\\P{X}`` with general categories,
``\\s \\S \\d \\D \\w \\W``, groups ``( (?: (?= (?! (?<= (?<! (?>``, ``(?i:...)`` around ASCII literals,
alternation, greedy, lazy and possessive quantifiers, ``^ $ \\A \\z \\Z``. Anything else raises
``PatternUnsupported`` with the position: the tokenizer is refused rather than approximated.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable, Iterable

from .._base.errors import FitproofError
from .backtracking import unbounded_backtracking
from .literal_alternation import LiteralAlternation, literal_alternation

CATEGORY_GROUPS = {
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
    "C": ("Cc", "Cf", "Cs", "Co", "Cn"),
    "LC": ("Lu", "Ll", "Lt"),
    "L&": ("Lu", "Ll", "Lt"),
}
LONG_NAMES = {
    "Letter": "L",
    "Mark": "M",
    "Number": "N",
    "Punctuation": "P",
    "Symbol": "S",
    "Separator": "Z",
    "Other": "C",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me",
    "Decimal_Number": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
}
# The characters outside ASCII whose simple case folding is an ASCII letter (CaseFolding.txt,
# unchanged since Unicode 3.1): under (?i) the pattern's ``s`` also matches LONG S, ``k`` KELVIN SIGN.
NON_ASCII_FOLDS = {"s": (0x17F,), "k": (0x212A,)}
CODE_BASE = 0xE000
MAX_BOUNDARIES = 200_000  # code points where some test of the patterns changes (a code each at most)
MAX_GROUP_DEPTH = 64  # groups inside groups
MAX_PATTERN_CHARS = 1 << 20


class PatternUnsupported(FitproofError, ValueError):
    """A split pattern uses syntax this translator does not handle (the message says what and where)."""


class _Categories:
    def __init__(self) -> None:
        from . import unicode_categories as data

        self.starts = data.STARTS
        self.names = data.CATEGORIES
        self.white = data.WHITE_SPACE

    def category(self, code_point: int) -> str:
        i = bisect_right(self.starts, code_point) - 1
        return self.names[2 * i : 2 * i + 2]

    def is_white(self, code_point: int) -> bool:
        return any(first <= code_point <= last for first, last in self.white)


_CATEGORIES: _Categories | None = None


def categories() -> _Categories:
    global _CATEGORIES  # the frozen table, loaded once on first use (constant data)
    if _CATEGORIES is None:
        _CATEGORIES = _Categories()
    return _CATEGORIES


# An item is a test of one code point: ("cat", frozenset), ("white",), ("chars", frozenset), ("range", lo, hi).
# An atom is (negated, items): a character class; a literal is an atom with one "chars" item.
Atom = tuple


def _atom_test(negated: bool, items: tuple) -> Callable[[int, str, bool], bool]:
    """A class's test of (code point, its general category, whether it is White_Space), its items
    merged by kind: one call per code point and class when the code alphabet is made."""
    names = frozenset().union(*(item[1] for item in items if item[0] == "cat"))
    chars = frozenset().union(*(item[1] for item in items if item[0] == "chars"))
    wants_white = any(item[0] == "white" for item in items)
    ranges = tuple((item[1], item[2]) for item in items if item[0] == "range")
    complements = tuple(_atom_test(True, item[1]) for item in items if item[0] == "not")  # not any(inner)

    def test(cp: int, category: str, white: bool) -> bool:
        hit = (
            category in names
            or cp in chars
            or (wants_white and white)
            or (ranges and any(lo <= cp <= hi for lo, hi in ranges))
            or (complements and any(t(cp, category, white) for t in complements))
        )
        return bool(hit) != negated

    return test


class _Parser:
    """Splits one pattern into structural text and atoms: ``parts`` is a list of str | Atom."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.i = 0
        self.parts: list = []
        self.fold = [False]  # (?i) scopes, one entry per open group
        self.anchors = False

    def fail(self, what: str) -> PatternUnsupported:
        return PatternUnsupported(f"{what} at offset {self.i} of the pattern {self.pattern!r}")

    def parse(self) -> list:
        p = self.pattern
        if len(p) > MAX_PATTERN_CHARS:
            raise PatternUnsupported(f"a pattern of {len(p):,} characters (more than {MAX_PATTERN_CHARS:,})")
        while self.i < len(p):
            c = p[self.i]
            if c == "(":
                self.group()
            elif c == ")":
                if len(self.fold) == 1:
                    raise self.fail("unbalanced ')'")
                self.fold.pop()
                self.parts.append(")")
                self.i += 1
            elif c == "|":
                self.parts.append("|")
                self.i += 1
            elif c in "?*+":
                self.quantifier(c)
            elif c == "{":
                match = re.compile(r"\{(\d+)(,(\d*))?\}").match(p, self.i)
                if not match:
                    raise self.fail("a '{' that is not a {m,n} quantifier")
                self.i = match.end()
                self.parts.append(match.group(0))
                self.suffix()
            elif c == "[":
                self.parts.append(self.char_class())
            elif c == ".":
                self.parts.append((True, (("chars", frozenset((0x0A,))),)))
                self.i += 1
            elif c == "^":
                self.parts.append(("^",))
                self.anchors = True
                self.i += 1
            elif c == "$":
                self.parts.append(("$",))
                self.anchors = True
                self.i += 1
            elif c == "\\":
                self.escape_outside()
            else:
                self.literal(ord(c))
                self.i += 1
        if len(self.fold) != 1:
            raise self.fail("an unclosed group")
        problem = unbounded_backtracking(self.parts)
        if problem is not None:
            raise PatternUnsupported(f"{problem}, which can backtrack without bound, in the pattern {_short(self.pattern)}")
        return self.parts

    def group(self) -> None:
        p = self.pattern
        for opener, out in (
            ("(?:", "(?:"),
            ("(?=", "(?="),
            ("(?!", "(?!"),
            ("(?<=", "(?<="),
            ("(?<!", "(?<!"),
            ("(?>", "(?>"),
            ("(?i:", "(?:"),
            ("(?-i:", "(?:"),
        ):
            if p.startswith(opener, self.i):
                if len(self.fold) > MAX_GROUP_DEPTH:
                    raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep")
                self.i += len(opener)
                self.fold.append(True if opener == "(?i:" else False if opener == "(?-i:" else self.fold[-1])
                self.parts.append(out)
                return
        if p.startswith("(?i)", self.i):  # to the end of the enclosing group
            self.i += 4
            self.fold[-1] = True
            return
        if p.startswith("(?", self.i):
            raise self.fail("an unsupported group or flag")
        if len(self.fold) > MAX_GROUP_DEPTH:
            raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep")
        self.i += 1
        self.fold.append(self.fold[-1])
        self.parts.append("(")

    def quantifier(self, c: str) -> None:
        if not self.parts or self.parts[-1] in ("|", "(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"):
            raise self.fail(f"a quantifier {c!r} with nothing before it")
        self.parts.append(c)
        self.i += 1
        self.suffix()

    def suffix(self) -> None:
        if self.i < len(self.pattern) and self.pattern[self.i] in "?+":
            self.parts.append(self.pattern[self.i])
            self.i += 1

    def literal(self, code_point: int) -> None:
        chars = {code_point}
        if self.fold[-1]:
            character = chr(code_point)
            if character.isascii() and character.isalpha():
                lower = character.lower()
                chars |= {ord(lower), ord(lower.upper()), *NON_ASCII_FOLDS.get(lower, ())}
            elif not character.isascii():
                raise self.fail("a case-insensitive literal outside ASCII")
        self.parts.append((False, (("chars", frozenset(chars)),)))

    def read_escape(self) -> tuple:
        """After a backslash: ("cp", n) for one character, or ("atom", atom) for a class escape."""
        p = self.pattern
        if self.i + 1 >= len(p):
            raise self.fail("a trailing backslash")
        c = p[self.i + 1]
        self.i += 2
        simple = {"r": 0x0D, "n": 0x0A, "t": 0x09, "f": 0x0C, "v": 0x0B, "a": 0x07, "e": 0x1B}
        if c in simple:
            return ("cp", simple[c])
        if c in "sS":
            return ("atom", (c == "S", (("white",),)))
        if c in "dD":
            return ("atom", (c == "D", (("cat", frozenset(("Nd",))),)))
        if c in "wW":
            return ("atom", (c == "W", (("cat", frozenset(CATEGORY_GROUPS["L"] + CATEGORY_GROUPS["M"] + ("Nd", "Pc"))),)))
        if c in "pP":
            match = re.compile(r"\{(\^?)([A-Za-z_&]+)\}").match(p, self.i)
            if not match:
                raise self.fail("a \\p without {Name}")
            self.i = match.end()
            name = LONG_NAMES.get(match.group(2), match.group(2))
            if name in CATEGORY_GROUPS:
                names = frozenset(CATEGORY_GROUPS[name])
            elif any(name in group for group in CATEGORY_GROUPS.values()):
                names = frozenset((name,))
            else:
                raise self.fail(f"an unsupported property \\p{{{match.group(2)}}}")
            if self.fold[-1]:
                raise self.fail("a \\p class inside (?i)")
            return ("atom", ((c == "P") != bool(match.group(1)), (("cat", names),)))
        if c == "x":
            match = re.compile(r"\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2})").match(p, self.i)
            if not match:
                raise self.fail("a malformed \\x escape")
            self.i = match.end()
            return ("cp", int(match.group(1) or match.group(2), 16))
        if c == "u":
            match = re.compile(r"[0-9A-Fa-f]{4}").match(p, self.i)
            if not match:
                raise self.fail("a malformed \\u escape")
            self.i = match.end()
            return ("cp", int(match.group(0), 16))
        if c in "AzZ":
            return ("anchor", c)
        if c.isalnum():
            self.i -= 2
            raise self.fail(f"an unsupported escape \\{c}")
        return ("cp", ord(c))

    def escape_outside(self) -> None:
        kind, value = self.read_escape()
        if kind == "cp":
            self.literal(value)
        elif kind == "atom":
            self.parts.append(value)
        elif value == "Z":  # the end, or before a final newline
            self.parts.append(("Z",))
            self.anchors = True
        else:
            self.parts.append(r"\A" if value == "A" else r"\Z")

    def char_class(self) -> Atom:
        p = self.pattern
        self.i += 1
        negated = p.startswith("^", self.i)
        if negated:
            self.i += 1
        items: list = []
        first = True
        while True:
            if self.i >= len(p):
                raise self.fail("an unclosed '['")
            c = p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "[":
                raise self.fail("a nested class")
            if p.startswith("&&", self.i):
                raise self.fail("a class intersection")
            if c == "\\":
                kind, value = self.read_escape()
                if kind == "atom":
                    if value[0]:  # \S, \P{..} inside a class: its complement as one item
                        items.append(("not", value[1]))
                    else:
                        items.extend(value[1])
                    continue
                if kind != "cp":
                    raise self.fail("an anchor inside a class")
                low = value
            else:
                low = ord(c)
                self.i += 1
            if p.startswith("-", self.i) and self.i + 1 < len(p) and p[self.i + 1] != "]":
                self.i += 1
                if p[self.i] == "\\":
                    kind, value = self.read_escape()
                    if kind != "cp":
                        raise self.fail("a range ending in a class")
                    high = value
                else:
                    high = ord(p[self.i])
                    self.i += 1
                if high < low:
                    raise self.fail("a range out of order")
                if self.fold[-1] and any(chr(x).isalpha() for x in range(low, min(high, 0x7F) + 1)):
                    raise self.fail("a range of letters inside (?i)")
                items.append(("range", low, high))
            else:
                if self.fold[-1] and chr(low).isalpha():
                    raise self.fail("a letter in a class inside (?i)")
                items.append(("chars", frozenset((low,))))
        return (negated, tuple(items))


class CodeMap(dict):
    """Code point -> code character, for ``str.translate``; filled on first sight of each character."""

    def __init__(self, starts: list[int], codes: str):
        super().__init__()
        self.starts = starts
        self.codes = codes

    def __missing__(self, code_point: int) -> str:
        code = self.codes[bisect_right(self.starts, code_point) - 1]
        self[code_point] = code
        return code


def _short(pattern: str) -> str:
    text = repr(pattern)
    return text if len(text) <= 60 else text[:57] + "..."


class Patterns:
    """Several patterns translated on one shared code alphabet: ``codes(text)`` once, then each
    ``compiled[i]`` runs on (slices of) the codes."""

    def __init__(self, patterns: Iterable[str]):
        patterns = list(patterns)
        parsed = [_Parser(pattern).parse() for pattern in patterns]
        atoms: list = []
        index: dict = {}
        for parts in parsed:
            for part in parts:
                if isinstance(part, tuple) and len(part) == 2 and part not in index:
                    index[part] = len(atoms)
                    atoms.append(part)
            if any(isinstance(part, tuple) and len(part) == 1 for part in parts):  # ^ $ \Z look for newlines
                newline = (False, (("chars", frozenset((0x0A,))),))
                if newline not in index:
                    index[newline] = len(atoms)
                    atoms.append(newline)
        table = categories()
        tests = []
        boundaries = {0}
        boundaries.update(table.starts)
        for first, last in table.white:
            boundaries.update((first, last + 1))

        def collect(items):
            for item in items:
                if item[0] == "chars":
                    for cp in item[1]:
                        boundaries.update((cp, cp + 1))
                elif item[0] == "range":
                    boundaries.update((item[1], item[2] + 1))
                elif item[0] == "not":
                    collect(item[1])

        # An atom of literal characters only (a literal, [abc]) is true on its own characters and
        # false elsewhere: its part of a signature is read from a table of those characters, not
        # tested at every boundary (ten thousand literal alternatives cost their count, not its square).
        literal_atoms: dict[int, list[int]] = {}  # code point -> the literal atoms (not negated) holding it
        tested: list[int] = []  # the other atoms, tested at every boundary
        for i, atom in enumerate(atoms):
            collect(atom[1])
            if not atom[0] and all(item[0] == "chars" for item in atom[1]):
                for item in atom[1]:
                    for cp in item[1]:
                        literal_atoms.setdefault(cp, []).append(i)
            else:
                tested.append(i)
                tests.append(_atom_test(*atom))
        points = sorted(b for b in boundaries if b < 0x110000)
        if len(points) > MAX_BOUNDARIES:
            raise PatternUnsupported(f"the split patterns tell {len(points):,} kinds of characters apart (more than {MAX_BOUNDARIES:,})")
        signatures: dict = {}
        starts: list[int] = []
        codes: list[str] = []
        for start in points:
            category, white = table.category(start), table.is_white(start)
            # (a literal's code point starts a boundary run of its own: start + 1 is a boundary too)
            signature = (tuple([test(start, category, white) for test in tests]), tuple(literal_atoms.get(start, ())))
            code = signatures.get(signature)
            if code is None:
                code = chr(CODE_BASE + len(signatures))
                signatures[signature] = code
            if not codes or codes[-1] != code:
                starts.append(start)
                codes.append(code)
        self.code_map = CodeMap(starts, "".join(codes))
        members: list[list[str]] = [[] for _ in atoms]
        for (answers, holding), code in signatures.items():
            for i, yes in zip(tested, answers):
                if yes:
                    members[i].append(code)
            for i in holding:
                members[i].append(code)
        newline_atom = index.get((False, (("chars", frozenset((0x0A,))),)))

        def render(part):
            if isinstance(part, str):
                return part
            if len(part) == 1:
                n = _class(members[newline_atom])
                return {"^": f"(?:\\A|(?<={n}))", "$": f"(?={n}|\\Z)", "Z": f"(?=(?:{n})?\\Z)"}[part[0]]
            return _class(members[index[part]])

        self.sources = ["".join(render(part) for part in parts) for parts in parsed]
        self.compiled: list[re.Pattern[str] | LiteralAlternation] = []
        for pattern, source, parts in zip(patterns, self.sources, parsed):
            literals = literal_alternation(parts, lambda atom: members[index[atom]])
            if literals is not None:  # many literal alternatives: matched by their prefixes, not one by one
                self.compiled.append(literals)
                continue
            try:
                self.compiled.append(re.compile(source, re.DOTALL))
            except (re.error, OverflowError, RecursionError, MemoryError) as error:  # a count past re's limit, say
                raise PatternUnsupported(f"the pattern {_short(pattern)} cannot be compiled ({type(error).__name__}: {error})") from None

    def codes(self, text: str) -> str:
        return text.translate(self.code_map)


def _class(codes: list[str]) -> str:
    if not codes:
        return "(?!)"  # a test no character passes
    if len(codes) == 1:
        return codes[0]
    return "[" + "".join(codes) + "]"
