"""What each finding costs, and the ranking that follows from it.

How a finding is costed is its rule's ``cost`` model (analyzer/rules: ``Rule.cost``, by default its family's):

- A graph break's cost is the eager time its frame ran after its graph, up to the resumed graph (``after`` time of
  the compile ids where it broke), plus the call overhead of the resume function's graph the break created
  (``_resume_overhead``), measured in the window: ``basis: measured``. The eager part alone is ``attributed``.
- Recompile-family and compile findings cost the compile time of their graphs over the whole run (``compile``):
  seconds paid once per compile, never shown per step, also when a compile happened inside the window.
- Kernel findings cost the measured device time of the kernels they name (CUDA; ``measured``).
- Frames that run eagerly outside any compiled frame (``samples``: a frame Dynamo skipped, one past the recompile
  limit) cost the share of the window's stack samples in which their function was on the stepping thread's stack
  and no compiled code it entered was running, times the window (statistical; see docs/runtime-window.md): an eager
  frame's cost is its own eager time, never the compiled graphs it calls (issue 32), and never more than the
  window's eager share. It lies inside "eager (other)", not in the partition.
- Anything else, and every finding of a record without a measured window, has ``basis: none`` (or ``compile``).

``Cost.caveat`` says what a figure does not include of the fix's saving, and ``Cost.lower_bound`` marks a figure the
saving exceeds (a break's cost leaves out the split backward, the lost fusion...: docs/cost-vs-saving.md); every
output shows both.

Multi-rank: a finding costs what it costs on its most expensive rank (the slowest rank sets the step time).
Reconciliation: compiled + guard + compile + attributed + unattributed = window, per rank.
"""

from __future__ import annotations

from tdiag.analyzer.model import Analysis, Cost, Finding
from tdiag.analyzer.runtime import RankWindow

# What a cost model's figure does not say about the fix's saving (docs/cost-vs-saving.md measured it: a break's
# saving was 4x-40x its cost on CPU, 4.6x-9x on the H200; a recompile fix's, 0.5x-5.6x its compile cost).
CAVEATS = {
    "break": (
        "a lower bound on what removing the break saves: it leaves out the backward graph the break splits in two, "
        "the forward piece before the break compiled as a graph of its own, the resumed frame's guards and, under "
        "Inductor, the fusion lost across the break; `tdiag fix --verify --each` measures the saving"
    ),
    "compile": (
        "the compile time of these graphs; a fix that compiles one dynamic-shape graph instead pays that graph's "
        "compile time once"
    ),
}


def stage(facts) -> None:
    """The cost stage of analyzer/stages.py: the measured window placed in the Analysis (graphs, kernels, summary),
    then each finding's cost; compile costs stand without a window."""
    from tdiag.analyzer.runtime import place

    window = facts.get("runtime")
    if window is not None:
        place(facts.analysis, window)
    attach(facts.analysis, window.windows if window is not None else [])


def break_caveat(training: bool, inductor: bool) -> str:
    """What a break's cost leaves out, naming only what applies to this run: no backward graph in an inference
    run, no lost fusion without Inductor (CAVEATS["break"] is the sentence with every part)."""
    parts = (["the backward graph the break splits in two"] if training else []) + [
        "the forward piece before the break compiled as a graph of its own", "the resumed frame's guards"]
    if inductor:
        parts.append("the fusion Inductor loses across the break")
    listed = ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"a lower bound on what removing the break saves: it leaves out {listed}; "
            "`tdiag fix --verify --each` measures the saving")


def _run_kind(analysis: Analysis, windows: list[RankWindow]) -> tuple[bool, bool]:
    """(training, inductor): a backward ran (compiled by AOTAutograd, or eagerly inside the window), Inductor
    compiled a graph."""
    training = any(g.aot is not None and g.aot.has_backward for g in analysis.graphs) or any(
        w.summary.eager_parts.get("eager backward", 0.0) > 0 for w in windows)
    inductor = any("inductor" in g.stages or g.kernels or g.output_code_refs for g in analysis.graphs)
    return training, inductor


def attach(analysis: Analysis, windows: list[RankWindow]) -> None:
    total_compile = sum(g.compile_time_s for g in analysis.graphs) or None
    caveat = break_caveat(*_run_kind(analysis, windows))
    for f in analysis.findings:
        f.cost = _cost(analysis, f, windows, total_compile)
        if f.cost is not None and f.cost.lower_bound:
            f.cost.caveat = caveat
    _net_of_sampled(analysis)
    from tdiag.analyzer.ranking import place_whole_step

    place_whole_step(analysis.findings)  # once every cost is final: which breaks and recompiles rank first
    runtime = analysis.summary.runtime
    if runtime is None or runtime.status != "measured" or not windows:
        return
    for w in windows:
        attributed = sum(_break_seconds(f, w) for f in analysis.findings)  # eager parts only: the partition
        w.summary.attributed_s = round(attributed, 6)
        w.summary.unattributed_s = round(max(w.summary.eager_s - attributed, 0.0), 6)
        if runtime.per_rank:
            runtime.per_rank[str(w.rank)].update(attributed_s=w.summary.attributed_s, unattributed_s=w.summary.unattributed_s)
    lead = windows[0]
    runtime.attributed_s, runtime.unattributed_s = lead.summary.attributed_s, lead.summary.unattributed_s


def cost_model(f: Finding) -> str | None:
    """How the finding is costed: its rule's ``cost`` (analyzer/rules), else its family's (a finding of an older
    record whose rule is gone)."""
    from tdiag.analyzer.rules import FAMILY_COSTS, get_rule

    rule = get_rule(f.code)
    return rule.cost_model if rule is not None else FAMILY_COSTS.get(f.family)


def _cost(analysis: Analysis, f: Finding, windows: list[RankWindow], total_compile: float | None) -> Cost | None:
    model = cost_model(f)
    if model == "samples":
        sampled = [(_sampled_seconds(f, w), w) for w in windows]
        best = max(sampled, key=lambda p: p[0], default=(0.0, None))
        if best[0] > 0:
            return _measured(best)
        from tdiag.analyzer.rules import FAMILY_COSTS

        return _compile_cost(analysis, f, total_compile) if FAMILY_COSTS.get(f.family) == "compile" else Cost(basis="none")
    if model == "break" and windows:
        cost = _measured(max(((_break_seconds(f, w) + _resume_overhead(analysis, f, w), w) for w in windows), key=lambda p: p[0]))
        if cost.total_s > 0:
            cost.caveat, cost.lower_bound = CAVEATS["break"], True
        return cost
    if model == "compile":
        # compile seconds, once: never a per-step figure, even when a compile fell inside the window (a one-off
        # compile divided by the window's steps reads as a cost every step pays)
        cost = _compile_cost(analysis, f, total_compile)
        from tdiag.analyzer.rules import RECOMPILE_FAMILIES

        if cost is not None and cost.total_s > 0 and f.family in RECOMPILE_FAMILIES:
            cost.caveat = CAVEATS["compile"]
        return cost
    if model in ("evidence", "eager_other") and windows:
        seconds = getattr(f.evidence, "seconds", None)
        if isinstance(seconds, (int, float)) and seconds > 0:
            return _measured((float(seconds), windows[0]))
    if model == "kernels" and windows:
        seconds = _kernel_seconds(analysis, f)
        if seconds is not None:
            return _measured((seconds, windows[0]))
    return Cost(basis="none") if windows else None


def _net_of_sampled(analysis: Analysis) -> None:
    """The window's other eager time (``eager_other`` findings) includes what the skipped/fallback frames
    (``samples`` findings) cost: counted once, there."""
    sampled = [f for f in analysis.findings if cost_model(f) == "samples" and f.cost and f.cost.basis == "measured"]
    explained = sum(f.cost.total_s for f in sampled)
    if not explained:
        return
    codes = "/".join(sorted({f.code for f in sampled}))
    for f in analysis.findings:
        if cost_model(f) == "eager_other" and f.cost and f.cost.basis == "measured":
            total, steps = f.cost.total_s, (f.cost.total_s / f.cost.per_call_ms * 1e3 if f.cost.per_call_ms else 0)
            rest = max(total - explained, 0.0)
            scale = rest / total if total else 0.0
            f.cost = Cost(
                total_s=round(rest, 6),
                per_call_ms=round(f.cost.per_call_ms * scale, 4) if f.cost.per_call_ms is not None else None,
                share=round(f.cost.share * scale, 4) if f.cost.share is not None else None,
                basis="measured",
                note=(f"{explained / steps * 1e3:.3g} ms of it is the eagerly run functions of the {codes} findings, "
                      "counted there") if steps else None,
            )


def _measured(pair: tuple[float, RankWindow]) -> Cost:
    seconds, w = pair
    return Cost(
        total_s=round(seconds, 6),
        per_call_ms=round(seconds / w.steps * 1e3, 4) if w.steps else None,
        share=round(seconds / w.window_s, 4) if w.window_s else None,
        basis="measured",
    )


def _compile_cost(analysis: Analysis, f: Finding, total_compile: float | None) -> Cost | None:
    keys = set(f.graph_keys)
    seconds = sum(g.compile_time_s for g in analysis.graphs if g.key in keys)
    if not seconds:
        return Cost(basis="none") if analysis.summary.runtime is not None else None
    return Cost(total_s=round(seconds, 6), share=round(seconds / total_compile, 4) if total_compile else None, basis="compile")


def _cids(f: Finding, w: RankWindow) -> set[str]:
    """The finding's compile ids on this rank (graph_keys carry the rank; compile_ids alone for older findings)."""
    if f.graph_keys:
        return {k.compile_id for k in f.graph_keys if k.rank == w.rank}
    return set(f.compile_ids)


def _resume_overhead(analysis: Analysis, f: Finding, w: RankWindow) -> float:
    """What the extra graph a break creates costs to call: the host time of the resume function's graph
    (``torch_dynamo_resume_in_<function>_at_<line>``, same file) not spent in its ops (CPU) or kernels (CUDA). Removing
    the break merges that graph into the one before it, so this overhead (the compiled wrapper, AOTAutograd's runtime
    wrapper, the graph entry) goes with it. It lies in the window's ``compiled`` time, so it is part of the break's
    cost but not of the eager partition. The lost fusion across the break is not in it: only the fix reveals that."""
    if not f.function or not f.line:
        return 0.0
    name = f"torch_dynamo_resume_in_{f.function}_at_{f.line}"
    total = 0.0
    for g in analysis.graphs:
        if g.rank == w.rank and g.code_name == name and g.path == f.path and g.runtime is not None:
            total += max(g.runtime.host_s - (g.runtime.device_s or 0.0), 0.0)
    return total


def _break_seconds(f: Finding, w: RankWindow) -> float:
    if cost_model(f) != "break":
        return 0.0
    return sum(w.after_s.get(c, 0.0) for c in _cids(f, w))


def _sampled_seconds(f: Finding, w: RankWindow) -> float:
    """The window's time in which the finding's function was on the stack: its share of the stack samples.
    Samples are keyed ``path:firstline:name``; the finding names the function and a line inside it (or its def)."""
    if not w.sample_total or not f.function or not f.path:
        return 0.0
    best: tuple[int, int] | None = None  # (first line, own samples) of the nearest def at or above the finding's line
    for key, n in w.samples.items():
        parts = key.rsplit(":", 2)
        if len(parts) != 3 or parts[2] != f.function or not parts[1].isdigit():
            continue
        path, first = parts[0], int(parts[1])
        if not (path == f.path or path.endswith("/" + f.path)) or first > f.line:
            continue
        if best is None or first > best[0]:
            best = (first, n - w.compiled_inside.get(key, 0))  # its own eager samples: not the compiled code inside
    if best is None:
        return 0.0
    return min(max(best[1], 0) / w.sample_total * w.window_s, w.summary.eager_s or 0.0)


def _kernel_seconds(analysis: Analysis, f: Finding) -> float | None:
    keys = set(f.graph_keys)
    text = repr(f.evidence) + f.message
    times = [k.device_s for g in analysis.graphs if g.key in keys for k in g.kernels if k.device_s and k.name in text]
    return sum(times) if times else None
