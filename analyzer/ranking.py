"""The order of findings, the same in every output: what stopped the program first, torch's deliberate breaks
(``Finding.by_design``) after every fixable finding, then measured cost, compile seconds, and the rest by severity.

A finding about the whole measured step (``Rule.whole_step``: RUN001's share of the step outside compiled code) is
generic: it never outranks a graph break or recompilation of the same run it does not measurably outweigh
(``place_whole_step``), and then ranks after every fixable finding."""

from __future__ import annotations

from tdiag.analyzer.evidence import CompileFailureEvidence
from tdiag.analyzer.model import SEVERITY_RANK, Finding
from tdiag.analyzer.rules import (BREAK_FAMILIES, MOOT_WHEN_STOPPED, RECOMPILE_FAMILIES, WRONG_RESULT_FAMILIES,
                                  get_rule)
from tdiag.analyzer.stopped import stopped_first


def stops_compilation(f: Finding) -> bool:
    """The finding says compilation stopped for a whole function (its rule's ``stops_compilation``): the recompile
    limit sent it to eager, Dynamo skipped the frame, its compile failed, or nothing compiled at all. What it costs is
    everything compiling would have given, which no figure of its shows (a skipped frame's eager time, the limit's
    last compile of 0.01 s): it comes before every finding about a part of a compiled function, whatever those cost."""
    rule = get_rule(f.code)
    return rule is not None and rule.stops_compilation and f.severity == "error" and not f.by_design


def rank_key(f: Finding) -> tuple:
    """What stopped the program, then results that differ from eager, then fixable before by design, then what stopped compilation of a whole function,
    then measured cost (largest first), then the rest by severity, then compile seconds, then impact: a compile note
    (compile seconds paid once) never outranks a warning that has no measured window to be costed in. A whole-step
    finding ranked after a break or recompile (``place_whole_step``) comes after all of these."""
    cost = f.cost
    measured = cost is not None and cost.basis == "measured" and cost.total_s > 0
    compile_s = cost.total_s if cost is not None and cost.basis == "compile" else 0.0
    yields = bool(getattr(f.evidence, "ranked_after", None))  # a whole-step finding behind a break or recompile
    wrong_results = f.family in WRONG_RESULT_FAMILIES and f.severity == "error"
    return (stopped_first(f), 0 if wrong_results else 1, bool(f.by_design), 0 if stops_compilation(f) else 1, 2 if yields else 0 if measured else 1,
            -(cost.total_s if measured else 0.0), SEVERITY_RANK.get(f.severity, 9), -compile_s, -f.impact,
            f.path, f.line, f.code)


# A measured break's cost is a lower bound on what removing it saves: docs/cost-vs-saving.md measured savings of 3.8x
# to 40x the cost (600x once). A whole-step finding's time is at most what compiling that work saves. So a whole-step
# finding outranks a measured break only when its time is more than this many times the break's cost.
BREAK_SAVING_FACTOR = 4


def place_whole_step(findings: list[Finding]) -> None:
    """Set each whole-step finding's ``ranked_after`` (its evidence's): the fixable break and recompile findings of
    the run it does not outweigh. A recompile's cost is compile seconds, paid once, and a finding with no measured cost
    has no figure: neither compares with time per step, so the whole-step finding ranks after them. A measured break it
    outweighs only with more than ``BREAK_SAVING_FACTOR`` times the break's cost (a break that ran outside the measured
    steps costs 0 there). Called once every finding is costed (analyzer/cost.py)."""
    defects = [f for f in findings if f.family in BREAK_FAMILIES | RECOMPILE_FAMILIES and not f.by_design]
    for f in findings:
        rule = get_rule(f.code)
        if rule is None or not rule.whole_step or not hasattr(f.evidence, "ranked_after"):
            continue
        own = f.cost.total_s if f.cost is not None and f.cost.basis == "measured" else 0.0
        f.evidence.ranked_after = [f"{d.code} at {d.path}:{d.line}" for d in defects if not _outweighs(own, d)]


def _outweighs(seconds: float, defect: Finding) -> bool:
    cost = defect.cost
    return (defect.family in BREAK_FAMILIES and cost is not None and cost.basis == "measured"
            and seconds > BREAK_SAVING_FACTOR * cost.total_s)


def drop_contradictions(analysis) -> None:
    """A program a torch error stopped completed no compiled step: what its kernels, caches and compile time would
    cost is moot beside the crash (``MOOT_WHEN_STOPPED``). A frame compile that raised the exception which stopped the
    program did not fall back to eager: it stopped the program. It is not counted as an eager fallback, and no finding of a failed frame compile (its evidence a
    ``CompileFailureEvidence``) says it "ran eagerly instead"."""
    crash = next((c for c in analysis.crashes if c.ended_program and c.caused_by_torch), None)
    if crash is None:
        return
    analysis.findings[:] = [f for f in analysis.findings
                            if f.family not in MOOT_WHEN_STOPPED and not get_rule(f.code).moot_when_stopped]
    # what was raised: the exception, and the one it wraps (InternalTorchDynamoError around PackageNotFoundError)
    raised = {name.rsplit(".", 1)[-1] for name in (crash.exception, crash.original) if name}
    stopped = {g.key for g in analysis.graphs if g.status == "failed" and (
        (crash.compile_id is not None and g.compile_id == crash.compile_id and g.rank == crash.rank)
        or (g.fail_type or "").rsplit(".", 1)[-1] in raised
        or (g.fail_type and f"{g.fail_type.rsplit('.', 1)[-1]}:" in f"{crash.headline}\n{crash.chain}"))}
    if not stopped:
        return
    analysis.summary.eager_fallbacks = max(analysis.summary.eager_fallbacks - len(stopped), 0)
    analysis.findings[:] = [f for f in analysis.findings if not (
        isinstance(f.evidence, CompileFailureEvidence) and f.graph_keys and set(f.graph_keys) <= stopped)]
