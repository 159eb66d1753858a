"""Reading JSON values by the project's common rules, and reporting what was wrong.

Every reader takes a value exactly as ``json.loads`` (or a Python caller) gives it
and returns the normalised value or raises :class:`Invalid` with a message that
shows what was received. Validation never stops at the first problem: callers
collect :class:`Problem` records, each with the JSON path of the value.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Callable, Iterable, NamedTuple

from .errors import FitproofError

MAX_SAFE_INTEGER = 2**53 - 1
MAX_PROBLEMS = 50

# The characters JavaScript's String.prototype.trim removes: WhiteSpace and
# LineTerminator of ECMA-262. Python's str.strip() differs (it strips U+001C..U+001F
# and U+0085, and keeps U+FEFF), so ids are trimmed with this set instead.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Invalid(FitproofError, ValueError):
    """A value that breaks a rule; the message names the rule and the value, ``code`` the kind
    of problem (``wrong_type`` or ``invalid_value``)."""

    def __init__(self, message: str, code: str = "invalid_value") -> None:
        super().__init__(message)
        self.code = code


class Unavailable(Invalid):
    """A valid value this installation cannot use: an exact tokenizer whose rank file is missing or altered."""

    def __init__(self, message: str) -> None:
        super().__init__(message, TOKENIZER_UNAVAILABLE)


# A problem's ``code``: what kind of problem it is, for code to branch on (never on its message).
MISSING_KEY = "missing_key"  # ``about``: the key
UNKNOWN_KEY = "unknown_key"  # ``about``: the key
KEY_NOT_ALLOWED = "key_not_allowed"  # a known key this kind of object cannot have (a tool_call_id on a user message)
WRONG_TYPE = "wrong_type"  # not a string, number, object... as the field needs
INVALID_VALUE = "invalid_value"  # the right type, but outside what the field accepts
EMPTY = "empty"  # an array that must have an element
DUPLICATE_ID = "duplicate_id"  # ``about``: the path of the first use
TOKENIZER_UNAVAILABLE = "tokenizer_unavailable"  # the input is fine; this installation lacks the rank file
UNKNOWN_MODE = "unknown_mode"
WRONG_MODE = "wrong_mode"  # valid in another mode; ``about``: that mode
OVER_LIMIT = "over_limit"  # fixed parts alone exceed the budget (a window, a prompt without passages)
LIMIT_TOO_LOW = "limit_too_low"  # what must be kept (pinned messages, the live turn) exceeds the limit
NO_USER_MESSAGE = "no_user_message"  # a chat history without a user turn: nothing to answer
NOT_TEXT = "not_text"  # a content part that is no text
TOOL_CALL_UNANSWERED = "tool_call_unanswered"
TOOL_RESULT_MISPLACED = "tool_result_misplaced"  # answers a call, but not right after it
TOOL_RESULT_UNMATCHED = "tool_result_unmatched"  # answers no call, or one answered already

Key = str | int  # a key of an object, or an index of an array


class Problem(NamedTuple):
    """One thing wrong with the input: where (``at``, the keys and indices from the top, read
    as a JSON path ``path``), what kind (``code``) and what, in words (``message``)."""

    at: tuple[Key, ...]
    code: str
    message: str
    about: object = None  # what the code is about, where it needs saying (see the codes)
    root: str = "$"  # the path ``at`` starts from

    @property
    def path(self) -> str:
        return path_text(self.at, self.root)

    @property
    def unavailable(self) -> bool:
        return self.code == TOKENIZER_UNAVAILABLE

    def as_json(self) -> dict:
        return {"path": self.path, "message": self.message}


def problem_from(error: Invalid, at: tuple[Key, ...]) -> Problem:
    """The problem a reader's refusal makes at ``at``."""
    return Problem(at, error.code, str(error))


def path_text(at: tuple[Key, ...], root: str = "$") -> str:
    """``("items", 2, "tokens")`` -> ``$.items[2].tokens``."""
    path = root
    for key in at:
        path = child_path(path, key)
    return path


def child_path(path: str, key: str | int) -> str:
    """``$`` + ``items`` -> ``$.items``; ``$.items`` + 2 -> ``$.items[2]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{json_text(key)}]"


# Escaped in a message: what a reader could not see or tell apart from something else (control
# characters, every space but U+0020, zero-width and direction marks, variation selectors,
# private use, unpaired surrogates, tags). A fixed list, not unicodedata: CPython 3.11 and the
# page's Python 3.14 know different Unicode versions, and a message must read the same in both.
# Compiled on first use (a message about a string), not at import: the patterns cost ~2 ms to
# compile, and every process and the page's start-up would pay for them.
@functools.cache
def _hidden() -> re.Pattern:
    return re.compile(
        "[\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f"
        "\u2800\u3000\u3164\ud800-\udfff\ue000-\uf8ff\ufe00-\ufe0f\ufeff\uffa0\ufff0-\uffff"
        "\U00013430-\U0001345f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff\U000f0000-\U0010ffff]"
    )


# Letters that pass for ASCII ones (Greek, Cyrillic, full-width Latin): escaped too when the
# text also has ASCII letters, so that "іtems" (a Cyrillic і) never reads as "items".
_LOOKALIKE = "[\u0370-\u03ff\u0400-\u052f\uff01-\uff5e]"
_ASCII_LETTER = "[A-Za-z]"


def _escaped(found: re.Match) -> str:
    return json.dumps(found.group())[1:-1]


def json_text(value: str) -> str:
    """A string as a JSON literal for a message: other scripts as they are written ("élevé",
    "東京"), anything a reader could not see as a JSON escape; safe for any Python string."""
    text = _hidden().sub(_escaped, json.dumps(value, ensure_ascii=False))
    if re.search(_ASCII_LETTER, value) and re.search(_LOOKALIKE, text):  # re caches the compiled patterns
        text = re.sub(_LOOKALIKE, _escaped, text)
    return text


def preview(value: object, limit: int = 60) -> str:
    """A short JSON-like rendering of any value, bounded in depth and length."""
    text = _preview(value, depth=0)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def preview_is_cut(value: object, limit: int = 60) -> bool:
    """Whether ``preview(value, limit)`` shows less than the whole value: cut to ``limit``, or with
    items, keys or a long string left out inside (a "…" of its own; a string that holds one is
    taken as cut too, which costs a reader only a more precise message)."""
    text = _preview(value, depth=0)
    return len(text) > limit or "…" in text


def _preview(value: object, depth: int) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        # str() of an int past 4300 digits raises on CPython 3.11+.
        if value.bit_length() > 200:
            return f"an integer of {value.bit_length()} bits"
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            # JSON has no Infinity: in JSON text it was a number too large for a double (1e400),
            # which Python's parser and JavaScript's both read as Infinity.
            return "Infinity (past the 64-bit float range)" if value > 0 else "-Infinity (past the 64-bit float range)"
        return repr(value)
    if isinstance(value, str):
        if len(value) > 80:
            value = value[:80]
            return json_text(value)[:-1] + '…"'
        return json_text(value)
    if isinstance(value, (list, tuple)):
        if depth >= 2:
            return f"[…{plural(len(value), 'item')}]"
        inner = ", ".join(_preview(item, depth + 1) for item in value[:4])
        more = ", …" if len(value) > 4 else ""
        return f"[{inner}{more}]"
    if isinstance(value, dict):
        if depth >= 2:
            return f"{{…{plural(len(value), 'key')}}}"
        parts = []
        for key, item in list(value.items())[:4]:
            shown_key = json_text(key) if isinstance(key, str) else _preview(key, depth + 1)
            parts.append(f"{shown_key}: {_preview(item, depth + 1)}")
        more = ", …" if len(value) > 4 else ""
        return "{" + ", ".join(parts) + more + "}"
    return f"a Python {type(value).__name__}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def and_more(count: int, noun: str, where: str = "") -> str:
    """`` (and 3 more problems)``, with ``where`` before the parenthesis closes (``", listed in
    errors"``), after the first of several: the one sentence every "first problem" message ends in.
    Nothing when ``count`` is 0."""
    return f" (and {plural(count, noun)}{where})" if count > 0 else ""


def read_count(value: object, *, what: str = "an integer", show: Callable[[object], str] = preview) -> int:
    """A token count, cost, budget or limit: an integer 0..2^53-1 (4.0 counts as 4). A refusal
    says "expected ``what`` from 0 to 2^53-1, got ``show(value)``"."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= MAX_SAFE_INTEGER:
            return value
    elif isinstance(value, float) and value.is_integer():
        if 0 <= value <= MAX_SAFE_INTEGER:
            return int(value)
    raise Invalid(f"expected {what} from 0 to 2^53-1, got {show(value)}")


def read_score(value: object) -> int | float:
    """A relevance or priority: any number finite as a 64-bit float (compared as one), returned as given."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if finite:
            return value
        raise Invalid(f"expected a number that is finite as a 64-bit float, got {preview(value)}")
    raise Invalid(f"expected a number, got {preview(value)}", WRONG_TYPE)


def read_id(value: object) -> str:
    """An id: a string that is not empty after JavaScript's trim."""
    if not isinstance(value, str):
        raise Invalid(f"expected a non-empty string id, got {preview(value)}", WRONG_TYPE)
    if not value.strip(JS_WHITESPACE):
        raise Invalid(f"expected an id that is not empty after trimming whitespace, got {preview(value)}")
    return value


def read_text(value: object) -> str:
    if not isinstance(value, str):
        raise Invalid(f"expected a string, got {preview(value)}", WRONG_TYPE)
    return value


# How far estimated costs may be off, for the ``sensitivity`` section.
DEFAULT_MARGIN = 0.15


def read_margin(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1:
        return float(value)
    raise Invalid(f"expected a number from 0 up to (not including) 1, got {preview(value)}")


def read_bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {preview(value)}", WRONG_TYPE)
    return value


def describe_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a Python {type(value).__name__}"


def got(value: object) -> str:
    """What was received: its kind and a preview ("a string: \"7\""), or just "null"; a value
    that is no JSON value at all, just its kind ("a Python bytes", not twice)."""
    if value is None:
        return "null"
    kind, shown = describe_type(value), preview(value)
    if callable(getattr(value, "model_dump", None)):  # a pydantic model: an SDK's message or block
        return f"{kind} (an SDK object, not JSON: give its model_dump(); trim_messages and count_messages take it as it is)"
    return kind if shown == kind else f"{kind}: {shown}"


# How deep a value given as any JSON (a tool's input, a schema) may nest: the strict JSON reader's bound
# (strict_json.MAX_DEPTH), so that a value from Python is taken exactly when the same one in JSON text is.
JSON_DEPTH = 512


def json_value_problem(value: object, limit: int = JSON_DEPTH) -> tuple[tuple[Key, ...], str] | None:
    """Where ``value`` (from Python, where anything can be given) stops being a JSON value, and why:
    ``(path inside it, message)``, or None when it is one. A JSON value is made of dicts with string
    keys, lists, strings, finite numbers, booleans and None, holds no container twice on one branch
    (a cycle), and nests at most ``limit`` deep. Read without recursion, whatever the depth."""
    stack: list[tuple[object, tuple[Key, ...], int]] = [(value, (), 1)]
    on_branch: dict[int, int] = {}  # id of a container -> its depth, while its children are walked
    exits: list[tuple[int, int]] = []  # (stack length at which to leave, container id)
    while stack:
        while exits and len(stack) <= exits[-1][0]:
            on_branch.pop(exits.pop()[1], None)
        item, at, depth = stack.pop()
        if item is None or isinstance(item, (str, bool, int)):
            continue
        if isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return at, f"expected a JSON value, got {preview(item)} (JSON has no such number)"
            continue
        if not isinstance(item, (dict, list)):
            return at, f"expected a JSON value, got {got(item)}"
        if id(item) in on_branch:
            return at, "expected a JSON value, got a structure that contains itself (a cycle)"
        if depth > limit:
            return (), f"expected a JSON value that nests at most {limit} levels deep, got one deeper"  # (its path would be as long)
        exits.append((len(stack), id(item)))
        on_branch[id(item)] = depth
        if isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                if not isinstance(key, str):
                    return at, f"expected a JSON object, whose keys are strings, got the key {preview(key)}"
                stack.append((inner, (*at, key), depth + 1))
        else:
            stack.extend((inner, (*at, index), depth + 1) for index, inner in reversed(list(enumerate(item))))
    return None


def expect_object(value: object) -> dict:
    if not isinstance(value, dict):
        raise Invalid(f"expected an object, got {got(value)}", WRONG_TYPE)
    return value


def expect_array(value: object) -> list:
    if not isinstance(value, list):
        raise Invalid(f"expected an array, got {got(value)}", WRONG_TYPE)
    return value


def unknown_keys(obj: dict, at: tuple[Key, ...], known: tuple[str, ...], root: str = "$") -> list[Problem]:
    """One problem per key the mode does not declare, so a typo is never ignored."""
    problems = []
    for key in obj:
        if key not in known:
            shown = json_text(key) if isinstance(key, str) else preview(key)
            guess = closest_name(key, known) if isinstance(key, str) else None
            hint = f"did you mean {json_text(guess)}? " if guess else ""
            # A key that is no string (from a Python caller) has no path of its own: its object's.
            where = (*at, key) if isinstance(key, str) else at
            problems.append(Problem(where, UNKNOWN_KEY, f"unknown key {shown} ({hint}expected {', '.join(known)})", key, root))
    return problems


def unknown_key_problems(obj: dict, path: str, known: tuple[str, ...]) -> list[Problem]:
    """``unknown_keys`` under a path given as text (the model command's window)."""
    return unknown_keys(obj, (), known, root=path)


# Cached: an input with 100,000 items can repeat the same typo in every one of them.
@functools.lru_cache(maxsize=1024)
def closest_name(name: str, known: tuple[str, ...]) -> str | None:
    """The declared name a typo most likely meant (``tokns`` -> ``tokens``), or None when none is close."""
    if len(name) > 64:  # a long key is no typo of a short name, and difflib's cost grows with its length
        return None
    import difflib  # here, not at import: only a typo needs it, and it costs the page's start-up ~28 ms in Pyodide

    matches = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if not matches:  # a different case is a typo too: "Budget", "ID"
        matches = [candidate for candidate in known if candidate.casefold() == name.casefold()]
    return matches[0] if matches else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the known name closest to ``name``, or nothing: the command
    line's and the MCP server's words (a report's messages quote the name as JSON instead)."""
    guess = closest_name(name, tuple(known))
    return f" (did you mean {guess}?)" if guess else ""
