"""context-budget: choose the context that fits a token budget, explain it, and verify it."""

from ._evaluate import evaluate

__version__ = "0.1.0"
__all__ = ["evaluate", "__version__"]
