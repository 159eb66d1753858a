"""A ``tokenizer.json``'s normalizer and pre-tokenizer, read by one walker (``walk``) for both kinds
of file: a file's steps that cannot be run exactly are refused with a ``TokenizerFileError`` naming
the JSON path of the step, never approximated. A byte-level BPE (``byte_level_json.py``) takes NFC
and ``Split`` (a regex or a string, ``Isolated`` or ``Removed``) before one ``ByteLevel``; the
SentencePiece kinds (``sentencepiece_json.py``) take, as functions:

- the normalizer: ``Prepend``, ``Replace`` (a string pattern, or a regex that is one character
  repeated: T5's ``" {2,}"``), ``Strip``, ``NFC``, ``Precompiled`` (T5's character map, which
  ``tokenizers`` applies per extended grapheme cluster: ``charsmap.PrecompiledMap`` cuts them
  with ``graphemes.py``, Unicode 17.0 as the crate ``unicode-segmentation`` 1.13.3), in a ``Sequence``;
- the pre-tokenizer: none, ``Split`` on a string, ``Metaspace``, ``WhitespaceSplit``, in a ``Sequence``.
"""

from __future__ import annotations

import re
from typing import Callable

from .._base.errors import TokenizerFileError
from .base import read_flag, short
from .normalize import nfc

META = "\u2581"  # ▁, SentencePiece's written space
# Rust's char::is_whitespace (Unicode White_Space), which tokenizers' WhitespaceSplit uses
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WHITE = "".join(sorted(WHITE_SPACE))
_WHITE_RUNS = re.compile("[" + "".join(sorted(WHITE_SPACE)).replace("\\", "\\\\").replace("]", "\\]") + "]+")


MAX_SEQUENCE_DEPTH = 16  # a Sequence of steps inside this many others is refused


def _kind(node, where: str, what: str) -> str:
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise TokenizerFileError(f'{where}: {what} is {short(node)}, not an object with a "type"')
    return node["type"]


def walk(spec, where: str, path: str, what: str, handlers: dict[str, Callable[[dict, str], None]], supported: str) -> None:
    """Each step of a normalizer or pre-tokenizer (``what``), through its ``Sequence`` steps, handed
    to the handler of its type with its JSON path; a type with no handler is refused by its path,
    ``supported`` saying which are (``" (NFC and Sequence are)"``)."""
    items = "normalizers" if what == "normalizer" else "pretokenizers"

    def visit(node, at: str, depth: int) -> None:
        if node is None:
            return
        kind = _kind(node, where, at)
        if kind == "Sequence":
            inner = node.get(items)
            if not isinstance(inner, list):
                raise TokenizerFileError(f"{where}: {at}.{items} is {short(inner)}, not a list")
            if depth >= MAX_SEQUENCE_DEPTH:
                raise TokenizerFileError(f"{where}: {at}: a Sequence inside {MAX_SEQUENCE_DEPTH} others (too deep)")
            for index, item in enumerate(inner):
                visit(item, f"{at}.{items}[{index}]", depth + 1)
        elif kind in handlers:
            handlers[kind](node, at)
        else:
            raise TokenizerFileError(f"{where}: {at} is the {what} {kind!r}, which is not supported{supported}")

    visit(spec, path, 0)


def _split_behavior(node: dict, where: str, at: str, allowed: tuple[str, ...]) -> str:
    behavior = node.get("behavior", "Isolated")
    inverted = read_flag(node, "invert", False, where, at)
    if not isinstance(behavior, str) or behavior not in allowed or inverted:
        raise TokenizerFileError(f"{where}: {at}: Split behavior {short(behavior)}{' inverted' if inverted else ''} is not supported")
    return behavior


def _string_pattern(node: dict, where: str, path: str) -> str:
    pattern = node.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str) and pattern["String"]:
        return pattern["String"]
    raise TokenizerFileError(f'{where}: {path}.pattern is {short(pattern)}: only a non-empty {{"String": ...}} pattern is supported here')


# A Replace normalizer's Regex pattern is translated only when it is one character repeated (T5's
# " {2,}", which transformers' converter writes to fold runs of spaces), or a text with no special
# character: the rest of Oniguruma's syntax is refused by name rather than guessed at.
_REPEATED = re.compile(r"(\\[^A-Za-z0-9]|[^\\.^$|?*+()\[\]{}])(\+|\{[0-9]+,[0-9]*\}|\{[0-9]+\})")
_LITERAL = re.compile(r"(?:\\[^A-Za-z0-9]|[^\\.^$|?*+()\[\]{}])+")


def _regex_pattern(node: dict, where: str, path: str) -> re.Pattern | None:
    """A Replace's ``{"Regex": ...}`` pattern as a Python regex, None for a ``{"String": ...}`` one."""
    pattern = node.get("pattern")
    if not isinstance(pattern, dict) or "Regex" not in pattern:
        return None
    source = pattern["Regex"]
    if isinstance(source, str) and source and (_REPEATED.fullmatch(source) or _LITERAL.fullmatch(source)):
        try:
            return re.compile(source)
        except re.error as error:  # " {3,2}": a count Oniguruma refuses too
            raise TokenizerFileError(f"{where}: {path}.pattern is the regex {short(source)}, which is not valid ({error})") from None
    raise TokenizerFileError(
        f"{where}: {path}.pattern is the regex {short(source)}, which is not supported here "
        '(one character repeated, as " {2,}", or a plain text is)'
    )


def _precompiled(node: dict, where: str, path: str):
    """A ``Precompiled`` normalizer's map (base64 in the file), read and checked. (``binascii``, built
    into Python, not ``base64``: the page's standard library holds no module it does not need.)"""
    import binascii

    from .charsmap import PrecompiledMap

    encoded = node.get("precompiled_charsmap")
    if not isinstance(encoded, str):
        raise TokenizerFileError(f"{where}: {path}.precompiled_charsmap is {short(encoded)}, not a base64 string")
    try:
        blob = binascii.a2b_base64(encoded, strict_mode=True)
    except ValueError:  # binascii.Error is one
        raise TokenizerFileError(f"{where}: {path}.precompiled_charsmap is not base64") from None
    return PrecompiledMap(blob, where, f"{path}.precompiled_charsmap")


NORMALIZERS = ("Precompiled", "Prepend", "Replace", "Strip", "NFC")


def read_normalizer(spec, where: str, path: str = "$.normalizer", kinds: tuple[str, ...] = NORMALIZERS) -> Callable[[str], str] | None:
    """The normalizer of a tokenizer.json as one ``str -> str`` function (None: there is none);
    only the step types ``kinds`` are accepted (a byte-level BPE: NFC)."""
    steps: list[Callable[[str], str]] = []

    def prepend(node: dict, at: str) -> None:
        prepend = node.get("prepend")
        if not isinstance(prepend, str):
            raise TokenizerFileError(f"{where}: {at}.prepend is {short(prepend)}, not a string")
        steps.append(lambda text, p=prepend: p + text if text else text)  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it

    def replace(node: dict, at: str) -> None:
        new = node.get("content")
        if not isinstance(new, str):
            raise TokenizerFileError(f"{where}: {at}.content is {short(new)}, not a string")
        regex = _regex_pattern(node, where, at)
        if regex is not None:
            steps.append(lambda text, regex=regex, new=new: regex.sub(lambda _: new, text))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
        else:
            old = _string_pattern(node, where, at)
            steps.append(lambda text, old=old, new=new: text.replace(old, new))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it

    def strip(node: dict, at: str) -> None:
        left, right = node.get("strip_left"), node.get("strip_right")
        if not isinstance(left, bool) or not isinstance(right, bool):
            raise TokenizerFileError(f"{where}: {at}: strip_left and strip_right are {short(left)} and {short(right)}, not true or false")
        if left or right:  # white space as Rust's char::is_whitespace, which tokenizers strips
            strip = str.strip if left and right else str.lstrip if left else str.rstrip
            steps.append(lambda text, strip=strip: strip(text, _WHITE))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it

    handlers: dict[str, Callable[[dict, str], None]] = {
        "Precompiled": lambda node, at: steps.append(_precompiled(node, where, at).normalize),  # T5's character map, per grapheme cluster
        "Prepend": prepend,
        "Replace": replace,
        "Strip": strip,
        "NFC": lambda node, at: steps.append(nfc),
    }
    walk(spec, where, path, "normalizer", {kind: handlers[kind] for kind in kinds}, _are(kinds))
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def normalize(text: str) -> str:
        for step in steps:
            text = step(text)
        return text

    return normalize


def _are(kinds: tuple[str, ...]) -> str:
    return f" ({', '.join(kinds)} and Sequence are)"


def _split_string(pieces: list[str], delimiter: str, behavior: str) -> list[str]:
    result: list[str] = []
    for piece in pieces:
        parts = piece.split(delimiter)
        if behavior == "Removed":
            result.extend(part for part in parts if part)
        elif behavior == "Isolated":
            for index, part in enumerate(parts):
                if index:
                    result.append(delimiter)
                if part:
                    result.append(part)
        elif behavior == "MergedWithPrevious":
            for index, part in enumerate(parts):
                chunk = part + delimiter if index < len(parts) - 1 else part
                if chunk:
                    result.append(chunk)
        elif behavior == "MergedWithNext":
            for index, part in enumerate(parts):
                chunk = delimiter + part if index else part
                if chunk:
                    result.append(chunk)
        else:  # Contiguous: runs of the delimiter are one piece
            done: list[str] = []
            for index, part in enumerate(parts):
                if index:
                    if done and done[-1].startswith(delimiter) and done[-1] == delimiter * (len(done[-1]) // len(delimiter)):
                        done[-1] += delimiter
                    else:
                        done.append(delimiter)
                if part:
                    done.append(part)
            result.extend(done)
    return result


def read_pre_tokenizer(spec, where: str, path: str = "$.pre_tokenizer"):
    """The pre-tokenizer as ``(text, at_start) -> pieces``; ``at_start``: the text begins the input
    (Metaspace's ``prepend_scheme: first``). Returns (function, the Metaspace character or None)."""
    steps: list[Callable[[list[str], bool], list[str]]] = []
    metaspace: list[str] = []

    def split(node: dict, at: str) -> None:
        delimiter = _string_pattern(node, where, at)
        behavior = _split_behavior(node, where, at, ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"))
        steps.append(lambda pieces, first, d=delimiter, b=behavior: _split_string(pieces, d, b))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it

    def whitespace_split(node: dict, at: str) -> None:
        steps.append(lambda pieces, first: [part for piece in pieces for part in _WHITE_RUNS.split(piece) if part])

    def metaspace_step(node: dict, at: str) -> None:
        replacement = node.get("replacement", META)
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise TokenizerFileError(f"{where}: {at}.replacement is {short(replacement)}, not one character")
        scheme = node.get("prepend_scheme", "always")
        if read_flag(node, "add_prefix_space", True, where, at) is False:
            scheme = "never"
        if not isinstance(scheme, str) or scheme not in ("always", "first", "never"):
            raise TokenizerFileError(f"{where}: {at}.prepend_scheme is {short(scheme)}, not always, first or never")
        split = read_flag(node, "split", True, where, at)
        metaspace.append(replacement)

        def step(pieces: list[str], first: bool, r=replacement, scheme=scheme, split=split) -> list[str]:
            result = []
            for index, piece in enumerate(pieces):
                piece = piece.replace(" ", r)
                if (scheme == "always" or (scheme == "first" and first and index == 0)) and not piece.startswith(r):
                    piece = r + piece
                if split:
                    result.extend(_split_string([piece], r, "MergedWithNext"))
                elif piece:
                    result.append(piece)
            return result

        steps.append(step)

    walk(
        spec,
        where,
        path,
        "pre-tokenizer",
        {"Split": split, "WhitespaceSplit": whitespace_split, "Metaspace": metaspace_step},
        " here (Metaspace, Split on a string, WhitespaceSplit and Sequence are)",
    )

    def pre_tokenize(text: str, first: bool) -> list[str]:
        pieces = [text]
        for step in steps:
            pieces = step(pieces, first)
        return pieces

    return pre_tokenize, (metaspace[0] if metaspace else None)


def read_byte_level_pre_tokenizer(spec, where: str, path: str = "$.pre_tokenizer") -> tuple[list[tuple[str, str]], dict]:
    """A byte-level BPE's pre-tokenizer: its ``Split`` steps as (pattern source, behavior), a
    ``{"String": ...}`` pattern written as a regex of its characters, and its one ``ByteLevel`` step."""
    splits: list[tuple[str, str]] = []
    byte_level: list[dict] = []

    def split(node: dict, at: str) -> None:
        if byte_level:
            raise TokenizerFileError(f"{where}: {at}: a Split after ByteLevel is not supported")
        pattern = node.get("pattern")
        if not isinstance(pattern, dict) or len(pattern) != 1 or not isinstance(pattern.get("Regex", pattern.get("String")), str):
            raise TokenizerFileError(f'{where}: {at}.pattern is {short(pattern)}, not {{"Regex": text}} or {{"String": text}}')
        if "Regex" in pattern:
            source = pattern["Regex"]
        else:
            source = "".join(f"\\x{{{ord(c):X}}}" for c in pattern["String"])
        splits.append((source, _split_behavior(node, where, at, ("Isolated", "Removed"))))

    if spec is None:
        raise TokenizerFileError(f"{where}: no pre-tokenizer: not a byte-level BPE tokenizer (ByteLevel is needed)")
    walk(
        spec,
        where,
        path,
        "pre-tokenizer",
        {"Split": split, "ByteLevel": lambda node, at: byte_level.append({**node, "at": at})},
        " (Split, ByteLevel and Sequence are), or not a byte-level BPE tokenizer",
    )
    if len(byte_level) != 1:
        raise TokenizerFileError(f"{where}: not a byte-level BPE tokenizer (its pre-tokenizer has no ByteLevel step)")
    return splits, byte_level[0]
