"""A deterministic Analysis for the HTML tests: no absolute paths, no timestamps, and hostile strings everywhere a
run can put text (function names, source and comments, reasons, guards, generated code)."""

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

SCRIPT_PAYLOAD = "</script><script>alert(1)</script>"
PLOTLY_STUB = "/* plotly.js */"  # structure and golden tests do not need the 4.8 MB bundle
IMG_PAYLOAD = '<img src=x onerror="alert(2)">'
EVIL_FN = f"evil{IMG_PAYLOAD}"

TRAIN = """\
import torch


def step(x, k):
    y = x.sin()
    if y.sum() > 0:  # data-dependent branch
        y = y * 2
    print("step", k)
    return y.cos()


def {evil}(x):
    # comment: {script}
    s = "{img}"
    return x + len(s)


model = torch.compile(step)
""".format(evil=EVIL_FN.replace('"', "'"), script=SCRIPT_PAYLOAD, img=IMG_PAYLOAD.replace('"', "'"))

UTILS = """\
def helper(t):
    return t.item()
"""

PATCH = """\
--- a/train.py
+++ b/train.py
@@ -5,4 +5,4 @@
     y = x.sin()
-    if y.sum() > 0:  # data-dependent branch
-        y = y * 2
+    y = torch.where(y.sum() > 0, y * 2, y)
     print("step", k)
"""

KERNEL_CODE = f"""\
@triton.jit
def triton_poi_fused_sin_0(in_ptr0, out_ptr0, xnumel):
    # {SCRIPT_PAYLOAD}
    tmp0 = tl.load(in_ptr0 + xindex)
    tl.store(out_ptr0 + xindex, tl.sin(tmp0))
"""

OUTPUT_CODE = f"""\
def call(args):
    # generated; {IMG_PAYLOAD}
    buf0 = empty_strided((4,), (1,))
    triton_poi_fused_sin_0.run(arg0_1, buf0, 4)
    return (buf0,)
"""

FX_GRAPH = """\
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        sin = torch.sin(L_x_)
        sum_1 = sin.sum()
        gt = sum_1 > 0
        return (sin, gt)
"""


def _stack() -> list[Frame]:
    return [
        Frame("train.py", 20, "<module>", "model(torch.randn(4), 0)"),
        Frame("train.py", 6, "step", "if y.sum() > 0:  # data-dependent branch"),
    ]


def make_analysis(ranks: list[int] | None = None) -> Analysis:
    ranks = ranks or []
    multi = len(ranks) > 1
    findings = [
        Finding(
            code="BRK001",
            name="data-dependent-branch",
            severity="error",
            message="Branching on a tensor value splits the graph in two",
            fix="Use torch.where or torch.cond instead of a Python if",
            path="train.py",
            line=6,
            column=8,
            end_column=19,
            function="step",
            gb_id="GB0170",
            gb_url="https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html",
            occurrences=3,
            compile_ids=["0/0", "1/0"],
            impact=10.0,
            evidence=BreakEvidence(
                reason="Data-dependent branching",
                explanation=f"Detected data-dependent branching {SCRIPT_PAYLOAD}",
                hints=["Use `torch.cond` to express dynamic control flow.", IMG_PAYLOAD],
                user_stack=_stack(),
            ),
            suggestion=Suggestion(
                title="Replace the branch with torch.where",
                why="Both branches are cheap elementwise ops, so computing both keeps one graph.",
                patch=PATCH,
                alternatives=["torch.cond(y.sum() > 0, double, identity, (y,))"],
            ),
            ranks={"0": 3, "1": 3} if multi else {},
        ),
        Finding(
            code="RCP001",
            name="recompile-on-size",
            severity="warning",
            message=f"step recompiled 2 times because {IMG_PAYLOAD} changed size",
            fix="Mark the dimension dynamic with torch._dynamo.mark_dynamic(x, 0)",
            path="train.py",
            line=4,
            function="step",
            occurrences=2,
            compile_ids=["0/1", "0/2"],
            impact=5.0,
            evidence=RecompileEvidence(guard="tensor 'x' size mismatch at index 0", expected="4", actual="8"),
            suggestion=Suggestion(
                title="Mark x dynamic",
                why="One dynamic graph replaces one graph per size.",
                patch_note="No patch: the call site is in library code.",
            ),
            ranks={"0": 2} if multi else {},
        ),
        Finding(
            code="BRK002",
            name="print-in-graph",
            severity="info",
            message=f"print() in {EVIL_FN} forces a graph break",
            fix="Remove the print or move it out of the compiled region",
            path="utils.py",
            line=2,
            column=12,
            end_column=20,
            function=EVIL_FN,
            gb_url="javascript:alert(3)",
            gb_id="GB0001",
            impact=1.0,
        ),
    ]
    if multi:
        findings.append(
            Finding(
                code="DIV001",
                name="rank-divergent-recompile",
                severity="error",
                message="Rank 1 recompiled step where rank 0 did not",
                fix="Make the input shapes agree across ranks",
                path="train.py",
                line=4,
                function="step",
                occurrences=1,
                ranks={"0": 0, "1": 1},
                impact=8.0,
            )
        )
        findings.sort(key=lambda f: -f.impact)
    kernels = [
        Kernel(
            name="triton_poi_fused_sin_0",
            kind="pointwise",
            backend="triton",
            fused_nodes=["sin", "mul"],
            source_lines=[SourceRef("train.py", 5, "y = x.sin()")],
            code_ref="k1",
        ),
        Kernel(name="triton_red_fused_sum_1", kind="reduction", backend="triton", fused_nodes=["sum_1"], code_ref="k1"),
        Kernel(
            name="aten.nonzero",
            kind="fallback",
            backend="aten",
            fallback_reason=f"no lowering for {SCRIPT_PAYLOAD}",
        ),
        Kernel(name="triton_poi_fused_cos_0", kind="pointwise", backend="triton", graph="backward"),
    ]
    graphs = [
        CompiledGraph(
            compile_id="0/0", frame_id=0, frame_compile_id=0, code_name="step", path="train.py", line=4,
            op_count=3, node_count=6, input_count=1, guard_count=2,
            guards=[
                Guard("TENSOR_MATCH", "check_tensor(L['x'], Tensor, torch.float32, size=[4])", "y = x.sin()",
                      "train.py", 5),
                Guard("EQUALS_MATCH", f"L['k'] == '{SCRIPT_PAYLOAD}'"),
            ],
            compile_time_s=1.5, stages={"dynamo": 0.3, "aot": 0.4, "inductor": 0.6}, cache={"fx_graph": "miss"},
            start_time=100.0, graph_code_ref="fx0", output_code_refs={"forward": "out0"}, kernels=kernels,
            aot=AotInfo(has_backward=True, saved_tensors=1, forward_nodes=6, backward_nodes=4),
        ),
        CompiledGraph(
            compile_id="1/0", frame_id=1, frame_compile_id=0, code_name="torch_dynamo_resume_in_step_at_6",
            path="train.py", line=6, op_count=1, compile_time_s=0.4, stages={"dynamo": 0.1, "inductor": 0.2},
            start_time=101.0,
        ),
        CompiledGraph(
            compile_id="0/1", frame_id=0, frame_compile_id=1, code_name="step", path="train.py", line=4,
            op_count=3, compile_time_s=1.1, stages={"dynamo": 0.2, "inductor": 0.7}, start_time=102.5,
        ),
        CompiledGraph(
            compile_id="2/0", frame_id=2, frame_compile_id=0, code_name=EVIL_FN, path="train.py", line=12,
            status="failed", fail_type="Unsupported", fail_reason=IMG_PAYLOAD, compile_time_s=0.2, start_time=103.0,
        ),
    ]
    recompiles = [
        Recompile(
            compile_id="0/1", frame_id=0, code_name="step", path="train.py", line=4,
            failures=[GuardFailure("0/0", "tensor 'x' size mismatch at index 0. expected 4, actual 8", "size",
                                   subject="x", dim=0, expected="4", actual="8")],
            call_site=Site("train.py", 20),
        )
    ]
    return Analysis(
        run=RunInfo(
            argv=["train.py", "--epochs", "1"],
            command=f"tdiag run train.py --tag '{SCRIPT_PAYLOAD}'",
            tdiag_version="0.1.0",
            torch_version="2.13.0",
            python_version="3.12.3",
            device="cpu",
            platform="linux",
            exit_code=0,
            exit_reason="exit",
            complete=True,
            ranks=ranks,
            notes=[f"break-site hook unavailable {IMG_PAYLOAD}"],
        ),
        summary=Summary(
            graphs=len(graphs), graph_breaks=3, break_sites=2, recompiles=1, frames_compiled=3, eager_fallbacks=1,
            compile_time_s=sum(g.compile_time_s for g in graphs),
            kernels_by_kind={"pointwise": 2, "reduction": 1, "fallback": 1},
            findings_by_severity={"error": 1, "warning": 1, "info": 1},
        ),
        findings=findings,
        graphs=graphs,
        breaks=[GraphBreak("0/0", "Data-dependent branching", Site("train.py", 6, 8, 19, "step"), gb_id="GB0170")],
        recompiles=recompiles,
        frames=[
            FrameInfo(0, "step", "train.py", 4, variants=["0/0", "0/1"], recompiles=1,
                      automatic_dynamic=["L['x'] dim 0 -> dynamic"]),
            FrameInfo(1, "torch_dynamo_resume_in_step_at_6", "train.py", 6, variants=["1/0"]),
            FrameInfo(2, EVIL_FN, "train.py", 12, variants=["2/0"]),
        ],
        sources={"train.py": TRAIN, "utils.py": UTILS},
        code={"k1": KERNEL_CODE, "out0": OUTPUT_CODE, "fx0": FX_GRAPH, "unused": "never referenced"},
    )


def make_many(count: int) -> Analysis:
    """The fixture with ``count`` findings: more than the page server-renders, so the rest are built by its script.
    Each extra finding has a unique message and patch; many share a line, so their anchors take suffixes."""
    import dataclasses

    analysis = make_analysis()
    base = analysis.findings
    lines = TRAIN.splitlines()
    extra = []
    for i in range(len(base), count):
        f = base[i % len(base)]
        line = 1 + i % len(lines)
        suggestion = f.suggestion and dataclasses.replace(
            f.suggestion, patch=f.suggestion.patch and f.suggestion.patch.replace("torch.where", f"torch.where_{i}")
        )
        extra.append(dataclasses.replace(
            f, path="train.py", line=line, message=f"finding number {i} {f.message}", impact=-float(i),
            suggestion=suggestion,
        ))
    analysis.findings = base + extra
    return analysis
