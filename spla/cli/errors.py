"""Exit statuses of the ``spla`` command and the error that means "bad command-line input"."""

from __future__ import annotations

import signal

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_NOT_CONVERGED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, as a shell reports a process that SIGTERM ended


class UsageError(Exception):
    """Bad command-line input (unknown option value, unwritable output, ...): exit status 2."""
