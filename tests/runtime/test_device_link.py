"""The kernel -> launching-op link behind graphs[].runtime.device_s (CUDA).

This CPU-only machine produces no device activity, so the device events below are stand-ins built to torch's own
join (torch/autograd/profiler.py, _parse_kineto_results: a device event's ``linked_correlation_id()`` is the
``correlation_id()`` of the frontend CPU event -- linked id 0 -- that launched it). The CPU side is a real profile.
What this cannot prove (that Kineto links Inductor's Triton launches this way on a GPU) is checked by
benchmarks/gpu_wave2_cost.py on an H200.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from tdiag.tracer.profile_timeline import device_kernels


@dataclass
class DeviceEvent:
    _name: str
    _duration_ns: int
    _linked: int
    _correlation: int  # CUPTI's id: shared with the cudaLaunchKernel runtime event, not with the op

    def name(self) -> str:
        return self._name

    def duration_ns(self) -> int:
        return self._duration_ns

    def linked_correlation_id(self) -> int:
        return self._linked

    def correlation_id(self) -> int:
        return self._correlation

    def is_user_annotation(self) -> bool:
        return False


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
