"""LOW002 / CMP001 / CMP002 on small hand-built Analyses (no compile), and the analyzer's no-torch contract."""

from __future__ import annotations

import subprocess
import sys

from tdiag.analyzer.model import Analysis, CompiledGraph, Frame, GraphBreak, Kernel, Site, SourceRef
from tdiag.analyzer.rules import (
    RuleContext,
    cmp001_tiny_graphs,
    cmp002_compile_time_hotspot,
    low002_extern_gemm_epilogue,
)


def graph(cid, op_count=10, time_s=0.0, kernels=(), stages=None, line=10):
    return CompiledGraph(compile_id=cid, frame_id=int(cid.split("/")[0]), frame_compile_id=0, code_name="forward",
                         path="train.py", line=line, op_count=op_count, compile_time_s=time_s,
                         kernels=list(kernels), stages=stages or {})


def test_low002_gemm_followed_by_epilogue():
    ref = [SourceRef("train.py", 12)]
    g = graph("0/0", kernels=[Kernel("extern_kernels.addmm", "extern", "cublas", source_lines=ref),
                              Kernel("triton_poi_fused_gelu_0", "pointwise", "triton", source_lines=ref)])
    findings = low002_extern_gemm_epilogue.check(RuleContext(Analysis(graphs=[g]), None))
    assert [(f.code, f.line, f.severity) for f in findings] == [("LOW002", 12, "info")]
    g.kernels.append(Kernel("triton_tem_fused_mm_1", "template", "triton"))
    assert low002_extern_gemm_epilogue.check(RuleContext(Analysis(graphs=[g]), None)) == []


def test_cmp001_tiny_graphs():
    graphs = [graph("0/0", op_count=2), graph("1/0", op_count=1, line=20), graph("2/0", op_count=40, line=30)]
    # pieces exist because a break split the function; without a break nothing was shredded
    assert cmp001_tiny_graphs.check(RuleContext(Analysis(graphs=graphs), None)) == []
    # a break at the user's own line is a finding of its own, with its fix: the pieces it cuts add nothing to it
    split = [GraphBreak("0/0", "Data-dependent branching", Site("train.py", 12, function="forward"), gb_id="GB0170")]
    assert cmp001_tiny_graphs.check(RuleContext(Analysis(graphs=graphs, breaks=split), None)) == []
    # a break inside a library the user's line calls: the pieces are what the user sees of it
    inside = Frame("<site-packages>/lib/layers.py", 40, "forward", "if x.sum() > 0:", is_user=False)
    split = [GraphBreak("0/0", "Data-dependent branching", Site("train.py", 12, function="forward"), gb_id="GB0170",
                        library_frame=inside)]
    findings = cmp001_tiny_graphs.check(RuleContext(Analysis(graphs=graphs, breaks=split), None))
    assert len(findings) == 1 and findings[0].occurrences == 2 and findings[0].evidence.op_counts == [2, 1]


def test_cmp002_hotspot():
    graphs = [graph("0/0", time_s=9.0, stages={"dynamo": 1.0, "codegen": 1.0, "kernel_compile": 7.0}),
              graph("1/0", time_s=1.0, line=20)]
    findings = cmp002_compile_time_hotspot.check(RuleContext(Analysis(graphs=graphs), None))
    assert [f.compile_ids for f in findings] == [["0/0"]]
    assert "kernel_compile" in findings[0].message
    assert cmp002_compile_time_hotspot.check(RuleContext(Analysis(graphs=[graph("0/0", time_s=0.5)]), None)) == []


def test_analyzer_kernel_modules_do_not_import_torch():
    code = ("import sys; import tdiag.analyzer.kernels, tdiag.analyzer.rules.low001_aten_fallback, "
            "tdiag.analyzer.rules.cmp002_compile_time_hotspot; "
            "bad = [m for m in ('torch', 'rich', 'textual', 'plotly') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_low002_skips_small_gemms_and_keeps_symbolic_ones():
    """A 16x8 GEMM output is noise beside a launch; sizes unknown (symbolic) give no verdict, so the finding stays."""
    ref = [SourceRef("train.py", 12)]

    def findings_for(out_shape):
        g = graph("0/0", kernels=[Kernel("extern_kernels.addmm", "extern", "cublas", source_lines=ref, out_shape=out_shape),
                                  Kernel("triton_poi_fused_gelu_0", "pointwise", "triton", source_lines=ref)])
        return [f.code for f in low002_extern_gemm_epilogue.check(RuleContext(Analysis(graphs=[g]), None))]

    assert findings_for([16, 8]) == []
    assert findings_for([4096, 1024]) == ["LOW002"]
    assert findings_for(None) == ["LOW002"]


def test_output_code_reads_extern_output_sizes():
    from tdiag.analyzer import output_code

    text = (
        "def call(args):\n"
        "    primals_1, primals_2 = args\n"
        "    buf0 = empty_strided_cpu((16, 8), (8, 1), torch.float32)\n"
        "    extern_kernels.mm(primals_1, primals_2, out=buf0)\n"
        "    buf1 = empty_strided_cpu((s0, 8), (8, 1), torch.float32)\n"
        "    extern_kernels.mm(primals_1, primals_2, out=buf1)\n"
        "    return (buf0, buf1)\n"
    )
    calls = output_code.parse(text).calls
    assert [(c.name, c.out_shape) for c in calls] == [("extern_kernels.mm", [16, 8]), ("extern_kernels.mm", None)]
