"""TUI scale benchmark: a 5k-finding Analysis, time to first screen and key-to-render latency through the pilot.

Run with plain python:  python benchmarks/bench_tui.py [--findings N] [--size 120x40]

Each key is timed from the pilot's press until the app is idle again with the screen repainted. The pilot itself
sleeps at least two 20 ms slices per key (``wait_for_idle``), so every figure is printed raw and net of that baseline,
measured on a bare Textual app. Wall time on a shared machine mostly measures the neighbours; CPU time (this
process only, and the app runs in this process) is the figure to compare between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field

from tdiag.analyzer.model import (
    Analysis, CompiledGraph, Finding, FrameInfo, GraphBreak, Guard, GuardFailure, Kernel, Recompile, RunInfo, Site,
    SourceRef, Suggestion, Summary,
)

FAMILIES = [("BRK", "data-dependent-branch", "error"), ("BRK", "tensor-item", "warning"),
            ("RCP", "shape-recompile", "warning"), ("DYN", "automatic-dynamic", "info"),
            ("BRK", "print-or-logging", "warning"), ("RCP", "recompile-limit", "error")]
SOURCE_LINE = "    y = torch.where(x.sum(dim={i}) > 0, x * {i}, x) + model.layer{i}(x)  # step {i}\n"
FIRST_SCREEN_BUDGET_MS = 1000
KEY_BUDGET_MS = 50


def build_large_analysis(n_findings: int = 5000, n_files: int = 200, seed: int = 0) -> Analysis:
    """``n_findings`` findings and as many graph breaks, 500 graphs of 8 kernels: about 100k recorded events."""
    rng = random.Random(seed)
    sources = {f"pkg/module_{f:03d}.py": "".join(SOURCE_LINE.format(i=i) for i in range(400)) for f in range(n_files)}
    paths = list(sources)
    findings = []
    for i in range(n_findings):
        family, name, severity = FAMILIES[i % len(FAMILIES)]
        path, line = rng.choice(paths), rng.randint(1, 400)
        findings.append(Finding(
            code=f"{family}{1 + i % 6:03d}", name=name, severity=severity,
            message=f"{name.replace('-', ' ')} in forward_{i} splits the graph (call {i})",
            fix="Use torch.where instead", path=path, line=line, column=5, end_column=30, function=f"forward_{i}",
            gb_id="GB0170", gb_url="https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html",
            occurrences=rng.randint(1, 50), compile_ids=[f"{i}/{k}" for k in range(3)], impact=float(n_findings - i),
            evidence={"reason": "Data-dependent branching", "explanation": "Dynamo cannot trace dynamic control flow.",
                      "hints": ["Use torch.cond."], "user_stack": [
                          {"path": path, "line": max(1, line - 3), "function": "step", "code": None},
                          {"path": path, "line": line, "function": f"forward_{i}", "code": None}]},
            suggestion=Suggestion(title="Use torch.where", why="keeps one graph",
                                  patch=f"--- a/{path}\n+++ b/{path}\n@@ -{line} +{line} @@\n-    if x:\n+    x = w\n"),
            ranks={"0": 1},
        ))
    graphs, recompiles, frames = [], [], []
    for g in range(500):
        path = paths[g % n_files]
        kernels = [Kernel(name=f"triton_poi_fused_{g}_{k}", kind=("pointwise", "reduction", "extern")[k % 3],
                          backend="triton", fused_nodes=[f"add_{k}", f"mul_{k}"],
                          source_lines=[SourceRef(path, 1 + (g + k) % 400)]) for k in range(8)]
        graphs.append(CompiledGraph(compile_id=f"{g // 5}/{g % 5}", frame_id=g // 5, frame_compile_id=g % 5,
                                    code_name=f"forward_{g // 5}", path=path, line=1 + g % 400, op_count=40,
                                    guards=[Guard("TENSOR_MATCH", f"check_tensor(L['x'], size=[{g}, 16])")] * 20,
                                    compile_time_s=0.5, kernels=kernels))
        if g % 5:
            recompiles.append(Recompile(compile_id=f"{g // 5}/{g % 5}", frame_id=g // 5, code_name=f"forward_{g // 5}",
                                        path=path, line=1, failures=[GuardFailure(
                                            entry=f"{g // 5}/{g % 5 - 1}", text="size mismatch", kind="size",
                                            expected="4", actual="8")], call_site=Site(path, 2)))
    for fid in range(100):
        frames.append(FrameInfo(frame_id=fid, code_name=f"forward_{fid}", path=paths[fid % n_files], line=1,
                                variants=[f"{fid}/{k}" for k in range(5)], recompiles=4, hit_recompile_limit=fid % 7 == 0))
    breaks = [GraphBreak(compile_id=f.compile_ids[0], reason="Data-dependent branching",
                         site=Site(f.path, f.line, 5, 30)) for f in findings[: n_findings * 2]]
    return Analysis(
        run=RunInfo(command="tdiag run big.py", torch_version="2.13", device="cpu", complete=True, ranks=[0]),
        summary=Summary(graphs=len(graphs), graph_breaks=len(breaks), break_sites=len(findings),
                        recompiles=len(recompiles), frames_compiled=len(frames), compile_time_s=250.0,
                        kernels_by_kind={"pointwise": 1400, "reduction": 1300, "extern": 1300},
                        findings_by_severity={"error": 1667, "warning": 2500, "info": 833}),
        findings=findings, graphs=graphs, breaks=breaks, recompiles=recompiles, frames=frames, sources=sources,
    )


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list)  # ms
    cpu: list[float] = field(default_factory=list)  # ms of this process's CPU


async def _press_latencies(pilot, keys) -> Timings:
    timings = Timings()
    for key in keys:
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press(key)
        timings.wall.append((time.perf_counter() - wall) * 1000)
        timings.cpu.append((time.process_time() - cpu) * 1000)
    return timings


def _stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


class Report:
    def __init__(self, baseline: Timings) -> None:
        self.base_wall, _ = _stats(baseline.wall)
        self.base_cpu, _ = _stats(baseline.cpu)
        self.over_budget: list[str] = []

    def line(self, label: str, timings: Timings) -> None:
        wall_med, wall_p95 = _stats(timings.wall)
        cpu_med, cpu_p95 = _stats(timings.cpu)
        net_med, net_p95 = wall_med - self.base_wall, wall_p95 - self.base_wall
        print(f"{label:<32} {wall_med:7.1f} {wall_p95:7.1f}   {net_med:7.1f} {net_p95:7.1f}   "
              f"{cpu_med - self.base_cpu:7.1f} {cpu_p95 - self.base_cpu:7.1f}")
        if net_p95 > KEY_BUDGET_MS:
            self.over_budget.append(f"{label} (net p95 {net_p95:.0f} ms)")


async def bench(n_findings: int, size: tuple[int, int]) -> None:
    from textual.app import App

    from tdiag.tui import make_app

    start = time.perf_counter()
    analysis = build_large_analysis(n_findings)
    print(f"built Analysis with {len(analysis.findings)} findings, {len(analysis.breaks)} breaks, "
          f"{len(analysis.graphs)} graphs in {time.perf_counter() - start:.2f} s (not counted below)")

    async with App().run_test(size=size) as pilot:
        await pilot.pause()
        baseline = await _press_latencies(pilot, ["down"] * 40)
    report = Report(baseline)
    print(f"pilot baseline (bare Textual app): median {report.base_wall:.1f} ms wall, {report.base_cpu:.1f} ms CPU "
          "per key; 'net' figures below subtract these medians")

    wall, cpu = time.perf_counter(), time.process_time()
    app = make_app(analysis)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        first_wall, first_cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
        print(f"first screen (overview, index built): {first_wall:.0f} ms wall, {first_cpu:.0f} ms CPU  "
              f"(budget {FIRST_SCREEN_BUDGET_MS} ms)")
        print(f"{'action':<32} {'raw ms':>15}   {'net of pilot':>15}   {'app CPU ms':>15}")
        print(f"{'':<32} {'median':>7} {'p95':>7}   {'median':>7} {'p95':>7}   {'median':>7} {'p95':>7}")
        report.line("open Findings (first visit)", await _press_latencies(pilot, ["2"]))
        report.line("scroll findings (down)", await _press_latencies(pilot, ["down"] * 60))
        report.line("page down findings", await _press_latencies(pilot, ["pagedown"] * 20))
        report.line("cycle family filter (f)", await _press_latencies(pilot, ["f"] * 8))
        report.line("cycle severity filter (s)", await _press_latencies(pilot, ["s"] * 8))
        report.line("cycle sort (o)", await _press_latencies(pilot, ["o"] * 10))
        await pilot.press("slash")
        report.line("type in search (refilter 5k)", await _press_latencies(pilot, list("forward_12")))
        await pilot.press("escape")
        report.line("first visit 3,4,5", await _press_latencies(pilot, ["3", "4", "5"]))
        report.line("switch screens (1-5, built)", await _press_latencies(pilot, ["1", "2", "3", "4", "5"] * 2))
        report.line("source view: next mark (n)", await _press_latencies(pilot, ["n"] * 40))
        assert app.screen.id == "source"
    print(f"first screen within {FIRST_SCREEN_BUDGET_MS} ms: {'yes' if first_wall <= FIRST_SCREEN_BUDGET_MS else 'NO'}")
    print(f"every action within {KEY_BUDGET_MS} ms net p95: "
          + ("yes" if not report.over_budget else "NO: " + "; ".join(report.over_budget)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=5000)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    asyncio.run(bench(args.findings, (width, height)))


if __name__ == "__main__":
    main()
