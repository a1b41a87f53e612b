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

from tdiag.analyzer.crash import last_recompile_guard, short_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted

from tdiag.lazy_regex import lazy_regex

RULE = Rule("CRS003", "recompile-forbidden", "error", "A recompile under fail_on_recompile stopped the program",
            suggester="crash", claims="crashes", priority=40)
KIND = "recompile_policy"
GUARD_FAILURE = lazy_regex(r"^\s*- (?:\d+/\d+: )?(.+?)\s*(?:#.*)?$")


def matches(crash) -> bool:
    return policy_of(crash) is not None


def describe(crash, ctx) -> None:
    crash.policy = policy_of(crash)
    guards = guard_failures(crash.message)
    crash.detail = "; ".join(guards) if guards else last_recompile_guard(ctx.analysis.recompiles, crash.rank)
    crash.site = crash.call_site


def policy_of(crash) -> str | None:
    """The policy that made a recompile an error, from torch's exception type and message."""
    short, message = short_name(crash.exception), crash.message
    if "stance is 'fail_on_recompile'" in message:
        return 'torch.compiler.set_stance("fail_on_recompile")'
    if short == "RecompileError":
        return "torch._dynamo.config.error_on_recompile = True"
    if short == "FailOnRecompileLimitHit":
        if "fullgraph" in message:
            return "the recompile limit under fullgraph=True"
        return "torch._dynamo.config.fail_on_recompile_limit_hit = True"
    return None


def guard_failures(message: str) -> list[str]:
    """The failed guards torch lists after "triggered by the following guard failure(s):", without its source
    comments and the user stack it appends."""
    _, found, rest = message.partition("guard failure(s):")
    out = []
    for line in rest.splitlines() if found else []:
        m = GUARD_FAILURE.match(line)
        if m is None or m.group(1).startswith(("User stack", "File ", "  ")) or line.strip().startswith("-  "):
            continue
        out.append(m.group(1))
    return out


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
