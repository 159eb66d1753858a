"""The root of every exception the package raises on purpose.

``except context_budget.ContextBudgetError`` catches them all; each subclass also derives from
the built-in exception that says what kind of failure it is (``ValueError`` for bad input), so
callers who catch those keep working.
"""


class ContextBudgetError(Exception):
    """Any failure this package reports on purpose (never a bug)."""
