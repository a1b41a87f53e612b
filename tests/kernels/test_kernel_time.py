"""Kernel time that adds up (issue 23): the per-launch join of device time to the graph call that launched it, and the
per-module time table in the console, the HTML report (sorted in a real browser) and the TUI.

The join is checked on hand-written launch tables (the capture's own ``graph_calls`` format: no CUDA here); the
renderers on the real MLP record's kernel table and FX graph keys, with launch times written by hand."""

from __future__ import annotations

import io

import pytest
from kernels_testing import MLP, line_of
from tdiag.analyzer import kernel_time
from tdiag.analyzer.model import Analysis, CompiledGraph, GraphRuntime, Kernel

US = 1e-6


def graph(cid: str, calls: int, kernels: list[Kernel], keys: dict[str, str]) -> CompiledGraph:
    g = CompiledGraph(compile_id=cid, frame_id=int(cid[0]), frame_compile_id=int(cid[-1]), code_name="forward",
                      path="m.py", line=1)
    g.kernels, g.fx_keys = kernels, keys
    g.runtime = GraphRuntime(calls=calls) if calls else None
    return g


def test_join_per_launch_only_graphs_that_ran_extern_launches_to_their_aten_op():
    warm = graph("1/0", 0, [Kernel("triton_poi_fused_add_0", "pointwise", "triton")], {"forward": "fwarm"})
    ran = graph("1/1", 20, [
        Kernel("triton_poi_fused_add_0", "pointwise", "triton"),
        Kernel("extern_kernels.mm", "extern", "cublas"), Kernel("extern_kernels.mm", "extern", "cublas"),
        Kernel("triton_poi_fused_add_0", "pointwise", "triton"),  # one kernel launched from two call sites
        Kernel("extern_kernels.mm", "extern", "cublas", graph="backward"),
        Kernel("triton_red_fused_sum_1", "reduction", "triton", graph="backward"),
    ], {"forward": "fran", "backward": "fran_bwd"})
    analysis = Analysis(graphs=[warm, ran])
    kernel_time.attach(analysis, {
        "fran": {"triton_poi_fused_add_0": [40, 400], "aten::mm": [40, 2000], "aten::copy_": [20, 100]},
        "fran_bwd": {"aten::mm": [20, 1500], "triton_red_fused_sum_1": [20, 300]},
    }, None)
    assert warm.kernels[0].device_s is None  # compiled, never ran in the window: no time, though the name matches
    fwd = [k.device_s for k in ran.kernels if k.graph == "forward"]
    assert fwd == pytest.approx([200 * US, 1000 * US, 1000 * US, 200 * US])
    assert [k.device_s for k in ran.kernels if k.graph == "backward"] == pytest.approx([1500 * US, 300 * US])
    # what the graph's calls launched = per-kernel sum + what no call site claims (an eager copy_ here)
    assert ran.runtime.kernel_device_s == pytest.approx({"forward": 2500 * US, "backward": 1800 * US})
    assert ran.runtime.unattributed_device_s == pytest.approx({"forward": 100 * US})
    assert sum(fwd) + ran.runtime.unattributed_device_s["forward"] == pytest.approx(ran.runtime.kernel_device_s["forward"])


def test_fallback_launch_belongs_to_its_call_site():
    g = graph("0/0", 5, [Kernel("torch.ops.aten._scaled_dot_product_efficient_attention.default", "fallback", "aten")],
              {"forward": "f0"})
    kernel_time.attach(Analysis(graphs=[g]), {"f0": {"aten::_scaled_dot_product_efficient_attention": [5, 50]}}, None)
    assert g.kernels[0].device_s == pytest.approx(50 * US)


def test_cpu_run_extern_call_time_joined_per_call_adds_up_to_the_graph_op_time(mlp):
    # CPU: C++ kernels have no profiler event; extern calls (the GEMMs) are timed by the aten op each call ran, per
    # graph call, and the forward's per-kernel sum matches the region-measured op time of the graph
    (g,) = mlp.graphs
    assert g.runtime is not None and g.runtime.calls == 4
    externs = [k for k in g.kernels if k.kind == "extern"]
    assert externs and all(k.device_s and k.device_s > 0 for k in externs)
    forward = sum(k.device_s or 0.0 for k in g.kernels if k.graph == "forward")
    assert forward == pytest.approx(g.runtime.device_s, rel=0.10)
    assert g.runtime.kernel_device_s["backward"] == pytest.approx(
        sum(k.device_s or 0.0 for k in g.kernels if k.graph == "backward"), rel=0.10)


# -- renderers, on the real MLP record (the ``timed`` fixture, tests/kernels/conftest.py) ---------------------
def test_module_rows_forward_and_backward_apart_with_the_lines_that_built_them(timed):
    from tdiag.reports.view import module_time_rows

    rows = module_time_rows(timed)
    top = rows[0]
    assert (top.role, top.module, top.built_at) == ("backward", "3 (Linear)", f"mlp_train.py:{line_of(MLP, '# FC2 LINE')}")
    assert {r.role for r in rows} == {"forward", "backward"}
    assert sum(r.seconds for r in rows) == pytest.approx(sum(k.device_s or 0 for g in timed.graphs for k in g.kernels))
    gelu = next(r for r in rows if r.module == "1 (GELU)" and r.role == "forward")
    assert gelu.seconds == pytest.approx(200 * US)  # the fused GELU+LayerNorm kernel's 400 us split between the two
    lines = module_time_rows(timed, by="line")
    assert {r.built_at for r in lines} == {f"mlp_train.py:{line_of(MLP, m)}" for m in
                                           ("# FC1 LINE", "# GELU LINE", "# NORM LINE", "# FC2 LINE")}


def test_console_names_the_top_modules(timed):
    from tdiag.reports.console import print_summary

    out = io.StringIO()
    print_summary(timed, None, out, width=200, force_terminal=False)
    line = next(x for x in out.getvalue().splitlines() if x.startswith("top modules"))
    assert line.startswith("top modules (kernel time): 3 (Linear) bwd")


@pytest.mark.browser
def test_html_table_sorts_in_the_browser(timed, browser, tmp_path):
    from fixtures.analysis_factory import PLOTLY_STUB
    from tdiag.reports.html.render import render

    page_file = tmp_path / "report.html"
    page_file.write_text(render(timed, plotly_bundle=PLOTLY_STUB))
    page = browser.new_page()
    page.goto(page_file.as_uri())
    table = page.locator("#modules table.sortable").first
    modules = lambda: table.locator("tbody tr td:nth-child(2)").all_inner_texts()  # noqa: E731
    assert modules()[0] == "3 (Linear)"  # largest first, as rendered
    table.locator("th", has_text="Time (ms)").click()  # numbers: largest first
    assert modules()[0] == "3 (Linear)"
    table.locator("th", has_text="Time (ms)").click()  # again: reversed
    times = [float(t) for t in table.locator("tbody tr td:nth-child(5)").all_inner_texts()]
    assert times == sorted(times) and modules()[-1] == "3 (Linear)"
    page.close()
