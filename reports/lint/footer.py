"""The closing lines of the human formats: how many findings, and where to go next."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from tdiag.analyzer import capture_health
from tdiag.analyzer.model import SEVERITIES
from tdiag.analyzer.stopped import first_stopped
from tdiag.reports.lint.diagnostics import plural

if TYPE_CHECKING:
    from tdiag.analyzer.model import Finding, RunInfo
    from tdiag.reports.lint.options import LintOptions


def footer(findings: list[Finding], options: LintOptions, run: RunInfo | None = None,
           stopped: str | None = None, vs_eager: str | None = None) -> str:
    """``run``: its capture or analysis problems come first (capture_health); ``stopped``: torch.compile stopped the
    program (analyzer.crash.headline). No list is an all-clear then. ``vs_eager``: the measured step against eager
    (analyzer.eager_compare.line), the last line either way."""
    incomplete = "".join(line + "\n" for line in (capture_health.incomplete_lines(run) if run is not None else []))
    notice = f"note: {run.torch_notice}\n" if run is not None and run.torch_notice else ""  # an untested torch
    if stopped and first_stopped(findings) is None:
        incomplete += f"{stopped} (not selected: this is not an all-clear)\n"
    eager = f"{vs_eager}\n" if vs_eager else ""
    if not findings:
        return notice + (incomplete or "All checks passed: no findings.\n") + eager
    by_severity = Counter(f.severity for f in findings)
    parts = ", ".join(_count(by_severity[s], s) for s in SEVERITIES if by_severity[s])
    first_code = min(f.code for f in findings)
    record = options.record or "RECORD"
    return notice + incomplete + (
        f"Found {plural(len(findings), 'finding')} ({parts}).\n"
        f"Run `tdiag rule {first_code}` to see why a rule matters and how to fix it, "
        f"or `tdiag tui {record}` to explore each finding in context.\n"
    ) + eager


def _count(n: int, severity: str) -> str:
    return f"{n} info" if severity == "info" else plural(n, severity)
