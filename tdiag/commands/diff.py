"""``tdiag diff BASE NEW``: what changed between two records, e.g. a stored baseline and this CI run.

Exit status: 1 when NEW regressed (a new finding at or above ``--fail-on``, or more graphs, graph breaks or
recompilations than BASE), 0 otherwise, 2 for a usage error or an unreadable record.
"""

from __future__ import annotations

import argparse
import json
import sys

from tdiag.analyzer.model import SEVERITIES
from tdiag.commands._analysis import load_analysis
from tdiag.errors import EXIT_CLEAN, EXIT_FINDINGS

FORMATS = ("text", "json")


class DiffCommand:
    name = "diff"
    help = "Compare two records: findings fixed, new and unchanged, and how counts moved (exit 1 on regressions)."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("base", help="the baseline record (run directory or events*.jsonl)")
        parser.add_argument("new", help="the record to compare with it")
        parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: %(default)s)")
        parser.add_argument(
            "--fail-on", choices=SEVERITIES, default="warning", help="a new finding this severe or worse is a regression (default: %(default)s)"
        )

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.analyzer.diff import diff

        result = diff(load_analysis(args.base), load_analysis(args.new))
        if args.format == "json":
            sys.stdout.write(json.dumps(result.to_dict(args.fail_on), indent=2) + "\n")
        else:
            sys.stdout.write(render_text(result, args))
        return EXIT_FINDINGS if result.regressions(args.fail_on) else EXIT_CLEAN


def render_text(result, args: argparse.Namespace) -> str:
    out = [f"tdiag diff {args.base} -> {args.new}", ""]
    width = max(len(name) for name in result.counts)
    for name, delta in result.counts.items():
        sign = f"{delta.change:+.3f}" if name.endswith("_s") else f"{int(delta.change):+d}"
        out.append(f"  {name:<{width}}  {_fmt(delta.base):>8} -> {_fmt(delta.new):<8} ({sign})")
    for title, findings in (("fixed", result.fixed), ("new", result.new), ("unchanged", [n for _, n in result.unchanged])):
        out += ["", f"{title} ({len(findings)}):"]
        out += [f"  {f.path}:{f.line}: {f.code} {f.message}" for f in findings]
    regressions = result.regressions(args.fail_on)
    out.append("")
    out.append("regressions:" if regressions else "no regressions")
    out += [f"  {r}" for r in regressions]
    return "\n".join(out) + "\n"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


COMMAND = DiffCommand()
