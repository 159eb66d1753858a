"""A lesson's prose as the page shows it, shared by the tests of tests/docs and tests/page: its
placeholders, {path}, are the package's report for the step's input (web/page/lesson-numbers.js
fills them), found here the same way."""

import re

PATH = r"[A-Za-z_][\w#.\-]*"
PLACEHOLDER = re.compile(rf"\{{({PATH}(?: [-+] {PATH})*)\}}")  # web/page/lesson-numbers.js's PLACEHOLDER


def value_at(report, path):
    """What lesson-numbers.js's valueAt finds: dotted keys, #x a row by id or message index."""
    value = report
    for part in path.split("."):
        if value is None:
            return None
        if isinstance(value, list) and part.startswith("#"):
            value = next((row for row in value if str(row.get("id", row.get("index"))) == part[1:]), None)
        elif isinstance(value, list):
            value = value[int(part)] if part.isdigit() and int(part) < len(value) else None
        else:
            value = value.get(part)
    return value


def said(report, expression):
    """A placeholder's text on the page, or None for a reason (said in the page's own words)."""
    terms = re.split(r" ([-+]) ", expression)
    if len(terms) > 1:
        total = value_at(report, terms[0])
        for sign, path in zip(terms[1::2], terms[2::2]):
            total += value_at(report, path) * (-1 if sign == "-" else 1)
        return str(total)
    if expression.endswith(".reason"):
        return None
    value = value_at(report, expression)
    if isinstance(value, list):
        return ", ".join(map(str, value)) if value else "nothing"
    return str(value)


def pattern(text, report):
    """A regular expression for ``text`` as the page shows it with ``report``'s numbers."""
    parts, last = [], 0
    for match in PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[last : match.start()]))
        value = said(report, match.group(1))
        parts.append(".+?" if value is None else re.escape(value))
        last = match.end()
    parts.append(re.escape(text[last:]))
    return re.compile("".join(parts))
