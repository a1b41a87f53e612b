"""## What it does
Finds a program that torch.compile stopped because a compiled graph was differentiated twice: a gradient taken with
`create_graph=True` inside compiled code (a gradient penalty, WGAN-GP, R1 regularisation, MAML's inner step), then
`backward()` through it. AOTAutograd compiles one backward per graph and raises "torch.compile with aot_autograd
does not currently support double backward". The finding names the `torch.autograd.grad` call and the function of
the user's that holds it.

## Why is this bad?
The program does not run to its end. The code is right (it runs eagerly); the compiled graph cannot be
differentiated a second time.

## Example
```python
def gradient_penalty(critic, real, fake):
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grad = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)[0]
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()

@torch.compile
def critic_loss(real, fake):
    return critic(fake).mean() - critic(real).mean() + 10.0 * gradient_penalty(critic, real, fake)

critic_loss(real, fake).backward()   # RuntimeError: ... does not currently support double backward
```

## Use instead
```python
@torch.compiler.disable              # the penalty and its double backward run eagerly; the rest stays compiled
def gradient_penalty(critic, real, fake):
    ...
```
"""

from __future__ import annotations

import re

from tdiag.analyzer.model import Site
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import raised_at

RULE = Rule("CRS009", "double-backward", "error", "A compiled graph was differentiated twice: the program stopped",
            suggester="crash", claims="crashes", priority=30)
KIND = "double_backward"
TORCH_TEXT = "does not currently support double backward"
_GRAD_CALL = re.compile(r"\bautograd\.grad\(")


def matches(crash) -> bool:
    return TORCH_TEXT in crash.message


def describe(crash, ctx) -> None:
    where = grad_site(ctx.analysis)
    crash.detail = (f"`torch.autograd.grad` at {where.path}:{where.line}"
                    + (f" in {where.function}" if where.function and not where.function.startswith("<") else "")
                    if where else None)


def grad_site(analysis) -> Site | None:
    """Where the compiled code takes the gradient that is differentiated again: the user line of Dynamo's break on
    ``torch.autograd.grad`` (torch 2.13: "using `torch.autograd.grad` with ... trace_autograd_ops=False"), else the
    one ``autograd.grad(`` call with ``create_graph=True`` in the recorded sources."""
    breaks = [b for b in analysis.breaks if "autograd.grad" in f"{b.reason} {b.explanation}" and b.site.path]
    if breaks:
        return breaks[0].site
    found = []
    for path, text in analysis.sources.items():
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            if _GRAD_CALL.search(line.split("#", 1)[0]) and "create_graph=True" in " ".join(lines[number - 1:number + 3]):
                found.append(Site(path, number))
    return found[0] if len(found) == 1 else None


def message(crash, ctx) -> str:
    taken = f"the gradient taken with create_graph=True ({crash.detail})" if crash.detail else \
        "a gradient taken with create_graph=True inside compiled code"
    return (f"torch.compile cannot differentiate a compiled graph twice: {taken} is differentiated again by this "
            f"backward (AOTAutograd: \"{TORCH_TEXT}\"){raised_at(crash)}")


def fix(crash, ctx) -> str:
    where = grad_site(ctx.analysis)
    if where is not None and where.function and not where.function.startswith("<"):
        return (f"run `{where.function}` eagerly: decorate it with @torch.compiler.disable (its double backward then "
                "runs in eager autograd; the rest stays compiled), or call it outside the compiled function")
    return ("take the create_graph=True gradient outside the compiled function (or in a function of yours decorated "
            "with @torch.compiler.disable); the rest can stay compiled")
