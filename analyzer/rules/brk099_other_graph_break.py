"""## What it does
Reports graph breaks that no more specific BRK rule covers, with torch's own reason and hints.

## Why is this bad?
Every graph break splits the compiled region and adds a Python round trip per call.

## Example
Any construct Dynamo reports as a graph break (see the linked GB page for the exact cause).

## Use instead
Follow torch's hint shown with the finding; the linked graph-break page lists the known workarounds.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import break_findings, where

RULE = Rule("BRK099", "other-graph-break", "warning", "Graph break (other cause)")


def check(ctx):
    return break_findings(
        ctx,
        RULE,
        lambda b: f"graph break: {b.reason}{where(b)}",
        lambda b: (b.hints[0] if b.hints else "see the graph-break page linked with this finding"),
    )
