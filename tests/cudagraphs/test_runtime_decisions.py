"""CUDA-graph decisions torch makes only when a graph runs on a GPU (input mutation, the re-recording limit), read
from record lines shaped as tdiag's capture writes them on a GPU machine.

The messages are built with torch's own functions where it has them (``get_mutation_stack_trace`` with a
``PlaceholderInfo``, torch/_inductor/cudagraph_utils.py) and otherwise with torch 2.13's format string, cited below.
"""

from __future__ import annotations

from tdiag.analyzer import build
from tdiag.analyzer.cudagraphs import parse_skip
from tdiag.analyzer.model import GraphKey
from torch._inductor.cudagraph_utils import PlaceholderInfo, get_mutation_stack_trace

from tdiag.record import RecordWriter

TRAIN = "import torch\n\n\ndef step(x, stats):\n    stats.add_(x.sum())\n    return x * 2\n\n\ndef head(x):\n    return x.relu()\n"
MUTATION_LINE = 5


def metrics(cid: str, name: str, line: int, path: str) -> dict:
    frame, fcid = cid.split("/")
    return {"type": "torch", "name": "compilation_metrics", "meta": {
        "frame_id": int(frame), "frame_compile_id": int(fcid),
        "compilation_metrics": {"compile_id": cid, "co_name": name, "co_filename": path, "co_firstlineno": line,
                                "graph_op_count": 3, "has_guarded_code": True}}}


def cudagraph_log(level: str, text: str, cid: str) -> dict:
    # what compiler/cudagraph_watch.py writes for a record of torch's cudagraphs artifact loggers
    logger = "tdiag.cudagraph_recording" if "Recording" in text else "torch._inductor.cudagraph_utils.__cudagraphs"
    return {"type": "log", "logger": logger, "level": level, "msg": text, "compile_id": cid}


def recording(cid: str, graph_id: int, batch: int) -> list[dict]:
    # CUDAGraphTreeManager.record_function runs in a CUDAGRAPH_RECORDING bracket (cudagraph_trees.py); tdiag's wrapper
    # of it writes the line torch logs there at DEBUG (format_inputs_log of the inputs), without the graph id
    text = (f"[{cid}] Recording function=0, mode=FORWARD, inputs: "
            f"[0]: Tensor(size=[{batch}, 16], stride=(16, 1), dtype=torch.float32, data_ptr=0x7F00)")
    return [{"type": "compile_start", "t": 1.0, "compile_id": cid, "trigger": "CUDAGRAPH_RECORDING"},
            cudagraph_log("DEBUG", text, cid),
            {"type": "compile_end", "t": 1.1, "compile_id": cid, "trigger": "CUDAGRAPH_RECORDING"}]


def write_record(tmp_path):
    path = str(tmp_path / "train.py")
    stack = f'  File "{path}", line {MUTATION_LINE}, in step\n    stats.add_(x.sum())\n'
    mutation = get_mutation_stack_trace([PlaceholderInfo("arg1_1", None, [], stack)], [0])
    # cudagraph_trees.py CUDAGraphTreeManager._run, "exceeding max re-recording limit" (torch 2.13)
    limit = ("skipping cudagraph due to function 0 exceeding max re-recording limit (=2) on cudagraph node None due "
             "to static input data pointer changed.")
    w = RecordWriter(tmp_path / "events.jsonl", {"argv": ["train.py"], "root": str(tmp_path), "cwd": str(tmp_path)})
    w.write({"type": "source", "path": path, "text": TRAIN})
    events = [metrics("0/0", "step", 4, path), cudagraph_log("WARNING", mutation, "0/0"),
              metrics("1/0", "head", 9, path), *recording("1/0", 0, 8), *recording("1/0", 1, 8),
              cudagraph_log("WARNING", limit, "1/0"),
              {"type": "cudagraph_pool", "pools": {"0/1": 4 * 2**20}, "bytes": 4 * 2**20},
              {"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0}]
    for event in events:
        w.write(event)
    w.close()
    return build(tmp_path)


def test_mutated_input_skip_decided_at_run_time(tmp_path):
    a = write_record(tmp_path)
    step = a.graph(GraphKey(None, "0/0"))
    assert step.cudagraph.status == "skipped"
    (skip,) = step.cudagraph.skips
    assert (skip.kind, skip.at, skip.site.path, skip.site.line) == ("mutated_input", "run", "train.py", MUTATION_LINE)
    finding = next(f for f in a.findings if f.code == "CGR001" and f.line == MUTATION_LINE)
    assert "mutated inputs (1 instances)" in finding.message and "clone" in finding.fix


def test_rerecording_limit_makes_a_partial_graph(tmp_path):
    a = write_record(tmp_path)
    head = a.graph(GraphKey(None, "1/0"))
    assert head.cudagraph.status == "partial" and len(head.cudagraph.recordings) == 2
    assert [s.kind for s in head.cudagraph.skips] == ["rerecord_limit"]
    codes = {f.code for f in a.findings if f.compile_ids == ["1/0"]}
    assert codes == {"CGR001", "CGR002"}
    assert "CUDA graph memory pools at exit: 4.0 MiB" in a.run.notes


def test_parse_skip_reads_torch_messages():
    # compile_fx.py: "disabling cudagraphs due to incompatible op {target} Found from {stack_trace}", logged through
    # output_code.py with "skipping cudagraphs due to " in front
    text = ('skipping cudagraphs due to disabling cudagraphs due to incompatible op aten._local_scalar_dense.default '
            'Found from   File "model.py", line 7, in forward\n    n = x.sum().item()\n')
    skip = parse_skip(text)
    assert (skip.kind, skip.op, skip.site.line, skip.code) == ("incompatible_op", "aten._local_scalar_dense.default", 7,
                                                               "n = x.sum().item()")
    # no stack trace: no site, the reason as torch wrote it
    bare = parse_skip("skipping cudagraphs due to non-Tensor inputs")
    assert (bare.kind, bare.site, bare.reason) == ("non_tensor_input", None, "non-Tensor inputs")
