"""A ``tokenizer.json``'s normalizer and pre-tokenizer, read as functions (the SentencePiece kinds:
``sentencepiece_json.py``): a file's steps that cannot be run exactly are refused with a
``TokenizerFileError`` naming the JSON path of the step, never approximated.

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
from .normalize import nfc

META = "\u2581"  # ▁, SentencePiece's written space
# Rust's char::is_whitespace (Unicode White_Space), which tokenizers' WhitespaceSplit uses
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_WHITE = "".join(sorted(WHITE_SPACE))
_WHITE_RUNS = re.compile("[" + "".join(sorted(WHITE_SPACE)).replace("\\", "\\\\").replace("]", "\\]") + "]+")


def _kind(node, where: str, what: str) -> str:
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise TokenizerFileError(f"{where}: {what} is {short(node)}, not an object with a \"type\"")
    return node["type"]


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _string_pattern(node: dict, where: str, path: str) -> str:
    pattern = node.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str) and pattern["String"]:
        return pattern["String"]
    raise TokenizerFileError(f"{where}: {path}.pattern is {short(pattern)}: only a non-empty {{\"String\": ...}} "
                             "pattern is supported here")


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
    raise TokenizerFileError(f"{where}: {path}.pattern is the regex {short(source)}, which is not supported here "
                             "(one character repeated, as \" {2,}\", or a plain text is)")


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


def read_normalizer(spec, where: str, path: str = "$.normalizer") -> Callable[[str], str] | None:
    """The normalizer of a tokenizer.json as one ``str -> str`` function (None: there is none)."""
    steps: list[Callable[[str], str]] = []

    def walk(node, at: str) -> None:
        if node is None:
            return
        kind = _kind(node, where, at)
        if kind == "Sequence":
            inner = node.get("normalizers")
            if not isinstance(inner, list):
                raise TokenizerFileError(f"{where}: {at}.normalizers is {short(inner)}, not a list")
            for index, item in enumerate(inner):
                walk(item, f"{at}.normalizers[{index}]")
        elif kind == "Prepend":
            prepend = node.get("prepend")
            if not isinstance(prepend, str):
                raise TokenizerFileError(f"{where}: {at}.prepend is {short(prepend)}, not a string")
            steps.append(lambda text, p=prepend: p + text if text else text)  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
        elif kind == "Replace":
            new = node.get("content")
            if not isinstance(new, str):
                raise TokenizerFileError(f"{where}: {at}.content is {short(new)}, not a string")
            regex = _regex_pattern(node, where, at)
            if regex is not None:
                steps.append(lambda text, regex=regex, new=new: regex.sub(lambda _: new, text))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
            else:
                old = _string_pattern(node, where, at)
                steps.append(lambda text, old=old, new=new: text.replace(old, new))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
        elif kind == "NFC":
            steps.append(nfc)
        elif kind == "Strip":
            left, right = node.get("strip_left"), node.get("strip_right")
            if not isinstance(left, bool) or not isinstance(right, bool):
                raise TokenizerFileError(f"{where}: {at}: strip_left and strip_right are {short(left)} and "
                                         f"{short(right)}, not true or false")
            if left or right:  # white space as Rust's char::is_whitespace, which tokenizers strips
                strip = str.strip if left and right else str.lstrip if left else str.rstrip
                steps.append(lambda text, strip=strip: strip(text, _WHITE))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
        elif kind == "Precompiled":  # T5's character map, applied per grapheme cluster (charsmap.PrecompiledMap)
            steps.append(_precompiled(node, where, at).normalize)
        else:
            raise TokenizerFileError(f"{where}: {at} is the normalizer {kind!r}, which is not supported "
                                     "(Precompiled, Prepend, Replace, Strip, NFC and Sequence are)")

    walk(spec, path)
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def normalize(text: str) -> str:
        for step in steps:
            text = step(text)
        return text
    return normalize


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

    def walk(node, at: str) -> None:
        if node is None:
            return
        kind = _kind(node, where, at)
        if kind == "Sequence":
            inner = node.get("pretokenizers")
            if not isinstance(inner, list):
                raise TokenizerFileError(f"{where}: {at}.pretokenizers is {short(inner)}, not a list")
            for index, item in enumerate(inner):
                walk(item, f"{at}.pretokenizers[{index}]")
        elif kind == "Split":
            delimiter = _string_pattern(node, where, at)
            behavior = node.get("behavior", "Isolated")
            if behavior not in ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous") or node.get("invert"):
                raise TokenizerFileError(f"{where}: {at}: Split behavior {behavior!r}"
                                         f"{' inverted' if node.get('invert') else ''} is not supported")
            steps.append(lambda pieces, first, d=delimiter, b=behavior: _split_string(pieces, d, b))  # type: ignore[misc]  # a lambda with a defaulted parameter is this Callable; mypy cannot infer it
        elif kind == "WhitespaceSplit":
            steps.append(lambda pieces, first: [part for piece in pieces for part in _WHITE_RUNS.split(piece) if part])
        elif kind == "Metaspace":
            replacement = node.get("replacement", META)
            if not isinstance(replacement, str) or len(replacement) != 1:
                raise TokenizerFileError(f"{where}: {at}.replacement is {short(replacement)}, not one character")
            scheme = node.get("prepend_scheme", "always")
            if node.get("add_prefix_space") is False:
                scheme = "never"
            if scheme not in ("always", "first", "never"):
                raise TokenizerFileError(f"{where}: {at}.prepend_scheme is {short(scheme)}, not always, first or never")
            split = node.get("split", True)
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
        else:
            raise TokenizerFileError(f"{where}: {at} is the pre-tokenizer {kind!r}, which is not supported here "
                                     "(Metaspace, Split on a string, WhitespaceSplit and Sequence are)")

    walk(spec, path)

    def pre_tokenize(text: str, first: bool) -> list[str]:
        pieces = [text]
        for step in steps:
            pieces = step(pieces, first)
        return pieces
    return pre_tokenize, (metaspace[0] if metaspace else None)

