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
from tdiag.errors import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE

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

        base, new = load_analysis(args.base), load_analysis(args.new)
        result = diff(base, new)
        if args.format == "json":
            sys.stdout.write(json.dumps(result.to_dict(args.fail_on), indent=2) + "\n")
        else:
            sys.stdout.write(render_text(result, args))
        if _report_incomplete(("base", base), ("new", new)):
            return EXIT_USAGE  # "no regressions" over a capture that missed events would be a silent all-clear
        return EXIT_FINDINGS if result.regressions(args.fail_on) else EXIT_CLEAN


def _report_incomplete(*named) -> bool:
    from tdiag.analyzer.capture_health import lines

    incomplete = False
    for label, analysis in named:
        for line in lines(analysis.run.capture_problems):
            print(f"tdiag diff: error: {label}: {line}", file=sys.stderr)
            incomplete = True
    return incomplete


def render_text(result, args: argparse.Namespace) -> str:
    out = [f"tdiag diff {args.base} -> {args.new}", ""]
    width = max(len(name) for name in result.counts)
    for name, delta in result.counts.items():
        sign = f"{delta.change:+.3f}" if name.endswith("_s") else f"{int(delta.change):+d}"
        out.append(f"  {name:<{width}}  {_fmt(delta.base):>8} -> {_fmt(delta.new):<8} ({sign})")
    from tdiag.reports.cost_format import cost_change_label, cost_label, runtime_delta_lines

    runtime = runtime_delta_lines(result.runtime)
    if runtime:
        out += ["", *runtime]
    for title, findings in (("fixed", result.fixed), ("new", result.new)):
        out += ["", f"{title} ({len(findings)}):"]
        out += [f"  {f.path}:{f.line}: {f.code} {f.message}{_cost_suffix(cost_label(f.cost))}" for f in findings]
    out += ["", f"unchanged ({len(result.unchanged)}):"]
    for b, n in result.unchanged:
        delta = result.cost_delta(b, n)
        out.append(f"  {n.path}:{n.line}: {n.code} {n.message}" + (f"  [cost {cost_change_label(delta)}]" if delta else ""))
    regressions = result.regressions(args.fail_on)
    out.append("")
    out.append("regressions:" if regressions else "no regressions")
    out += [f"  {r}" for r in regressions]
    return "\n".join(out) + "\n"


def _cost_suffix(label: str) -> str:
    return "" if label == "-" else f"  [cost {label}]"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


COMMAND = DiffCommand()
