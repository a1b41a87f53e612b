"""Errors that end a tdiag command with a clear message and an exit code."""

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class TdiagError(Exception):
    """A problem tdiag reports to the user in one line, without a traceback."""

    exit_code = EXIT_USAGE


class RecordError(TdiagError):
    """A record that cannot be read: missing, foreign, corrupt or from a newer tdiag."""


def save_traceback(header: str, exc: BaseException) -> tuple[str, str | None, str]:
    """Save ``exc``'s traceback under a ``header`` line ("tdiag 0.1.0 lint") to a temp file, as every internal error
    of tdiag is: (traceback text, path or None, where: "written to PATH" or why it was not saved)."""
    import os
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        fd, path = tempfile.mkstemp(prefix="tdiag-", suffix="-traceback.txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{header}\n{text}")
    except OSError as write_error:
        return text, None, f"not saved ({write_error.strerror or write_error})"
    return text, path, f"written to {path}"
