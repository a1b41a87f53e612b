"""Size and speed of the single-file HTML report (plain python: ``.venv/bin/python benchmarks/bench_html.py``).

Targets: issue 6, beyond plotly.js at most 1 MB for a run with 1k findings and a 100k-event-sized analysis renders in
under 2 s; issue 16, the whole page (plotly.js included, stored packed) at most 2.5 MB for the 1k-findings page and a
GPT-2-sized training run, and in headless chromium (playwright, when installed) first paint within 1.5 s and a usable
findings list (data inflated, filters live: ``performance.mark("tdiag:findings")``) within 3 s for the 1k-findings
page. Prints the figures and whether each meets its budget; asserts nothing.
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
from tdiag.reports.html.render import plotly_js, plotly_packed, render

RULES = [("BRK001", "data-dependent-branch", "error"), ("BRK002", "tensor-item", "warning"),
         ("RCP001", "shape-recompile", "warning"), ("DYN001", "automatic-dynamic", "info")]


def _source(lines: int) -> str:
    return "".join(f"    y{i} = model.layer{i}(x).relu().sum() * {i}  # step {i}\n" for i in range(lines))


def _generated_code(rng: random.Random, size: int) -> str:
    """Text shaped like Inductor's output code (buffers, kernel calls, shapes): it compresses like real code does,
    unlike a repeated character."""
    lines = []
    while sum(map(len, lines)) < size:
        a, b, n = rng.randint(1, 4096), rng.randint(1, 4096), rng.randint(0, 999)
        lines.append(rng.choice((
            f"    buf{n} = empty_strided_cpu(({a}, {b}), ({b}, 1), torch.float32)\n",
            f"    cpp_fused_add_mul_relu_{n}(buf{n}, primals_{a % 97}, buf{b % 500}, {a * b}L)\n",
            f"    extern_kernels.mm(reinterpret_tensor(buf{n}, ({a}, {b}), ({b}, 1), 0), primals_{b % 61}, "
            f"out=buf{a})\n",
            f"            auto tmp{n} = at::vec::Vectorized<float>::loadu(in_ptr0 + "
            f"static_cast<int64_t>(x0 + {a}L*x1), {b % 16});\n",
            f"    del buf{n}\n",
        )))
    return "".join(lines)


def make(findings: int, graphs: int, kernels_per_graph: int, guards_per_graph: int, files: int, file_lines: int,
         code_texts: int, code_bytes: int) -> Analysis:
    rng = random.Random(0)
    paths = [f"pkg/module_{i}.py" for i in range(files)]
    sources = {p: _source(file_lines) for p in paths}
    code = {f"h{i:06d}": _generated_code(rng, code_bytes) for i in range(code_texts)}
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


SIZE_BUDGET_MB = 1.0  # beyond plotly.js, 1k findings (issue 6)
TIME_BUDGET_S = 2.0  # 100k-event record
PAGE_BUDGET_MB = 2.5  # the whole page (issue 16)
FIRST_PAINT_BUDGET_S = 1.5
FINDINGS_BUDGET_S = 3.0
CHROMIUM = "/usr/bin/chromium"


def gpt2_sized() -> Analysis:
    """Shaped like a GPT-2 (124M) training run under Inductor: a few findings, forward and backward graphs with
    hundreds of kernels each, about a megabyte of generated code."""
    return make(findings=12, graphs=6, kernels_per_graph=180, guards_per_graph=160, files=4, file_lines=900,
                code_texts=24, code_bytes=45_000)


def measure(label: str, analysis: Analysis, repeat: int = 3) -> tuple[str, float]:
    html = render_html(analysis)  # warm: templates compiled, plotly.js read and packed
    best = best_cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        html = render_html(analysis)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)  # what a busy machine does not inflate
    size = len(html.encode())
    print(f"{label:<28} {len(analysis.findings):>6} findings {len(analysis.graphs):>5} graphs "
          f"{sum(len(g.kernels) for g in analysis.graphs):>6} kernels {len(analysis.code):>5} code texts  "
          f"page {size / 1e6:6.3f} MB  render {best:5.2f} s wall, {best_cpu:5.2f} s CPU")
    return html, best_cpu


def browser_timings(html: str, runs: int = 3) -> tuple[float, float, float] | None:
    """Median (first contentful paint, findings usable, charts drawn) in seconds from navigation start."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed: no browser timings")
        return None
    import statistics
    import tempfile
    from pathlib import Path

    samples = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        path = Path(tmp) / "report.html"
        path.write_text(html, encoding="utf-8")
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(path.as_uri())
            page.wait_for_function("() => document.documentElement.dataset.ready === 'charts'", timeout=120_000)
            samples.append(page.evaluate("""() => [
                performance.getEntriesByName("first-contentful-paint")[0].startTime,
                performance.getEntriesByName("tdiag:findings")[0].startTime,
                performance.getEntriesByName("tdiag:charts")[0].startTime].map(ms => ms / 1000)"""))
            page.close()
        browser.close()
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def main() -> int:
    packed = len(plotly_packed()[1].encode())
    print(f"plotly.js: {len(plotly_js().encode()) / 1e6:.2f} MB, stored packed: {packed / 1e6:.2f} MB")
    # 1k findings over 20 files of 200 lines, a modest number of graphs
    thousand = make(1000, 40, 10, 20, 20, 200, 40, 2000)
    html_1k, _ = measure("1k findings", thousand)
    gpt2_html, _ = measure("GPT-2-sized training run", gpt2_sized())
    # ~100k events: 2k compiles x (1 start + 1 metrics + 20 kernels + 25 guards) + 1k breaks + recompiles
    _, seconds = measure("100k-event record", make(1000, 2000, 20, 25, 50, 400, 500, 4000))
    beyond = (len(render(thousand, compress=False).encode()) - len(plotly_js().encode())) / 1e6
    print(f"budget: 1k findings {beyond:.3f} MB beyond plotly.js, unpacked <= {SIZE_BUDGET_MB} MB: "
          f"{_met(beyond <= SIZE_BUDGET_MB)}")
    print(f"budget: 100k-event render {seconds:.2f} s CPU < {TIME_BUDGET_S} s (best of 3): "
          f"{_met(seconds < TIME_BUDGET_S)}")
    for label, html in (("1k findings", html_1k), ("GPT-2-sized run", gpt2_html)):
        size = len(html.encode()) / 1e6
        print(f"budget: {label} page {size:.2f} MB <= {PAGE_BUDGET_MB} MB: {_met(size <= PAGE_BUDGET_MB)}")
    timings = browser_timings(html_1k)
    if timings:
        paint, findings, charts = timings
        print(f"browser (1k findings, median of 3): first paint {paint:.2f} s, findings usable {findings:.2f} s, "
              f"charts drawn {charts:.2f} s")
        print(f"budget: first paint {paint:.2f} s <= {FIRST_PAINT_BUDGET_S} s: {_met(paint <= FIRST_PAINT_BUDGET_S)}")
        print(f"budget: findings usable {findings:.2f} s <= {FINDINGS_BUDGET_S} s: "
              f"{_met(findings <= FINDINGS_BUDGET_S)}")
    return 0


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    sys.exit(main())
