"""Secret redaction: what a message may show of the API key, of a URL, of a setting's value.

The key is never shown, in any written form or any part of it 8 or more characters long;
a URL loses its user info, its ?query and #fragment and any run that looks like a key; a
setting's value that holds a key-like word is described, not shown.
"""

from __future__ import annotations

import re
import urllib.parse
from itertools import compress, count

from .._base.values import json_text, preview

# The default API key: a placeholder for local servers that take any key.
PLACEHOLDER_KEY = "not-needed"
# A key shorter than this is a placeholder ("ollama", "local"), not a secret: redacting it
# would cut words out of host names and messages ("[redacted]host").
MIN_SECRET = 8

# A word this long in a setting that is not the key is described instead of shown, unless it
# is a number (digits, a sign, a point, an exponent): no key looks like one.
_KEY_LIKE = 20
_NUMBER_WORD = re.compile(r"[-+0-9.eE]+")
# What a base URL's host (and port and path) may look like when it is typed without its
# scheme ("openrouter.ai/api/v1", "https//api.openai.com/v1"): shown, since it is no key.
_HOST_LIKE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:?/*)?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?::[0-9]{1,5})?(?:/[^\s?#@]*)?")
# A run in a URL that looks like a key pasted into it (a path segment, a host label): 20 or
# more letters, digits, "-" and "_" in both cases with a digit, or starting "sk-"; or 32 or
# more hexadecimal digits (Azure's keys). Host names are lower case and rarely that long.
_KEY_IN_URL = re.compile(
    r"sk-[A-Za-z0-9_-]{17,}|(?=[A-Za-z0-9_-]{0,200}[A-Z])(?=[A-Za-z0-9_-]{0,200}[a-z])(?=[A-Za-z0-9_-]{0,200}[0-9])[A-Za-z0-9_-]{20,}|[0-9a-fA-F]{32,}"
)
_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s\"]*@")

# Any run of at least this many characters of a key (in any of its written forms, in any
# case) is redacted, so that a key cut by a preview, an error body cut at 4 KiB or a message
# cut at 200 characters leaves no recognisable part; at the very end of a text that was cut,
# a run of at least _TAIL characters that begins the key is redacted too.
_FRAGMENT = 8
_TAIL = 4
# Texts longer than this (a model's answer) are searched for the key's whole forms only.
_FRAGMENT_SEARCH_LIMIT = 1 << 16
# Case folded for A-Z only: str.lower() turns "İ" into two characters, which would move every
# span found in the lowered text off the text it is applied to (and let the key through).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def secrets_of(key: object) -> list[str]:
    """What messages must never show: the API key, unless it is the default or a placeholder."""
    return [key] if isinstance(key, str) and len(key) >= MIN_SECRET and key != PLACEHOLDER_KEY else []


def shown(value: object) -> str:
    """A setting's value for a message, with each word of 20 or more characters described,
    not shown: it may be a key pasted into the wrong setting ("Bearer sk-…" too), and no
    number, flag or host name is that long a word."""
    words = value.split() if isinstance(value, str) else []
    if not isinstance(value, str) or not any(map(_key_like, words)):  # (words is empty for a non-string)
        return preview(value)
    if len(words) == 1:
        return f"a text of {len(value)} characters (not shown: it may be a key)"
    described = [f"<{len(word)} characters>" if _key_like(word) else word for word in words]
    return f"{preview(' '.join(described))} (a long word not shown: it may be a key)"


def _key_like(word: str) -> bool:
    return len(word) >= _KEY_LIKE and not _NUMBER_WORD.fullmatch(word)


def redact_url(url: str) -> str:
    """``url`` for printing: any user name and password in it replaced by ``***`` (all that
    comes before the last "@", even a "?" or "#" typed in a password), then any ?query or
    #fragment by ``?***`` or ``#***`` (a key can sit there: ``?api-key=…``)."""
    scheme, separator, rest = url.partition("://")
    if separator and "@" in rest:
        rest = "***@" + rest.rpartition("@")[2]
    for mark in "?#":
        head, found, _ = rest.partition(mark)
        if found:
            rest = f"{head}{mark}***"
    return f"{scheme}{separator}{rest}"


def _described(found: re.Match) -> str:
    return f"<{len(found.group())} characters: may be a key>"


def without_key_like_runs(text: str) -> str:
    """``text`` with every run that looks like a key described by its length."""
    return _KEY_IN_URL.sub(_described, text)


def without_url_credentials(text: str) -> str:
    """``text`` with the user info of every URL in it replaced by ``***``."""
    return _URL_CREDENTIALS.sub(r"\1***@", text)


def shown_url(settings: dict) -> str:
    """The settings' base URL for a message: no user info, query or key-like run, and never the key."""
    url = redact_url(settings["base_url"])
    url = url if len(url) <= 300 else url[:299] + "…"  # a message, not a copy of a very long value
    return redact(without_key_like_runs(url), secrets_of(settings["api_key"]))


def url_for_message(value: str) -> str:
    """A base_url as a message shows it (worked out only for a message: a valid URL never pays
    for it; a message shows 60 characters, so only the first ones are looked at)."""
    if "://" in value or _HOST_LIKE.fullmatch(value[:2000]):
        return preview(without_key_like_runs(redact_url(value)[:300]))
    return shown(value)


def _forms(secret: str) -> set[str]:
    """How a server or a setting may write the key: as it is, JSON-escaped (with "\\/" too, as
    PHP writes it), percent-encoded, HTML-escaped; compared without case."""
    import html  # with html.entities, ~1.7 ms of every command's start-up; needed only once a key is set

    escaped = json_text(secret)[1:-1]
    forms = {secret, escaped, escaped.replace("/", "\\/"), urllib.parse.quote(secret, safe=""), html.escape(secret)}
    return {form.translate(_ASCII_LOWER) for form in forms if form}


def redact(text: str, secrets: list[str], cut: bool = False) -> str:
    """``text`` with every part of each secret replaced by ``[redacted]``: whole forms always;
    in a text of up to 64 KiB also every run of 8 or more of a form's characters, and, when
    the text was ``cut`` at its end, a start of a form of 4 or more characters left there."""
    secrets = [secret for secret in secrets if secret]
    if not secrets:
        return text
    lowered = text.translate(_ASCII_LOWER)  # as long as the text: a span found in one is a span of the other
    spans: list[tuple[int, int]] = []
    for form in set().union(*map(_forms, secrets)):
        start = lowered.find(form)
        while start >= 0:  # the whole form, at any length (a periodic key must not make this quadratic)
            spans.append((start, start + len(form)))
            start = lowered.find(form, start + len(form))
        if len(text) <= _FRAGMENT_SEARCH_LIMIT and len(form) >= _FRAGMENT:
            spans += _common_runs(lowered, form)
        if cut:
            for length in range(min(len(form), len(text)) - 1, _TAIL - 1, -1):
                if lowered.endswith(form[:length]):
                    spans.append((len(text) - length, len(text)))
                    break
    if not spans:
        return text
    pieces: list[str]
    pieces, done = [], 0
    for start, end in sorted(spans):
        if end <= done:
            continue
        if start > done or not pieces:  # a new span (one that overlaps the last extends it)
            pieces += [text[done:start], "[redacted]"]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _common_runs(text: str, form: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that match some part of ``form`` 8 or more characters long: the
    text's 8-character windows that are also the form's, found in one pass at C speed
    (their union is every such run, however the runs overlap)."""
    pieces = {form[start : start + _FRAGMENT] for start in range(len(form) - _FRAGMENT + 1)}
    windows = map(text.__getitem__, map(slice, range(len(text)), range(_FRAGMENT, len(text) + 1)))
    return [(start, start + _FRAGMENT) for start in compress(count(), map(pieces.__contains__, windows))]
