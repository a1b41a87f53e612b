"""``tdiag fix --verify`` in rounds: verify the record's patches, re-analyse the patched run, take the next round.

A fix can uncover the next cause (a break removed exposes a recompile; torch.compile stopped at the first break and
never reached the second). Each round plans the patches of the previous kept run's record (diffs against the
patched text it ran), runs them ``repeat`` times on a scratch copy and compares them with that run. A round keeps
what verified and paid (compare.py: no regression, and a count down, the program further, or faster steps beyond
the spread); when its set together does not, each patch is tried alone and the ones that pay are kept (together
when that verifies too). A patch tried once is not tried again. The rounds stop when no patch is left, a round
keeps nothing, or at ``max_rounds``. The result is the final text of every patched file: ``--apply`` writes it with
one backup, so one ``--undo`` takes back every round.
"""

from __future__ import annotations

from dataclasses import field

from tdiag.analyzer.eager_compare import where_time_goes
from tdiag.analyzer.model import Analysis
from tdiag.fixing.compare import Comparison, Metrics, compare, judge_steps
from tdiag.fixing.plan import PlannedPatch, by_file, merged_text, plan_patches
from tdiag.fixing.recorded import RecordedRun
from tdiag.fixing.verify import RunResult, Scratch
from tdiag.lean_dataclass import lean_dataclass

Runs = list[tuple[Analysis, RunResult]]


@lean_dataclass
class RoundsResult:
    comparisons: list[Comparison] = field(default_factory=list)
    kept: list[PlannedPatch] = field(default_factory=list)  # every round's kept patches, in order
    texts: dict[str, str] = field(default_factory=dict)  # display path -> final text (the kept set, all rounds)
    rounds: int = 0  # rounds that measured something
    stopped: str = ""  # why the rounds ended
    eager: EagerBaseline | None = None  # --eager: the final program with torch.compile disabled


@lean_dataclass
class EagerBaseline:
    """The final program run with TORCH_COMPILE_DISABLE=1 under `tdiag run` (its window measures eager steps too)."""

    step_times_s: list[float]
    compiled_step_times_s: list[float]
    exit_code: int
    verdict: str  # "compiled slower than eager", "compiled faster than eager", "no verdict", "not measured"
    detail: str
    cause: str | None = None  # where the compiled step's time goes, when it is slower (shared with RUN003)


@lean_dataclass
class _State:
    runs: Runs  # the current baseline: the original program, then each kept round's patched run
    texts: dict[str, str]  # what is patched so far (display path -> text)
    sources: dict[str, str]  # the baseline run's snapshots: the text its patches are diffs against


def verify_rounds(run: RecordedRun, first: list[PlannedPatch], options, scratch: Scratch) -> RoundsResult:
    from tdiag.analyzer import build

    def measure(label: str, texts: dict[str, str], extra_env: dict[str, str] | None = None) -> Runs:
        copy = scratch.copy(label, texts)
        env = {**options.env, **(extra_env or {})}
        results = [scratch.rerun(label, copy, env, options.timeout, i + 1) for i in range(options.repeat)]
        return [(build(r.record_dir), r) for r in results]

    result = RoundsResult()
    # The baseline runs again too, on an unpatched copy: the record has no stdout, and times are only comparable
    # between runs on the same machine state.
    state = _State(measure("before", {}), {}, dict(run.sources))
    tried: set[tuple[str, ...]] = set()
    for number in range(1, options.max_rounds + 1):
        if number == 1:
            patches = first
        else:
            planned = plan_patches(state.runs[0][0], options.select, options.ignore)
            patches = [p for p in planned if p.applied and _key(p) not in tried]
        if not patches:
            result.stopped = "no patch left" if number > 1 else "no patch applies"
            break
        tried.update(_key(p) for p in patches)
        kept = _round(number, patches, state, measure, options, result.comparisons)
        result.rounds = number
        if kept is None:
            result.stopped = f"round {number} did not pay: no patch of it made a measurable improvement"
            break
        group, runs = kept
        result.kept += group
        state = _State(runs, _with(state, group), {**state.sources, **dict(runs[0][0].sources)})
    else:
        result.stopped = f"the limit of {options.max_rounds} round(s) (--rounds)"
    result.texts = state.texts
    if options.eager:
        result.eager = eager_baseline(state.runs, measure("eager", state.texts, {"TORCH_COMPILE_DISABLE": "1"}))
    return result


def eager_baseline(compiled: Runs, eager: Runs) -> EagerBaseline:
    """How the final compiled step compares with the same program run eagerly; when slower, where its time goes."""
    c, e = Metrics.of_runs(compiled), Metrics.of_runs(eager)
    if eager[0][1].exit_code != compiled[0][1].exit_code:
        return EagerBaseline(e.step_times_s, c.step_times_s, eager[0][1].exit_code, "not measured",
                             f"the program exits {eager[0][1].exit_code} with torch.compile disabled "
                             f"(compiled: {compiled[0][1].exit_code}), e.g. fullgraph=True refuses to run disabled")
    how, faster, slower = judge_steps(e, c)  # eager is the "before"
    if slower:
        return EagerBaseline(e.step_times_s, c.step_times_s, 0, "compiled slower than eager", how,
                             where_time_goes(compiled[0][0].summary.runtime)[1])
    verdict = "compiled faster than eager" if faster else "no verdict" if e.step_times_s and c.step_times_s else "not measured"
    return EagerBaseline(e.step_times_s, c.step_times_s, 0, verdict, how)


def _round(number: int, patches: list[PlannedPatch], state: _State, measure, options,
           out: list[Comparison]) -> tuple[list[PlannedPatch], Runs] | None:
    """Verify one round; the patches it keeps and their runs, or None when none paid."""

    def attempt(label: str, group: list[PlannedPatch]) -> tuple[Comparison, Runs]:
        runs = measure(f"round{number}-{label}", _with(state, group))
        c = compare(label, [p.id for p in group], state.runs, runs, options.output_tolerance)
        c.round = number
        out.append(c)
        return c, runs

    together, runs = attempt("all patches", patches)
    alone: list[tuple[PlannedPatch, Comparison, Runs]] = []
    if len(patches) > 1 and (options.each or not together.pays):
        alone = [(p, *attempt(p.id, [p])) for p in patches]
    if together.pays:
        together.kept = True
        for _, c, _ in alone:
            c.kept = None  # measured for --each: shown, not a choice
        return patches, runs
    together.kept = False
    paying = [(p, c, r) for p, c, r in alone if c.pays]
    for _p, c, _ in alone:
        c.kept = False
    if not paying:
        return None
    if len(paying) > 1:
        combined, runs = attempt("the patches that paid alone", [p for p, _, _ in paying])
        if combined.pays:
            combined.kept = True
            return [p for p, _, _ in paying], runs
        combined.kept = False
    best, c, runs = paying[0]  # the highest-ranked patch that paid
    c.kept = True
    return [best], runs


def _with(state: _State, group: list[PlannedPatch]) -> dict[str, str]:
    """The texts patched so far with ``group`` (diffs against the baseline run's snapshots) merged in."""
    return {**state.texts, **{path: merged_text(state.sources[path], g) for path, g in by_file(group).items()}}


def _key(patch: PlannedPatch) -> tuple[str, ...]:
    """A patch across rounds: its file and what it adds (line numbers move as earlier rounds change the file)."""
    added = tuple(line for edit in patch.edits for line in edit.new)
    return (patch.path, patch.title, *added)
