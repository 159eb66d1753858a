"""What the server's messages show of a value received: ``_base.values.preview`` at the
server's width (an id or a param is shown whole more often than in a report's message)."""

from __future__ import annotations

from .._base.values import preview as _preview

SHOWN = 80  # characters of a received value a message shows


def preview(value: object) -> str:
    return _preview(value, SHOWN)
