"""Run the user's program exactly as ``python script.py`` / ``python -m module`` would.

Same ``sys.argv``, ``sys.path[0]`` and ``__main__``; the program's own output is untouched; its exceptions print
the traceback Python would print (tdiag's frames removed) and its exit status is returned for ``tdiag run`` to pass on.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import runpy
import sys
import traceback
from collections.abc import Callable
from types import TracebackType

from tdiag.errors import TdiagError
from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class Target:
    """What `tdiag run` runs: a script path or a module name, with its arguments."""

    kind: str  # "script" or "module"
    name: str  # the script path as given, or the module name
    args: list[str]

    @property
    def argv(self) -> list[str]:
        return [self.name, *self.args]

    @property
    def root(self) -> str:
        """The project root (tdiag/project_root.py): the git repository of the script's folder (of the working
        directory for a module), else the working directory, else the script's folder."""
        from tdiag.project_root import default_root

        return str(default_root(os.path.dirname(os.path.realpath(self.name)) if self.kind == "script" else os.getcwd()))

    @property
    def label(self) -> str:
        base = os.path.basename(self.name) if self.kind == "script" else self.name
        return base[:-3] if base.endswith(".py") else base


def validate(target: Target) -> None:
    """Fail before anything runs: a missing script or module, or a file that is not Python."""
    if target.kind == "script":
        if not os.path.exists(target.name):
            raise TdiagError(f"no such file: {target.name}")
        if os.path.isdir(target.name):
            raise TdiagError(f"{target.name} is a directory, not a Python script (use -m for a package)")
        try:
            with open(target.name, "rb") as fh:
                ast.parse(fh.read(), filename=target.name)
        except (SyntaxError, ValueError) as exc:
            raise TdiagError(f"{target.name} is not a Python program: {exc}") from None
        except OSError as exc:
            raise TdiagError(f"cannot read {target.name}: {exc.strerror}") from None
    else:
        sys.path.insert(0, os.getcwd())
        try:
            spec = importlib.util.find_spec(target.name)
        except (ImportError, ValueError) as exc:
            spec = None
            reason = str(exc)
        else:
            reason = ""
        finally:
            sys.path.pop(0)
        if spec is None:
            raise TdiagError(f"no module named {target.name!r}" + (f" ({reason})" if reason else ""))


@lean_dataclass
class Outcome:
    """How the program ended: exit code and why."""

    exit_code: int
    reason: str  # exit, exception, keyboard_interrupt
    system_exit: SystemExit | None = None


def run(target: Target, on_exception: Callable[[BaseException], None] | None = None) -> Outcome:
    """Run the program in this process; exceptions are reported as Python reports them, after ``on_exception``
    (the capture's record of the ending exception) has seen them."""
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = target.argv
    if target.kind == "script":
        sys.path[0] = os.path.dirname(os.path.realpath(target.name))
    else:
        sys.path[0] = os.getcwd()
    try:
        if target.kind == "script":
            _run_script(target.name)
        else:
            _run_module(target.name)
        return Outcome(0, "exit")
    except SystemExit as exc:
        return Outcome(_exit_status(exc.code), "exit", exc)
    except KeyboardInterrupt as exc:
        _print_exception(exc)
        return Outcome(130, "keyboard_interrupt")
    except BaseException as exc:  # the program's own error: show it as Python would
        if on_exception is not None:
            on_exception(exc)
        _print_exception(exc)
        return Outcome(1, "exception")
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0


def _run_module(name: str) -> None:
    """``python -m name``: ``runpy._run_module_as_main`` is what the interpreter itself calls (private, stable since
    Python 3.2); where it is missing, the public ``run_module`` with ``run_name="__main__"`` is nearly the same (it
    runs the module in a temporary namespace rather than in ``__main__`` itself)."""
    run_as_main = getattr(runpy, "_run_module_as_main", None)
    if callable(run_as_main):
        run_as_main(name, alter_argv=True)
    else:
        runpy.run_module(name, run_name="__main__", alter_sys=True)


def _run_script(path: str) -> None:
    """Like ``python path``: argv[0] as given, ``__file__`` and code filenames absolute, a fresh ``__main__``."""
    import builtins
    import importlib.machinery
    import types

    abspath = os.path.abspath(path)
    with open(abspath, "rb") as fh:
        code = compile(fh.read(), abspath, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=abspath,
        __builtins__=builtins,
        __loader__=importlib.machinery.SourceFileLoader("__main__", abspath),
        __spec__=None,
        __package__=None,
        __cached__=None,
    )
    # The program's __main__ stays in sys.modules for the rest of the process, as under python (runpy's -m path does
    # the same): its objects are destroyed at interpreter shutdown, not when this function returns. Freeing them here
    # ran, e.g., DDP's Reducer -> ProcessGroupGloo destructor (joining gloo's threads) in the middle of tdiag's exit
    # work, right after the program's last line: a 2-rank gloo job then hung in that join, or aborted with
    # "terminate called without an active exception".
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    return 1  # sys.exit("message"): Python prints it and exits 1; the caller re-raises to print it


def _print_exception(exc: BaseException) -> None:
    tb = _user_traceback(exc.__traceback__)
    exc.with_traceback(tb)  # the default excepthook prints the exception's own traceback
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        traceback.print_exception(type(exc), exc, tb)


def _user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """Drop the leading frames of this runner and runpy, so the traceback starts in user code as under python."""
    ours = {os.path.realpath(__file__), os.path.realpath(runpy.__file__), "<frozen runpy>"}  # -m goes through runpy
    while tb is not None and _real(tb.tb_frame.f_code.co_filename) in ours:
        tb = tb.tb_next
    return tb


def _real(filename: str) -> str:
    return filename if filename.startswith("<") else os.path.realpath(filename)
