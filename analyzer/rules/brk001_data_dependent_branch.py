"""## What it does
Finds `if`/`while` conditions that depend on a tensor's value (torch GB0170, "Data-dependent branching").

## Why is this bad?
Dynamo cannot know which branch runs without computing the tensor, so it ends the graph before the condition,
runs the condition in Python, and starts a new graph after it: two smaller graphs, a device sync and a Python
round trip on every call.

## Example
```python
if y.sum() > 0:
    y = y + 1
else:
    y = y - 1
```

## Use instead
```python
y = torch.where(y.sum() > 0, y + 1, y - 1)      # both branches are cheap and side-effect free
y = torch.cond(y.sum() > 0, add_one, sub_one, (y,))  # otherwise
```
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import reason_text

RULE = Rule("BRK001", "data-dependent-branch", "warning", "Branch on a tensor value splits the graph",
            suggester="branch", claims="breaks", priority=50,
            message="graph break: branch on a tensor value ({reason}){where}",
            fix="compute both branches with torch.where, or express the branch with torch.cond")


def matches(b) -> bool:
    return b.gb_id == "GB0170" or "data-dependent branching" in reason_text(b)
