"""The Python API: record what torch.compile does inside a ``with`` block, for notebooks, scripts and tests.

    with tdiag.capture() as rec:
        model(x)
    analysis = rec.analysis()        # the same Analysis `tdiag run` produces
    print(rec.path)                  # a run directory: `tdiag lint`, `tdiag tui`, `tdiag report` read it

The capture is the one `tdiag run` installs (TraceSession + RecordWriter), so counts and findings agree.
Functions compiled before the block are cached and not recompiled inside it; ``reset=True`` clears Dynamo's
caches on entry so everything compiled in the block is seen.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tdiag.errors import TdiagError

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis

CAPTURE_SOURCE = "tdiag.capture()"


class Capture:
    """A recording in progress (inside the ``with``) or done (after it)."""

    def __init__(self, output: str | os.PathLike | None = None, *, root: str | os.PathLike | None = None,
                 deep: bool = False, reset: bool = False):
        self._output = output
        self.root = Path(root).resolve() if root is not None else _caller_root()
        self.deep = deep
        self.reset = reset
        self.path: Path | None = None  # the run directory, set on entry
        self._writer = None
        self._session = None
        self._started = 0.0
        self._analysis: Analysis | None = None

    def __enter__(self) -> Capture:
        from tdiag.record import RecordWriter
        from tdiag.rundir import prepare
        from tdiag.tracer.session import TraceSession, header_fields

        if self._writer is not None:
            raise TdiagError("this capture is already recording; start a new tdiag.capture() for another block")
        self.path = Path(self._output) if self._output is not None else Path(tempfile.mkdtemp(prefix="tdiag-capture-"))
        record_path = prepare(self.path, None)
        extra = {"target": {"kind": "capture", "name": str(self.root)}, "deep": self.deep, "source": CAPTURE_SOURCE}
        try:
            self._writer = RecordWriter(record_path, header_fields(list(sys.argv), self.root, None, extra))
        except OSError as exc:
            raise TdiagError(f"cannot write the record {record_path}: {exc.strerror or exc}") from None
        if self.reset:
            import torch._dynamo

            torch._dynamo.reset()
        self._session = TraceSession(self._writer, self.root, deep=self.deep)
        self._started = time.time()
        self._session.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        from tdiag.tracer.session import record_exit

        if exc is not None and not isinstance(exc, (KeyboardInterrupt, GeneratorExit)):
            self._session.crashed(exc)  # the block's exception still propagates, printed as without tdiag
        self._session.close()
        reason = "exit" if exc_type is None else ("keyboard_interrupt" if exc_type is KeyboardInterrupt else "exception")
        record_exit(self._writer, 0 if exc_type is None else 1, reason, self._started)
        self._writer.close()
        self._analysis = None

    def analysis(self) -> Analysis:
        """Analyse the record (once; later calls return the same object)."""
        if self.path is None or self._writer is None:
            raise TdiagError("nothing recorded yet: call analysis() after the `with tdiag.capture()` block")
        if self._analysis is None:
            from tdiag.analyzer import build

            self._analysis = build(self.path)
        return self._analysis


def capture(output: str | os.PathLike | None = None, *, root: str | os.PathLike | None = None,
            deep: bool = False, reset: bool = False) -> Capture:
    """Record torch.compile inside a ``with`` block into ``output`` (default: a new temporary directory).

    ``root`` is where user code lives, for repo-relative paths and source snapshots; by default the directory
    of the file that called ``capture()``, or the current directory in a notebook or REPL.
    """
    return Capture(output, root=root, deep=deep, reset=reset)


def _caller_root() -> Path:
    """The directory of the first caller outside tdiag's package (``tdiag.capture`` forwards through here)."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == package_dir:
        frame = frame.f_back
    filename = frame.f_code.co_filename if frame is not None else ""
    if filename and os.path.isfile(filename):
        return Path(filename).resolve().parent
    return Path.cwd().resolve()
