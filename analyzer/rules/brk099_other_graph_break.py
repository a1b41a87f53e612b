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

# Claims last: every break no other rule claims, worded with torch's own reason and hint.
RULE = Rule("BRK099", "other-graph-break", "warning", "Graph break (other cause)", claims="breaks", priority=999,
            message="graph break: {reason}{where}", fix="{hint}")


def matches(b) -> bool:
    return True
