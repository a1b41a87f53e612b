"""RUN002 and the window's breakdown when CUDA graphs are on (issue 41), from records shaped as tdiag's capture writes
them on a GPU machine: the CUDA-graph recording brackets and log line (compiler/cudagraph_watch.py,
tracer/progress.py) and a measured ``runtime`` event whose time is labelled by tracer/profile_timeline.py (a
recording inside the window is ``recording``, never ``compile``).

With CUDA graphs on, RUN002 never advises mode="reduce-overhead" (it is on): the idle time is explained by what is
left, in this order: recordings inside the window, graphs run without CUDA graphs, eager code between the replays
(the optimizer), else a step too small for the GPU (a larger batch). The same GPU-side facts, measured, are checked by
benchmarks/gpu_expert.py on the H200.
"""

from __future__ import annotations

from gpu_records import start_record
from tdiag.analyzer import build

TRAIN = "import torch\n\n\ndef step(x):\n    return (x * 2).relu().sum()\n"


def _record(tmp_path, time_us: dict, busy_us: int, window_us: int = 20_000, recorded: bool = True):
    w, path = start_record(tmp_path, TRAIN)
    if recorded:  # one recording (CUDAGraphTreeManager.record_function runs in a CUDAGRAPH_RECORDING bracket)
        w.write({"type": "compile_start", "t": 1.0, "compile_id": "0/0", "trigger": "CUDAGRAPH_RECORDING"})
        w.write({"type": "log", "logger": "tdiag.cudagraph_recording", "level": "DEBUG", "compile_id": "0/0",
                 "msg": "[0/0] Recording function=0, mode=FORWARD, inputs: [0]: Tensor(size=[8, 16], stride=(16, 1), "
                        "dtype=torch.float32, data_ptr=0x7F00)"})
        w.write({"type": "compile_end", "t": 1.1, "compile_id": "0/0", "trigger": "CUDAGRAPH_RECORDING"})
    w.write({"type": "runtime", "status": "measured", "steps": 10, "planned_steps": 10, "window_us": window_us,
             "step_function": "step", "step_path": path, "step_line": 4, "device": "cuda",
             "time_us": time_us, "graphs": {"0/0": {"calls": 10, "op_us": 0, "device_us": busy_us}},
             "device_time": {"busy_us": busy_us, "outside_graphs_us": 0}})
    w.write({"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0})
    w.close()
    return build(tmp_path)


def _run002(analysis):
    (finding,) = [f for f in analysis.findings if f.code == "RUN002"]
    return finding


def test_a_recording_inside_the_window_is_named_not_compile(tmp_path):
    a = _record(tmp_path, {"graph": {"0/0": 4_000}, "recording": {"0/0": 12_000}, "eager": {"": 4_000}}, busy_us=3_000)
    runtime = a.summary.runtime
    assert runtime.recording_s == 0.012 and runtime.compile_s == 0.0
    assert runtime.compiled_s + runtime.eager_s + runtime.guard_s + runtime.compile_s + runtime.recording_s == 0.02
    finding = _run002(a)
    assert "with CUDA graphs on" in finding.message and "recording again" in finding.message
    assert "reduce-overhead" not in finding.fix and "pad or bucket" in finding.fix


def test_the_optimizer_between_replays_is_the_advice(tmp_path):
    a = _record(tmp_path, {"graph": {"0/0": 4_000}, "eager:optimizer": {"": 12_000}, "eager": {"": 4_000}},
                busy_us=3_000)
    finding = _run002(a)
    assert "eager code between the replays" in finding.message and "optimizer 1.2 ms" in finding.message
    assert "reduce-overhead" not in finding.fix and "fused=True" in finding.fix


def test_a_small_step_gets_the_larger_batch(tmp_path):
    a = _record(tmp_path, {"graph": {"0/0": 18_000}, "eager": {"": 2_000}}, busy_us=3_000)
    finding = _run002(a)
    assert "too small to fill the GPU" in finding.message and "larger batch" in finding.fix


def test_without_cuda_graphs_the_fix_is_reduce_overhead(tmp_path):
    a = _record(tmp_path, {"graph": {"0/0": 18_000}, "eager": {"": 2_000}}, busy_us=3_000, recorded=False)
    finding = _run002(a)
    assert 'mode="reduce-overhead"' in finding.fix and "CUDA graphs on" not in finding.message
    assert finding.suggestion.patch is None  # the record's source compiles nothing: no torch.compile line to patch
