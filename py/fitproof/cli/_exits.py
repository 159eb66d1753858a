"""Exit codes and the exceptions that end a command with one line on standard error.

0 the report passes, every fixture or line passed; 1 it does not, the input is not
acceptable JSON, a required block does not fit, the model call failed, or the checkout
lacks what the page needs; 2 bad usage (unknown command or option, a file that cannot be
opened, no fixtures, a port that cannot be used, invalid compose settings); 3 a worker
process of ``check --jsonl --jobs N`` ended unexpectedly, so the output is cut short.
"""

from __future__ import annotations

from .._base.errors import FitproofError

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_WORKER_LOST = 0, 1, 2, 3


class UsageError(FitproofError):
    """Bad usage: printed as one line on stderr, exit code 2."""


class OutputFailed(FitproofError):
    """Standard output could not be written (a full disk): one line on stderr, exit code 2."""

    def __init__(self, error: OSError) -> None:
        # Not an OSError itself, so that no handler meant for the files a command reads takes it.
        super().__init__(error.strerror or str(error))


class Exit(FitproofError):
    """argparse's end of a run (help, version, a usage error): an exit code and what to print."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
