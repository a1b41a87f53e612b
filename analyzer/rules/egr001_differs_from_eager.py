"""## What it does
Compares what the program printed compiled with what it prints with torch.compile disabled (`tdiag run --vs-eager`
runs it again with `TORCH_COMPILE_DISABLE=1`), within the program's own run-to-run spread, and reports results that
differ. Where tdiag saw the cause it names it: a forward hook registered on a module after torch compiled code, a
`try`/`except KeyError` inside a compiled function, Inductor's own random numbers, or a graph Inductor computes in
bfloat16/float16 (its fused kernels keep intermediates in float32: `torch._inductor.config.emulate_precision_casts`).

## Why is this bad?
torch.compile must not change what a program computes, and torch reports nothing when it does. Dynamo does not
guard on module hooks by default (`torch._dynamo.config.skip_nnmodule_hook_guards`): a hook added after the first
compiled call is never called by the compiled model. Dynamo settles an `except KeyError` branch when it traces and
guards on no key's absence: the graph of the except branch is reused for inputs that have the key.

## Example
```python
model = torch.compile(model)
model(x)                                   # compiled here
model[2].register_forward_hook(steer)      # ignored by the compiled model

def forward(self, batch):
    try:
        age = batch["user_age"]
    except KeyError:                       # compiled once, reused when the key is there
        age = torch.zeros(n, 1)
```

## Use instead
Register hooks before the first compiled call (or set `torch._dynamo.config.skip_nnmodule_hook_guards = False`
before compiling, which guards on them); test a key's presence with `if "user_age" in batch:` or
`batch.get("user_age")`, which Dynamo guards on.
"""

import re

from tdiag.analyzer import eager_parity
from tdiag.analyzer.rules import Rule

RULE = Rule("EGR001", "differs-from-eager", "error",
            "The program's compiled results differ from its results with torch.compile disabled")
RANDOM_FIX = ("expected if any random stream will do; to get eager's numbers set "
              "torch._inductor.config.fallback_random = True before compiling (slower random ops)")
NESTED_FIX = ("zero the padded positions of the encoder's output with the padding mask (`masked_fill`) before "
              "anything reads them (pooling), so eager and compiled agree; enable_nested_tensor=False only makes eager "
              "keep the padding values too")
PRECISION_FIX = ("to get eager's numbers set torch._inductor.config.emulate_precision_casts = True before compiling "
                 "(Inductor then rounds intermediates to the low precision as eager does); expected otherwise: the "
                 "compiled result is the more precise one")
HOOK_FIX = ("register the hook before the model's first compiled call, or set "
            "torch._dynamo.config.skip_nnmodule_hook_guards = False before compiling (Dynamo then guards on hooks)")
EXCEPT_FIX = ("test the key's presence instead of catching the error (`if \"{key}\" in {container}:`, or "
              "`{container}.get(\"{key}\")`): Dynamo guards on a dict's keys, not on an exception it saw while tracing")
EXCEPT_FIX_UNNAMED = ("test for the key, index or attribute before reading it (`in`, `.get(...)`, `len(...)`, "
                      "`hasattr(...)`) instead of catching the error: Dynamo guards on those, not on an exception it "
                      "saw while tracing")


def check(ctx):
    log = ctx.log
    verdict = eager_parity.parity(log) if log is not None else None
    if verdict is None or not verdict.differs:
        return []
    where = verdict.first_difference or verdict.detail
    findings = []
    for hook in eager_parity.late_hooks(log):
        findings.append(RULE.finding(
            message=f"compiled results differ from eager ({where}); {hook['kind']} on a {hook['module']} here, "
            f"after torch had compiled {hook['compiled_frames']} frame(s): Dynamo does not guard on module hooks, "
            "so the compiled model never calls it",
            fix=HOOK_FIX, path=hook["path"], line=int(hook["line"]), function=hook.get("function")))
    compiled = {(g.path, g.code_name) for g in ctx.analysis.graphs if g.status == "ok"}
    for settled in eager_parity.settled_excepts(ctx.analysis.sources, compiled):
        findings.append(RULE.finding(
            message=f"compiled results differ from eager ({where}); `{settled.statement}` in a try whose except "
            f"{settled.catches} Dynamo settled when it compiled {settled.function}: no guard checks the key, so one "
            "branch's graph runs for every input",
            fix=_except_fix(settled.statement), path=settled.path, line=settled.line,
            function=settled.function))
    if findings:
        return findings
    anchor = _entry(ctx)  # never None: a measured difference is always said
    random = eager_parity.random_inductor_graphs(ctx.analysis)
    if random:
        names = ", ".join(sorted({g.code_name for g in random}))
        return [RULE.finding(
            message=f"compiled results differ from eager ({where}); the graphs Inductor compiled for {names} draw "
            "random numbers (dropout, rand): Inductor generates its own, not eager's, so the seeded program "
            "computes other values",
            fix=RANDOM_FIX, **anchor)]
    nested = eager_parity.nested_tensor_fast_path(ctx.analysis)
    if nested is not None:
        return [RULE.finding(
            message=f"compiled results differ from eager ({where}); {nested} runs an nn.TransformerEncoder with a "
            "padding mask: in eval mode eager takes its nested-tensor fast path, whose outputs at padded positions "
            "are zeros, and torch.compile turns that path off, so the compiled outputs there are computed values; "
            "code that reads padded positions (a sum over the sequence) differs",
            fix=NESTED_FIX, **anchor)]
    low = eager_parity.low_precision_inductor_graphs(ctx.analysis)
    if low:
        names = ", ".join(sorted({g.code_name for g in low}))
        return [RULE.finding(
            message=f"compiled results differ from eager ({where}); the graphs Inductor compiled for {names} compute "
            "in bfloat16/float16: Inductor keeps a fused kernel's intermediates in float32 where eager rounds each "
            "op's output to the low precision",
            fix=PRECISION_FIX, **anchor)]
    if _known_divergence(ctx.analysis):
        return []  # EGR003 names the object that computes differently, at its line: the difference is said there
    first = re.match(r"line (\d+)\b", where or "")
    if first is not None and int(first.group(1)) > 1 and _floats_apart(where):
        # the lines before agree: no wrong branch or missing call, numbers that drifted apart as the run went on
        return [RULE.finding(
            message=f"compiled results differ from eager from output line {first.group(1)} on, the lines before it "
            f"agreeing ({where}): compiled code rounds floating-point operations in another order (AOTAutograd's "
            "traced backward, Inductor's fused kernels), and a long run, training above all, amplifies last-bit "
            "differences",
            fix=DRIFT_FIX, **anchor)]
    return [RULE.finding(
        message=f"compiled results differ from eager: {where}; tdiag saw no cause it can name (run with "
        "TORCH_COMPILE_DISABLE=1 and bisect the compiled functions with torch.compiler.disable)",
        fix="find the compiled function whose result differs (disable them one at a time) and report it to torch "
        "if the program's code is not the cause", **anchor)]


DRIFT_FIX = ("not a bug by itself: compare results within a tolerance (or across seeds), not digit for digit; to "
             "check, compile with backend=\"eager\" (Dynamo alone): if that output matches eager, the backend's "
             "rounding is the cause; report it to torch only if the difference stays there")


NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
APART = re.compile(r"compiled `(?P<compiled>.*)`, eager `(?P<eager>.*)`$")


def _floats_apart(where: str) -> bool:
    """The first differing line differs only in floating-point numbers: the same words around them, and no pair of
    integers apart (rounding moves a float's last digits; it does not add keys or change a count)."""
    m = APART.search(where or "")
    if m is None:
        return True  # no line quoted: the drift reading stands
    compiled, eager = m["compiled"], m["eager"]
    if NUMBER.sub("#", compiled) != NUMBER.sub("#", eager):
        return False
    pairs = zip(NUMBER.findall(compiled), NUMBER.findall(eager))
    return not any(c != e and not any(ch in c + e for ch in ".eE") for c, e in pairs)


def _known_divergence(analysis) -> bool:
    """A Python object Dynamo models differently is used in the traced code (EGR003's catalogue)."""
    from tdiag.analyzer.eager_divergences import uses_in_run

    return bool(uses_in_run(analysis))


def _except_fix(statement: str) -> str:
    """Words naming the dict and key of ``age = batch["user_age"]``, where the statement has them."""
    import re

    m = re.search(r"([A-Za-z_][\w.]*)\s*\[\s*['\"]([^'\"]+)['\"]\s*\]", statement)
    return EXCEPT_FIX.format(container=m.group(1), key=m.group(2)) if m else EXCEPT_FIX_UNNAMED


def _entry(ctx):
    """A line of the user's for the finding: the first compiled function's own first line where it is the user's,
    else the user's line that called into compiled code (``torch.compile(nn.Sequential(...))``: its forward is
    torch's), else the program's first line. A measured difference is never dropped for want of a line."""
    analysis = ctx.analysis
    for g in analysis.graphs:
        if g.path and g.line and g.path in analysis.sources:
            return {"path": g.path, "line": g.line, "function": g.code_name}
    for g in analysis.graphs:
        site, _ = ctx.graph_anchor(g)  # the rules' one anchor: the user's call into a library's compiled frame
        if site is not None and site.path in analysis.sources:
            return {"path": site.path, "line": site.line, "function": site.function}
    script = next(iter(analysis.sources), None)
    return {"path": script or "<program>", "line": 1, "function": None}
