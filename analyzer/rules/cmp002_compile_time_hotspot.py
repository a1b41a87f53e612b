"""## What it does
Finds the compiled frames and compile stages that dominate the run's compile time.

## Why is this bad?
Compile time is paid at startup and again on every recompile; a frame that takes most of it, or a stage that
dominates (C++/Triton kernel compilation, GEMM autotuning, Dynamo tracing of a huge loop), is where to look first.

## Example
```python
model = torch.compile(model, mode="max-autotune")   # autotuning: minutes of compile time
```

## Use instead
Keep the Inductor cache warm between runs (`TORCHINDUCTOR_CACHE_DIR` on persistent storage), compile the
repeated block with `torch.compiler.nested_compile_region` or compile the block instead of the whole model,
and reserve max-autotune for the shapes that matter.
"""

from tdiag.analyzer.evidence import CompileCostEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("CMP002", "compile-time-hotspot", "info", "A frame or stage dominates compile time",
            moot_when_stopped=True)
# below this, compile time is nobody's problem (blind batch 5: a 2.1 s total on a small CPU program was reported)
MIN_TOTAL_S = 5.0
DOMINANT_SHARE = 0.5
# One compiled frame is all of compile time by definition ("100% of all compile time" says nothing): it is a finding
# only when its compile is long in itself (blind batch 3: the clean control's one 2-3 s graph was reported).
SINGLE_FRAME_MIN_S = 30.0


def check(ctx):
    graphs = [g for g in ctx.analysis.graphs if g.compile_time_s > 0]
    total = sum(g.compile_time_s for g in graphs)
    if total < MIN_TOTAL_S or (len(graphs) == 1 and total < SINGLE_FRAME_MIN_S):
        return []
    findings = []
    for graph in graphs:
        share = graph.compile_time_s / total
        if share < DOMINANT_SHARE and len(graphs) > 1:
            continue
        stage, stage_s = max(graph.stages.items(), key=lambda kv: kv[1]) if graph.stages else ("total", graph.compile_time_s)
        function = user_function_name(graph.code_name)
        site, library = ctx.graph_anchor(graph)
        findings.append(
            RULE.finding(
                message=f"compiling {function} ({graph.compile_id}) took {graph.compile_time_s:.1f}s, "
                f"{share:.0%} of all compile time; the largest stage is {stage} ({stage_s:.1f}s)",
                fix=_fix(stage),
                path=site.path, line=site.line, function=function, library_frame=library, compile_ids=[graph.compile_id],
                impact=round(graph.compile_time_s, 3),
                evidence=CompileCostEvidence(compile_time_s=graph.compile_time_s, share=round(share, 3),
                                             stages=dict(graph.stages), cache=dict(graph.cache),
                                             total_compile_time_s=round(total, 3)),
                graph_keys=[graph.key],
            )
        )
    return findings


def _fix(stage: str) -> str:
    if "kernel_compile" in stage or stage in ("codegen", "codegen_and_compile"):
        return "keep the Inductor cache warm between runs (persistent TORCHINDUCTOR_CACHE_DIR)"
    if stage == "dynamo":
        return "compile the repeated block instead of the whole loop, or reduce Python-level unrolling"
    return "keep compile caches warm, and compile only the hot region"
