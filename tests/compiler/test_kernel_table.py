"""The kernel table of real Inductor compiles (CPU, C++ backend), checked against the generated code itself."""

from __future__ import annotations

import re

import pytest
from compiler_testing import line_of

pytestmark = pytest.mark.inductor
PROGRAM = "kernels_train.py"


def only_graph(analysis):
    graphs = [g for g in analysis.graphs if g.kernels]
    assert len(graphs) == 1, [g.compile_id for g in analysis.graphs]
    return graphs[0]


def lines_of(kernel):
    return {ref.line for ref in kernel.source_lines}


def kernels_in_code(text: str) -> dict[str, int]:
    """An independent count from the output code text: definitions and call sites by kind."""
    body = text.split("def call(", 1)[1].split("def get_args(", 1)[0]
    return {
        "generated": len(re.findall(r"^cpp_fused_\w+ = async_compile\.", text, re.M)),
        "generated_calls": len(re.findall(r"^\s+cpp_fused_\w+\(", body, re.M)),
        "extern": len(re.findall(r"^\s+(?:\w+ = )?extern_kernels\.\w+\(", body, re.M)),
        "fallback": len(re.findall(r"^\s+\w+ = torch\.ops\.(?!inductor\.)\w+\.\w+\.\w+\(", body, re.M)),
    }


@pytest.mark.parametrize("role", ["forward", "backward"])
def test_kernel_list_matches_generated_code(cold_analysis, role):
    graph = only_graph(cold_analysis)
    text = cold_analysis.code[graph.output_code_refs[role]]
    expected = kernels_in_code(text)
    kernels = [k for k in graph.kernels if k.graph == role]
    generated = [k for k in kernels if k.backend == "cpp"]
    assert expected["generated"] == expected["generated_calls"] == len(generated)
    assert expected["extern"] == sum(k.kind == "extern" for k in kernels)
    assert expected["fallback"] == sum(k.kind == "fallback" for k in kernels)
    assert len(kernels) == expected["generated"] + expected["extern"] + expected["fallback"]
    # execution order: the same sequence of names as the call sites in the text
    cursor = text.index("def call(")
    for kernel in kernels:  # each call site found after the previous one
        cursor = text.index(kernel.name + "(", cursor) + 1
    for kernel in generated:
        assert kernel.code_ref in cold_analysis.code and "kernel(" in cold_analysis.code[kernel.code_ref]


def test_linear_relu_softmax(cold_analysis):
    graph = only_graph(cold_analysis)
    linear, softmax = line_of(PROGRAM, "# LINEAR_RELU"), line_of(PROGRAM, "# SOFTMAX")
    forward = [k for k in graph.kernels if k.graph == "forward"]
    gemm = forward[0]
    assert (gemm.name, gemm.kind, gemm.backend) == ("extern_kernels.addmm", "extern", "mkl")
    assert lines_of(gemm) == {linear}
    assert gemm.source_lines[0].path == PROGRAM
    fused = next(k for k in forward if "softmax" in k.name)
    assert fused.kind == "reduction" and fused.backend == "cpp"
    assert {linear, softmax} <= lines_of(fused)
    assert {"relu", "amax", "exp", "div"} <= set(fused.fused_nodes)


def test_fallbacks_explicit_and_implicit(cold_analysis):
    graph = only_graph(cold_analysis)
    by_name = {k.name: k for k in graph.kernels if k.graph == "forward"}
    cdist = by_name["torch.ops.aten._cdist_forward.default"]
    assert (cdist.kind, cdist.backend) == ("fallback", "aten")
    assert cdist.fallback_reason.startswith("explicit")
    assert lines_of(cdist) == {line_of(PROGRAM, "# CDIST")}
    custom = by_name["torch.ops.tdiagtest.scale_noise.default"]
    assert (custom.kind, custom.backend) == ("fallback", "custom_op")
    assert custom.fallback_reason.startswith("implicit")
    assert lines_of(custom) == {line_of(PROGRAM, "# CUSTOM_OP")}


def test_backward_graph(cold_analysis):
    graph = only_graph(cold_analysis)
    backward = [k for k in graph.kernels if k.graph == "backward"]
    assert backward, "no backward kernels"
    kinds = {k.kind for k in backward}
    assert {"extern", "fallback", "reduction"} <= kinds
    cdist_bwd = [k for k in backward if k.name == "torch.ops.aten._cdist_backward.default"]
    assert len(cdist_bwd) == 2 and all(lines_of(k) == {line_of(PROGRAM, "# CDIST")} for k in cdist_bwd)
    weight_grad = next(k for k in backward if k.name == "extern_kernels.mm")
    assert lines_of(weight_grad) == {line_of(PROGRAM, "# LINEAR_RELU")}
    assert all(k.source_lines for k in backward)
    assert graph.aot is not None and graph.aot.has_backward
    assert graph.aot.saved_tensors == 5 and len(graph.aot.saved_shapes) == 5 and graph.aot.saved_bytes > 0
    assert set(graph.output_code_refs) == {"forward", "backward"}


def test_summary_counts_and_cache_stages(cold_analysis):
    graph = only_graph(cold_analysis)
    assert sum(cold_analysis.summary.kernels_by_kind.values()) == len(graph.kernels)
    assert graph.cache.get("inductor_forward") == "miss"
    assert "kernel_compile" in graph.stages
    # the stages still partition the compile time
    assert sum(graph.stages.values()) <= graph.compile_time_s + 1e-3


def test_warm_cache_gives_same_kernel_table(cold_analysis, warm_analysis):
    cold, warm = only_graph(cold_analysis), only_graph(warm_analysis)
    assert warm.cache.get("fx_graph") == "hit"
    table = lambda g: [(k.graph, k.name, k.kind, k.backend, k.fallback_reason, sorted(lines_of(k))) for k in g.kernels]
    assert table(warm) == table(cold)
    assert any("cache hit" in note for note in warm.kernel_notes)


def test_lowering_findings(cold_analysis):
    low001 = [f for f in cold_analysis.findings if f.code == "LOW001"]
    ops = {f.evidence.op for f in low001}
    assert {"aten._cdist_forward", "tdiagtest.scale_noise"} <= ops
    custom = next(f for f in low001 if f.evidence.op == "tdiagtest.scale_noise")
    assert custom.line == line_of(PROGRAM, "# CUSTOM_OP") and custom.path == PROGRAM


def test_json_export_has_kernels(cold_analysis):
    data = cold_analysis.to_dict(include_code=False)
    kernels = [k for g in data["graphs"] for k in g["kernels"]]
    assert kernels and all({"name", "kind", "backend", "fused_nodes", "source_lines"} <= set(k) for k in kernels)
