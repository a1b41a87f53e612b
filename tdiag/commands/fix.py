"""``tdiag fix``: show the record's patches, verify them on a scratch copy, apply them (with undo)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tdiag.errors import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, TdiagError
from tdiag.analyzer.stdout_match import DEFAULT_TOLERANCE

EXIT_INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a program ended by Ctrl-C


class FixCommand:
    name = "fix"
    help = "Apply the record's patches: show them, --verify them on a scratch copy (before/after), --apply them."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("record", nargs="?", metavar="RECORD", help="a run directory or an events*.jsonl file")
        parser.add_argument("--apply", action="store_true", help="write the patches to the project (backup + undo)")
        parser.add_argument("--verify", action="store_true",
                            help="patch a scratch copy, re-run the recorded command under tdiag, compare before/after")
        parser.add_argument("--each", action="store_true", help="with --verify: also measure each patch alone")
        parser.add_argument("--select", action="append", metavar="CODES",
                            help="only these codes or prefixes, comma-separated (BRK, RCP001, ALL), as in tdiag lint")
        parser.add_argument("--ignore", action="append", metavar="CODES", help="leave out these codes or prefixes, comma-separated")
        parser.add_argument("--force", action="store_true",
                            help="apply to stale or uncommitted files, or after a worse verification; undo changed files")
        parser.add_argument("--env", metavar="KEY=VALUE", action="append", default=[],
                            help="an environment variable for the re-run (repeatable; the record keeps none)")
        parser.add_argument("--timeout", type=float, metavar="S", help="give up on a re-run after S seconds")
        parser.add_argument("--repeat", type=int, default=2, metavar="N",
                            help="with --verify: run each side N times where the step time decides (CUDA graphs, "
                                 "the optimizer): a timing verdict needs their spread; a set the counts decide "
                                 "runs once (default 2)")
        parser.add_argument("--rounds", type=int, default=5, metavar="N",
                            help="with --verify: at most N rounds of patch, re-run, re-analyse (default 5)")
        parser.add_argument("--output-tolerance", type=float, default=0.0, metavar="REL",
                            help="with --verify: the patched program's output is the same when each printed number "
                                 "lies within its own run-to-run spread (the unchanged program runs again when an "
                                 "output first differs; numbers that never varied must match exactly); REL > 0 also admits floats within one unit "
                                 f"of their last digit and REL relatively (e.g. {DEFAULT_TOLERANCE:g}; default 0)")
        parser.add_argument("--no-parity", action="store_true",
                            help="with --verify: do not run the unchanged program with TORCH_COMPILE_DISABLE=1 to "
                                 "check that its compiled results equal eager's (saves one run)")
        parser.add_argument("--eager", action="store_true",
                            help="with --verify: also run the final program with TORCH_COMPILE_DISABLE=1 (N times) and "
                                 "compare its measured step time with the compiled one")
        parser.add_argument("--budget", type=float, metavar="S",
                            help="with --verify: finish within S seconds: a re-run that would end past them is not "
                                 "started, and the rounds verified before it are kept")
        parser.add_argument("--keep-scratch", action="store_true", help="keep the scratch copies and their records")
        parser.add_argument("--undo", action="store_true", help="restore the files of the last --apply (RECORD optional)")
        parser.add_argument("-f", "--format", choices=("text", "json"), default="text",
                            help="text: the diffs, each round's verdict and table (default); json: the same as one "
                                 "object, the one kept in RECORD/fix/verification.json")
        parser.add_argument("--no-diff", action="store_true", help="text: list the patches without their diffs")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.fixing.progress import Progress

        progress = Progress.on_terminal() if getattr(args, "verify", False) else Progress()
        try:
            return self._run(args, parser, progress)
        except KeyboardInterrupt:
            progress.close()
            print(f"tdiag fix: interrupted while {progress.now}: {_left_behind(progress)}", file=sys.stderr)
            return EXIT_INTERRUPTED
        finally:
            progress.close()

    def _run(self, args: argparse.Namespace, parser: argparse.ArgumentParser, progress) -> int:
        from tdiag.fixing.undo import undo

        if args.undo:
            progress.doing("restoring the files of the last --apply")
            manifest, restored = undo(_record_dir(args.record) if args.record else None, args.force)
            print(f"tdiag fix: restored {', '.join(restored)} (from {manifest.parent})")
            return EXIT_CLEAN
        if not args.record:
            parser.error("the following arguments are required: RECORD")
        if args.each and not args.verify:
            parser.error("--each measures patches: use it with --verify")
        if args.eager and not args.verify:
            parser.error("--eager measures the program: use it with --verify")
        if args.budget is not None and not args.verify:
            parser.error("--budget limits the verification: use it with --verify")
        if args.budget is not None and args.budget <= 0:
            parser.error("--budget takes a positive number of seconds")
        if args.repeat < 1 or args.rounds < 1 or args.output_tolerance < 0:
            parser.error("--repeat and --rounds take a positive count, --output-tolerance a non-negative number")
        from tdiag.commands._analysis import load_analysis
        from tdiag.commands._selection import selected_codes
        from tdiag.fixing.loop import FixOptions, fix

        codes = selected_codes(args.select, args.ignore)  # lint's selector: ALL, families, prefixes; a typo is exit 2
        options = FixOptions(
            # every rule ignored selects nothing (an empty select would mean every rule)
            select=codes or ["<no rule>"], ignore=[], apply=args.apply, verify=args.verify,
            each=args.each, force=args.force, env=_env(args.env, parser), timeout=args.timeout,
            keep_scratch=args.keep_scratch, repeat=args.repeat, max_rounds=args.rounds,
            output_tolerance=args.output_tolerance, eager=args.eager, budget=args.budget, parity=not args.no_parity,
        )
        progress.doing(f"analysing {args.record}")
        report = fix(args.record, load_analysis(args.record), options, progress)
        progress.close()  # the report follows on stdout; the progress line must be gone from the terminal first
        progress.doing("printing the result")
        from tdiag.reports.registry import ReportOptions, get_reporter, write_report

        reporter = get_reporter(f"fix-{args.format}")
        write_report(reporter, report, None, ReportOptions(show_diffs=not args.no_diff))
        if report.refusals:
            return EXIT_USAGE  # asked to write and wrote nothing
        return EXIT_FINDINGS if report.worse else EXIT_CLEAN


def _left_behind(progress) -> str:
    """What Ctrl-C left: the project (untouched, or patched with an undo) and the scratch copies (removed or kept)."""
    applied = getattr(progress.report, "applied", None)
    if applied is not None:
        words = [f"the patches were applied to {', '.join(applied.files)} (`tdiag fix --undo` takes them back)"]
    else:
        words = ["your source is untouched"]
    scratch = progress.scratch
    if scratch is not None:
        kept = scratch.base.exists()
        words.append(f"the scratch copies are kept in {scratch.base}" if kept else "the scratch copies were removed")
    return ", ".join(words)


def _record_dir(record: str) -> Path:
    p = Path(record)
    if not p.exists():
        raise TdiagError(f"no record at {record}")
    return p if p.is_dir() else p.parent


def _env(pairs: list[str], parser: argparse.ArgumentParser) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--env wants KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


COMMAND = FixCommand()
