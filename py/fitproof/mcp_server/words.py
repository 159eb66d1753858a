"""What a message shows of a value it got, and the name closest to a mistaken one."""

from __future__ import annotations

import json


def preview(value: object, width: int = 80) -> str:
    """``value`` as JSON, cut to ``width`` characters (an id, a param: what was received)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def closest(name: str, names: list[str]) -> str:
    """`` (did you mean X?)`` for the name closest to ``name``, or nothing."""
    import difflib  # only for a mistake

    guess = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {guess[0]}?)" if guess else ""
