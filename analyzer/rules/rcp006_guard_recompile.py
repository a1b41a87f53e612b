"""## What it does
Reports recompilations whose failing guard no more specific RCP rule covers: object identity, type,
`requires_grad`, global state.

A module's `forward` compiled once for an input that does not require grad and recompiled once for one that does,
is per-block compilation's one extra compile (torchtitan's `block.compile()` on each FSDP2 block, or
`torch.compile` of each layer): the first block is fed data, every later block the previous block's output, which
requires grad. It is one compile per rank however many blocks there are, not a problem of the program: it is shown
as by design (severity info).

## Why is this bad?
Every recompilation costs a full compile; repeated ones end at the recompile limit and an eager fallback.

## Example
```python
f(torch.ones(2, requires_grad=True))
f(torch.ones(2))     # requires_grad differs: recompile
```

## Use instead
Keep the guarded property stable across calls (the failing guard is shown with the finding). The per-block
requires_grad compile needs nothing: it is bounded. To share one graph anyway, the first block's input must require
grad too (an embedding or input projection in front of the blocks does that, as in a transformer).
"""

import dataclasses

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import primary_failure, recompile_findings, words

# Claims last: every recompile no other rule claims.
RULE = Rule("RCP006", "guard-recompile", "warning", "Recompiled because a guard failed", claims="recompiles",
            priority=999, message="{frame} recompiled: guard failed: {guard}",
            fix="{catalogue_fix}")  # catalogue/guards.toml
FALSE = ("0", "false", "False")


def matches(r, f) -> bool:
    return True


def check(ctx):
    findings = recompile_findings(ctx, RULE, lambda r, f: RULE.message.format(**words(r, f)),
                                  lambda r, f: RULE.fix.format(**words(r, f)))
    return [_per_block(ctx, f) if _is_per_block(ctx, f) else f for f in findings]


def _is_per_block(ctx, finding) -> bool:
    """Every recompile of the finding is a module forward's first recompile on its rank, for an input that now
    requires grad where the first compile's did not, and the frame compiled no more than that (two variants)."""
    recompiles = [r for r in ctx.analysis.recompiles if r.compile_id in finding.compile_ids
                  and (r.rank in finding.ranks if finding.ranks else True)]
    if not recompiles:
        return False
    frames = {(fr.rank, fr.frame_id): fr for fr in ctx.analysis.frames}
    for r in recompiles:
        f = primary_failure(r)
        frame = frames.get((r.rank, r.frame_id))
        if f is None or f.kind != "requires_grad" or f.expected not in FALSE or r.code_name != "forward":
            return False
        if frame is None or len(frame.variants) > 2 or len(r.failures) != 1:
            return False
    per_rank = {}
    for r in recompiles:
        per_rank[r.rank] = per_rank.get(r.rank, 0) + 1
    return all(n == 1 for n in per_rank.values())


def _per_block(ctx, finding):
    subject = finding.evidence.subject if finding.evidence is not None else None
    ranks = len(finding.ranks) or 1
    return dataclasses.replace(
        finding,
        severity="info",
        by_design=True,
        impact=0.1,
        # the same forward met an input that does not require grad, then one that does: the first of several blocks
        # fed data and the later ones fed a block's output, or one module called on detached and on grad-requiring
        # inputs (a GAN's discriminator): the record does not tell them apart, so both are said (blind batch 5)
        message=f"{finding.message}: per-block compilation's one extra compile (by design): the module's first call "
        f"had an input {subject or 'x'!r} that does not require grad, later calls one that does (the first of "
        "several blocks sharing the code fed data, the later ones a block's output; or one module called on a "
        "detached input and on one that requires grad, as a GAN's discriminator is); one compile per rank"
        + (f" ({ranks} ranks)" if ranks > 1 else ""),
        fix="nothing to change: it is bounded (one graph per requires_grad state of the input)",
    )
