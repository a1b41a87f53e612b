"""The kernel -> launching-op link behind graphs[].runtime.device_s (CUDA).

This CPU-only machine produces no device activity, so the device events below are stand-ins built to torch's own
join (torch/autograd/profiler.py, _parse_kineto_results: a device event's ``linked_correlation_id()`` is the
``correlation_id()`` of the frontend CPU event -- linked id 0 -- that launched it). The CPU side is a real profile.
What this cannot prove (that Kineto links Inductor's Triton launches this way on a GPU) is checked by
benchmarks/gpu_cost_window.py on an H200.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from tdiag.tracer.profile_timeline import device_kernels
from tdiag_testing import DeviceEvent


def _cpu_events():
    x = torch.ones(64)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function("triton_poi_fused_add_0"):
            x + 1
        with torch.profiler.record_function("triton_poi_fused_mul_1"):
            x * 2
    return [e for e in prof.profiler.kineto_results.events() if e.device_type().name == "CPU"]


def test_frontend_ops_are_link_targets():
    cpu = _cpu_events()
    frontend = [e for e in cpu if e.linked_correlation_id() == 0]
    ids = [e.correlation_id() for e in frontend]
    assert {"triton_poi_fused_add_0", "triton_poi_fused_mul_1", "aten::add", "aten::mul"} <= {e.name() for e in frontend}
    assert all(i > 0 for i in ids) and len(set(ids)) == len(ids)


def test_kernel_placed_at_its_launching_op():
    cpu = _cpu_events()
    by_name = {e.name(): e for e in cpu}
    add, mul = by_name["triton_poi_fused_add_0"], by_name["triton_poi_fused_mul_1"]
    # the kernels' own CUPTI ids deliberately equal the *other* op's correlation id: joining on them is the old bug
    device = [
        DeviceEvent("triton_poi_fused_add_0", 5_000, add.correlation_id(), mul.correlation_id()),
        DeviceEvent("triton_poi_fused_mul_1", 7_000, mul.correlation_id(), add.correlation_id()),
        DeviceEvent("triton_poi_fused_mul_1", 7_000, mul.correlation_id(), 10**9),
        DeviceEvent("Memcpy HtoD", 9_000, add.correlation_id(), 10**9 + 1),
        DeviceEvent("ampere_sgemm", 3_000, 10**9 + 2, 10**9 + 3),  # its op is unknown: counted, not placed
    ]
    kernels, launched = device_kernels(cpu, device)
    assert kernels == {"triton_poi_fused_add_0": [1, 5_000], "triton_poi_fused_mul_1": [2, 14_000], "ampere_sgemm": [1, 3_000]}
    assert launched == sorted([(add.start_ns(), 5_000), (mul.start_ns(), 7_000), (mul.start_ns(), 7_000)])


class _Kind:
    def __init__(self, name: str) -> None:
        self.name = name


@dataclass
class Event:
    """A Kineto event as timeline() reads it (CPU op, record_function, or device kernel)."""

    _name: str
    start: int
    duration: int
    corr: int = 0
    linked: int = 0
    device: str = "CPU"

    def name(self) -> str:
        return self._name

    def device_type(self) -> _Kind:
        return _Kind(self.device)

    def start_thread_id(self) -> int:
        return 1

    def start_ns(self) -> int:
        return self.start

    def duration_ns(self) -> int:
        return self.duration

    def correlation_id(self) -> int:
        return self.corr

    def linked_correlation_id(self) -> int:
        return self.linked

    def is_user_annotation(self) -> bool:
        return False


class _Profiler:
    def __init__(self, events: list[Event]) -> None:
        self.profiler = self
        self.kineto_results = self
        self._events = events

    def events(self) -> list[Event]:
        return self._events


def test_each_kernel_counts_in_one_graph_only():
    """A frame that broke: its region holds its graph call, then the break's eager code, then the resumed frame's
    region (nested). A kernel counts in the graph whose own call launched it, never in the enclosing region too; a
    kernel the eager part launched is in no graph (the H200 run double counted these: graphs 98.9 ms > 60.5 ms)."""
    us = 1000
    events = [
        Event("Torch-Compiled Region: 0/0", 0, 100 * us, corr=1),
        Event("## Call CompiledFxGraph fx_a ##", 10 * us, 20 * us, corr=2),
        Event("triton_poi_a", 12 * us, 2 * us, corr=3),
        Event("aten::add", 40 * us, 2 * us, corr=4),  # the break's eager code
        Event("Torch-Compiled Region: 1/0", 50 * us, 40 * us, corr=5),
        Event("## Call CompiledFxGraph fx_b ##", 55 * us, 15 * us, corr=6),
        Event("triton_poi_b", 57 * us, 2 * us, corr=7),
        Event("triton_poi_a", 200 * us, 5 * us, linked=3, device="CUDA"),
        Event("eager_add_kernel", 210 * us, 7 * us, linked=4, device="CUDA"),
        Event("triton_poi_b", 220 * us, 11 * us, linked=7, device="CUDA"),
    ]
    from tdiag.tracer.profile_timeline import timeline

    out = timeline(_Profiler(events), 0.0, 300e-6, [])
    assert out["graphs"]["0/0"]["device_us"] == 5
    assert out["graphs"]["1/0"]["device_us"] == 11
    total = sum(us_ for _, us_ in out["kernels"].values())
    assert total == 23 and out["unlinked_device_us"] == 0
    assert sum(g["device_us"] for g in out["graphs"].values()) <= total


def test_a_cudagraph_recording_in_the_window_is_labelled_recording():
    """torch brackets each CUDA-graph recording like a compile (CallbackTrigger.CUDAGRAPH_RECORDING): inside the
    window it is `recording`, listed apart from compiles, never counted as `compile` (issue 41: 77.8 ms of "compile"
    in the window of a reduce-overhead GPT-2)."""
    us = 1000
    events = [Event("Torch-Compiled Region: 0/0", 0, 100 * us, corr=1),
              Event("## Call CompiledFxGraph fx_a ##", 10 * us, 80 * us, corr=2)]
    from tdiag.tracer.profile_timeline import timeline

    brackets = [("0/0", 20e-6, 60e-6, "CUDAGRAPH_RECORDING"), ("1/0", 150e-6, 170e-6, "DYNAMO")]
    out = timeline(_Profiler(events), 0.0, 300e-6, brackets)
    assert out["time_us"]["recording"] == {"0/0": 40}
    assert out["time_us"]["compile"] == {"1/0": 20}
    assert out["recordings"] == [["0/0", 40]] and out["compiles"] == [["1/0", 20]]
