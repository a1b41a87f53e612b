"""Peak memory of analysing a big record: `python benchmarks/bench_big_record.py [MB]` (default 1000).

Writes a realistic record to a temporary directory (many compiles, each with its Dynamo graph and output code as
blobs, dozens of chromium events, describe_* events, guards, metrics), analyses it with `build` in a fresh
subprocess and prints that process's peak RSS as JSON. The analysis must stream: peak RSS grows with what the
analysis keeps, not with the size of the file.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tdiag.record import RecordWriter

CHILD = """
import json, resource, sys, time
def rss():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
t = time.time()
from tdiag.analyzer import events
from tdiag.analyzer.build import build
log = events.load(sys.argv[1])
loaded = rss()
a = build(log)
print(json.dumps({"seconds": round(time.time() - t, 1), "graphs": len(a.graphs), "load_peak_rss_mb": loaded,
                  "peak_rss_mb": rss(), "code_entries": len(a.code),
                  # code text held in memory (the rest stays in the record until shown)
                  "code_in_memory_mb": round(sum(len(v) for v in dict.values(a.code) if isinstance(v, str)) / 1e6, 1)}))
"""


def write_record(path: Path, target_mb: float, seed: int = 0) -> int:
    rng = random.Random(seed)
    w = RecordWriter(path, {"argv": ["train.py"], "root": "/proj", "cwd": "/proj", "rank": None, "tool_paths": []})
    compiles = 0
    while path.stat().st_size < target_mb * 1e6:
        fid = compiles
        meta = {"frame_id": fid, "frame_compile_id": 0, "attempt": 0}
        w.write_payload({"type": "torch", "name": "dynamo_start", "meta": {**meta, "dynamo_start": {"stack": [
            {"line": 10, "name": "<module>", "filename": 1}, {"line": 20 + fid % 7, "name": "forward", "filename": 1}]}}}, None)
        for kind in ("describe_storage", "describe_tensor", "describe_source"):
            w.write_payload({"type": "torch", "name": kind, "meta": {**meta, kind: {"id": fid, "size": [8, 8]}}}, None)
        graph = "".join(f"    add_{i}: f32[8, 8] = torch.ops.aten.add.Tensor(x_{i}, {rng.random()})\n" for i in range(300))
        w.write_payload({"type": "torch", "name": "dynamo_output_graph", "meta": {**meta, "dynamo_output_graph": {}}}, graph)
        w.write_payload({"type": "torch", "name": "dynamo_cpp_guards_str", "meta": {**meta, "dynamo_cpp_guards_str": {}}},
                        "TREE_GUARD_MANAGER:\n" + "| +- TENSOR_MATCH: check_tensor(L['x'], torch.float32)\n" * 40)
        code = "".join(f"    tmp{i} = tl.load(in_ptr0 + (x{i}), xmask)  # {rng.random()}\n" for i in range(1500))
        w.write_payload({"type": "torch", "name": "inductor_output_code", "meta": {**meta, "inductor_output_code": {"filename": f"/tmp/c{fid}.py"}}}, code)
        for i in range(40):
            ev = {"name": "inductor_compile" if i % 2 else "compile_fx_inner", "ts": time.time() * 1e6 + i,
                  "ph": "B" if i % 4 < 2 else "E", "pid": 0, "args": {"compile_id": f"{fid}/0"}}
            w.write_payload({"type": "torch", "name": "chromium_event", "meta": {**meta, "chromium_event": {}}}, json.dumps(ev))
        w.write_payload({"type": "torch", "name": "compilation_metrics", "meta": {**meta, "compilation_metrics": {
            "compile_id": f"{fid}/0", "co_name": "forward", "co_filename": "/proj/model.py", "co_firstlineno": 20,
            "graph_op_count": 300, "entire_frame_compile_time_s": 1.5, "backend_compile_time_s": 1.0}}}, None)
        compiles += 1
    w.write({"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0})
    w.close()
    return compiles


def measure(target_mb: float, directory: Path) -> dict:
    path = directory / "events.jsonl"
    compiles = write_record(path, target_mb)
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    result.update(record_mb=round(path.stat().st_size / 1e6), compiles=compiles)
    path.unlink()
    return result


if __name__ == "__main__":
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as d:
        print(json.dumps(measure(mb, Path(d))))
