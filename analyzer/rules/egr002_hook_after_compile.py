"""## What it does
Finds a forward hook (or pre-hook) registered on a module after torch.compile had compiled code, in a run that was
not compared with eager (with `tdiag run --vs-eager`, EGR001 says whether the results differ).

## Why is this bad?
Dynamo does not guard on module hooks by default (`torch._dynamo.config.skip_nnmodule_hook_guards`): a hook added
after the first compiled call of the module is never called by the compiled model, and torch says nothing.

## Example
```python
model = torch.compile(model)
model(x)
model.head.register_forward_hook(steer)    # the compiled model never calls it
```

## Use instead
Register hooks before the first compiled call, or set `torch._dynamo.config.skip_nnmodule_hook_guards = False`
before compiling. `tdiag run --vs-eager` checks whether the results differ.
"""

from tdiag.analyzer import eager_parity
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules.egr001_differs_from_eager import HOOK_FIX

RULE = Rule("EGR002", "hook-after-compile", "warning",
            "A module hook was registered after torch.compile compiled code: compiled code may never call it")


def check(ctx):
    log = ctx.log
    if log is None:
        return []
    verdict = eager_parity.parity(log)
    if verdict is not None and verdict.verdict != "not measured":
        return []  # compared with eager: EGR001 reports a difference, or there is none
    return [RULE.finding(
        message=f"{hook['kind']} on a {hook['module']} after torch had compiled {hook['compiled_frames']} frame(s): "
        "Dynamo does not guard on module hooks, so a compiled module that already ran never calls it "
        "(`tdiag run --vs-eager` compares the results)",
        fix=HOOK_FIX, path=hook["path"], line=int(hook["line"]), function=hook.get("function"))
        # only a registration the user's own line makes: a library's hooks (DDP's, a parametrization's) registered
        # after some other frame compiled are not evidence enough without a comparison with eager
        for hook in eager_parity.late_hooks(log) if hook.get("direct", True)]
