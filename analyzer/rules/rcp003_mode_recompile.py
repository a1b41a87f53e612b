"""## What it does
Finds recompilations caused by a mode flag: `module.training` flipping between `train()` and `eval()`, or a
boolean flag argument.

An evaluation under `torch.no_grad()` through the function a training loop compiled recompiles once for the grad
mode: that is expected (a graph records autograd or it does not) and shown as information, with nothing to fix.

## Why is this bad?
Each flip can invalidate the cached graph; alternating modes every few steps keeps compiling (or, past the
limit, falls back to eager).

## Example
```python
model.train(); compiled(x)
model.eval();  compiled(x)
```

## Use instead
Compile once per mode (`train_step = torch.compile(model)` and a separate `eval_step`), or keep the mode fixed
inside the compiled region.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import guard_kinds

RULE = Rule("RCP003", "mode-recompile", "warning", "Recompiled because train()/eval() or a flag flipped",
            suggester="mode_flip", claims="recompiles", priority=30,
            message="{frame} recompiled: {subject} flipped{compiled_for}",
            fix="compile one function per mode (train/eval), or keep the flag fixed")
matches = guard_kinds("training", "grad_mode")


def check(ctx):
    from tdiag.analyzer.rules._recompiles import recompile_findings, words

    findings = recompile_findings(ctx, RULE, lambda r, f: RULE.message.format(**words(r, f)),
                                  lambda r, f: RULE.fix.format(**words(r, f)))
    return [_expected_no_grad(f) if _is_eval_under_no_grad(ctx, f) else f for f in findings]


def _is_eval_under_no_grad(ctx, finding) -> bool:
    """Every recompile of the finding is its frame's one recompile for grad mode: the evaluation that runs under
    torch.no_grad() (or inference_mode) after training through the same compiled function. One graph per grad mode
    is how torch.compile works, bounded at one extra compile."""
    from tdiag.analyzer.rules._recompiles import primary_failure

    recompiles = [r for r in ctx.analysis.recompiles if r.compile_id in finding.compile_ids
                  and (r.rank in finding.ranks if finding.ranks else True)]
    if not recompiles:
        return False
    per_frame: dict = {}
    for r in recompiles:
        f = primary_failure(r)
        if f is None or f.kind != "grad_mode":
            return False
        per_frame[(r.rank, r.frame_id)] = per_frame.get((r.rank, r.frame_id), 0) + 1
    return all(n == 1 for n in per_frame.values())


def _expected_no_grad(finding):
    import dataclasses

    return dataclasses.replace(
        finding,
        severity="info",
        by_design=True,
        impact=0.1,
        message=f"{finding.message}: the evaluation under torch.no_grad() compiles its own graph once (expected: "
        "a graph records autograd or it does not, so each grad mode has its own)",
        fix="nothing to fix: one extra compile, bounded; only if evaluation is not meant to share the compiled "
        "function, compile a separate eval function",
    )
