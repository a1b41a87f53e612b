"""``tdiag fix --verify`` in rounds: verify the record's patches, re-analyse the patched run, take the next round.

A fix can uncover the next cause (a break removed exposes a recompile; torch.compile stopped at the first break and
never reached the second). Each round plans the patches of the previous kept run's record (diffs against the patched
text it ran), runs them on a scratch copy and compares them with that run. A round keeps what verified and paid
(compare.py: no regression, and a count down, the program further, or faster steps beyond the spread). Each set runs
once first: a set that run already refuses (a count up, the exit code or the output changed: all exact) or keeps (a
count down, no harm, and a step time not slower beyond the margin; or a step 1.5x faster than the baseline's
fastest, beyond what one disturbed run has measured: analyzer/verdict.py's ``DECISIVE_FACTOR``, and still so against
one more baseline run taken right after it, since a shared machine's load moves a step 2-3x between runs taken
minutes apart) is not run again;
any other set the step time must judge (CUDA graphs, the optimizer), or whose one step time looks slower, takes
``repeat`` runs a side, the baseline's topped up in turn with its own, since one run a side is noise. When a set
together pays but one of its patches left its finding where it was (riders.py), the set without it runs once and is
kept instead when it pays too: a change that fixed nothing is not applied. When a set together does not pay, each
patch is tried alone and the ones that pay are kept (together when that verifies too). A
patch tried once is not tried again. The rounds stop when no patch is left, a round keeps nothing, or at
``max_rounds``. Step-time patches (RUN findings: CUDA graphs, the optimizer) wait for the round after any patch that
changes what compiles (``structure_first``). A set of cache fixes only (CCH) pays on the next run, never on the one
that fills the cache: it is measured on warm runs instead, each side against a fresh cache of its own
(cache_verify.py), and kept when the warm run after it hits the FX graph cache and compiles less. The result is the
final text of every patched file: ``--apply`` writes it with one backup, so one ``--undo`` takes back every round.
Under ``--budget`` (budget.py) a run that would end past it is not started: the rounds verified before it stand, the
round it belonged to keeps nothing, and ``stopped`` says so.
"""

from __future__ import annotations

from collections.abc import Callable

from tdiag.analyzer.eager_compare import where_time_goes
from tdiag.analyzer.model import Analysis
from tdiag.analyzer.verdict import first_run_slower
from tdiag.fixing.budget import Budget, OutOfBudget
from tdiag.fixing.carry import carried
from tdiag.fixing.cache_verify import cache_comparison, is_cache_fix, verify_cache_fix
from tdiag.fixing.compare import Comparison, Metrics, compare, judge_steps
from tdiag.fixing.plan import PlannedPatch, by_file, is_step_time, merged_text, plan_patches
from tdiag.fixing.progress import Progress
from tdiag.analyzer.output_noise import OutputBaseline, measure_baseline
from tdiag.fixing.recorded import RecordedRun
from tdiag.fixing import random_stream
from tdiag.fixing.riders import riders
from tdiag.fixing.round import EagerBaseline, Round, Verification
from tdiag.fixing.verify import RunResult, Scratch
from tdiag.lean_dataclass import lean_dataclass

Runs = list[tuple[Analysis, RunResult]]
# the unchanged program's output spread needs two runs (output_noise.py): the second runs only when an output (eager's,
# a patched run's) first differs from the first run's, since an identical output is the same whatever the spread
BASELINE_RUNS = 2


@lean_dataclass
class _State:
    measured: Runs | None  # the current baseline: the original program, then each kept round's patched run
    texts: dict[str, str]  # what is patched so far (display path -> text)
    sources: dict[str, str]  # the baseline run's snapshots: the text its patches are diffs against
    baseline: Callable[[], Runs] | None = None  # measures the original program when first needed

    @property
    def runs(self) -> Runs:
        """The baseline's runs, measured on first use: a round of cache fixes measures its own two sides."""
        if self.measured is None:
            self.measured = self.baseline()
        return self.measured


def verify_rounds(run: RecordedRun, first: list[PlannedPatch], options, scratch: Scratch,
                  progress: Progress | None = None, recorded_run_s: float | None = None) -> Verification:
    """``recorded_run_s``: how long the recorded run took, the budget's guess at a re-run until one is measured."""
    from tdiag.analyzer import build

    progress = progress or Progress()
    budget = Budget(options.budget, recorded_run_s=recorded_run_s)

    def one_run(label: str, copy, env: dict[str, str], i: int, total: int) -> tuple[Analysis, RunResult]:
        budget.check(f"{progress.describe(label)}, run {i + 1} of {total}")
        started = budget.elapsed
        progress.running(label, i + 1, total)
        result = scratch.rerun(label, copy, env, options.timeout, i + 1)
        progress.ran()
        progress.doing(f"analysing the {label} run")
        analysis = build(result.record_dir)
        budget.ran(budget.elapsed - started)
        return analysis, result

    def measure(label: str, texts: dict[str, str], extra_env: dict[str, str] | None = None,
                count: int | None = None) -> Runs:
        """``count`` runs of ``texts`` (``repeat`` by default)."""
        copy = scratch.copy(label, texts)
        env = {**options.env, **(extra_env or {})}
        total = options.repeat if count is None else count
        return [one_run(label, copy, env, i, total) for i in range(total)]

    def in_turn(sides: list[tuple[str, dict[str, str], int]]) -> list[Runs]:
        """Each side's count of runs, taken in turn (before, after, before, ...): a step time is judged on runs that
        shared the machine's state, not on one side's runs all taken after the other's."""
        copies = [(label, scratch.copy(label, texts), count) for label, texts, count in sides if count > 0]
        out = {label: [] for label, _, _ in copies}
        for i in range(max((count for _, _, count in copies), default=0)):
            for label, copy, count in copies:
                if i < count:
                    out[label].append(one_run(label, copy, dict(options.env), i, count))
        return [out.get(label, []) for label, _, count in sides]

    def warm(label: str, before_texts: dict[str, str], after_texts: dict[str, str]):
        """A cache fix: each side populates a fresh cache, then runs warm ``repeat`` times (cache_verify.py)."""
        runs = 2 * (1 + options.repeat)
        budget.check(progress.describe(label), runs)
        started = budget.elapsed
        out = verify_cache_fix(scratch, before_texts, after_texts, options.env, options.env, options.timeout,
                               options.repeat, label, progress)
        budget.ran(budget.elapsed - started, runs)
        return out

    result = Verification()
    # The baseline runs again too, on an unpatched copy: the record has no stdout, and times are only comparable
    # between runs on the same machine state. It runs once: a set its first run decides (by the counts) needs no
    # more, and a set the step time decides tops both sides up to ``repeat`` runs in turn (``_round``). A round 1 of
    # cache fixes only measures its own two sides on warm runs (cache_verify.py): the baseline then runs only if
    # something later needs it.
    baseline_first = not is_cache_fix(first)
    # runs known to come: the baseline's first, round 1's first (and alone with --each), the eager side
    progress.expect(bool(first) + (len(first) if options.each and len(first) > 1 else 0)
                    + options.repeat * options.eager)

    outputs: list[OutputBaseline] = []  # the original program's outputs, measured with its first baseline
    unchanged = _Unchanged()

    def baseline() -> Runs:
        progress.expect(1 + options.parity)  # its first run, and the eager one
        runs = measure("before", {}, count=1)
        unchanged.compiled = runs  # the state's runs too: a second run measured later is a baseline run as well
        unchanged.eager = _eager_run(runs, measure, options, progress)
        outputs.append(unchanged.output())
        result.output = outputs[0]
        original_output(unchanged.eager.stdouts)  # eager printed something else: parity within the program's spread
        return runs

    def spread() -> None:
        """A second run of the unchanged program: its output's own run-to-run spread, measured when an output first
        differs from the first run's (an identical output needs no spread)."""
        progress.expect(1)
        progress.doing("an output differs from the unchanged run's: running the unchanged program once more to "
                       "measure its own run-to-run spread")
        unchanged.compiled.extend(measure("before-spread", {}, count=1))
        outputs[0] = result.output = unchanged.output()

    def original_output(stdouts: list[str] = ()) -> OutputBaseline | None:
        """Every round's output is judged against the original program's, never the last kept round's: drift
        across rounds does not add up. ``stdouts``: the outputs about to be judged; one the unchanged runs did not
        print has the program's spread measured first (``spread``)."""
        if outputs and len(unchanged.compiled) < BASELINE_RUNS \
                and any(out not in outputs[0].compiled_stdouts for out in stdouts):
            try:
                spread()
            except OutOfBudget:
                pass  # judged against the one run: exactly, as the words of a one-run baseline say
        return outputs[0] if outputs else None

    try:
        state = _State(baseline() if baseline_first else None, {}, dict(run.sources), baseline)
    except OutOfBudget as out:
        # the round-1 patches and the unchanged program's runs it needs: its first run (and the eager one), a
        # patched run, and a step-time round after a structural one
        structural, later = structure_first(first or [])
        left = budget.untried([*structural, *later], 1 + options.parity + bool(structural) + bool(later))
        result.stopped = f"{out}: nothing verified" + (f"; {left}" if left else "")
        return result
    tried: set[tuple[str, ...]] = set()
    waiting: list[PlannedPatch] = []  # step-time patches the last round kept something before (carry.py)
    for number in range(1, options.max_rounds + 1):
        if number == 1 or first is not None:
            patches, first = first, None
        else:
            progress.doing(f"planning round {number}")
            planned = plan_patches(state.runs[0][0], options.select, options.ignore)
            patches = [p for p in planned if p.applied and _key(p) not in tried]
            patches += [p for p in carried(waiting, result.rounds[-1].kept, patches) if _key(p) not in tried]
            if patches:
                progress.expect(1 + (len(patches) if options.each and len(patches) > 1 else 0))
        patches, deferred = structure_first(patches)
        if not patches:
            result.stopped = "no patch left" if number > 1 else "no patch applies"
            break
        tried.update(_key(p) for p in patches)
        this = Round(number, patches)
        result.rounds.append(this)
        try:
            runs = _round(this, state, measure, warm, in_turn, options, progress, original_output)
        except OutOfBudget as out:
            this.kept, this.why = [], f"not finished: {out}"
            # this round's patches, and the step-time ones a later round would have measured
            left = budget.untried([*patches, *deferred], 1 + bool(deferred))
            result.stopped = str(out) + (f"; {left}" if left else "")
            break
        if runs is None:
            nxt = _next_candidates(patches, tried)
            if nxt and number < options.max_rounds:
                first = nxt  # the same findings' next candidate patches (the optimizer's implementations)
                continue
            if deferred and number < options.max_rounds:
                first = deferred  # the step-time patches, on the program as it stands
                continue
            result.stopped = f"round {number} did not pay: no patch of it made a measurable improvement"
            break
        waiting = deferred
        state = _State(runs, _with(state, this.kept), {**state.sources, **dict(runs[0][0].sources)})
    else:
        result.stopped = f"the limit of {options.max_rounds} round(s) (--rounds)"
    result.texts = state.texts
    if options.eager:
        try:
            top_up = options.repeat - len(state.runs)  # the compiled side's runs, as many as the eager side's
            if top_up > 0:
                progress.expect(top_up)
                state.runs.extend(in_turn([("final-more", state.texts, top_up)])[0])
            result.eager = eager_baseline(state.runs, measure("eager", state.texts, {"TORCH_COMPILE_DISABLE": "1"}))
        except OutOfBudget as out:
            result.stopped += f"; the eager comparison (--eager) was not measured: {out}"
    return result


@lean_dataclass
class _EagerRun:
    stdouts: list[str]  # empty: not measured (``why``)
    exit_code: int | None = None
    why: str | None = None


@lean_dataclass
class _Unchanged:
    """The unchanged program's runs: compiled (one, a second when its spread is needed) and eager (parity)."""

    compiled: Runs | None = None
    eager: _EagerRun | None = None

    def output(self) -> OutputBaseline:
        return measure_baseline([r.stdout for _, r in self.compiled], self.eager.stdouts, self.compiled[0][1].exit_code,
                                self.eager.exit_code, self.eager.why)


def _eager_run(runs: Runs, measure, options, progress: Progress) -> _EagerRun:
    """One run of the unchanged program with torch.compile disabled (eager parity), unless ``--no-parity``. The
    eager run's cost is said before it is spent."""
    if not options.parity:
        return _EagerRun([], why="not asked (--no-parity)")
    seconds = max(r.wall_s for _, r in runs)
    progress.doing(f"running the unchanged program once with TORCH_COMPILE_DISABLE=1 to compare its results with "
                   f"eager (about {seconds:.0f} s, as long as a compiled run at most; --no-parity skips it)")
    try:
        eager = measure("eager-parity", {}, {"TORCH_COMPILE_DISABLE": "1"}, count=1)
    except OutOfBudget as out:
        return _EagerRun([], why=f"not measured: {out}")
    return _EagerRun([r.stdout for _, r in eager], eager[0][1].exit_code)


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
                             where_time_goes(compiled[0][0].summary.runtime, compiled[0][0].summary.graph_breaks)[1])
    verdict = "compiled faster than eager" if faster else "no verdict" if e.step_times_s and c.step_times_s else "not measured"
    return EagerBaseline(e.step_times_s, c.step_times_s, 0, verdict, how)


def _round(this: Round, state: _State, measure, warm, in_turn, options, progress: Progress,
           original_output: Callable[..., OutputBaseline | None] = lambda stdouts=(): None) -> Runs | None:
    """Verify one round: fill its attempts, its kept set and why; the kept set's runs, or None when none paid.
    A set of cache fixes only (CCH) is measured on warm runs against a fresh cache per side (``warm``). A set that
    only the step time decides, on a close call, takes ``repeat`` more runs a side in turn (``in_turn``) and is judged
    again on all of them: one disturbed run must not refuse a lever every other run shows paying (the MLP's CUDA
    graphs on the H200, 1.93-2.90 ms against 3.14-3.23 ms)."""
    number, patches = this.number, this.patches

    def attempt(label: str, group: list[PlannedPatch]) -> tuple[Comparison, Runs]:
        progress.round(number, label, len(group))
        if is_cache_fix(group):
            progress.expect(2 + options.repeat)  # both sides populate then run warm: 2 * (1 + repeat), not repeat
            verified, before, runs = warm(f"round{number}-{label}", state.texts, _with(state, group))
            c = cache_comparison(label, [p.id for p in group], verified, before, runs, options.output_tolerance)
        else:
            adds_graphs = any(p.adds_graphs for p in group)
            ids = [p.id for p in group]
            runs = measure(f"round{number}-{label}", _with(state, group), count=1)
            output = original_output([r.stdout for _, r in runs])  # before compare: it may add a baseline run
            c = compare(label, ids, state.runs, runs, options.output_tolerance, adds_graphs=adds_graphs,
                        decisive=True, output=output)
            random_only = random_stream.recheck(c, runs, original_output(), lambda env: measure(
                f"round{number}-{label}-eager-random", _with(state, group), env, count=1), options.output_tolerance)
            # every finding stayed: the counts cannot make it a fix, only a faster step can (more runs a side)
            c.stayed = _every_finding_stayed(group, runs, state.runs[0][0])
            if c.stayed and (c.problems or not (c.before.step_times_s and c.after.step_times_s)):
                decided = ""  # harm, or no step time to weigh: more runs cannot make it a fix
            elif c.stayed:
                decided = None  # only the step time can make it a fix: on ``repeat`` runs a side, never on one
            else:
                decided = _decided_by_first_run(c, adds_graphs or bool(c.stayed), options.repeat)
                if decided == "" and options.repeat >= 2 and _faster_on_one_run(c):
                    # the two runs were taken minutes apart, and a shared machine's load moves one program's step
                    # 2-3x in that time (blind batch 6 on 2 busy cores: 1.81 and 3.77 ms, and `foreach=True` kept
                    # as 3.4x faster where a plain run gains 0.01 ms). The baseline runs once more right after the
                    # patched run, in turn: the step must be DECISIVE_FACTOR faster than that run too
                    progress.expect(1)
                    state.runs.extend(in_turn([(f"round{number}-{label}-before-next", state.texts, 1),
                                               (f"round{number}-{label}-more", _with(state, group), 0)])[0])
                    stayed = c.stayed
                    c = compare(label, ids, state.runs, runs, options.output_tolerance, adds_graphs=adds_graphs,
                                decisive=True, output=original_output())
                    random_stream.take_back(c, random_only)
                    c.stayed = stayed
                    decided = _decided_by_first_run(c, adds_graphs, options.repeat)
            if decided is not None:
                c.timing = decided or c.timing
            else:
                # the step time decides (or must clear the counts' verdict): ``repeat`` runs a side, in turn
                top_up, more = max(options.repeat - len(state.runs), 0), options.repeat - len(runs)
                progress.expect(top_up + more)
                more_before, more_after = in_turn([(f"round{number}-{label}-before", state.texts, top_up),
                                                   (f"round{number}-{label}-more", _with(state, group), more)])
                state.runs.extend(more_before)  # the baseline keeps them: later sets are judged on them too
                runs = runs + more_after
                output = original_output([r.stdout for _, r in runs])
                c = compare(label, ids, state.runs, runs, options.output_tolerance, adds_graphs=adds_graphs,
                            output=output)
                random_stream.take_back(c, random_only)
            if c.close_call:
                more = options.repeat
                progress.expect(2 * more)
                progress.doing(f"a close call on step time: {more} more runs a side, in turn")
                more_before, more_after = in_turn([(f"round{number}-{label}-before-close", state.texts, more),
                                                   (f"round{number}-{label}-close", _with(state, group), more)])
                state.runs.extend(more_before)
                runs = runs + more_after
                output = original_output([r.stdout for _, r in runs])
                c = compare(label, ids, state.runs, runs, options.output_tolerance, adds_graphs=adds_graphs,
                            output=output)
                random_stream.take_back(c, random_only)
                c.remeasured = more
            c.stayed = _every_finding_stayed(group, runs, state.runs[0][0])
        c.round = number
        this.attempts.append(c)
        return c, runs

    together, runs = attempt("all patches", patches)
    alone: list[tuple[PlannedPatch, Comparison, Runs]] = []
    if len(patches) > 1 and (options.each or not together.pays):
        if not options.each:
            progress.expect(len(patches))  # each alone, now that together did not pay (a first run each)
        alone = [(p, *attempt(p.id, [p])) for p in patches]
    if together.pays:
        for _, c, _ in alone:
            c.kept = None  # measured for --each: shown, not a choice
        rode = riders(patches, runs[0][0], state.runs[0][0])
        if rode and len(rode) < len(patches):
            rest = [p for p in patches if p not in rode]
            progress.expect(1)
            without, fewer_runs = attempt("without the patches whose findings stayed", rest)
            if without.pays:
                together.kept, without.kept = False, True
                this.kept = rest
                this.why = ("together they paid, and without " + ", ".join(p.id for p in rode)
                            + " (its finding stayed where it was) they verified and paid too: "
                            + "; ".join(without.improved))
                return fewer_runs
            without.kept = False
            if not together.faster:  # counts alone, with a patch whose own finding stayed: not a fix
                together.kept = False
                this.why = ("kept nothing: together they paid only on counts (" + "; ".join(together.improved)
                            + "), while " + ", ".join(p.id for p in rode) + " left its finding where it was, and "
                            "without it they did not pay")
                return None
        together.kept = True
        this.kept, this.why = list(patches), "together they verified and paid: " + "; ".join(together.improved)
        return runs
    together.kept = False
    paying = [(p, c, r) for p, c, r in alone if c.pays]
    for _p, c, _ in alone:
        c.kept = False
    if not paying:
        this.why = _refused(together, alone)
        return None
    if len(paying) > 1:
        progress.expect(1)
        combined, runs = attempt("the patches that paid alone", [p for p, _, _ in paying])
        if combined.pays:
            combined.kept = True
            this.kept = [p for p, _, _ in paying]
            this.why = "each paid alone, and together they verified and paid: " + "; ".join(combined.improved)
            return runs
        combined.kept = False
    best, c, runs = paying[0]  # the highest-ranked patch that paid
    c.kept = True
    this.kept = [best]
    this.why = f"{best.id} paid alone: " + "; ".join(c.improved)
    return runs


def _every_finding_stayed(group: list[PlannedPatch], runs: Runs, before: Analysis | None = None) -> list[str]:
    """The findings of ``group``'s structural patches, where every one of those patches left its finding in the
    patched run (riders.py): "BRK002 at train.py:27". Empty when any structural patch removed its own."""
    structural = [p for p in group if not is_step_time(p) and p.findings]
    if not structural or runs[0][0] is None:
        return []
    rode = riders(structural, runs[0][0], before)
    if len(rode) < len(structural):
        return []
    return [f"{f.code} at {f.path}:{f.line}" for p in rode for f in p.findings]


def _faster_on_one_run(c: Comparison) -> bool:
    """The set pays by a step ``DECISIVE_FACTOR`` faster on its first run (compare's ``decisive`` words)."""
    return c.pays and any(words.startswith("faster steps") for words in c.improved)


def _decided_by_first_run(c: Comparison, adds_graphs: bool, repeat: int) -> str | None:
    """None when the step time must decide (``repeat`` runs a side); else the set's first run decides it, and the
    words to say so ("" keeps the comparison's own). Refused: a count up, the exit code or the output changed, all
    exact, read from one run. Kept: a step ``DECISIVE_FACTOR`` times faster than the baseline's fastest run (compare's
    ``decisive``); or a count went down (or the program got further) with no harm, and the one step time is not
    slower than the baseline's fastest run beyond the margin: more runs would only weigh a time the
    counts already outrank, at a re-run each (30-45 s on the H100 for a GPT-2; the budget of a whole round). A set
    that compiles more by design (``adds_graphs``) is judged by its step time alone."""
    if repeat < 2:
        return ""  # one run a side is all --repeat asks for
    if _faster_on_one_run(c):
        return ""  # faster by DECISIVE_FACTOR on one run a side (compare's words say so): CUDA graphs' kind of lever
    if adds_graphs:
        return None
    if c.problems:
        return ""
    if not c.improved:
        return None
    before, after = c.before.step_times_s, c.after.step_times_s
    if before and after and first_run_slower(before, after[0]):
        return None
    if not (before and after):  # nothing to weigh: no side timed enough steps
        return f"not weighed: the counts decided on one run a side ({c.timing})"
    return (f"not weighed: the counts decided on one run a side, and its step time is not slower beyond the margin: "
            f"{after[0] * 1e3:.3f} ms a step against {min(before) * 1e3:.3f} ms before")


def structure_first(patches: list[PlannedPatch]) -> tuple[list[PlannedPatch], list[PlannedPatch]]:
    """(this round's patches, the ones left for a later round). A step-time patch (a RUN finding's: CUDA graphs, the
    optimizer) is judged by step time alone, on a program whose graphs and recompiles are settled: beside patches
    that change what compiles, it would be measured against the wrong step (CUDA graphs recorded once per shape a
    recompile fixes later), and a set refused together would cost a run of every patch alone. So a round holding
    any other patch leaves them to the next round, which plans them again from the record of the run it keeps (or,
    when the round keeps nothing, takes them as they are)."""
    structural = [p for p in patches if not is_step_time(p)]
    if not structural:
        return patches, []
    return structural, [p for p in patches if is_step_time(p)]


def _refused(together: Comparison, alone: list[tuple[PlannedPatch, Comparison, Runs]]) -> str:
    """Why a round keeps nothing: the together set's reason, and each alone's where measured."""
    def reason(c: Comparison) -> str:
        if c.problems:
            return "worse: " + "; ".join(c.problems)
        if c.stayed and c.improved:
            return (f"not a fix: {'; '.join(c.improved)}, but its finding stayed ({', '.join(c.stayed)} still "
                    "reported there) and the step is not faster beyond the spread")
        return f"nothing measurably better: {c.cache.judged}" if c.cache else "nothing measurably better"

    words = [f"together {reason(together)}"] + [f"{p.id} alone {reason(c)}" for p, c, _ in alone]
    return "kept nothing: " + "; ".join(words)


def _next_candidates(patches: list[PlannedPatch], tried: set[tuple[str, ...]]) -> list[PlannedPatch]:
    """For a round that kept nothing: each patch's next untried candidate (Suggestion.candidates), carrying the
    ones after it, so a finding's candidates are tried in order until one verifies and pays."""
    out = []
    for p in patches:
        rest = [a for a in p.alternatives if _key(a) not in tried]
        if rest:
            rest[0].alternatives = rest[1:]
            out.append(rest[0])
    return out


def _with(state: _State, group: list[PlannedPatch]) -> dict[str, str]:
    """The texts patched so far with ``group`` (diffs against the baseline run's snapshots) merged in."""
    return {**state.texts, **{path: merged_text(state.sources[path], g) for path, g in by_file(group).items()}}


def _key(patch: PlannedPatch) -> tuple[str, ...]:
    """A patch across rounds: its file and what it adds (line numbers move as earlier rounds change the file)."""
    added = tuple(line for edit in patch.edits for line in edit.new)
    return (patch.path, patch.title, *added)
