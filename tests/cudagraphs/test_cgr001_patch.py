"""CGR001's patch: where torch skipped CUDA graphs for a host read in the graph (``.item()`` kept in it by
``capture_scalar_outputs`` as ``aten._local_scalar_dense``, which CUDA graphs cannot capture), the read is taken out
of the compiled function, as BRK002's hand fix does; other skips keep their words.

The record is shaped as tdiag's capture writes it on a GPU machine (test_runtime_decisions.py's helpers); the skip
message is torch's (compile_fx.py: "disabling cudagraphs due to incompatible op {target} Found from {stack_trace}",
logged through output_code.py with "skipping cudagraphs due to " in front).
"""

from __future__ import annotations

from gpu_records import start_record
from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch

TRAIN = """import torch

torch._dynamo.config.capture_scalar_outputs = True


@torch.compile(mode="reduce-overhead")
def step(x):
    loss = (x * 2).relu().sum()
    val = loss.item()
    print(f"loss {val:.4f}")
    return loss


for i in range(10):
    loss = step(torch.ones(8, device="cuda"))
    loss.backward()
"""
READ_LINE = 9


def _record(tmp_path, reason: str):
    w, path = start_record(tmp_path, TRAIN, line=6)
    w.write({"type": "log", "logger": "torch._inductor.cudagraph_utils.__cudagraphs", "level": "WARNING",
             "msg": reason.format(path=path), "compile_id": "0/0"})  # compiler/cudagraph_watch.py's record of it
    w.write({"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0})
    w.close()
    return build(tmp_path)


def _cgr001(analysis):
    (finding,) = [f for f in analysis.findings if f.code == "CGR001"]
    return finding


def test_an_item_that_skipped_cuda_graphs_is_read_after_the_call(tmp_path):
    reason = ("skipping cudagraphs due to disabling cudagraphs due to incompatible op "
              "aten._local_scalar_dense.default Found from   File \"{path}\", line 9, in step\n    val = loss.item()\n")
    finding = _cgr001(_record(tmp_path, reason))
    assert finding.line == READ_LINE
    suggestion = finding.suggestion
    assert suggestion.patch, suggestion.patch_note
    patched = apply_patch(TRAIN, suggestion.patch)
    # the read and the print end the loop body now, right after the call that returns the loss
    assert "    val = loss.item()\n" not in patched.split("for i in range(10):")[0]
    assert ("    loss = step(torch.ones(8, device=\"cuda\"))\n    val = loss.item()\n    print(f\"loss {val:.4f}\")\n"
            in patched)
    compile(patched, "train.py", "exec")  # still a program


def test_a_mutated_input_keeps_its_words_and_says_why_no_patch(tmp_path):
    reason = "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n   File \"{path}\", line 8, in step\n    loss = (x * 2).relu().sum()\n"
    finding = _cgr001(_record(tmp_path, reason))
    assert finding.suggestion.patch is None
    assert "clone the input" in finding.fix
    assert "no patch for this skip (mutated_input)" in finding.suggestion.patch_note
