"""The registry of modes: one module each, found by name.

A mode module provides ``NAME``, ``parse(data)`` (raising ``InvalidInput``),
``select(parsed)``, ``run(data)``, ``succeeded(result)``, ``summarize(result)`` and
``verify(data, result)`` (the independent checks), and optionally
``beyond_the_rule(parsed, result)``: what the rule's choice cost (``optimal``,
``sensitivity``), which never changes the selection or the checks.
"""

from . import blocks, messages, passages, relevance, required

MODES = {module.NAME: module for module in (relevance, required, blocks, passages, messages)}
DEFAULT_MODE = "relevance"
