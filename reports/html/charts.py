"""The report's plotly figures, built in Python and handed to the page as JSON (``Plotly.newPlot`` draws them).

Each builder returns a ``Chart`` or ``None`` when the run has nothing to plot, so the page never shows an empty axis.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import plotly.graph_objects as go
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis, CompiledGraph, GraphKey
from tdiag.analyzer.rank_view import RankView
from tdiag.reports.cost_format import PART_COLORS, rank_runtimes, runtime_parts

from tdiag.lean_dataclass import lean_dataclass

from .escape import plotly_text as esc

# template "none" keeps each figure's JSON small; plotly's default template adds ~7 kB per chart
_LAYOUT = dict(
    template="none",
    margin=dict(l=10, r=10, t=10, b=40),
    font=dict(family="system-ui, sans-serif", size=12),
    legend=dict(orientation="h", y=-0.2),
    hoverlabel=dict(namelength=-1),
)
_HOVER_LIMIT = 3  # guard failures listed in a recompile's hover text
_STATUS_COLORS = {"ok": "#3b7dd8", "failed": "#c62828", "skipped": "#f9a825", "empty": "#9e9e9e"}
# Beyond this many frames the timeline is one trace (frames separated by gaps): plotly lays out hundreds of traces
# slowly, one trace of thousands of points quickly.
TIMELINE_TRACE_LIMIT = 40


@lean_dataclass
class Chart:
    id: str
    title: str
    caption: str
    figure: dict[str, Any]


def build_charts(analysis: Analysis) -> list[Chart]:
    builders = (runtime_chart, compile_time_chart, compile_cache_chart, recompile_timeline_chart, kernel_kind_chart,
                graph_size_chart)
    return [chart for chart in (build(analysis) for build in builders) if chart is not None]


def _figure(traces: list[go.BaseTraceType | dict[str, Any]], **layout: Any) -> dict[str, Any]:
    """Figure JSON; plain-dict traces go to plotly.js as they are (only the layout is validated here)."""
    plain = [t for t in traces if isinstance(t, dict)]
    fig = go.Figure(data=[t for t in traces if not isinstance(t, dict)], layout={**_LAYOUT, **layout})
    out = fig.to_plotly_json()
    out["data"] = out["data"] + plain
    return out


def _frame_label(graph: CompiledGraph) -> str:
    rank = "" if graph.rank is None else f" rank {graph.rank}"
    return esc(f"{graph.code_name} ({graph.path}:{graph.line}) #{graph.frame_id}{rank}")


def _by_frame(analysis: Analysis) -> dict[tuple[int, int], list[CompiledGraph]]:
    """Graphs per (rank, frame): frame ids, like compile ids, repeat across ranks."""
    frames: dict[tuple[int, int], list[CompiledGraph]] = defaultdict(list)
    for graph in analysis.graphs:
        frames[(-1 if graph.rank is None else graph.rank, graph.frame_id)].append(graph)
    return dict(sorted(frames.items()))


def runtime_chart(analysis: Analysis) -> Chart | None:
    """Where each measured step's time went: one stacked bar per rank (one for a single process), in ms per step."""
    windows = rank_runtimes(analysis.summary.runtime)
    if not windows:
        return None
    labels = [esc(label or "run") for label, _ in windows]
    parts = [dict(runtime_parts(w)) for _, w in windows]  # a part one rank lacks (a recording) is 0 there
    names = list(dict.fromkeys(name for p in parts for name in p))
    traces = []
    for name in names:
        values = [round(p.get(name, 0.0) / w.steps * 1e3, 4) if w.steps else 0.0 for p, (_, w) in zip(parts, windows)]
        traces.append(
            go.Bar(
                name=esc(name),
                y=labels,
                x=values,
                orientation="h",
                marker=dict(color=PART_COLORS.get(name, "#6d4c41")),
                hovertemplate="%{y}<br>" + esc(name) + ": %{x:.3f} ms/step<extra></extra>",
            )
        )
    lead = windows[0][1]
    return Chart(
        "chart-runtime",
        "Time per step (measured)",
        f"{lead.steps} steps measured after compilation settled: compiled graphs, eager code between graphs that "
        "findings explain, other eager code, guard checks and compiles inside the window.",
        _figure(
            traces,
            barmode="stack",
            height=max(200, 110 + 34 * len(labels)),
            legend=dict(orientation="h", y=-0.45, traceorder="normal"),  # below the axis title, in window order
            xaxis=dict(title="ms per step", automargin=True),
            yaxis=dict(automargin=True, autorange="reversed"),
        ),
    )


RANK_CHART_ID = "chart-ranks"


def rank_heatmap_chart(view: RankView | None) -> Chart | None:
    """Per rank (columns) and metric (rows): each row coloured by its own scale (value / the row's largest), the
    value itself in the hover text; outlier ranks are listed beside it."""
    if view is None or not view.metrics:
        return None
    ranks = [str(row.rank) for row in view.rows]
    z, text = [], []
    for metric in view.metrics:
        values = [row.values.get(metric.key) for row in view.rows]
        top = max((v for v in values if v is not None), default=0) or 1
        z.append([None if v is None else round(v / top, 4) for v in values])
        unit = f" {metric.unit}" if metric.unit else ""
        text.append(["not measured" if v is None else f"{v:.4g}{unit}" for v in values])
    hosts = [row.host or "" for row in view.rows]
    trace = go.Heatmap(
        x=ranks, y=[esc(m.label) for m in view.metrics], z=z, text=text, customdata=[hosts] * len(view.metrics),
        colorscale="YlOrRd", zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        hovertemplate="rank %{x} %{customdata}<br>%{y}: %{text}<extra></extra>",
    )
    return Chart(
        RANK_CHART_ID,
        "Per rank",
        "Each row is coloured on its own scale (its largest value darkest); hover a cell for its value.",
        _figure([trace], height=80 + 30 * len(view.metrics), xaxis=dict(title="rank", type="category"),
                yaxis=dict(automargin=True, autorange="reversed")),
    )


def compile_time_chart(analysis: Analysis) -> Chart | None:
    frames = _by_frame(analysis)
    if not any(g.compile_time_s or g.stages for g in analysis.graphs):
        return None
    labels = [_frame_label(graphs[0]) for graphs in frames.values()]
    stage_names: list[str] = []
    for graph in analysis.graphs:
        stage_names.extend(name for name in graph.stages if name not in stage_names)
    per_stage: dict[str, list[float]] = {name: [] for name in [*stage_names, "other"]}
    for graphs in frames.values():
        totals = Counter()
        other = 0.0
        for graph in graphs:
            totals.update(graph.stages)
            # stages may not cover the whole compile (guard building, bytecode transform); keep the rest visible
            other += max(0.0, graph.compile_time_s - sum(graph.stages.values()))
        for name in stage_names:
            per_stage[name].append(round(totals.get(name, 0.0), 4))
        per_stage["other"].append(round(other, 4))
    traces = [
        go.Bar(name=esc(name), y=labels, x=values, orientation="h", hovertemplate="%{y}<br>" + esc(name) + ": %{x:.3f} s")
        for name, values in per_stage.items()
        if any(values)
    ]
    return Chart(
        "chart-compile-time",
        "Compile time by frame and stage",
        "Seconds spent compiling each user function, summed over its compiled variants.",
        _figure(
            traces,
            barmode="stack",
            height=max(220, 40 + 28 * len(labels)),
            xaxis=dict(title="seconds", automargin=True),
            yaxis=dict(automargin=True, autorange="reversed"),
        ),
    )


_CACHE_COLORS = {"hit": "#2e7d32", "miss": "#c62828", "bypass": "#f9a825", "disabled": "#6d4c41"}


def compile_cache_chart(analysis: Analysis) -> Chart | None:
    """Compile seconds per graph split by cache outcome: a miss or bypass is what it took to compile (torch's
    time_taken), a graph that hit shows the rest of its compile time (Dynamo, loading) and saved seconds on hover."""
    from tdiag.reports.cache_text import cache_line

    graphs = [g for g in analysis.graphs if g.cache_outcomes]
    if not graphs:
        return None
    labels = [esc(f"{g.code_name} ({g.compile_id})" + ("" if g.rank is None else f" rank {g.rank}")) for g in graphs]
    values: dict[str, list[float]] = {state: [] for state in _CACHE_COLORS}
    saved: list[float] = []
    for graph in graphs:
        fx = [o for o in graph.cache_outcomes if o.cache == "fx_graph"] or graph.cache_outcomes
        spent = {state: sum(o.seconds or 0.0 for o in fx if o.state == state) for state in ("miss", "bypass")}
        rest = max(0.0, graph.compile_time_s - sum(spent.values()))
        states = {o.state for o in fx}
        for state in _CACHE_COLORS:
            value = spent.get(state, 0.0)
            if state == "hit" and "hit" in states:
                value = rest
            elif state == "disabled" and "disabled" in states:
                value = graph.compile_time_s
            elif state in spent and not value and state in states and not (states & {"hit", "disabled"}):
                value = rest  # a lookup torch gave no time for: the graph's own compile time
            values[state].append(round(value, 4))
        saved.append(round(sum(o.seconds or 0.0 for o in graph.cache_outcomes if o.state == "hit"), 3))
    traces = [
        go.Bar(name=state, y=labels, x=xs, orientation="h", marker=dict(color=_CACHE_COLORS[state]),
               customdata=saved, hovertemplate="%{y}<br>" + state + ": %{x:.3f} s<br>hits saved %{customdata:.3f} s")
        for state, xs in values.items() if any(xs)
    ]
    if not traces:
        return None
    return Chart(
        "chart-compile-cache",
        "Compile seconds per graph by cache outcome",
        esc(cache_line(analysis.summary) or "") + ". A miss or bypass is the seconds torch spent compiling it; a hit "
        "shows what the graph still took (tracing, loading), with the seconds the hit saved on hover.",
        _figure(traces, barmode="stack", height=max(220, 40 + 28 * len(labels)),
                xaxis=dict(title="seconds", automargin=True), yaxis=dict(automargin=True, autorange="reversed")),
    )


def recompile_timeline_chart(analysis: Analysis) -> Chart | None:
    frames = _by_frame(analysis)
    if not frames:
        return None
    starts = [g.start_time for g in analysis.graphs if g.start_time is not None]
    t0 = min(starts) if starts else 0.0
    use_time = len(starts) == len(analysis.graphs)
    order = {g.key: i for i, g in enumerate(analysis.graphs)}
    reasons = {GraphKey(r.rank, r.compile_id): [user_words(f.text) for f in r.failures] for r in analysis.recompiles}
    traces: list[dict[str, Any]] = []
    for graphs in frames.values():
        label = _frame_label(graphs[0])
        xs, texts, symbols = [], [], []
        for graph in graphs:
            xs.append(round(graph.start_time - t0, 4) if use_time else order[graph.key])
            why = reasons.get(graph.key)
            hover = esc(f"{graph.key.label} {graph.code_name}: {graph.status}")
            if why:
                hover += "<br>" + "<br>".join(esc(w) for w in why[:_HOVER_LIMIT]) + ("<br>…" if len(why) > _HOVER_LIMIT else "")
            texts.append(hover)
            symbols.append("x" if why or graph.frame_compile_id > 0 else "circle")
        # a plain trace dict: validating one go.Scatter per frame costs ~1 ms each, most of a large run's render
        traces.append(
            dict(
                type="scatter",
                name=label,
                x=xs,
                y=[label] * len(xs),
                mode="lines+markers",
                marker=dict(symbol=symbols, size=10),
                text=texts,
                hovertemplate="%{text}<extra></extra>",
            )
        )
    if len(traces) > TIMELINE_TRACE_LIMIT:
        traces = [_one_trace(traces)]
    return Chart(
        "chart-recompiles",
        "Recompilation timeline",
        "Each marker is one compile of a frame; crosses are recompiles (hover for the failed guards).",
        _figure(
            traces,
            height=max(220, 60 + 30 * len(frames)),
            showlegend=False,
            xaxis=dict(title="seconds since first compile" if use_time else "compile order", automargin=True),
            yaxis=dict(automargin=True, autorange="reversed"),
        ),
    )


def _one_trace(traces: list[dict[str, Any]]) -> dict[str, Any]:
    """The frames' traces as one, a gap (None) between frames so no line joins two of them."""
    merged: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "symbol": []}
    for trace in traces:
        if merged["x"]:
            for values in merged.values():
                values.append(None)
        merged["x"] += trace["x"]
        merged["y"] += trace["y"]
        merged["text"] += trace["text"]
        merged["symbol"] += trace["marker"]["symbol"]
    return dict(
        type="scatter",
        name="compiles",
        x=merged["x"],
        y=merged["y"],
        mode="lines+markers",
        marker=dict(symbol=merged["symbol"], size=10),
        text=merged["text"],
        hovertemplate="%{text}<extra></extra>",
    )


def kernel_kind_chart(analysis: Analysis) -> Chart | None:
    counts: Counter[tuple[str, str]] = Counter(
        (kernel.kind, kernel.backend) for graph in analysis.graphs for kernel in graph.kernels
    )
    if not counts:
        # a record without per-kernel detail may still carry the totals
        counts = Counter({(kind, "all"): n for kind, n in analysis.summary.kernels_by_kind.items()})
    if not counts:
        return None
    kinds = sorted({kind for kind, _ in counts})
    backends = sorted({backend for _, backend in counts})
    traces = [
        go.Bar(name=esc(backend), x=[esc(k) for k in kinds], y=[counts.get((kind, backend), 0) for kind in kinds])
        for backend in backends
    ]
    return Chart(
        "chart-kernels",
        "Kernels by lowering kind",
        "How Inductor lowered the graphs; fallback and extern kernels run outside generated code.",
        _figure(
            traces,
            barmode="stack",
            height=300,
            xaxis=dict(automargin=True),
            yaxis=dict(title="kernels", automargin=True),  # room for the widest count, not only its last digit
        ),
    )


def graph_size_chart(analysis: Analysis) -> Chart | None:
    if not analysis.graphs:
        return None
    by_status: dict[str, list[CompiledGraph]] = defaultdict(list)
    for graph in analysis.graphs:
        by_status[graph.status].append(graph)
    ids = [esc(g.key.label) for g in analysis.graphs]  # one category per graph: ranks repeat compile ids
    traces = [
        go.Bar(
            name=esc(status),
            x=[esc(g.key.label) for g in graphs],
            y=[g.op_count for g in graphs],
            marker=dict(color=_STATUS_COLORS.get(status, "#6d4c41")),
            text=[esc(f"{g.code_name} ({g.path}:{g.line})") for g in graphs],
            hovertemplate="%{x}: %{y} ops<br>%{text}<extra></extra>",
            textposition="none",
        )
        for status, graphs in sorted(by_status.items())
    ]
    return Chart(
        "chart-graph-sizes",
        "Graph sizes",
        "Ops per compiled graph, in compile order: many small graphs mean graph breaks are shredding the model.",
        _figure(
            traces,
            height=300,
            xaxis=dict(title="compile id", type="category", categoryorder="array", categoryarray=ids, automargin=True),
            yaxis=dict(title="ops", automargin=True),
        ),
    )
