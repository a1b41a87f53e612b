"""Errors that end a tdiag command with a clear message and an exit code."""

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class TdiagError(Exception):
    """A problem tdiag reports to the user in one line, without a traceback."""

    exit_code = EXIT_USAGE


class RecordError(TdiagError):
    """A record that cannot be read: missing, foreign, corrupt or from a newer tdiag."""
