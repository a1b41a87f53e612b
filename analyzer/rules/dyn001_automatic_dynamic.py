"""## What it does
Reports where Dynamo made an input dynamic on its own after a recompile (automatic dynamic shapes).

When torch logged why the frame recompiled, the RCP finding for that recompile shows the decision as part of the
same problem; DYN001 stands alone only for a frame that was compiled again without a recompile reason on record
(e.g. a trace that lost its recompile events).

## Why is this bad?
It is not a bug, but it cost one extra compile, and the first compiled graph is thrown away. Marking the
dimension dynamic up front compiles once.

## Example
```python
compiled(torch.randn(4, 8)); compiled(torch.randn(8, 8))   # second call recompiles with a symbolic size
```

## Use instead
`torch._dynamo.mark_dynamic(x, 0)` before the first call, or `torch.compile(..., dynamic=True)`.
"""

from collections import defaultdict

from tdiag.analyzer.evidence import DynamicEvidence
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import GraphKey
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._sites import anchor, frame_call_sites

RULE = Rule("DYN001", "automatic-dynamic", "info", "Dynamo made an input dynamic after a recompile",
            suggester="mark_dynamic")


def check(ctx):
    a = ctx.analysis
    # A recompile torch gave its reason for explains the decision: its RCP finding reports both as one problem.
    explained = {(r.rank, r.frame_id) for r in a.recompiles}
    sites = frame_call_sites(a)
    groups: dict[tuple, list] = defaultdict(list)  # a function and its resume functions are one place
    for frame in a.frames:
        # Symbols on a frame that never recompiled come from the user's own mark_dynamic / dynamic=True.
        if not frame.automatic_dynamic or len(frame.variants) < 2 or (frame.rank, frame.frame_id) in explained:
            continue
        groups[(frame.path, frame.code_name)].append(frame)
    findings = []
    for (_path, name), frames in groups.items():
        first = min(frames, key=lambda f: f.line)
        decisions = sorted({user_words(d) for f in frames for d in f.automatic_dynamic})
        site, library = anchor(first.path, first.line, name, next((sites[k] for f in frames
                                                                   if (k := (f.rank, f.frame_id)) in sites), None))
        findings.append(
            RULE.finding(
                message=f"{name}: Dynamo made {', '.join(decisions)} after a recompile",
                fix="mark the dimension dynamic before the first call (torch._dynamo.mark_dynamic) to compile once",
                path=site.path,
                line=site.line,
                function=name,
                occurrences=len(decisions),
                compile_ids=[c for f in frames for c in f.variants],
                impact=0.5,
                library_frame=library,
                evidence=DynamicEvidence(decisions=decisions),
                graph_keys=[GraphKey(f.rank, c) for f in frames for c in f.variants],
            )
        )
    return findings
