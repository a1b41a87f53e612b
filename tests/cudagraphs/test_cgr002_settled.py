"""CGR002 judges the recordings by what they cost: a handful of sizes, each recorded once in the first steps and only
replayed in the measured window, is the state its own fix asks for (GPT-2 with four sequence lengths, `mark_dynamic`
and `mode="reduce-overhead"` on an H100: four recordings, then replays at 3.4 ms a step against 6.9 ms without CUDA
graphs). Offering `cudagraph_skip_dynamic_graphs` there would undo the gain, and cost `tdiag fix --verify` a round.

Records shaped as tdiag's capture writes them on a GPU machine (the recording bracket and log line of
compiler/cudagraph_watch.py, a measured ``runtime`` event labelled by tracer/profile_timeline.py).
"""

from __future__ import annotations

from gpu_records import start_record
from tdiag.analyzer import build

TRAIN = "import torch\n\n\ndef step(ids):\n    return (ids * 2).relu().sum()\n"


def _record(tmp_path, lengths: list[int], window_recording_us: int = 0):
    w, path = start_record(tmp_path, TRAIN)
    for n, length in enumerate(lengths):
        t = 1.0 + n
        w.write({"type": "compile_start", "t": t, "compile_id": "0/0", "trigger": "CUDAGRAPH_RECORDING"})
        w.write({"type": "log", "logger": "tdiag.cudagraph_recording", "level": "DEBUG", "compile_id": "0/0",
                 "msg": f"[0/0] Recording function=0, mode=FORWARD, inputs: [0]: Tensor(size=[4, {length}], "
                        f"stride=({length}, 1), dtype=torch.int64, data_ptr=0x7F00)"})
        w.write({"type": "compile_end", "t": t + 0.1, "compile_id": "0/0", "trigger": "CUDAGRAPH_RECORDING"})
    time_us = {"graph": {"0/0": 20_000}, "eager": {"": 4_000}}
    if window_recording_us:
        time_us["recording"] = {"0/0": window_recording_us}
    w.write({"type": "runtime", "status": "measured", "steps": 6, "planned_steps": 6,
             "window_us": 24_000 + window_recording_us, "step_function": "step", "step_path": path, "step_line": 4,
             "device": "cuda", "time_us": time_us, "graphs": {"0/0": {"calls": 6, "op_us": 0, "device_us": 10_000}},
             "device_time": {"busy_us": 10_000, "outside_graphs_us": 0}})
    w.write({"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0})
    w.close()
    return build(tmp_path)


def _cgr002(analysis):
    return [f for f in analysis.findings if f.code == "CGR002"]


def test_four_sizes_each_recorded_once_then_replayed_is_no_fault(tmp_path):
    a = _record(tmp_path, [16, 24, 32, 40])
    assert _cgr002(a) == []


def test_a_recording_inside_the_steady_window_is_reported(tmp_path):
    (finding,) = _cgr002(_record(tmp_path, [16, 24, 32, 40], window_recording_us=12_000))
    assert finding.occurrences == 3 and "4, 16" in finding.message


def test_a_size_recorded_twice_is_reported(tmp_path):
    (finding,) = _cgr002(_record(tmp_path, [16, 24, 16]))
    assert finding.occurrences == 2


def test_more_sizes_than_a_handful_are_reported(tmp_path):
    (finding,) = _cgr002(_record(tmp_path, list(range(16, 16 + 8 * 12, 8))))
    assert finding.occurrences == 11
