"""Finding identity on hand-built analyses (no compile): site + cause, cascades under their root, vendor kernels,
tiny graphs by nature. Each case is the judgement an expert makes by reading the events, written down by hand."""

from __future__ import annotations

from tdiag.analyzer.model import (
    Analysis,
    CompiledGraph,
    Frame,
    FrameInfo,
    GraphBreak,
    GuardFailure,
    Kernel,
    Recompile,
    Site,
    SourceRef,
)
from tdiag.analyzer.rules import run_rules


def brk(cid, line, gb_id, reason, library=None, path="train.py"):
    lib = Frame(library[0], library[1], "f", None, False) if library else None
    stack = [Frame(path, line, "step")] + ([lib] if lib else [])
    return GraphBreak(compile_id=cid, reason=reason, site=Site(path, line, function="step"), gb_id=gb_id,
                      user_stack=stack, library_frame=lib)


def findings(**parts):
    return run_rules(Analysis(**parts), None)


def test_two_causes_at_one_line_are_both_named_with_their_ids_and_counts():
    breaks = [
        brk("0/0", 12, "GB0142", "Unsupported context manager", ("<site-packages>/transformers/utils.py", 40)),
        brk("1/0", 12, "GB0142", "Unsupported context manager", ("<site-packages>/transformers/utils.py", 40)),
        brk("2/0", 12, "GB0467", "setattr() on unsupported type", ("<site-packages>/torch/utils/hooks.py", 90)),
    ]
    found = [f for f in findings(breaks=breaks) if f.family == "BRK"]
    assert [(f.path, f.line) for f in found] == [("train.py", 12)]
    (f,) = found
    causes = {(c["gb_id"], c["occurrences"], c["library_frame"]) for c in f.evidence.causes}
    assert causes == {("GB0142", 2, "<site-packages>/transformers/utils.py:40"),
                      ("GB0467", 1, "<site-packages>/torch/utils/hooks.py:90")}
    assert "GB0467" in f.message and f.occurrences == 3


def test_reconstruction_failure_after_graph_break_folds_under_it_with_the_chain_shown():
    breaks = [brk("0/0", 7, "GB0025", "Call to `torch._dynamo.graph_break()`"),
              brk("0/0", 7, "GB0092", "Reconstruction failure")]
    (f,) = [f for f in findings(breaks=breaks) if f.family == "BRK"]
    assert f.gb_id == "GB0025" and f.occurrences == 1
    assert f.evidence.chain == [{"gb_id": "GB0092", "reason": "Reconstruction failure", "occurrences": 1}]
    assert "GB0092" in f.message


def test_a_cascade_id_with_no_root_is_its_own_finding():
    (f,) = [f for f in findings(breaks=[brk("3/0", 9, "GB0092", "Reconstruction failure")]) if f.family == "BRK"]
    assert f.gb_id == "GB0092" and f.evidence.chain == []


def graph(cid, code="step", line=5, ops=2, kernels=(), path="train.py"):
    frame = int(cid.split("/")[0])
    return CompiledGraph(compile_id=cid, frame_id=frame, frame_compile_id=int(cid.split("/")[1]), code_name=code,
                         path=path, line=line, op_count=ops, kernels=list(kernels))


def test_tiny_by_nature_is_not_tiny_graphs_but_a_shredded_function_is():
    small = [graph("0/0", ops=2), graph("1/0", code="torch_dynamo_resume_in_step_at_7", line=7, ops=1)]
    # a break inside a library's code, called at the user's line 7: no finding at a line of the user's explains it
    breaks = [brk("0/0", 7, "GB0170", "Data-dependent branching", ("<site-packages>/lib/layers.py", 30))]
    assert not [f for f in findings(graphs=small, breaks=breaks) if f.code == "CMP001"]
    big = small + [graph("2/0", code="torch_dynamo_resume_in_step_at_9", line=9, ops=3),
                   graph("3/0", code="torch_dynamo_resume_in_step_at_11", line=11, ops=12)]
    (f,) = [f for f in findings(graphs=big, breaks=breaks) if f.code == "CMP001"]
    assert (f.path, f.line, f.occurrences) == ("train.py", 5, 3)
    # pieces that never broke apart are not "shredded", however small
    assert not [f for f in findings(graphs=big) if f.code == "CMP001"]
    # pieces cut only at the user's own lines: each break is a finding of its own, with its fix (blind batch 6)
    at_the_users_line = [brk("0/0", 7, "GB0170", "Data-dependent branching")]
    assert not [f for f in findings(graphs=big, breaks=at_the_users_line) if f.code == "CMP001"]


def fallback(op, line=20, backend="aten"):
    return Kernel(f"torch.ops.{op}.default", "fallback", backend, source_lines=[SourceRef("model.py", line)])


def test_vendor_kernels_are_not_fallback_warnings_but_custom_ops_are():
    vendor = ["aten._scaled_dot_product_efficient_attention", "aten._scaled_dot_product_efficient_attention_backward",
              "aten._scaled_dot_product_flash_attention_for_cpu", "aten.convolution_backward", "aten.convolution",
              "aten.addmm", "aten._scaled_mm", "aten._fft_r2c"]
    kernels = [fallback(op, line=20 + i) for i, op in enumerate(vendor)]
    kernels += [fallback("mylib.scale_noise", line=40, backend="custom_op"), fallback("aten._cdist_forward", line=41)]
    low = [f for f in findings(graphs=[graph("0/0", kernels=kernels)]) if f.code == "LOW001"]
    assert sorted(f.evidence.op for f in low) == ["aten._cdist_forward", "mylib.scale_noise"]


def gemm_then_epilogue(backend, role):
    ref = [SourceRef("model.py", 12)]
    return [Kernel("extern_kernels.addmm", "extern", backend, graph=role, source_lines=ref),
            Kernel("cpp_fused_gelu_0", "pointwise", "cpp", graph=role, source_lines=ref)]


def test_gemm_template_advice_only_where_inductor_has_a_template():
    def low002(backend, role):
        return [f for f in findings(graphs=[graph("0/0", kernels=gemm_then_epilogue(backend, role))]) if f.code == "LOW002"]

    assert len(low002("cublas", "forward")) == 1
    assert len(low002("mkl", "inference")) == 1 and "freezing" in low002("mkl", "inference")[0].fix
    assert low002("mkl", "forward") == [] and low002("mkl", "backward") == []  # CPU training keeps MKL


def test_kernel_from_library_code_is_anchored_on_the_users_line():
    k = Kernel("torch.ops.mylib.op.default", "fallback", "custom_op",
               source_lines=[SourceRef("<site-packages>/lib/layers.py", 88), SourceRef("model.py", 14)])
    (f,) = [f for f in findings(graphs=[graph("0/0", kernels=[k])]) if f.code == "LOW001"]
    assert (f.path, f.line) == ("model.py", 14)
    assert (f.library_frame.path, f.library_frame.line) == ("<site-packages>/lib/layers.py", 88)


def test_frame_in_generated_code_is_anchored_on_the_line_that_called_it():
    """A dataclass __init__ (`<string>`) recompiling: the finding goes to the user's call, not `<string>:2`."""
    call = Site("train.py", 31, function="main")
    frames = [FrameInfo(0, "__init__", "<string>", 2, ["0/0", "0/1"], recompiles=1, call_site=call)]
    failure = GuardFailure("0/0", "L['width'] == 8", "value", subject="L['width']")
    recompiles = [Recompile("0/1", 0, "__init__", "<string>", 2, [failure])]
    (f,) = [f for f in findings(frames=frames, recompiles=recompiles) if f.family == "RCP"]
    assert (f.path, f.line) == ("train.py", 31) and f.library_frame.path == "<string>"


def test_automatic_dynamic_after_a_size_recompile_is_part_of_that_finding():
    frames = [FrameInfo(0, "step", "train.py", 5, ["0/0", "0/1"], recompiles=1, automatic_dynamic=["L['x'] dim 0 -> dynamic"])]
    failure = GuardFailure("0/0", "tensor 'x' size mismatch at index 0. expected 4, actual 8", "size", subject="x", dim=0)
    recompiles = [Recompile("0/1", 0, "step", "train.py", 5, [failure], call_site=Site("train.py", 20))]
    found = findings(frames=frames, recompiles=recompiles)
    assert [(f.code, f.line) for f in found] == [("RCP001", 20)]
    assert found[0].evidence.automatic_dynamic == ["L['x'] dim 0 -> dynamic"]


def test_a_python_scalar_made_dynamic_after_its_recompile_is_part_of_that_finding():
    """specialize_float: the float changes, the frame recompiles, then Dynamo makes it dynamic: one problem."""
    frames = [FrameInfo(0, "evaluate", "train.py", 24, ["0/0", "0/1"], recompiles=1,
                        automatic_dynamic=["L['options'].temperature -> dynamic"])]
    failure = GuardFailure("0/0", "L['options'].temperature == 1.0", "value", subject="L['options'].temperature")
    recompiles = [Recompile("0/1", 0, "evaluate", "train.py", 24, [failure], call_site=Site("train.py", 34))]
    found = findings(frames=frames, recompiles=recompiles)
    assert [(f.code, f.line) for f in found] == [("RCP002", 34)]
    assert found[0].evidence.automatic_dynamic == ["L['options'].temperature -> dynamic"]


def test_one_library_cause_reached_from_two_user_lines_is_one_finding():
    """Both convs of a model call the same torch_geometric helper that breaks: one problem, shown at the first."""
    lib = ("<site-packages>/torch_geometric/utils/loop.py", 650)
    breaks = [brk("0/0", 14, "GB0250", "Dynamic shape operator", lib), brk("1/0", 15, "GB0250", "Dynamic shape operator", lib)]
    (f,) = [f for f in findings(breaks=breaks) if f.family == "BRK"]
    assert (f.line, f.occurrences) == (14, 2)
    assert f.evidence.causes[0]["sites"] == ["train.py:14", "train.py:15"]


def test_library_frames_recompiling_at_the_users_call_fold_under_the_users_recompile():
    """The node count changes: the user's forward recompiles for the size, a library helper for the derived int."""
    call = Site("train.py", 24)
    size = GuardFailure("0/0", "tensor 'x' size mismatch at index 0. expected 10, actual 14", "size", subject="x", dim=0)
    value = GuardFailure("2/0", "num_nodes == 10", "value", subject="num_nodes")
    recompiles = [Recompile("0/1", 0, "forward", "train.py", 13, [size], call_site=call),
                  Recompile("2/1", 2, "gcn_norm", "<site-packages>/torch_geometric/nn/conv/gcn_conv.py", 60, [value],
                            call_site=call)]
    found = [f for f in findings(recompiles=recompiles) if f.family == "RCP"]
    assert [(f.code, f.line, f.occurrences) for f in found] == [("RCP001", 24, 2)]
    assert "gcn_norm" in found[0].message


def test_a_step_with_backward_item_and_print_gives_three_findings_and_their_consequences_in_chains():
    """torch's events for `loss.backward(); v = loss.item(); print(f"{v:.4f}")` in a compiled step called three
    times: the resume function after .item() recompiles for the new float, and on that recompile Dynamo gives up
    at the f-string (BUILD_STRING, frame skipped). An expert sees three breaks; the rest follows from them."""
    breaks = [brk("0/0", 14, "GB0123", "Unsupported Tensor.backward() call"),
              brk("1/0", 15, "GB0124", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
              brk("2/0", 16, "GB0059", "Failed to trace builtin operator"),
              brk("2/1", 16, "GB0021", "BUILD_STRING type error")]
    breaks[2].user_stack[0].code = breaks[3].user_stack[0].code = 'print(f"loss {value:.4f}")'
    breaks[3].frame_skipped = True
    carried = GuardFailure("2/0", "___stack0 == 1.31", "value", subject="___stack0")
    recompiles = [Recompile("2/1", 2, "step", "train.py", 15, [carried], call_site=Site("train.py", 21))]
    found = findings(breaks=breaks, recompiles=recompiles)
    assert sorted((f.code, f.line) for f in found) == [("BRK002", 15), ("BRK004", 16), ("BRK005", 14)]
    by_code = {f.code: f for f in found}
    assert by_code["BRK004"].evidence.chain[0]["gb_id"] == "GB0021"
    assert by_code["BRK002"].evidence.chain[0]["occurrences"] == 1
