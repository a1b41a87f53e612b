"""Size and speed of the single-file HTML report (plain python: ``.venv/bin/python benchmarks/bench_html.py``).

Targets (issue 6): beyond the inlined plotly.js, at most 1 MB for a run with 1k findings; a run the size of a
100k-event record renders in under 2 s. Prints the figures and whether each meets its budget; asserts nothing.
"""

from __future__ import annotations

import random
import sys
import time

from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.model import (
    Analysis,
    AotInfo,
    CompiledGraph,
    Finding,
    Frame,
    FrameInfo,
    Guard,
    GuardFailure,
    Kernel,
    Recompile,
    RunInfo,
    SourceRef,
    Suggestion,
    Summary,
)
from tdiag.reports.html import render_html
from tdiag.reports.html.render import plotly_js

RULES = [("BRK001", "data-dependent-branch", "error"), ("BRK002", "tensor-item", "warning"),
         ("RCP001", "shape-recompile", "warning"), ("DYN001", "automatic-dynamic", "info")]


def _source(lines: int) -> str:
    return "".join(f"    y{i} = model.layer{i}(x).relu().sum() * {i}  # step {i}\n" for i in range(lines))


def make(findings: int, graphs: int, kernels_per_graph: int, guards_per_graph: int, files: int, file_lines: int,
         code_texts: int, code_bytes: int) -> Analysis:
    rng = random.Random(0)
    paths = [f"pkg/module_{i}.py" for i in range(files)]
    sources = {p: _source(file_lines) for p in paths}
    code = {f"h{i:06d}": "x" * code_bytes for i in range(code_texts)}
    refs = list(code)
    out = []
    for i in range(findings):
        code_, name, sev = RULES[i % len(RULES)]
        path, line = paths[i % files], 1 + (i * 7) % file_lines
        out.append(Finding(
            code=code_, name=name, severity=sev, message=f"{name} at step {i} splits the graph",
            fix="Use torch.where instead of a Python branch", path=path, line=line, column=5, end_column=20,
            function=f"forward_{i % 50}", gb_id="GB0170",
            gb_url="https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html",
            occurrences=rng.randint(1, 9), compile_ids=[f"{i % 40}/0"], impact=float(findings - i),
            evidence=BreakEvidence(reason="Data-dependent branching", explanation="Detected data-dependent branching.",
                                   hints=["Use torch.cond to express dynamic control flow."],
                                   user_stack=[Frame(path, line, f"forward_{i % 50}", "y = model(x)")]),
            suggestion=Suggestion(title="Replace the branch with torch.where",
                                  why="Computing both sides keeps one graph.",
                                  patch=f"--- a/{path}\n+++ b/{path}\n@@ -{line},1 +{line},1 @@\n"
                                        f"-    if y.sum() > 0: y = y * 2\n+    y = torch.where(y.sum() > 0, y * 2, y)\n"),
        ))
    compiled = []
    for g in range(graphs):
        frame = g % max(1, graphs // 4)
        compiled.append(CompiledGraph(
            compile_id=f"{frame}/{g // max(1, graphs // 4)}", frame_id=frame, frame_compile_id=g // max(1, graphs // 4),
            code_name=f"forward_{frame}", path=paths[frame % files], line=1 + frame % file_lines,
            op_count=rng.randint(1, 400), node_count=400, guard_count=guards_per_graph,
            guards=[Guard("TENSOR_MATCH", f"check_tensor(L['x{j}'], Tensor, torch.float32, size=[8, 16])")
                    for j in range(guards_per_graph)],
            compile_time_s=rng.random(), stages={"dynamo": 0.1, "aot": 0.2, "inductor": 0.3},
            start_time=float(g), output_code_refs={"forward": refs[g % len(refs)]} if refs else {},
            kernels=[Kernel(name=f"triton_poi_fused_add_{k}", kind=("pointwise", "reduction", "extern")[k % 3],
                            backend="triton", fused_nodes=[f"add_{k}", f"mul_{k}"],
                            source_lines=[SourceRef(paths[0], 1 + k % file_lines)],
                            code_ref=refs[(g + k) % len(refs)] if refs else None)
                     for k in range(kernels_per_graph)],
            aot=AotInfo(has_backward=True, forward_nodes=200, backward_nodes=300),
        ))
    recompiles = [Recompile(compile_id=c.compile_id, frame_id=c.frame_id, code_name=c.code_name, path=c.path,
                            line=c.line, failures=[GuardFailure("0/0", "tensor 'x' size mismatch at index 0", "size")])
                  for c in compiled if c.frame_compile_id > 0]
    frames = {c.frame_id: FrameInfo(c.frame_id, c.code_name, c.path, c.line) for c in compiled}
    return Analysis(
        run=RunInfo(command="tdiag run bench.py", torch_version="2.13.0", device="cpu", complete=True),
        summary=Summary(graphs=graphs, graph_breaks=findings, recompiles=len(recompiles),
                        kernels_by_kind={"pointwise": graphs * kernels_per_graph}),
        findings=out, graphs=compiled, recompiles=recompiles, frames=list(frames.values()), sources=sources,
        code=code,
    )


SIZE_BUDGET_MB = 1.0  # beyond plotly.js, 1k findings
TIME_BUDGET_S = 2.0  # 100k-event record


def measure(label: str, analysis: Analysis, repeat: int = 3) -> tuple[float, float]:
    render_html(analysis)  # warm: templates compiled, plotly.js read
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        html = render_html(analysis)
        best = min(best, time.perf_counter() - start)
    beyond = len(html.encode()) - len(plotly_js().encode())
    print(f"{label:<44} {len(analysis.findings):>6} findings {len(analysis.graphs):>5} graphs "
          f"{sum(len(g.kernels) for g in analysis.graphs):>6} kernels  "
          f"beyond plotly.js {beyond / 1e6:6.3f} MB  render {best:5.2f} s")
    return beyond / 1e6, best


def main() -> int:
    print(f"plotly.js inlined once: {len(plotly_js().encode()) / 1e6:.2f} MB")
    # 1k findings over 20 files of 200 lines, a modest number of graphs
    size, _ = measure("1k findings", make(1000, 40, 10, 20, 20, 200, 40, 2000))
    # ~100k events: 2k compiles x (1 start + 1 metrics + 20 kernels + 25 guards) + 1k breaks + recompiles
    _, seconds = measure("100k-event record", make(1000, 2000, 20, 25, 50, 400, 500, 4000))
    print(f"budget: 1k findings {size:.3f} MB <= {SIZE_BUDGET_MB} MB: {'met' if size <= SIZE_BUDGET_MB else 'MISSED'}")
    print(f"budget: 100k-event render {seconds:.2f} s < {TIME_BUDGET_S} s (best of 3): "
          f"{'met' if seconds < TIME_BUDGET_S else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
