"""## What it does
Finds a program that torch.compile stopped because a function had to recompile and a policy made that an error:
`torch.compiler.set_stance("fail_on_recompile")`, `torch._dynamo.config.error_on_recompile = True`, or
`torch._dynamo.config.fail_on_recompile_limit_hit = True`. The finding names the guard that failed, as an RCP
finding would.

## Why is this bad?
The program does not run to its end. The policy is doing its job: an input changed in a way the compiled code was
specialised on (a size, a Python number, a dtype).

## Example
```python
compiled(torch.ones(4))
torch.compiler.set_stance("fail_on_recompile")
compiled(torch.ones(8))      # RuntimeError: Detected recompile ... size mismatch at index 0. expected 4, actual 8
```

## Use instead
Mark the changing dimension dynamic before the first call (`torch._dynamo.mark_dynamic(x, 0)`), warm up every
variant before setting the stance, or pass changing numbers as tensors.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted

RULE = Rule("CRS003", "recompile-forbidden", "error", "A recompile under fail_on_recompile stopped the program",
            suggester="crash", claims="crashes")


def matches(crash) -> bool:
    return crash.kind == "recompile_policy"


def message(crash, ctx) -> str:
    guard = f" (guard failed: {quoted(crash.detail)})" if crash.detail else ""
    limit = next((f for f in ctx.analysis.frames if f.hit_recompile_limit and f.rank == crash.rank), None)
    if limit is not None:
        return (f"{limit.code_name} ({limit.path}:{limit.line}) reached the recompile limit after {limit.recompiles} "
                f"recompilations{guard}, and {crash.policy} makes that an error instead of running it eagerly")
    return f"this call had to recompile{guard} and {crash.policy} makes a recompile an error"


def fix(crash, ctx) -> str:
    detail = crash.detail or ""
    if "size mismatch" in detail or "stride mismatch" in detail:
        return ("mark the changing dimension dynamic before the first call (torch._dynamo.mark_dynamic), or warm up "
                "every shape before the policy is set")
    if "dtype" in detail:
        return "keep one dtype per compiled function, or warm up each dtype before the policy is set"
    if "==" in detail:
        return "pass the changing number as a tensor, or warm up each value before the policy is set"
    return "warm up every variant before the policy is set, or lift the policy where inputs change"
