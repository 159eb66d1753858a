"""The registry of modes: each mode is a module satisfying :class:`~.protocol.Mode`, found by name.

To add a mode: write ``modes/<name>.py`` with every member of ``protocol.Mode`` (the
conformance test runs mypy on it), add it to ``MODES`` below, and give it fixtures.
"""

from __future__ import annotations

from typing import Any

from . import blocks, messages, passages, relevance, required
from .protocol import Mode

DEFAULT_MODE = "relevance"

# Mode[Any, Any]: evaluate hands each mode only its own parse output; the conformance test binds
# each module to its own Parsed and Result types.
MODES: dict[str, Mode[Any, Any]] = {mode.NAME: mode for mode in (relevance, required, blocks, passages, messages)}
