"""Compile ids repeat across ranks: every graph lookup goes by GraphKey(rank, compile_id), so the TUI opens the
graph of the rank that was asked for and the HTML charts keep the ranks' graphs apart.

The analysis has two ranks that both compiled ``0/0``, with different content (rank 0: 5 ops and 4 kernels,
rank 1: 1 op and none); a lookup by compile id alone would give rank 0's graph both times.
"""

from __future__ import annotations

import asyncio
import json
import re

from fixtures.analysis_factory import PLOTLY_STUB, two_ranks_one_compile_id
from tdiag.analyzer.compile_spans import spans_by_graph
from tdiag.analyzer.events import EventLog, TorchEvent
from tdiag.analyzer.model import Analysis, GraphKey, GuardFailure, Recompile
from tdiag.reports.html.charts import compile_time_chart, graph_size_chart, recompile_timeline_chart
from tdiag.reports.html.page import build_page
from tdiag.reports.html.render import render
from tdiag.tui import make_app
from tdiag.tui.messages import ShowGraph
from tdiag.tui.screens.graph_detail import GraphDetailScreen


def _rank(analysis: Analysis, rank: int):
    return next(g for g in analysis.graphs if g.rank == rank)


def test_lookup_names_the_rank():
    analysis = two_ranks_one_compile_id()
    assert analysis.graph(GraphKey(1, "0/0")) is _rank(analysis, 1)
    assert analysis.graph(GraphKey(0, "0/0")) is _rank(analysis, 0)
    assert analysis.graph(GraphKey(None, "0/0")) is None  # a single-process key is not any rank's graph


def test_analysis_json_round_trip_keeps_graph_keys():
    analysis = two_ranks_one_compile_id()
    back = Analysis.from_dict(analysis.to_dict())
    assert back.findings[0].graph_keys == [GraphKey(1, "0/0")]
    assert back.graph(back.findings[0].graph_keys[0]).code_name == "forward_rank1"


def test_tui_opens_the_graph_of_the_rank_asked_for():
    analysis = two_ranks_one_compile_id()

    async def scenario():
        app = make_app(analysis)
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.press("4")  # Graphs: one row per (rank, graph), in analysis order
            await pilot.press("down", "enter")
            await pilot.pause()
            opened_from_table = app.screen.graph if isinstance(app.screen, GraphDetailScreen) else None
            await pilot.press("escape")
            app.post_message(ShowGraph(GraphKey(1, "0/0")))
            await pilot.pause()
            opened_by_key = app.screen.graph if isinstance(app.screen, GraphDetailScreen) else None
            await pilot.press("escape", "3")  # Recompiles: one frame per rank; Enter opens its last variant
            table = app.screen.query_one("#frames-table")
            row = next(i for i, f in enumerate(app.screen.frames) if f.rank == 1)
            table.cursor_row = row
            await pilot.press("enter")
            await pilot.pause()
            opened_from_frame = app.screen.graph if isinstance(app.screen, GraphDetailScreen) else None
        return opened_from_table, opened_by_key, opened_from_frame

    rank1 = _rank(analysis, 1)
    assert asyncio.run(scenario()) == (rank1, rank1, rank1)


def test_html_graph_size_chart_has_one_bar_per_rank():
    analysis = two_ranks_one_compile_id()
    (trace,) = graph_size_chart(analysis).figure["data"]  # both graphs compiled fine: one status trace
    bars = dict(zip(trace["x"], trace["y"]))
    assert len(bars) == 2, trace["x"]  # one category per graph, not one "0/0" holding both
    assert sorted(bars.values()) == sorted(g.op_count for g in analysis.graphs)
    assert all(label.startswith("0/0") for label in bars)


def test_html_compile_time_and_timeline_keep_ranks_apart():
    analysis = two_ranks_one_compile_id()
    stages = compile_time_chart(analysis).figure["data"]
    frames = {y for trace in stages for y in trace["y"]}
    assert len(frames) == 2  # frame 0 of rank 0 and frame 0 of rank 1
    dynamo = next(t for t in stages if t["name"] == "dynamo")
    assert sorted(dynamo["x"]) == sorted(g.stages["dynamo"] for g in analysis.graphs)
    timeline = recompile_timeline_chart(analysis).figure["data"]
    assert len(timeline) == 2 and all(len(t["x"]) == 1 for t in timeline)


def test_html_graphs_and_recompiles_sections_keep_ranks_apart():
    analysis = two_ranks_one_compile_id()
    # both ranks recompiled their frame 0 as 0/1, for different reasons
    for rank, (expected, actual) in ((0, ("4", "8")), (1, ("8", "16"))):
        text = f"tensor 'x' size mismatch at index 0. expected {expected}, actual {actual}"
        analysis.recompiles.append(Recompile("0/1", 0, "forward", "train.py", 11, rank=rank,
                                             failures=[GuardFailure("0/0", text, "size", expected=expected,
                                                                    actual=actual)]))
    page = build_page(analysis)
    assert [(fr.rank, [r.failures[0].actual for r in recs]) for fr, recs in page.recompiles] in (
        [(0, ["8"]), (1, ["16"])], [(1, ["16"]), (0, ["8"])])
    html = render(analysis, plotly_bundle=PLOTLY_STUB)
    recompiles = html[html.index('<section id="recompiles">'):]
    recompiles = recompiles[: recompiles.index("</section>")]
    assert recompiles.count('<div class="frame">') == 2
    assert "on rank 0" in recompiles and "on rank 1" in recompiles
    labels = re.findall(r'<details class="graph"[^>]*>\s*<summary><code>([^<]*)</code>', html)
    assert labels == [g.key.label for g in analysis.graphs] and len(set(labels)) == 2


def test_tui_finding_opens_its_own_ranks_graph():
    analysis = two_ranks_one_compile_id()  # the one finding happened on rank 1 only

    async def scenario():
        app = make_app(analysis)
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.press("2", "g")
            await pilot.pause()
            return app.screen.graph if isinstance(app.screen, GraphDetailScreen) else app.screen

    assert asyncio.run(scenario()) is _rank(analysis, 1)


def test_compile_spans_pair_within_a_rank():
    """Both ranks compile 0/0 at the same moment; each rank's kernel-compile wait belongs to its own graph."""
    log = EventLog()

    def span(rank, name, phase, ts, **args):
        payload = json.dumps({"name": name, "ph": phase, "ts": ts, "args": args})
        log.torch.append(TorchEvent("chromium_event", {"frame_id": 0, "frame_compile_id": 0}, None, payload, None,
                                    log.blobs, rank))

    for rank, (wait_start, wait_end) in ((0, (10, 20)), (1, (30, 90))):
        span(rank, "inductor_compile", "B", 0)
        span(rank, "async_compile.wait", "B", wait_start)
        span(rank, "async_compile.wait", "E", wait_end)
        span(rank, "inductor_compile", "E", 100, compile_id="0/0", cache_state="miss")
    spans = spans_by_graph(log)
    assert {key: [s.kernel_compile_s for s in found] for key, found in spans.items()} == {
        GraphKey(0, "0/0"): [10e-6], GraphKey(1, "0/0"): [60e-6]}
