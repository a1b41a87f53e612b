"""## What it does
Finds functions whose compilation failed: the backend raised (`BackendCompilerFailed`), Dynamo itself raised,
or a guard on a data-dependent value could not be decided, and torch fell back to running the function eagerly
(`torch._dynamo.config.suppress_errors`, or a failure torch always suppresses). A failure that torch raised into
the program, stopping it, is a CRS finding instead.

## Why is this bad?
Nothing of the function is compiled, and nothing tells you at run time: with `suppress_errors` (the default for
many setups) the program just runs at eager speed. Graph breaks that skip a frame (BRK006) and the recompile limit
(RCP005) are reported by their own rules; this rule reports every other failed frame compile.

## Example
```python
def broken_backend(gm, example_inputs):
    raise RuntimeError("broken backend")

fn = torch.compile(fn, backend=broken_backend)   # BackendCompilerFailed: fn runs eagerly
```

## Use instead
Fix the error torch reports (rerun with `torch._dynamo.config.suppress_errors = False` for the full traceback);
for a data-dependent guard, tell the compiler the value's range with `torch._check(...)` or branch with
`torch.cond`; for an error inside torch itself, report it and `torch.compiler.disable` the function meanwhile.
"""

from tdiag.analyzer.evidence import CompileFailureEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("CMP003", "compile-failed", "error", "A frame compile failed: the function runs eagerly",
            stops_compilation=True)
LIMIT_MARKERS = ("recompile limit", "cache_size_limit", "recompile_limit")
DATA_DEPENDENT = ("GuardOnDataDependentSymNode", "DataDependentOutputException", "data-dependent", "data dependent")


def check(ctx):
    a = ctx.analysis
    with_breaks = {(b.rank, b.compile_id) for b in a.breaks}  # a skipped frame: BRK006 reports it with its cause
    raised = [c for c in a.crashes if c.caused_by_torch]  # not a fallback: torch raised it (CRS)
    findings = {}
    for graph in a.graphs:
        if graph.status != "failed" or not graph.fail_type or (graph.rank, graph.compile_id) in with_breaks:
            continue
        reason = graph.fail_reason or ""
        if any(m in reason.lower() for m in LIMIT_MARKERS):
            continue  # RCP005
        if any(_is_crash(graph, c) for c in raised):
            continue
        site, library = ctx.graph_anchor(graph)
        function = user_function_name(graph.code_name)
        key = (site.key, function, graph.fail_type)
        if key in findings:  # the same failure on every recompile of the function (or on every rank)
            f = findings[key]
            f.occurrences += 1
            f.compile_ids.append(graph.compile_id)
            f.graph_keys.append(graph.key)
            if graph.rank is not None:
                f.ranks[graph.rank] = f.ranks.get(graph.rank, 0) + 1
            continue
        headline = next((ln.strip() for ln in reason.splitlines() if ln.strip() and not ln.strip().endswith("raised:")),
                        "no reason given")
        findings[key] = RULE.finding(
            message=f"compiling {function} failed ({graph.fail_type}: {headline}); it ran eagerly instead",
            fix=_fix(graph.fail_type, reason),
            path=site.path, line=site.line, function=function, occurrences=1,
            compile_ids=[graph.compile_id], impact=50.0, library_frame=library,
            evidence=CompileFailureEvidence(fail_type=graph.fail_type, fail_reason=reason,
                                            frame=f"{graph.path}:{graph.line}",
                                            restart_reasons=list(graph.restart_reasons)),
            graph_keys=[graph.key],
            ranks={graph.rank: 1} if graph.rank is not None else {},
        )
    return list(findings.values())


def _is_crash(graph, crash) -> bool:
    """The failed compile is the exception that stopped the program: same compile id, or (no id on the
    exception) the same failure."""
    if crash.rank != graph.rank:
        return False
    if crash.compile_id:
        return crash.compile_id == graph.compile_id
    # torch's wrapper (InternalTorchDynamoError) raised what the failed compile logged as its original error
    types = {crash.exception.rsplit(".", 1)[-1], (crash.original or "").rsplit(".", 1)[-1]}
    return graph.fail_type in types and bool(crash.headline) and \
        (crash.headline in (graph.fail_reason or "") or (graph.fail_reason or "") in crash.headline)


def _fix(fail_type: str, reason: str) -> str:
    if fail_type == "BackendCompilerFailed":
        return ("fix the error the compiler backend raised (torch._dynamo.config.suppress_errors = False shows the "
                "traceback), or torch.compiler.disable the function")
    if any(m in f"{fail_type} {reason}" for m in DATA_DEPENDENT):
        return "bound the data-dependent value with torch._check(...), or branch on it with torch.cond"
    return "report the error to PyTorch with its traceback, and torch.compiler.disable the function meanwhile"
