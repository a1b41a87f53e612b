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
        parser.add_argument("-o", "--output", metavar="DIR", help="run directory for the record (default: ./tdiag-runs/<program>-<time>)")
        parser.add_argument("--source-root", metavar="DIR", help="snapshot user sources under DIR (default: the program's directory)")
        parser.add_argument("--no-tui", action="store_true", help="do not open the interactive UI at the end")
        parser.add_argument("--html", metavar="FILE", help="also write the single-file HTML report")
        parser.add_argument("-q", "--quiet", action="store_true", help="no summary at exit (the record is still written)")
        parser.add_argument("--deep", action="store_true", help="exact IR-level kernel detail (bypasses compile caches)")
        parser.add_argument("--redact", metavar="REGEX", action="append", default=[], help="replace matches in the recorded argv")
        parser.add_argument(
            "--profile-window",
            metavar="STEPS[:SETTLE[:SECONDS]]",
            help="measure STEPS steps once SETTLE steps ran without a compile, at most SECONDS (default 20:2:2)",
        )
        parser.add_argument("--no-profile", action="store_true", help="do not measure a runtime window (no cost column)")
        parser.add_argument(
            "--vs-eager",
            action="store_true",
            help="after the program ends, run it again with TORCH_COMPILE_DISABLE=1 under the same runtime window "
            "(its stdout and stderr discarded, its exit status ignored) and compare the measured step with eager",
        )
        parser.add_argument("--vs-eager-runs", type=int, metavar="N",
                            help="eager runs for --vs-eager, implying it (default 1; more rule out a slow moment of "
                            "the machine)")
        parser.add_argument("--nproc-per-node", type=int, metavar="N", help="launch N ranks through torchrun")
        parser.add_argument("program", help="the script to run (or the module, with -m)")
        parser.add_argument("args", nargs=argparse.REMAINDER, help="the program's own arguments")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        _check_vs_eager(args)
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
    try:
        writer = RecordWriter(record_path, header_fields(argv, root, rank, extra))
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
    with session:
        outcome = runner.run(target, on_exception=session.crashed)
    if status is not None:
        status.stop()
    signal.signal(signal.SIGTERM, previous_term)
    if os.getpid() != pid:  # a forked child that returned through us: stay silent
        return outcome.exit_code
    record_exit(writer, outcome.exit_code, outcome.reason, started)
    if start is not None and outcome.reason != "keyboard_interrupt":
        from tdiag.commands._vs_eager import measure_eager

        measure_eager(target, args, run_dir, writer, start, time.time() - started)
    writer.close()
    show_results(args, run_dir, lead=rank in (None, 0))
    if outcome.system_exit is not None and not isinstance(outcome.system_exit.code, (int, type(None))):
        raise outcome.system_exit  # sys.exit("message"): let Python print it, exactly as without tdiag
    if outcome.reason == "keyboard_interrupt":
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return outcome.exit_code


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
