"""The template context: everything the page shows, derived from one Analysis and nothing else."""

from __future__ import annotations

from collections import Counter
from dataclasses import field
from typing import Any

from tdiag.analyzer import capture_health
from tdiag.analyzer.crash import headline as crash_headline
from tdiag.analyzer.model import (
    SEVERITIES,
    SEVERITY_RANK,
    Analysis,
    CompiledGraph,
    Finding,
    FrameInfo,
    Kernel,
    Recompile,
)
from tdiag.analyzer.rank_view import RankView, rank_view
from tdiag.analyzer.stopped import first_stopped

from tdiag.lean_dataclass import lean_dataclass

from ..cost_heat import line_heat
from ..view import FindingView as SharedFindingView
from ..view import ModuleTimeRow, StackLine, finding_view, module_time_rows
from .charts import build_charts, rank_heatmap_chart
from .escape import json_for_script, safe_url
from .finding_data import finding_rows
from .graph_data import graph_rows
from .source import SourceFile, SourceLine, annotate, excerpt
from .strings import StringTable

# Findings fully server-rendered, in impact order: readable with JavaScript off, and searchable by the browser's
# find. The rest are built by the page script from the embedded data (issue 6: <= 1 MB beyond plotly.js for 1k).
FULL_FINDINGS = 100


@lean_dataclass
class FindingView:
    """The shared view-model of a finding (``reports.view.FindingView``, every renderer's) plus what only the page
    has: its place, anchor, source excerpt and links. Everything else is read from ``shared``."""

    shared: SharedFindingView
    rank: int
    anchor: str
    excerpt: list[SourceLine]
    source_link: str | None  # fragment of the line in the annotated source view
    graph_links: list[tuple[str, str | None]]  # (compile id label, dom id of that graph in the Graphs section)
    same_as: tuple[str, int] | None = None  # (anchor, rank) of an earlier finding with the same explanation and hints

    def __getattr__(self, name: str) -> Any:  # reason, explanation, hints, guard, facts, library_label, cost...
        if name == "shared":
            raise AttributeError(name)
        return getattr(self.shared, name)

    @property
    def f(self) -> Finding:
        return self.shared.finding

    @property
    def user_stack(self) -> list[StackLine]:
        return self.shared.stack

    @property
    def per_rank(self) -> list[tuple[str, int]]:
        return self.shared.ranks

    @property
    def gb_url(self) -> str | None:
        return safe_url(self.f.gb_url)

    @property
    def ranks(self) -> str:
        """"0 1 3": the ranks where it occurred, for the rank selector."""
        return " ".join(str(r) for r, n in self.f.ranks.items() if n)


@lean_dataclass
class KernelGroup:
    graph: str  # forward, backward, inference
    kernels: list[Kernel]


@lean_dataclass
class GraphView:
    g: CompiledGraph
    dom_id: str
    kernel_groups: list[KernelGroup]
    code_refs: list[tuple[str, str]]  # (label, hash) of generated code present in Analysis.code


@lean_dataclass
class Card:
    label: str
    value: str
    detail: str = ""
    link: str = ""


@lean_dataclass
class Page:
    analysis: Analysis
    title: str
    cards: list[Card]
    run_rows: list[tuple[str, str]]
    findings: list[FindingView]
    full_findings: list[FindingView]  # server-rendered; findings[len(full_findings):] are in data_json
    families: list[tuple[str, int]]
    severities: list[tuple[str, int]]
    charts: list[Any]
    charts_json: str
    sources: list[SourceFile]
    graphs: list[GraphView]
    recompiles: list[tuple[FrameInfo, list[Recompile]]]
    ranks: list[str]
    divergence: list[FindingView]
    code_json: str
    data_json: str  # {"strings", "findings", "graphs"}: what the page script builds on demand
    capture_lines: list[str] = field(default_factory=list)  # non-empty: the capture was incomplete (banner)
    torch_notice: str | None = None  # a torch outside the tested matrix (tdiag.torch_releases)
    vs_eager: Any = None  # the measured step against eager (Summary.vs_eager), or None
    module_rows: list[ModuleTimeRow] = field(default_factory=list)  # kernel time per module (shared view-model)
    line_rows: list[ModuleTimeRow] = field(default_factory=list)  # ... per user line that built the modules
    empty_verdict: tuple[str, str] = ("clear", "")  # (tone, sentence) shown when there are no findings
    crash_line: str | None = None  # torch.compile stopped the program: the banner above everything
    crash_anchor: str | None = None  # the CRS finding's anchor, when it is listed
    rank_view: RankView | None = None  # multi-rank: the per-rank heat map's rows and outlier ranks
    rank_chart: Any = None


def build_page(analysis: Analysis) -> Page:
    slugs = {path: f"src-{i}" for i, path in enumerate(sorted(analysis.sources), start=1)}
    lines = {path: text.splitlines() for path, text in analysis.sources.items()}
    findings = _findings(analysis, slugs, lines)
    graphs = [_graph_view(analysis, g, i) for i, g in enumerate(analysis.graphs)]
    charts = build_charts(analysis)
    ranks_view = rank_view(analysis)
    rank_chart = rank_heatmap_chart(ranks_view)
    ranks = [str(r) for r in analysis.run.ranks] if len(analysis.run.ranks) > 1 else []
    code = _code_map(analysis, graphs)
    return Page(
        analysis=analysis,
        title=_title(analysis),
        cards=_cards(analysis),
        run_rows=_run_rows(analysis),
        findings=findings,
        full_findings=findings[:FULL_FINDINGS],
        families=sorted(Counter(v.f.family for v in findings).items()),
        severities=sorted(Counter(v.f.severity for v in findings).items(), key=lambda kv: SEVERITY_RANK.get(kv[0], 99)),
        charts=charts,
        charts_json=json_for_script({c.id: c.figure for c in [*charts, *([rank_chart] if rank_chart else [])]}),
        sources=_sources(analysis, slugs, findings),
        graphs=graphs,
        recompiles=_recompiles(analysis),
        ranks=ranks,
        divergence=sorted((v for v in findings if v.f.ranks), key=lambda v: v.f.family != "DIV") if ranks else [],
        code_json=json_for_script(code),
        data_json=json_for_script(_data(findings[FULL_FINDINGS:], graphs, code)),
        capture_lines=capture_health.incomplete_lines(analysis.run),
        torch_notice=analysis.run.torch_notice,
        vs_eager=analysis.summary.vs_eager if analysis.summary.vs_eager and analysis.summary.vs_eager.line else None,
        empty_verdict=capture_health.empty_verdict(analysis),
        module_rows=module_time_rows(analysis),
        line_rows=module_time_rows(analysis, by="line"),
        crash_line=crash_headline(analysis),
        crash_anchor=stopped.anchor if (stopped := first_stopped(analysis.findings)) is not None else None,
        rank_view=ranks_view,
        rank_chart=rank_chart,
    )


def _data(lazy: list[FindingView], graphs: list[GraphView], code: dict[str, str]) -> dict[str, Any]:
    strings = StringTable()
    findings = finding_rows(lazy, strings)
    graph_data = graph_rows(graphs, code, strings)
    return {"strings": strings.values, "findings": findings, "graphs": graph_data}


def _title(analysis: Analysis) -> str:
    command = analysis.run.command or " ".join(analysis.run.argv)
    return f"tdiag report: {command}" if command else "tdiag report"


def _cards(analysis: Analysis) -> list[Card]:
    s = analysis.summary
    by_severity = Counter(f.severity for f in analysis.findings)
    kernels = " · ".join(f"{kind} {n}" for kind, n in sorted(s.kernels_by_kind.items(), key=lambda kv: -kv[1]))
    return [
        Card("Graphs", str(s.graphs), f"{s.frames_compiled} frames compiled", "#graphs"),
        Card("Graph breaks", str(s.graph_breaks), f"at {s.break_sites} sites", "#findings"),
        Card("Recompiles", str(s.recompiles), "", "#recompiles"),
        Card("Eager fallbacks", str(s.eager_fallbacks), "frames or ops that ran without compiled code"),
        Card("Kernels", str(sum(s.kernels_by_kind.values())), kernels, "#chart-kernels"),
        Card("Compile time", f"{s.compile_time_s:.2f} s", "", "#chart-compile-time"),
        Card(
            "Findings",
            str(len(analysis.findings)),
            " · ".join(f"{n} {sev}" for sev in SEVERITIES if (n := by_severity.get(sev))),
            "#findings",
        ),
    ]


def _run_rows(analysis: Analysis) -> list[tuple[str, str]]:
    run = analysis.run
    rows = [
        ("Command", run.command or " ".join(run.argv)),
        ("Source", run.source),
        ("torch", run.torch_version or ""),
        ("Python", run.python_version or ""),
        ("Device", run.device or ""),
        ("Platform", run.platform or ""),
        ("tdiag", run.tdiag_version or ""),
    ]
    if run.exit_code is not None or run.exit_reason:
        rows.append(("Exit", f"{run.exit_code if run.exit_code is not None else '?'} ({run.exit_reason or 'exit'})"))
    if run.duration_s is not None:
        rows.append(("Duration", f"{run.duration_s:.2f} s"))
    if not run.complete:
        rows.append(("Record", "incomplete: the run ended before the record was closed"))
    if run.ranks:
        rows.append(("Ranks", " ".join(map(str, run.ranks))))
    if run.incomplete_ranks:
        rows.append(("Incomplete ranks", " ".join(map(str, run.incomplete_ranks))))
    return [(k, v) for k, v in rows if v]


def _findings(analysis: Analysis, slugs: dict[str, str], lines: dict[str, list[str]]) -> list[FindingView]:
    seen: Counter[str] = Counter()
    # torch's explanation and hints are per break type: with hundreds of findings, repeating them would make the
    # page mostly boilerplate, so later findings link to the first one that shows them
    explained: dict[tuple[str, tuple[str, ...]], tuple[str, int]] = {}
    graph_dom = {g.key: _graph_dom_id(i) for i, g in enumerate(analysis.graphs)}
    views = []
    for rank, f in enumerate(analysis.findings, start=1):
        # two files with one basename can give one anchor; later ones get a suffix so every permalink is unique
        anchor = f.anchor
        seen[anchor] += 1
        if seen[anchor] > 1:
            anchor = f"{anchor}-{seen[anchor]}"
        shared = finding_view(f, analysis.sources)
        src = lines.get(f.path)
        views.append(
            FindingView(
                shared=shared,
                rank=rank,
                anchor=anchor,
                excerpt=excerpt(src, f.line, f.column, f.end_column) if src else [],
                source_link=f"{slugs[f.path]}-L{f.line}" if f.path in slugs else None,
                graph_links=[(label, graph_dom.get(key)) for label, key in zip(shared.graphs, shared.graph_keys)],
            )
        )
        view = views[-1]
        key = (view.explanation, tuple(view.hints))
        if any(key):
            if key in explained:
                view.same_as = explained[key]
            else:
                explained[key] = (anchor, rank)
    return views


def _sources(analysis: Analysis, slugs: dict[str, str], findings: list[FindingView]) -> list[SourceFile]:
    marks: dict[str, dict[int, list[tuple[str, str, str]]]] = {path: {} for path in slugs}
    for v in findings:
        if v.f.path in marks:
            marks[v.f.path].setdefault(v.f.line, []).append((v.anchor, v.f.code, v.f.severity))
    heat = line_heat(analysis)
    files = [annotate(path, slugs[path], analysis.sources[path], marks[path], heat.get(path)) for path in slugs]
    # files with findings first: that is where the user has work to do
    return sorted(files, key=lambda sf: (sf.finding_count == 0, sf.path))


def _graph_dom_id(index: int) -> str:
    return f"graph-{index}"


def _graph_view(analysis: Analysis, graph: CompiledGraph, index: int) -> GraphView:
    groups: dict[str, list[Kernel]] = {}
    for kernel in graph.kernels:
        groups.setdefault(kernel.graph, []).append(kernel)
    refs = []
    if graph.graph_code_ref in analysis.code:
        refs.append(("Dynamo FX graph", graph.graph_code_ref))
    refs.extend(
        (f"{name} output code", ref) for name, ref in graph.output_code_refs.items() if ref in analysis.code
    )
    return GraphView(
        g=graph,
        dom_id=_graph_dom_id(index),
        kernel_groups=[KernelGroup(name, kernels) for name, kernels in groups.items()],
        code_refs=refs,
    )


def _code_map(analysis: Analysis, graphs: list[GraphView]) -> dict[str, str]:
    """Generated code the page can show, each text once however many kernels point at it."""
    wanted: dict[str, str] = {}
    for view in graphs:
        for _, ref in view.code_refs:
            wanted[ref] = analysis.code[ref]
        for kernel in view.g.kernels:
            if kernel.code_ref in analysis.code:
                wanted[kernel.code_ref] = analysis.code[kernel.code_ref]
    return wanted


def _recompiles(analysis: Analysis) -> list[tuple[FrameInfo, list[Recompile]]]:
    # frame ids, like compile ids, repeat across ranks: group by both
    frames = {(fr.rank, fr.frame_id): fr for fr in analysis.frames}
    grouped: dict[tuple[int | None, int], list[Recompile]] = {}
    for rec in analysis.recompiles:
        grouped.setdefault((rec.rank, rec.frame_id), []).append(rec)
    out = []
    for (rank, frame_id), recs in grouped.items():
        first = recs[0]
        frame = frames.get((rank, frame_id)) or FrameInfo(
            frame_id, first.code_name, first.path, first.line, recompiles=len(recs), rank=rank
        )
        out.append((frame, recs))
    # frames stuck at the recompile limit first, then the most recompiled
    return sorted(out, key=lambda fr_recs: (not fr_recs[0].hit_recompile_limit, -len(fr_recs[1]), fr_recs[0].frame_id))
