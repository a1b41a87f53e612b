"""The per-launch join's capture side (tracer/profile_timeline.graph_call_kernels): device time per Inductor graph call
(``## Call CompiledFxGraph KEY ##``), by launcher.

The CPU side is a real torch.profiler run shaped like a compiled graph's call: the marker Inductor puts around every
call, a Triton launch inside the record_function Inductor names after the kernel, an extern GEMM (``aten::mm``), and a
fallback whose kernel an inner op launches (``aten::linear`` -> ``aten::addmm``). This CPU-only machine has no device
activity, so the device events are stand-ins linked the way torch's own join links them (a device event's
``linked_correlation_id()`` is the ``correlation_id()`` of the frontend CPU op that launched it). What this cannot
prove on a GPU is checked by benchmarks/gpu_kernel_attribution.py.
"""

from __future__ import annotations

import torch
from tdiag.tracer.profile_timeline import graph_call_kernels
from tdiag_testing import DeviceEvent

KEY = "fabc123"



def _profile():
    a, w = torch.ones(8, 8), torch.ones(8, 8)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function(f"## Call CompiledFxGraph {KEY} ##"):
            with torch.profiler.record_function("triton_poi_fused_add_0"):
                a + 1
            torch.mm(a, w)
            torch.nn.functional.linear(a, w, torch.ones(8))
        torch.mm(a, w)  # eager, after the graph call: no graph's time
    return [e for e in prof.profiler.kineto_results.events() if e.device_type().name == "CPU"]


def test_device_time_per_graph_call_by_launcher():
    cpu = _profile()
    frontend = [e for e in cpu if e.linked_correlation_id() == 0]
    by_name: dict[str, list] = {}
    for e in sorted(frontend, key=lambda e: e.start_ns()):
        by_name.setdefault(e.name(), []).append(e)
    triton = by_name["triton_poi_fused_add_0"][0]
    mm_in_graph, mm_eager = by_name["aten::mm"][0], by_name["aten::mm"][-1]
    inner = next(e for e in by_name.get("aten::addmm", []) if e.start_ns() > triton.start_ns())
    device = [
        DeviceEvent("triton_poi_fused_add_0", 1_000, triton.correlation_id()),
        DeviceEvent("sm90_xmma_gemm_f32", 4_000, mm_in_graph.correlation_id()),
        DeviceEvent("sm90_xmma_gemm_f32", 8_000, inner.correlation_id()),  # launched by the inner addmm of linear
        DeviceEvent("sm90_xmma_gemm_f32", 16_000, mm_eager.correlation_id()),
    ]
    out = graph_call_kernels(cpu, device)
    assert out == {KEY: {"triton_poi_fused_add_0": [1, 1], "aten::mm": [1, 4], "aten::linear": [1, 8]}}
