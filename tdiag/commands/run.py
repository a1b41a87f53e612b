"""``tdiag run``: run a program unchanged under the capture, then summarise what torch.compile did."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from tdiag.commands._after_run import is_tty, show_results
from tdiag.errors import TdiagError
from tdiag.record import RecordWriter
from tdiag.rundir import choose_run_dir, current_rank, prepare
from tdiag.tracer import runner


class RunCommand:
    name = "run"
    help = "Run a Python program (or -m module) and record its graph breaks, recompilations and kernels."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("-m", dest="as_module", action="store_true", help="run a library module, like python -m")
        parser.add_argument("-o", "--output", metavar="DIR",
                            help="run directory for the record (default: ./tdiag-runs/<program>-<time>)")
        parser.add_argument("--source-root", metavar="DIR",
                            help="the project root: every output's paths are relative to it and only its files are "
                            "snapshotted (default: the git repository of the program's folder, else the working "
                            "directory)")
        parser.add_argument("--tui", action="store_true",
                            help="open the interactive UI after the summary (in a terminal)")
        parser.add_argument("--no-tui", action="store_true",
                            help="do not open the interactive UI (the default; kept for older scripts)")
        parser.add_argument("--html", metavar="FILE", help="also write the single-file HTML report")
        parser.add_argument("-q", "--quiet", action="store_true", help="no summary at exit (the record is still written)")
        parser.add_argument("--deep", action="store_true", help="exact IR-level kernel detail (bypasses compile caches)")
        parser.add_argument("--baseline", metavar="DIR", help="the record to explain compile-cache misses against "
                            "(default: the newest previous record of the same program in the output's folder)")
        parser.add_argument("--redact", metavar="REGEX", action="append", default=[],
                            help="replace matches in the recorded argv with *** (repeatable)")
        parser.add_argument(
            "--profile-window",
            metavar="STEPS[:SETTLE[:SECONDS[:STEADY]]]",
            help="measure STEPS steps once SETTLE steps ran without a compile, at most SECONDS, then time STEADY "
            "steps more without the profiler (default 20:2:2, STEADY as many as STEPS)",
        )
        parser.add_argument("--no-profile", action="store_true", help="do not measure a runtime window (no cost column)")
        parser.add_argument(
            "--vs-eager",
            action="store_true",
            help="after the program ends, run it again with TORCH_COMPILE_DISABLE=1 under the same runtime window "
            "(its output compared with the compiled run's, not shown; its exit status ignored) and compare the "
            "measured step and the printed results with eager",
        )
        parser.add_argument("--vs-eager-runs", type=int, metavar="N",
                            help="eager runs for --vs-eager, implying it (default 1; more rule out a slow moment of "
                            "the machine)")
        parser.add_argument("--nproc-per-node", type=int, metavar="N", help="launch N ranks through torchrun")
        parser.add_argument("program", metavar="PROGRAM",
                            help="the script to run (or the module, with -m); tdiag's options go before it")
        parser.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                            help="the program's own arguments: everything after PROGRAM goes to the program")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        if args.tui and args.no_tui:
            raise TdiagError("--tui and --no-tui exclude each other")
        _check_vs_eager(args)
        args.own_options = own_options(parser)
        if args.nproc_per_node:
            from tdiag.commands._torchrun import launch

            return launch(args)
        target = runner.Target("module" if args.as_module else "script", args.program, list(args.args))
        runner.validate(target)
        args.profile = _profile_spec(args)
        rank = current_rank()
        run_dir = choose_run_dir(args.output, target.label)
        record_path = prepare(run_dir, rank)
        root = Path(args.source_root).resolve() if args.source_root else Path(target.root)
        if args.source_root and not root.is_dir():
            raise TdiagError(f"--source-root {args.source_root} is not a directory")
        return _run_recorded(target, args, run_dir, record_path, root, rank)


def _run_recorded(target, args, run_dir: Path, record_path: Path, root: Path, rank: int | None) -> int:
    from tdiag.tracer.session import TraceSession, header_fields, record_exit

    argv = _redact(target.argv, args.redact)
    extra = {"target": {"kind": target.kind, "name": target.name}, "deep": bool(args.deep)}
    from tdiag.interrupt import phase

    with phase("starting the capture", kept=f"the program had not started; nothing was recorded in {run_dir}"):
        try:
            writer = RecordWriter(record_path, header_fields(argv, root, rank, extra, launcher=_launcher()))
        except OSError as exc:
            raise TdiagError(f"cannot write the record {record_path}: {exc.strerror or exc}") from None
    pid, started = os.getpid(), time.time()
    start = None
    if getattr(args, "vs_eager", False):  # the eager run starts where the program did (it may change both in-process)
        from tdiag.commands._vs_eager import starting_point

        start = starting_point()
    status = None
    if not args.quiet and is_tty(sys.stderr):
        from tdiag.reports.live import LiveStatus

        status = LiveStatus(sys.stderr)
    session = TraceSession(
        writer, root, listener=status.on_progress if status else None, deep=args.deep, profile=getattr(args, "profile", None)
    )
    previous_term = _record_on_sigterm(writer, started)
    from tdiag.tracer import stdout_copy

    copy = stdout_copy.install() if start is not None else None  # --vs-eager compares what the program printed
    restore_hooks = _watch_hooks(writer, root, session.problems.failed)
    with session:
        outcome = runner.run(target, on_exception=session.crashed)
    if restore_hooks is not None:
        restore_hooks()
    if copy is not None:
        stdout_copy.remove(copy)
        writer.write({"type": "program_stdout", "text": copy.text, "truncated": copy.truncated})
    if status is not None:
        status.stop()
    signal.signal(signal.SIGTERM, previous_term)
    if os.getpid() != pid:  # a forked child that returned through us: stay silent
        return outcome.exit_code
    record_exit(writer, outcome.exit_code, outcome.reason, started)
    if start is not None and outcome.reason != "keyboard_interrupt":
        from tdiag.commands._vs_eager import measure_eager

        interrupted = measure_eager(target, args, run_dir, writer, start, time.time() - started)
        if interrupted:
            writer.close()
            from tdiag.interrupt import Interrupted

            raise Interrupted("running the program again with TORCH_COMPILE_DISABLE=1 (--vs-eager)",
                              kept=f"the program's run is recorded in {run_dir}, not compared with eager")
    writer.close()
    show_results(args, run_dir, lead=rank in (None, 0))
    if rank in (None, 0):
        misplaced_option_hint(outcome, target.args, getattr(args, "own_options", ()))
    if outcome.system_exit is not None and not isinstance(outcome.system_exit.code, (int, type(None))):
        raise outcome.system_exit  # sys.exit("message"): let Python print it, exactly as without tdiag
    if outcome.reason == "keyboard_interrupt":
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return outcome.exit_code


def own_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of ``tdiag run`` itself (``--no-tui``, ``--html``, ...)."""
    return {o for action in parser._actions for o in action.option_strings if o.startswith("--")}


def misplaced_option_hint(outcome, program_args: list[str], options: set[str]) -> None:
    """One line when the program's argparse refused an option that is tdiag's: it was given after the program name,
    so it went to the program (as python passes it; tdiag never takes it back)."""
    exit_ = outcome.system_exit
    if exit_ is None or exit_.code != 2 or not _raised_by_argparse(exit_):
        return
    given = next((a.split("=", 1)[0] for a in program_args if a.split("=", 1)[0] in options), None)
    if given is not None:
        print(f"tdiag: `{given}` went to the program: put tdiag's options before the program name", file=sys.stderr)


def _raised_by_argparse(exc: BaseException) -> bool:
    import argparse as argparse_module

    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == argparse_module.__file__:
            return True
        tb = tb.tb_next
    return False


def _launcher() -> str | None:
    """The file Python started to run tdiag: the ``tdiag`` console script (``python -m tdiag``'s is tdiag's own)."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    return path if isinstance(path, str) and os.path.isfile(path) else None


def _record_on_sigterm(writer: RecordWriter, started: float):
    """On SIGTERM: note it in the record, then die of the signal as the program would have.

    Only in this process: a forked child (DataLoader worker, Pool worker) gets the program's own SIGTERM disposition
    back at fork, so ``Pool.terminate()`` kills it exactly as without tdiag, even while it waits inside C code where
    a Python handler could never run (a handler inherited by the children is what made pool shutdowns hang)."""
    from tdiag.tracer.session import record_exit

    owner = os.getpid()

    def handler(signum, frame):
        if os.getpid() == owner:
            record_exit(writer, 128 + signum, "signal", started)
        signal.signal(signum, previous if os.getpid() != owner else signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return signal.SIG_DFL
    if previous is None:  # installed outside Python: the default is the closest we can restore
        previous = signal.SIG_DFL

    def in_child() -> None:
        if signal.getsignal(signal.SIGTERM) is handler:
            try:
                signal.signal(signal.SIGTERM, previous)
            except ValueError:  # forked from a thread other than the main one: the handler's pid check covers it
                pass

    os.register_at_fork(after_in_child=in_child)
    return previous


def _watch_hooks(writer: RecordWriter, root: Path, failed):
    """Record the module hooks registered after torch compiled code (tracer/hook_watch.py); None where it could not
    be installed (the record says so)."""
    from tdiag.tracer import hook_watch

    prefix = str(root).rstrip("/") + "/"

    def user_path(path: str) -> str | None:
        mine = path.startswith(prefix) and "site-packages" not in path and ".venv" not in path
        return path[len(prefix):] if mine else None

    try:
        return hook_watch.install(writer.write, user_path, failed)
    except Exception as exc:  # the program runs as it would; the record says what was not seen
        failed("module hook watch", exc)
        return None


def _check_vs_eager(args) -> None:
    if args.vs_eager_runs is not None:
        args.vs_eager = True
    if not args.vs_eager:
        return
    args.vs_eager_runs = 1 if args.vs_eager_runs is None else args.vs_eager_runs
    if args.no_profile:
        raise TdiagError("--vs-eager compares measured steps: it needs the runtime window (not --no-profile)")
    if args.nproc_per_node:
        raise TdiagError("--vs-eager is not supported with --nproc-per-node")
    if args.vs_eager_runs < 1:
        raise TdiagError("--vs-eager-runs needs N >= 1")


def _profile_spec(args):
    """The runtime window to measure, or None for ``--no-profile``."""
    from tdiag.tracer.runtime_window import WindowSpec, parse_window

    if args.no_profile:
        if args.profile_window:
            raise TdiagError("--profile-window and --no-profile exclude each other")
        return None
    if not args.profile_window:
        return WindowSpec()
    try:
        return parse_window(args.profile_window)
    except ValueError as exc:
        raise TdiagError(str(exc)) from None


def _redact(argv: list[str], patterns: list[str]) -> list[str]:
    import re

    compiled = [re.compile(p) for p in patterns]
    return [_apply(a, compiled) for a in argv]


def _apply(text: str, patterns) -> str:
    for p in patterns:
        text = p.sub("***", text)
    return text


COMMAND = RunCommand()
