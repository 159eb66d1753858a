"""The registry of modes: each mode is a module satisfying :class:`~.protocol.Mode`, found by name.

To add a mode: write ``modes/<name>.py`` with every member of ``protocol.Mode`` (the
conformance test runs mypy on it), add it to ``MODES`` below, and give it fixtures.
"""

from __future__ import annotations

from . import blocks, messages, passages, relevance, required
from .protocol import Mode

DEFAULT_MODE = "relevance"

MODES: dict[str, Mode] = {mode.NAME: mode for mode in (relevance, required, blocks, passages, messages)}
