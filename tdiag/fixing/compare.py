"""Before/after: the numbers of two runs of the same command, and the verdict a CI job can act on.

What is better or worse is analyzer/verdict.py's, shared with `tdiag diff`: counts (graphs, breaks, recompiles, eager
fallbacks) are exact, so any increase is "worse"; times are noisy: each side may be run several times (``--repeat``),
and the step time is judged only when both sides have at least two runs that each carry tdiag's
per-step measurement over at least ``MIN_STEPS_TO_JUDGE`` steps, and only beyond both ranges. Where time cannot
decide, the counts do. The run's wall time is shown, labelled, never judged.

A comparison "pays" when something measurably got better: a count went down, a stopped program got further or ran
to its end, or the steps got faster beyond the spread.

A program that torch.compile stopped (a CRS finding) is fixed when the patched program runs to its end: the exit
code may then change to 0 and the output may go on past where it stopped, but what it printed before must be
printed again (a prefix), and the counts are not compared (the stopped run never reached the rest of the program).
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import TYPE_CHECKING, Any

from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis
from tdiag.analyzer.verdict import JUDGED_COUNTS, count_changes, judge_times
from tdiag.analyzer.stdout_match import DEFAULT_TOLERANCE, match
from tdiag.fixing.verify import RunResult
from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.fixing.cache_verify import CacheFixVerification
    from tdiag.analyzer.output_noise import OutputBaseline

# the counts a patch that compiles more code by design grows (its own graphs, torch's break before them)
BY_DESIGN_COUNTS = ("graphs", "graph_breaks")

MIN_STEPS_TO_JUDGE = 10  # a window of a couple of steps on a busy machine is noise, shown but not judged


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
    # seconds per step of each repeated run judged-worthy (>= MIN_STEPS_TO_JUDGE steps); [] when none
    step_times_s: list[float] = field(default_factory=list)
    runs: int = 1
    crash_site: str | None = None  # "path:line" where torch.compile stopped the program, when it did
    crash_reason: str | None = None  # what stopped the program, torch's own first line where torch did (a refusal names it)
    # the source text of the crash site's line: a patch that inserts lines above it moves its number, not the crash
    crash_statement: str | None = None
    # each run's whole `tdiag run` subprocess (torch's import and every compile included): what verifying costs
    tdiag_run_s: list[float] = field(default_factory=list)

    @property
    def step_spread_s(self) -> tuple[float, float] | None:
        return (min(self.step_times_s), max(self.step_times_s)) if self.step_times_s else None

    @classmethod
    def of_runs(cls, runs: list[tuple[Analysis, RunResult]]) -> Metrics:
        """The first run's counts, every run's step time: counts are exact, times need the spread."""
        metrics = cls.of(*runs[0])
        metrics.runs = len(runs)
        metrics.tdiag_run_s = [round(r.wall_s, 2) for _, r in runs]
        metrics.step_times_s = [
            t for analysis, _ in runs
            if (t := step_time(analysis)) is not None and steps_timed(analysis) >= MIN_STEPS_TO_JUDGE
        ]
        if metrics.step_times_s:
            metrics.step_time_s = sorted(metrics.step_times_s)[len(metrics.step_times_s) // 2]
        return metrics

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
            steps_measured=steps_timed(analysis),
            run_time_s=analysis.run.duration_s,
            exit_code=result.exit_code,
            findings=findings,
            crash_site=_crash_site(analysis),
            crash_reason=_crash_reason(analysis),
            crash_statement=_crash_statement(analysis),
        )


def step_time(analysis: Analysis) -> float | None:
    """Seconds per step as ``tdiag run`` measured it, where it did: the steps after the window, timed without the
    profiler (its own cost is a large share of a short step, and larger the more ops a version launches), else the
    window's mean."""
    runtime = analysis.summary.runtime
    return None if runtime is None else runtime.step_s


def steps_timed(analysis: Analysis) -> int:
    """How many steps ``step_time`` spans (0 where nothing was measured)."""
    runtime = analysis.summary.runtime
    if runtime is None or runtime.step_s is None:
        return 0
    return runtime.steady_steps if runtime.steady_step_s is not None else runtime.steps


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
    round: int = 1  # which round of `tdiag fix --verify` measured it
    improved: list[str] = field(default_factory=list)  # what measurably got better; empty: the change did not pay
    timing: str = ""  # how the step time was judged (or why it was not)
    output_tolerance: float = DEFAULT_TOLERANCE
    output_within_tolerance: bool = False  # stdout differs only in numbers within the stated tolerance
    output_number_differences: list[str] = field(default_factory=list)
    # how the output was judged: within the unchanged program's own run-to-run spread (output_noise.py), in words
    output_judged: str = ""
    # the findings the set's structural patches answer that the patched run still reports at the same statement
    # ("BRK002 at train.py:27"), when every one of them stayed (riders.py): counts that fell while each finding stayed
    # are not a fix; only a faster step beyond the spread pays then
    stayed: list[str] = field(default_factory=list)
    kept: bool | None = None  # rounds: whether this change went into the final set (None: not a round's choice)
    # a cache fix (CCH): measured on warm runs (cache_verify.py); before/after above are then the warm runs' numbers
    cache: CacheFixVerification | None = None
    # only the step time decides this one, and its verdict is a close call (analyzer/verdict.py): more runs may settle it
    close_call: bool = False
    remeasured: int = 0  # runs each side took beyond --repeat to settle a close call (rounds.py)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def faster(self) -> bool:
        """The step got faster beyond the runs' spread (compare's words)."""
        return any(words.startswith("faster steps") for words in self.improved)

    @property
    def pays(self) -> bool:
        return self.ok and bool(self.improved) and (not self.stayed or self.faster)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cache"] = self.cache.to_dict() if self.cache is not None else None
        data["ok"] = self.ok
        data["pays"] = self.pays
        return data


def compare(label: str, patches: list[str], before: list[tuple[Analysis, RunResult]],
            after: list[tuple[Analysis, RunResult]], tolerance: float = DEFAULT_TOLERANCE,
            adds_graphs: bool = False, decisive: bool = False, output: OutputBaseline | None = None) -> Comparison:
    """``before`` and ``after``: one or more runs of each side (the first decides counts and output).
    ``output``: the original program's outputs (its unchanged runs, compiled and eager): the patched output is judged
    within their own spread (output_noise.py), ``tolerance`` then only the user's extra allowance; without it, the
    first ``before`` run's stdout with the fixed ``tolerance`` rule (stdout_match.py).
    ``adds_graphs``: a patch of the set compiles more code by design (the compiled optimizer step), so more graphs
    and graph breaks are what it does, said but not counted against it; it pays only by a faster step.
    ``decisive``: one run a side may show a step faster by ``DECISIVE_FACTOR`` (analyzer/verdict.py)."""
    b, a = Metrics.of_runs(before), Metrics.of_runs(after)
    problems, improved = [], []
    completed = _stopped(before[0][0]) and not _stopped(after[0][0]) and a.exit_code == 0
    notes = []
    for change in () if completed else count_changes(_counts(b), _counts(a)):
        if adds_graphs and change.worse and change.name in BY_DESIGN_COUNTS:
            notes.append(f"{change.words()} (the patch compiles more code by design: judged by step time)")
            continue
        (problems if change.worse else improved).append(change.words())
    if completed:
        improved.append("the program runs to its end now")
    elif b.crash_site and a.crash_site and crash_moved(b, a) and a.exit_code == b.exit_code:
        improved.append(f"torch.compile no longer stops the program at {b.crash_site} (now at {a.crash_site})")
    timing, faster, slower = judge_steps(b, a, decisive)
    if notes and not faster:
        problems.extend(notes)  # by design, but not paid for by a faster step: counted after all
    if slower:
        problems.append(slower)
    if faster:
        improved.append(faster)
    if a.exit_code != b.exit_code and not completed:
        # torch's words for the crash, with the names only Dynamo holds (L['h']) in the user's
        reason = f" ({user_words(a.crash_reason)})" if a.crash_reason and a.crash_reason != b.crash_reason else ""
        problems.append(f"the program's exit code changed: {b.exit_code} -> {a.exit_code}{reason}")
    output = _judge_output(before[0][1].stdout, after[0][1].stdout, tolerance, output)
    if completed and not after[0][1].stdout.startswith(before[0][1].stdout):
        problems.append("the program's output before it stopped changed")
    elif not output.same and not completed:
        first = f": {output.number_differences[0]}" if output.number_differences else ""
        problems.append(f"the program's output (stdout) changed{first}")
    # only the time decides (nothing better, no harm but the by-design counts a faster step pays for), and it is close
    close_call = (not improved and set(problems) <= set(notes)
                  and judge_times(b.step_times_s, a.step_times_s).close_call)
    return Comparison(
        label=label,
        patches=patches,
        before=b,
        after=a,
        stdout_identical=output.identical,
        stdout_diff=[] if output.identical else _first_differences(before[0][1].stdout, after[0][1].stdout),
        problems=problems,
        gone=sorted(set(b.findings) - set(a.findings)),
        new=sorted(set(a.findings) - set(b.findings)),
        completed=completed,
        improved=improved,
        timing=timing,
        output_tolerance=tolerance,
        output_within_tolerance=output.within_tolerance,
        output_number_differences=output.number_differences[:12],
        output_judged=output.judged,
        close_call=close_call,
    )


@lean_dataclass
class _OutputVerdict:
    same: bool
    identical: bool
    within_tolerance: bool
    number_differences: list[str]
    judged: str


def _judge_output(before: str, after: str, tolerance: float, baseline: OutputBaseline | None) -> _OutputVerdict:
    if baseline is None:
        m = match(before, after, tolerance)
        return _OutputVerdict(m.same, m.identical, m.within_tolerance, m.number_differences,
                              f"against one run: floats within one unit of their last digit and {tolerance:g} "
                              "relatively" if tolerance else "against one run, exactly")
    verdict, how = baseline.judge(after, tolerance)
    identical = after == before
    # the program's own measurements set apart (stdout_match.py) are listed, as the fixed rule listed them
    timings = [f"treated as timings, not compared: {t}" for t in match(before, after, DEFAULT_TOLERANCE).timing_lines]
    return _OutputVerdict(verdict.same, identical, verdict.same and not identical, timings + verdict.differences, how)


def judge_steps(b: Metrics, a: Metrics, decisive: bool = False) -> tuple[str, str | None, str | None]:
    """(how the step time was judged, "faster ..." or None, "slower ..." or None): analyzer/verdict.py's judgement
    of the runs that measured at least ``MIN_STEPS_TO_JUDGE`` steps."""
    if not (b.step_times_s and a.step_times_s):
        return "not judged: a side has no measured window of at least %d steps" % MIN_STEPS_TO_JUDGE, None, None
    verdict = judge_times(b.step_times_s, a.step_times_s, decisive=decisive)
    (b_lo, b_hi), (a_lo, a_hi) = verdict.before_range or (0, 0), verdict.after_range or (0, 0)
    if verdict.change == "slower":
        return verdict.how, None, (f"slower steps: {_ms(b_hi)} ms at best -> {_ms(a_lo)} ms at best "
                                   f"({_range_words(verdict.how)})")
    if verdict.change == "faster":
        return verdict.how, (f"faster steps: {_ms(b_lo)} -> {_ms(a_hi)} ms or less ({_range_words(verdict.how)})"), None
    return verdict.how, None, None


def _range_words(how: str) -> str:
    """The "before ... over N runs, after ..." part of a verdict's words."""
    return how[how.index("(") + 1 : -1] if "(" in how else how


def _counts(m: Metrics) -> dict[str, float]:
    return {name: getattr(m, name) for name in JUDGED_COUNTS}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _crash_site(analysis: Analysis) -> str | None:
    crash = analysis.summary.crash
    if crash is None or not crash.ended_program or not crash.caused_by_torch:
        return None
    site = crash.site or crash.call_site
    return f"{site.path}:{site.line}" if site is not None else crash.headline


def crash_moved(before: Metrics, after: Metrics) -> bool:
    """torch.compile stops the patched program somewhere else: another file, or a line of other text (a patch that
    inserts a line above the site moves its number only; the same statement stopping it again is no progress)."""
    if before.crash_site == after.crash_site:
        return False
    same_file = before.crash_site.rsplit(":", 1)[0] == after.crash_site.rsplit(":", 1)[0]
    if same_file and before.crash_statement and before.crash_statement == after.crash_statement:
        return False
    return True


def _crash_statement(analysis: Analysis) -> str | None:
    crash = analysis.summary.crash
    site = None if crash is None else crash.site or crash.call_site
    text = analysis.sources.get(site.path) if site is not None and site.path else None
    if not text or not site.line:
        return None
    lines = text.splitlines()
    return lines[site.line - 1].strip() if 0 < site.line <= len(lines) else None


def _crash_reason(analysis: Analysis) -> str | None:
    """torch's reason, as it worded it, when torch.compile stopped the program (e.g. "accessing tensor output of
    CUDAGraphs that has been overwritten by a subsequent run"), else the program's own exception: what a refused
    patch broke."""
    crash = analysis.summary.crash or next((c for c in analysis.crashes if c.ended_program), None)
    if crash is None or not crash.ended_program:
        return None
    if crash.caused_by_torch:
        return crash.headline
    # the program's own exception (a patched optimizer's argument torch refuses, say): named as Python shows it
    kind = crash.exception.rsplit(".", 1)[-1]
    return f"{kind}: {crash.headline}" if crash.headline else kind


def _stopped(analysis: Analysis) -> bool:
    """torch.compile stopped the program: it did not run to its end."""
    crash = analysis.summary.crash
    return crash is not None and crash.ended_program


def _first_differences(before: str, after: str, limit: int = 6) -> list[str]:
    import difflib

    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=0)
    return [line for line in list(lines)[2:] if not line.startswith("@@")][:limit]
