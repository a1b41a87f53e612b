"""The ``%tdiag`` / ``%%tdiag`` magic: capture a cell (or every cell) and show its findings in the cell's output.

Each capture is its own record under ``./tdiag-runs/notebook-in<N>-<time>/`` (``tdiag tui`` and ``tdiag report``
read it). Dynamo's caches are left as they are between cells, so a call in a captured cell that recompiles a function
compiled earlier (in any cell) is seen as a recompilation of that cell, with the guard that failed.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class

from tdiag.lean_dataclass import lean_dataclass
from tdiag.notebook.cells import cell_label, running_cell

USAGE = """%%tdiag                  capture this cell and show what torch.compile did
%tdiag on | off          capture every following cell (each on its own) until `%tdiag off`
%tdiag report [--html FILE]
                         the last capture's findings in full; --html writes the single-file HTML report"""


@lean_dataclass
class CellCapture:
    label: str
    capture: Any  # tdiag.api.Capture, done

    @property
    def path(self) -> Path:
        return self.capture.path

    def analysis(self) -> Any:
        return self.capture.analysis()


class CellFindings:
    """A capture as a cell shows it: the findings view, titled with the cell, with where its record is."""

    def __init__(self, done: CellCapture, expanded: bool = False):
        self.done = done
        self.expanded = expanded

    def _repr_html_(self) -> str:
        from tdiag.reports.notebook import to_html

        return to_html(self.done.analysis(), title=self.done.label, record=str(self.done.path), expanded=self.expanded)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        from tdiag.reports.notebook import to_text

        printer.text(to_text(self.done.analysis(), title=self.done.label, record=str(self.done.path)))


@magics_class
class TdiagMagics(Magics):
    def __init__(self, shell: Any):
        super().__init__(shell)
        self.every_cell = False
        self.last: CellCapture | None = None
        self._running: Any = None  # the capture of the cell now running under `%tdiag on`
        self._next_count: int | None = None

    # -- the magic -----------------------------------------------------------------------------------------------
    @line_cell_magic
    def tdiag(self, line: str, cell: str | None = None) -> Any:
        __tracebackhide__ = True  # noqa: F841  (IPython leaves frames that set it out of a failing cell's traceback)
        if cell is not None:
            return self._capture_cell(line, cell)
        words = shlex.split(line)
        command = words[0] if words else ""
        if command == "on":
            self.every_cell = True
            print("tdiag: capturing every cell until `%tdiag off`")
        elif command == "off":
            self.every_cell = False
            print("tdiag: stopped capturing cells")
        elif command == "report":
            return self._report(words[1:])
        else:
            print(USAGE)
        return None

    def _report(self, words: list[str]) -> Any:
        parser = argparse.ArgumentParser(prog="%tdiag report", add_help=False, exit_on_error=False)
        parser.add_argument("--html", metavar="FILE")
        try:
            args = parser.parse_args(words)
        except (argparse.ArgumentError, SystemExit):
            print(USAGE, file=sys.stderr)
            return None
        if self.last is None:
            print("tdiag: nothing captured yet: run a cell under %%tdiag or after %tdiag on", file=sys.stderr)
            return None
        if args.html:
            from tdiag.reports.registry import ReportOptions, get_reporter, write_report

            write_report(get_reporter("html"), self.last.analysis(), args.html, ReportOptions())
            print(f"tdiag: wrote {args.html} ({self.last.label}; record {self.last.path})")
            return None
        return CellFindings(self.last, expanded=True)

    # -- %%tdiag -------------------------------------------------------------------------------------------------
    def _capture_cell(self, line: str, cell: str) -> Any:
        __tracebackhide__ = True  # noqa: F841
        number = running_cell(self.shell)
        code, last_expression, filename = self._compile(line, cell, number)
        capture = self._start(number)
        try:
            exec(code, self.shell.user_ns)
            value = eval(last_expression, self.shell.user_ns) if last_expression is not None else None
        except BaseException:
            self._finish(capture, sys.exc_info())
            raise  # the cell fails as it would have without tdiag, after its findings are shown
        self._finish(capture, (None, None, None))
        return value

    def _compile(self, line: str, cell: str, number: int) -> tuple[Any, Any, str]:
        """The body compiled under the cell's own name, line numbers as the cell shows them (the magic is line 1),
        the cell's text kept for tracebacks and the capture's snapshot."""
        body = self.shell.transform_cell(cell)
        # the magic's line as a comment: the snapshot stays Python, so patches can be made against it
        shown = f"# %%tdiag {line}".rstrip() + "\n" + body
        filename = self.shell.compile.cache(shown, number, raw_code=f"%%tdiag {line}".rstrip() + "\n" + cell)
        tree = ast.parse(body, filename)
        ast.increment_lineno(tree, 1)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):  # its value is the cell's result, as without tdiag
            last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
        flags = getattr(self.shell.compile, "flags", 0)
        return compile(tree, filename, "exec", flags=flags, dont_inherit=True), last, filename

    # -- %tdiag on ----------------------------------------------------------------------------------------------
    def pre_run_cell(self, info: Any) -> None:
        if not self.every_cell or self._running is not None or _is_tdiag_cell(getattr(info, "raw_cell", "")):
            return
        self._running = self._start(self._next_count)

    def post_run_cell(self, result: Any) -> None:
        count = getattr(result, "execution_count", None)
        if isinstance(count, int):
            # the next cell's number: IPython 9 counts a cell before pre_run_cell, IPython 8 after, so the
            # running count cannot say it; the last cell's result can (`%tdiag on` is always such a cell)
            self._next_count = count + 1
        capture, self._running = self._running, None
        if capture is None:
            return
        if isinstance(count, int):
            capture.label = capture.capture.label = cell_label(count)  # what the cell turned out to be
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        self._finish(capture, (type(error), error, error.__traceback__) if error is not None else (None, None, None))

    # -- one capture -------------------------------------------------------------------------------------------
    def _start(self, number: int | None) -> CellCapture:
        """``number``: the cell's execution count, None when not known yet."""
        from tdiag.api import Capture
        from tdiag.rundir import choose_run_dir

        label = cell_label(number) if number is not None else "a cell"
        run_dir = choose_run_dir(None, f"notebook-in{number}" if number is not None else "notebook")
        capture = Capture(run_dir, root=Path.cwd(), label=label)
        capture.__enter__()
        return CellCapture(label, capture)

    def _finish(self, done: CellCapture, exc_info: tuple) -> None:
        """Stop the capture and show its findings; a failure here is reported, never raised over the cell's own."""
        from IPython.display import display

        try:
            done.capture.__exit__(*exc_info)
            self.last = done
            display(CellFindings(done))
        except Exception as exc:
            print(f"tdiag: could not show the findings of {done.label}: {exc} (record: {done.path})", file=sys.stderr)


def _is_tdiag_cell(raw: str) -> bool:
    first = raw.lstrip().split("\n", 1)[0]
    return first.startswith(("%tdiag", "%%tdiag"))


def load(shell: Any) -> None:
    if getattr(shell, "_tdiag_magics", None) is not None:
        return
    magics = TdiagMagics(shell)
    shell.register_magics(magics)
    shell.events.register("pre_run_cell", magics.pre_run_cell)
    shell.events.register("post_run_cell", magics.post_run_cell)
    shell._tdiag_magics = magics


def unload(shell: Any) -> None:
    magics = getattr(shell, "_tdiag_magics", None)
    if magics is None:
        return
    shell.events.unregister("pre_run_cell", magics.pre_run_cell)
    shell.events.unregister("post_run_cell", magics.post_run_cell)
    shell._tdiag_magics = None
