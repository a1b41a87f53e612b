"""TUI scale benchmark: a 5k-finding Analysis, time to first screen and key-to-render latency through the pilot.

Run with plain python:  python benchmarks/bench_tui.py [--findings N] [--size 120x40]

Each key is timed three ways:
  raw / net   from the pilot's press until it finds the app idle again. The pilot sleeps in 20 ms slices until one
              passes with under 1 ms of CPU, so this is at least two slices (the bare-app baseline, subtracted to give
              "net") and rounds the app's work up to whole slices.
  first/last  from the press until the first frame the app painted for it (the key's visible response) and until
              the last one (the screen settled: Textual paces frames at 60 fps, so a change that needs a layout
              pass lands a frame or two later, and the Findings detail pane deliberately follows the cursor
              60 ms after it stops). Free of the pilot's slicing.
  CPU         this process's CPU time over the press, less the baseline's: the app's own work, and the figure to
              compare between runs on a shared machine, where wall time mostly measures the neighbours.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# The Analysis comes from the one fixture factory the tests use (tests/fixtures/analysis_factory.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fixtures.analysis_factory import large_analysis  # noqa: E402

FIRST_SCREEN_BUDGET_MS = 1000
KEY_BUDGET_MS = 50


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list)  # ms
    first: list[float] = field(default_factory=list)  # ms from the press to the first frame painted during it
    last: list[float] = field(default_factory=list)  # ms from the press to the last frame painted during it
    cpu: list[float] = field(default_factory=list)  # ms of this process's CPU


class PaintClock:
    """Notes when the app paints frames (App._display is where every frame goes to the driver)."""

    def __init__(self, app) -> None:
        self.first = self.last = 0.0
        display = app._display

        def timed_display(screen, renderable) -> None:
            if renderable is not None:
                self.last = time.perf_counter()
                self.first = self.first or self.last
            display(screen, renderable)

        app._display = timed_display


async def _press_latencies(pilot, keys, clock: PaintClock | None = None) -> Timings:
    timings = Timings()
    for key in keys:
        if clock is not None:
            clock.first = 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press(key)
        timings.wall.append((time.perf_counter() - wall) * 1000)
        timings.cpu.append((time.process_time() - cpu) * 1000)
        if clock is not None:
            timings.first.append(max(0.0, clock.first - wall) * 1000)
            timings.last.append(max(0.0, clock.last - wall) * 1000)
    return timings


def _stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


class Report:
    def __init__(self, baseline: Timings) -> None:
        self.base_wall, _ = _stats(baseline.wall)
        self.base_cpu, _ = _stats(baseline.cpu)
        self.first_over: list[str] = []
        self.last_over: list[str] = []

    def line(self, label: str, timings: Timings) -> None:
        wall_med, wall_p95 = _stats(timings.wall)
        first_med, first_p95 = _stats(timings.first)
        last_med, last_p95 = _stats(timings.last)
        cpu_med, cpu_p95 = _stats(timings.cpu)
        net_med, net_p95 = wall_med - self.base_wall, wall_p95 - self.base_wall
        columns = (wall_med, wall_p95, net_med, net_p95, first_med, first_p95, last_med, last_p95,
                   cpu_med - self.base_cpu, cpu_p95 - self.base_cpu)
        print(f"{label:<30}" + "".join(f" {a:5.0f} {b:5.0f} " for a, b in zip(columns[::2], columns[1::2])))
        if first_p95 > KEY_BUDGET_MS:
            self.first_over.append(f"{label} ({first_p95:.0f} ms)")
        if last_p95 > KEY_BUDGET_MS:
            self.last_over.append(f"{label} ({last_p95:.0f} ms)")


async def bench(n_findings: int, size: tuple[int, int]) -> None:
    from tdiag.tui import make_app
    from textual.app import App

    start = time.perf_counter()
    analysis = large_analysis(n_findings)
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
    clock = PaintClock(app)
    async with app.run_test(size=size) as pilot:
        first_paint = (clock.last - wall) * 1000
        await pilot.pause()
        first_wall, first_cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
        print(f"first screen (overview, index built): painted at {first_paint:.0f} ms; idle at {first_wall:.0f} ms "
              f"wall, {first_cpu:.0f} ms CPU  (budget {FIRST_SCREEN_BUDGET_MS} ms)")
        print(f"{'action (ms)':<30}" + "".join(f" {title:^11} " for title in
                                                ("raw", "net of pilot", "first paint", "last paint", "app CPU")))
        print(f"{'':<30}" + f" {'med':>5} {'p95':>5} " * 5)

        async def measure(label: str, keys: list[str]) -> None:
            report.line(label, await _press_latencies(pilot, keys, clock))

        await measure("open Findings (first visit)", ["2"])
        await measure("scroll findings (down)", ["down"] * 60)
        await measure("page down findings", ["pagedown"] * 20)
        await measure("cycle family filter (f)", ["f"] * 8)
        await measure("cycle severity filter (s)", ["s"] * 8)
        await measure("cycle sort (o)", ["o"] * 10)
        await pilot.press("slash")
        await measure("type in search (refilter 5k)", list("forward_12"))
        await pilot.press("escape")
        await measure("first visit 3,4,5", ["3", "4", "5"])
        await measure("switch screens (1-5, built)", ["1", "2", "3", "4", "5"] * 2)
        await measure("source view: next mark (n)", ["n"] * 40)
        assert app.screen.id == "source"
    print(f"first screen within {FIRST_SCREEN_BUDGET_MS} ms: {'yes' if first_wall <= FIRST_SCREEN_BUDGET_MS else 'NO'}")
    for what, over in (("first paint", report.first_over), ("last paint", report.last_over)):
        print(f"{what} within {KEY_BUDGET_MS} ms at p95 for every action: "
              + ("yes" if not over else "NO: " + "; ".join(over)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=5000)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    asyncio.run(bench(args.findings, (width, height)))


if __name__ == "__main__":
    main()
