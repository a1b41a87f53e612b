"""Realistic Analysis objects built in code, so the TUI tests do not depend on a live capture.

Each builder returns a fresh Analysis; tests derive their expectations from it instead of copying rendered output.
"""

from __future__ import annotations

from tdiag.analyzer.evidence import BreakEvidence, RecompileEvidence
from tdiag.analyzer.model import (
    Analysis,
    AotInfo,
    CompiledGraph,
    Finding,
    Frame,
    FrameInfo,
    GraphBreak,
    Guard,
    GuardFailure,
    Kernel,
    Recompile,
    RunInfo,
    Site,
    SourceRef,
    Suggestion,
    Summary,
)

TRAIN_PY = '''\
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        y = self.proj(x)
        y = torch.relu(y)
        if y.sum() > 0:
            y = y * 2
        print("step")
        return self.norm(y)


def step(model, x, k):
    out = model(x)
    return out.mean() * k


model = torch.compile(Block(16), backend="inductor")
for n in (4, 8, 12, 16):
    step(model, torch.randn(n, 16), n)
'''

BRANCH_PATCH = """\
--- a/train.py
+++ b/train.py
@@ -14,2 +14,1 @@
-        if y.sum() > 0:
-            y = y * 2
+        y = torch.where(y.sum() > 0, y * 2, y)
"""

TRITON_CODE = '''\
@triton.jit
def triton_poi_fused_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tl.store(out_ptr0 + (xindex), tmp2, xmask)
'''

FX_GRAPH = '''\
def forward(self, L_x_: "f32[4, 16]"):
    l_x_ = L_x_
    y = self.L__self___proj(l_x_);  l_x_ = None
    y_1 = torch.relu(y);  y = None
    sum_1 = y_1.sum()
    gt = sum_1 > 0;  sum_1 = None
    return (gt, y_1)
'''


def _break_finding() -> Finding:
    stack = [
        Frame("train.py", 27, "<module>", "step(model, torch.randn(n, 16), n)"),
        Frame("train.py", 21, "step", "out = model(x)"),
        Frame("train.py", 14, "forward", "if y.sum() > 0:"),
    ]
    return Finding(
        code="BRK001",
        name="data-dependent-branch",
        severity="error",
        message="Python `if` on a tensor value splits the graph",
        fix="Use torch.where or torch.cond instead of branching on a tensor",
        path="train.py",
        line=14,
        column=12,
        end_column=23,
        function="forward",
        gb_id="GB0170",
        gb_url="https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html",
        occurrences=4,
        compile_ids=["0/0", "0/1", "0/2", "0/3"],
        impact=40.0,
        evidence=BreakEvidence(
            reason="Data-dependent branching",
            explanation="Detected data-dependent branching (e.g. `if my_tensor:`). Dynamo does not support tracing "
            "dynamic control flow.",
            hints=[
                "This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your "
                "code. Consider finding a workaround.",
                "Use `torch.cond` to express dynamic control flow.",
            ],
            user_stack=stack,
        ),
        suggestion=Suggestion(
            title="Replace the branch with torch.where",
            why="Both sides are cheap elementwise ops, so computing both keeps the whole forward in one graph.",
            patch=BRANCH_PATCH,
            alternatives=["torch.cond(y.sum() > 0, lambda y: y * 2, lambda y: y, (y,))"],
        ),
        ranks={"0": 4},
    )


def _findings() -> list[Finding]:
    return [
        _break_finding(),
        Finding(
            code="RCP001",
            name="shape-recompile",
            severity="warning",
            message="`forward` recompiled 3 times: tensor 'x' size mismatch at index 0",
            fix="Mark dim 0 of x dynamic with torch._dynamo.mark_dynamic",
            path="train.py",
            line=21,
            column=11,
            end_column=19,
            function="step",
            occurrences=3,
            compile_ids=["0/1", "0/2", "0/3"],
            impact=30.0,
            evidence=RecompileEvidence(guard="tensor 'x' size mismatch at index 0", expected="4", actual="8"),
            suggestion=Suggestion(
                title="Mark the batch dimension dynamic",
                why="One dynamic-shape graph serves every batch size.",
                patch_note="the call site passes a fresh tensor; add mark_dynamic where it is created",
            ),
            ranks={"0": 3},
        ),
        Finding(
            code="BRK002",
            name="print-in-graph",
            severity="warning",
            message="print() inside a compiled function splits the graph",
            fix="Remove the print or move it outside the compiled region",
            path="train.py",
            line=16,
            column=9,
            end_column=22,
            function="forward",
            gb_id="GB0093",
            gb_url="https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0093.html",
            occurrences=4,
            compile_ids=["0/0"],
            impact=20.0,
            evidence=BreakEvidence(reason="Unsupported builtin print",
                                   explanation="Dynamo does not know how to trace print.",
                                   hints=["Remove the print statement."]),
            suggestion=Suggestion(title="Remove the print", why="Logging belongs outside the compiled region."),
            ranks={"0": 4},
        ),
        Finding(
            code="BRK003",
            name="library-break",
            severity="warning",
            message="graph break inside a helper whose source was not recorded",
            fix="Wrap the helper with torch.compiler.allow_in_graph",
            path="lib/helpers.py",
            line=7,
            column=5,
            end_column=12,
            function="helper",
            occurrences=1,
            compile_ids=["1/0"],
            impact=8.0,
            library_frame=Frame(path="<site-packages>/numpy/core/fromnumeric.py", line=57, function="_wrapfunc",
                                is_user=False),
            evidence=BreakEvidence(reason="Attempted to call function marked as skipped",
                                   user_stack=[Frame("lib/helpers.py", 7, "helper")]),
        ),
        Finding(
            code="DYN001",
            name="automatic-dynamic",
            severity="info",
            message="automatic dynamic shapes turned on for L['x'] dim 0 after a recompile",
            fix="Call mark_dynamic up front to skip the first specialised compile",
            path="train.py",
            line=11,
            function="forward",
            occurrences=1,
            compile_ids=["0/1"],
            impact=5.0,
        ),
        Finding(
            code="LOW001",
            name="fallback-kernel",
            severity="info",
            message="aten.layer_norm ran as an extern fallback kernel",
            fix="Nothing to do unless this kernel dominates the profile",
            path="train.py",
            line=17,
            column=16,
            end_column=27,
            function="forward",
            occurrences=1,
            compile_ids=["0/0"],
            impact=1.0,
        ),
    ]


def _graphs() -> list[CompiledGraph]:
    def graph(frame_compile_id: int, batch: int) -> CompiledGraph:
        kernels = [
            Kernel(name="extern_kernels.addmm", kind="extern", backend="mkl", fused_nodes=["addmm"],
                   source_lines=[SourceRef("train.py", 12, "y = self.proj(x)")]),
            Kernel(name="triton_poi_fused_relu_0", kind="pointwise", backend="triton", fused_nodes=["relu"],
                   source_lines=[SourceRef("train.py", 13, "y = torch.relu(y)")], code_ref="k0"),
            Kernel(name="triton_per_fused_sum_1", kind="persistent_reduction", backend="triton",
                   fused_nodes=["sum_1", "gt"], source_lines=[SourceRef("train.py", 14, "if y.sum() > 0:")]),
            Kernel(name="aten.native_layer_norm_backward", kind="fallback", backend="aten", graph="backward",
                   fused_nodes=["native_layer_norm_backward"], fallback_reason="explicit (make_fallback)",
                   source_lines=[SourceRef("train.py", 17, "return self.norm(y)")]),
        ]
        return CompiledGraph(
            compile_id=f"0/{frame_compile_id}", frame_id=0, frame_compile_id=frame_compile_id, code_name="forward",
            path="train.py", line=11, op_count=5, node_count=9, input_count=3, guard_count=2,
            guards=[Guard(kind="TENSOR_MATCH", text=f"check_tensor(L['x'], torch.float32, size=[{batch}, 16])",
                          source="def forward(self, x):", path="train.py", line=11),
                    Guard(kind="ID_MATCH", text="___check_obj_id(L['self'], 140230)")],
            compile_time_s=1.5 + frame_compile_id, stages={"dynamo": 0.2, "aot": 0.3, "inductor": 1.0},
            graph_code_ref="fx0", kernels=kernels,
            aot=AotInfo(has_backward=True, saved_tensors=2, forward_nodes=6, backward_nodes=8),
        )

    return [graph(0, 4), graph(1, 8),
            CompiledGraph(compile_id="1/0", frame_id=1, frame_compile_id=0, code_name="step", path="train.py",
                          line=20, status="skipped", fail_reason="graph break in a loop; frame ran eagerly")]


def sample_analysis() -> Analysis:
    """A single-rank run with breaks, recompiles and kernels of every kind."""
    findings = _findings()
    graphs = _graphs()
    failure = GuardFailure(entry="0/0", text="tensor 'x' size mismatch at index 0. expected 4, actual 8", kind="size",
                           subject="x", dim=0, expected="4", actual="8", path="train.py", line=11)
    kinds: dict[str, int] = {}
    for g in graphs:
        for k in g.kernels:
            kinds[k.kind] = kinds.get(k.kind, 0) + 1
    return Analysis(
        run=RunInfo(argv=["train.py"], command="tdiag run train.py", tdiag_version="0.1.0",
                    torch_version="2.13.0", python_version="3.12.3", device="cpu", duration_s=9.5,
                    exit_code=0, exit_reason="exit", complete=True, ranks=[0]),
        summary=Summary(graphs=len(graphs), graph_breaks=9, break_sites=3, recompiles=1, frames_compiled=2,
                        eager_fallbacks=1, compile_time_s=sum(g.compile_time_s for g in graphs),
                        kernels_by_kind=kinds,
                        findings_by_severity={"error": 1, "warning": 3, "info": 2}),
        findings=findings,
        graphs=graphs,
        breaks=[GraphBreak(compile_id="0/0", reason="Data-dependent branching",
                           site=Site("train.py", 14, 12, 23, "forward"), gb_id="GB0170"),
                GraphBreak(compile_id="0/0", reason="Unsupported builtin print",
                           site=Site("train.py", 16, 9, 22, "forward"), gb_id="GB0093")],
        recompiles=[Recompile(compile_id="0/1", frame_id=0, code_name="forward", path="train.py", line=11,
                              failures=[failure], call_site=Site("train.py", 21, 11, 19, "step"))],
        frames=[FrameInfo(frame_id=0, code_name="forward", path="train.py", line=11, variants=["0/0", "0/1"],
                          recompiles=1, automatic_dynamic=["L['x'] dim 0 -> dynamic"]),
                FrameInfo(frame_id=1, code_name="step", path="train.py", line=20, variants=["1/0"],
                          hit_recompile_limit=True)],
        sources={"train.py": TRAIN_PY},
        code={"k0": TRITON_CODE, "fx0": FX_GRAPH},
    )


def empty_analysis() -> Analysis:
    """A clean run: graphs compiled, nothing to report."""
    analysis = sample_analysis()
    analysis.findings = []
    analysis.breaks = []
    analysis.recompiles = []
    analysis.summary.graph_breaks = analysis.summary.recompiles = analysis.summary.break_sites = 0
    analysis.summary.findings_by_severity = {}
    return analysis


def multi_rank_analysis() -> Analysis:
    """Two ranks, one of which recompiled where the other did not."""
    analysis = sample_analysis()
    analysis.run.ranks = [0, 1]
    for finding in analysis.findings:
        finding.ranks = {"0": finding.occurrences, "1": finding.occurrences}
    analysis.findings[1].ranks = {"1": 3}
    analysis.findings.insert(1, Finding(
        code="DIV001", name="rank-divergent-recompile", severity="warning",
        message="rank 1 recompiled `forward` 3 times, rank 0 did not", fix="Give every rank the same input shapes",
        path="train.py", line=21, column=11, end_column=19, function="step", occurrences=3, impact=35.0,
        ranks={"1": 3}))
    return analysis


def broken_record_analysis() -> Analysis:
    """What the analyzer returns for a record cut short: partial data plus the problems it met."""
    analysis = sample_analysis()
    analysis.run.complete = False
    analysis.run.exit_reason = "unknown"
    analysis.run.record_problems = ["line 812: truncated JSON (record cut short)", "line 40: unknown event 'foo'"]
    analysis.sources = {}
    return analysis


def screen_text(app) -> str:
    """The characters on screen, in order, from the app's SVG screenshot (styles dropped)."""
    import html
    import re

    svg = app.export_screenshot()
    pieces = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return html.unescape("".join(pieces)).replace("\xa0", " ")
