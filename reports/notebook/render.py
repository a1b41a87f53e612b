"""Lay an Analysis out for a notebook cell's output: HTML (jinja2, autoescaped) and plain text."""

from __future__ import annotations

import functools
import re
from importlib import resources

import jinja2
from tdiag.analyzer import capture_health
from tdiag.analyzer.eager_compare import line as eager_line
from tdiag.analyzer.model import Analysis, Finding
from tdiag.reports.cost_format import runtime_line
from tdiag.reports.html.source import SourceLine, excerpt
from tdiag.reports.view import FindingView, finding_view

from tdiag.lean_dataclass import lean_dataclass

_PACKAGE = "tdiag.reports.notebook"
# Shown open at first; the rest are one line each until expanded (a cell's output stays short).
OPEN_FINDINGS = 0
SEVERITY_COLOR = {"error": "#c62828", "warning": "#b26a00", "info": "#1565c0"}


@lean_dataclass
class NotebookFinding:
    view: FindingView
    source: list[SourceLine]  # the finding's line with one line of context, from the record's snapshot
    color: str

    @property
    def target(self) -> SourceLine | None:
        return next((line for line in self.source if line.target), None)


@lean_dataclass
class NotebookView:
    title: str
    headline: list[tuple[str, int]]
    compile_time_s: float
    problems: list[str]
    runtime: str
    findings: list[NotebookFinding]
    verdict: str  # shown only when there are no findings
    notes: list[str]
    record: str
    expanded: bool
    vs_eager: str = ""  # the measured step against eager (analyzer.eager_compare.line)
    vs_eager_slower: bool = False


def build_view(analysis: Analysis, *, title: str = "", record: str | None = None, expanded: bool = False) -> NotebookView:
    s = analysis.summary
    verdict = "" if analysis.findings else capture_health.empty_verdict(analysis)[1]
    return NotebookView(
        title=title,
        headline=[("graphs", s.graphs), ("graph breaks", s.graph_breaks), ("recompilations", s.recompiles),
                  ("eager fallbacks", s.eager_fallbacks)],
        compile_time_s=s.compile_time_s,
        problems=capture_health.incomplete_lines(analysis.run),
        runtime=runtime_line(s.runtime) or "",
        findings=[_finding(f, analysis) for f in analysis.findings],
        verdict=verdict,
        notes=[*([analysis.run.torch_notice] if analysis.run.torch_notice else []), *analysis.run.notes],
        record=str(record or ""),
        expanded=expanded,
        vs_eager=eager_line(analysis) or "",
        vs_eager_slower=bool(s.vs_eager and s.vs_eager.verdict == "slower"),
    )


def _finding(f: Finding, analysis: Analysis) -> NotebookFinding:
    text = analysis.sources.get(f.path)
    source = excerpt(text.splitlines(), f.line, f.column, f.end_column) if text else []
    return NotebookFinding(finding_view(f, analysis.sources), source, SEVERITY_COLOR.get(f.severity, "#444"))


def to_html(analysis: Analysis, *, title: str = "", record: str | None = None, expanded: bool = False) -> str:
    """``expanded``: every finding's details open (``%tdiag report``); a cell's output keeps them closed."""
    view = build_view(analysis, title=title, record=record, expanded=expanded)
    return _environment().get_template("analysis.html.j2").render(view=view)


def to_text(analysis: Analysis, *, title: str = "", record: str | None = None, width: int = 100) -> str:
    """The end-of-run summary as a CI log shows it (``reports/console.py``), for text/plain outputs."""
    from pathlib import Path

    from tdiag.reports.console import plain_lines, summary_lines

    lines = plain_lines(summary_lines(analysis, Path(record) if record else None, width), width)
    return "\n".join(([f"tdiag: {title}"] if title else []) + lines).strip("\n")


@functools.cache
def _environment() -> jinja2.Environment:
    def load(name: str) -> str:
        return resources.files(_PACKAGE).joinpath("templates", name).read_text(encoding="utf-8")

    env = jinja2.Environment(loader=jinja2.FunctionLoader(load), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["slug"] = lambda text: re.sub(r"[^A-Za-z0-9_.-]+", "-", text)  # "In [3]" is no fragment id
    from tdiag.analyzer.fix_status import label

    env.globals["fix_label"] = label
    return env
