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
from tdiag.analyzer.rules._breaks import where

# Last: every break no other rule claims.
RULE = Rule("BRK099", "other-graph-break", "warning", "Graph break (other cause)", claims="breaks", priority=999)


def matches(b) -> bool:
    return True


def message(b) -> str:
    return f"graph break: {b.reason}{where(b)}"


def fix(b) -> str:
    return b.hints[0] if b.hints else "see the graph-break page linked with this finding"
