"""## What it does
Reports where Dynamo made an input dynamic on its own after a recompile (automatic dynamic shapes).

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

from tdiag.analyzer.model import Finding
from tdiag.analyzer.rules import Rule

RULE = Rule("DYN001", "automatic-dynamic", "info", "Dynamo made an input dynamic after a recompile",
            suggester="mark_dynamic")


def check(ctx):
    findings = []
    for frame in ctx.analysis.frames:
        # Symbols on a frame that never recompiled come from the user's own mark_dynamic / dynamic=True.
        if not frame.automatic_dynamic or frame.recompiles == 0:
            continue
        findings.append(
            Finding(
                code=RULE.code,
                name=RULE.name,
                severity=RULE.severity,
                message=f"{frame.code_name}: Dynamo made {', '.join(frame.automatic_dynamic)} after a recompile",
                fix="mark the dimension dynamic before the first call (torch._dynamo.mark_dynamic) to compile once",
                path=frame.path,
                line=frame.line,
                function=frame.code_name,
                occurrences=len(frame.automatic_dynamic),
                compile_ids=list(frame.variants),
                impact=0.5,
                evidence={"decisions": list(frame.automatic_dynamic)},
            )
        )
    return findings
