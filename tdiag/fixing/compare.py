"""Before/after: the numbers of two runs of the same command, and the verdict a CI job can act on.

Counts (graphs, breaks, recompiles, eager fallbacks) are exact, so any increase is "worse". Times are noisy: the
step time is compared only when both runs carry tdiag's per-step runtime measurement over at least
``MIN_STEPS_TO_JUDGE`` steps, and only a slowdown beyond ``SLOWER_TOLERANCE`` counts; the run's wall time is
shown, labelled, never judged.

A program that torch.compile stopped (a CRS finding) is fixed when the patched program runs to its end: the exit
code may then change to 0 and the output may go on past where it stopped, but what it printed before must be
printed again (a prefix), and the counts are not compared (the stopped run never reached the rest of the program).
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import Any

from tdiag.analyzer.model import Analysis
from tdiag.fixing.verify import RunResult
from tdiag.lean_dataclass import lean_dataclass

SLOWER_TOLERANCE = 0.10
MIN_STEPS_TO_JUDGE = 10  # a window of a couple of steps on a busy machine is noise, shown but not judged
COUNTS = ("graphs", "graph_breaks", "recompiles", "eager_fallbacks")


@lean_dataclass
class Metrics:
    graphs: int
    graph_breaks: int
    recompiles: int
    eager_fallbacks: int
    compile_time_s: float
    step_time_s: float | None  # measured time per compiled step (tdiag's runtime measurement), None when absent
    steps_measured: int  # how many steps that measurement spans
    run_time_s: float | None  # the program's wall time from the record (start to exit)
    exit_code: int | None
    findings: dict[str, int] = field(default_factory=dict)  # rule code -> occurrences

    @classmethod
    def of(cls, analysis: Analysis, result: RunResult) -> Metrics:
        s = analysis.summary
        findings: dict[str, int] = {}
        for f in analysis.findings:
            findings[f.code] = findings.get(f.code, 0) + f.occurrences
        return cls(
            graphs=s.graphs,
            graph_breaks=s.graph_breaks,
            recompiles=s.recompiles,
            eager_fallbacks=s.eager_fallbacks,
            compile_time_s=round(s.compile_time_s, 3),
            step_time_s=step_time(analysis),
            steps_measured=analysis.summary.runtime.steps if step_time(analysis) is not None else 0,
            run_time_s=analysis.run.duration_s,
            exit_code=result.exit_code,
            findings=findings,
        )


def step_time(analysis: Analysis) -> float | None:
    """Seconds per step of the measured runtime window (``tdiag run``'s runtime measurement), where there is one."""
    runtime = analysis.summary.runtime
    if runtime is None or runtime.status != "measured" or runtime.steps <= 0 or runtime.window_s <= 0:
        return None
    return runtime.window_s / runtime.steps


@lean_dataclass
class Comparison:
    label: str  # "all patches" or a patch id
    patches: list[str]
    before: Metrics
    after: Metrics
    stdout_identical: bool
    stdout_diff: list[str]  # the first differing lines, for the report
    problems: list[str]  # why the verdict is "worse"; empty when the patch did no harm
    gone: list[str]  # rule codes reported before and not after
    new: list[str]  # rule codes reported after and not before
    completed: bool = False  # torch.compile stopped the program before; the patched program ran to its end

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        return data


def compare(label: str, patches: list[str], before: tuple[Analysis, RunResult], after: tuple[Analysis, RunResult]) -> Comparison:
    b, a = Metrics.of(*before), Metrics.of(*after)
    problems = []
    completed = _stopped(before[0]) and not _stopped(after[0]) and a.exit_code == 0
    for name in () if completed else COUNTS:
        if getattr(a, name) > getattr(b, name):
            problems.append(f"more {name.replace('_', ' ')}: {getattr(b, name)} -> {getattr(a, name)}")
    judged = min(b.steps_measured, a.steps_measured) >= MIN_STEPS_TO_JUDGE
    if judged and b.step_time_s and a.step_time_s and a.step_time_s > b.step_time_s * (1 + SLOWER_TOLERANCE):
        problems.append(f"slower steps: {b.step_time_s * 1e3:.3f} ms -> {a.step_time_s * 1e3:.3f} ms")
    if a.exit_code != b.exit_code and not completed:
        problems.append(f"the program's exit code changed: {b.exit_code} -> {a.exit_code}")
    identical = before[1].stdout == after[1].stdout
    if completed and not after[1].stdout.startswith(before[1].stdout):
        problems.append("the program's output before it stopped changed")
    elif not identical and not completed:
        problems.append("the program's output (stdout) changed")
    return Comparison(
        label=label,
        patches=patches,
        before=b,
        after=a,
        stdout_identical=identical,
        stdout_diff=[] if identical else _first_differences(before[1].stdout, after[1].stdout),
        problems=problems,
        gone=sorted(set(b.findings) - set(a.findings)),
        new=sorted(set(a.findings) - set(b.findings)),
        completed=completed,
    )


def _stopped(analysis: Analysis) -> bool:
    """torch.compile stopped the program: it did not run to its end."""
    crash = analysis.summary.crash
    return crash is not None and crash.ended_program


def _first_differences(before: str, after: str, limit: int = 6) -> list[str]:
    import difflib

    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=0)
    return [line for line in list(lines)[2:] if not line.startswith("@@")][:limit]
