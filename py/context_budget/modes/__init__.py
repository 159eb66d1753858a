"""The registry of modes: one module each, found by name.

A mode module provides ``NAME``, ``parse(data)`` (raising ``InvalidInput``),
``select(parsed)``, ``run(data)``, ``succeeded(result)``, ``summarize(result)`` and
``verify(data, result)`` (the independent checks).
"""

from . import blocks, relevance, required

MODES = {module.NAME: module for module in (relevance, required, blocks)}

# Every mode of the contract, in the order the contract lists them; those not in
# MODES yet are rejected as not implemented.
CONTRACT_MODES = ("relevance", "required", "blocks", "passages")
DEFAULT_MODE = "relevance"
