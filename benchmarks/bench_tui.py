"""TUI scale benchmark: a 5k-finding Analysis, time to first screen and key-to-render latency through the pilot.

Run with plain python:  python benchmarks/bench_tui.py [--findings N] [--size 120x40]
Key latency is measured as Textual's pilot sees it: from pressing the key until the app is idle again with the
screen repainted, so it includes the pilot's own waiting (compare the "bare app" line).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from tdiag.analyzer.model import (
    Analysis, CompiledGraph, Finding, FrameInfo, GraphBreak, Guard, GuardFailure, Kernel, Recompile, RunInfo, Site,
    SourceRef, Suggestion, Summary,
)

FAMILIES = [("BRK", "data-dependent-branch", "error"), ("BRK", "tensor-item", "warning"),
            ("RCP", "shape-recompile", "warning"), ("DYN", "automatic-dynamic", "info"),
            ("BRK", "print-or-logging", "warning"), ("RCP", "recompile-limit", "error")]
SOURCE_LINE = "    y = torch.where(x.sum(dim={i}) > 0, x * {i}, x) + model.layer{i}(x)  # step {i}\n"


def build_large_analysis(n_findings: int = 5000, n_files: int = 200, seed: int = 0) -> Analysis:
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


async def _press_latencies(pilot, keys) -> list[float]:
    times = []
    for key in keys:
        start = time.perf_counter()
        await pilot.press(key)
        times.append((time.perf_counter() - start) * 1000)
    return times


def _describe(label: str, times: list[float]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return f"{label:<38} median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms   max {times[-1]:6.1f} ms"


async def bench(n_findings: int, size: tuple[int, int]) -> None:
    from textual.app import App

    from tdiag.tui import make_app

    start = time.perf_counter()
    analysis = build_large_analysis(n_findings)
    print(f"built Analysis with {len(analysis.findings)} findings, {len(analysis.breaks)} breaks, "
          f"{len(analysis.graphs)} graphs in {time.perf_counter() - start:.2f} s (not counted below)")

    async with App().run_test(size=size) as pilot:
        bare = await _press_latencies(pilot, ["down"] * 40)
    print(_describe("bare Textual app, key (pilot overhead)", bare))

    start = time.perf_counter()
    app = make_app(analysis)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        print(f"{'time to first screen (overview)':<38} {(time.perf_counter() - start) * 1000:6.1f} ms")
        first = await _press_latencies(pilot, ["2"])
        print(f"{'open Findings (5k-row table)':<38} {first[0]:6.1f} ms")
        print(_describe("scroll findings (down)", await _press_latencies(pilot, ["down"] * 60)))
        print(_describe("page down findings", await _press_latencies(pilot, ["pagedown"] * 20)))
        print(_describe("cycle family filter (f)", await _press_latencies(pilot, ["f"] * 8)))
        print(_describe("cycle severity filter (s)", await _press_latencies(pilot, ["s"] * 8)))
        print(_describe("cycle sort (o)", await _press_latencies(pilot, ["o"] * 10)))
        await pilot.press("slash")
        print(_describe("type in search (refilter 5k)", await _press_latencies(pilot, list("forward_12"))))
        await pilot.press("escape")
        print(_describe("switch screens (3,4,5,1,2)", await _press_latencies(pilot, ["3", "4", "5", "1", "2"] * 2)))
        await pilot.press("5")
        print(_describe("source view: next mark (n)", await _press_latencies(pilot, ["n"] * 40)))
        assert app.screen.id == "source"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=5000)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    asyncio.run(bench(args.findings, (width, height)))


if __name__ == "__main__":
    main()
