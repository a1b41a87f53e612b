"""## What it does
Finds calls Dynamo cannot trace: C extensions, unsupported builtins, functions marked as skipped and
third-party code (the break may happen deep inside a library; the finding points at your line that called it).

## Why is this bad?
The call runs in Python between two graphs on every step; everything before and after it compiles separately.

## Example
```python
y = x * 2
label = jinja2.Template("scale={{ s }}").render(s=2)
```

When torch reports the skipped function (its debug context: module, qualname, skip reason), the finding names it,
its file and why torch skips it (a C function, torch's skip list, an import-system call, a function torch runs eagerly
on purpose), and the fix follows from those facts.

## Use instead
A torch-native equivalent where one exists (`torch.rand(())` for `random.random()`, a
`torch.utils.checkpoint.checkpoint(segment, x, use_reentrant=False)` per segment for `checkpoint_sequential`). Else
move the call out of the compiled region, wrap it with `torch.compiler.disable`, register it with
`torch.compiler.allow_in_graph` when it only works on tensors, or make it a `torch.library.custom_op` with a
fake (meta) implementation.
"""

import re

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import catalogue_fix, reason_text, words
from tdiag.analyzer.skipped_call import skipped_call

RULE = Rule("BRK005", "untraceable-call", "warning", "Call into code Dynamo cannot trace", suggester="untraceable_call",
            claims="breaks", priority=60,
            message="graph break: call Dynamo cannot trace ({reason}){where}",
            fix="move the call out, or wrap it: torch.compiler.disable / allow_in_graph / torch.library.custom_op")
UNTRACEABLE = ("skipped", "builtin", "c function", "unsupported context manager", "not supported", "time function")
# torch 2.15+: "Call to a time function" (GB9193), context "Called `time.perf_counter_ns()` inside a compiled region":
# torch breaks on purpose so that the clock is read where the compiled ops around it have run
CLOCKS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.time_ns",
                    "time.perf_counter_ns", "time.monotonic_ns"})
_CLOCK_READ = re.compile(r"Called `(?P<call>[^`]+)` inside a compiled region")


def is_backward(reason: str) -> bool:
    """torch's break for ``Tensor.backward()`` inside compiled code (GB0123: "Unsupported Tensor.backward() call")."""
    return "tensor.backward()" in reason.lower()


def _clock_read(b) -> str | None:
    """The clock call of torch's time-function break (``time.perf_counter_ns()``), else None."""
    if "time function" not in reason_text(b):
        return None
    m = _CLOCK_READ.search(b.context or "")
    return m.group("call") if m else "the clock read"


def matches(b) -> bool:
    reason = reason_text(b)
    unsupported_call = "unsupported" in reason and " call" in reason  # "Unsupported Tensor.backward() call"
    return b.library_frame is not None or unsupported_call or any(word in reason for word in UNTRACEABLE)


def message(b) -> str:
    """Names the function torch skipped, its file and torch's reason, when torch reported them."""
    if is_backward(b.reason):
        return (f"graph break: `.backward()` inside the compiled function{words(b)['where']}: Dynamo does not trace "
                "Tensor.backward(), so the step splits there and the backward runs eagerly between two graphs")
    clock = _clock_read(b)
    if clock is not None:
        return (f"graph break: `{clock}` reads the clock: torch splits the graph there on purpose, so the time is read "
                f"after the compiled ops before it{words(b)['where']}")
    skipped = skipped_call(b.reason, b.explanation, b.context)
    if skipped is None:
        return RULE.message.format(**words(b))
    where = f" in {skipped.file}" if skipped.file else ""
    if (skipped.file or "").endswith("optim/lr_scheduler.py") and "LRScheduler" not in skipped.name:
        # an LR scheduler wraps its optimizer's step (to count the calls): torch reports the wrapper's file
        where = f" (through the LR scheduler's wrapper around it, in {skipped.file})"
    return f"graph break: Dynamo does not trace `{skipped.name}`{where}: {skipped.why}{words(b)['where']}"


def fix(b) -> str:
    """From the facts: a torch-native equivalent where one exists, else moving the call out or disabling the
    smallest function of the user's around it (what that costs said)."""
    from tdiag.analyzer.native_equivalents import equivalent

    if is_backward(b.reason):
        return ("return the loss and call `.backward()` on it right after the compiled call: the same backward "
                "(AOTAutograd compiles it with the forward either way), and the step is one graph")
    clock = _clock_read(b)
    if clock is not None:
        return (f"read the clock outside the compiled function: time the call from where you make it (`{clock}` "
                "before and after it), or use torch.profiler")
    skipped = skipped_call(b.reason, b.explanation, b.context)
    if skipped is None:
        return catalogue_fix(b) or RULE.fix
    if skipped.name in CLOCKS:  # torch before 2.15 skips the clock as a C function; the advice is the clock's
        return (f"read the clock outside the compiled function: time the call from where you make it "
                f"(`{skipped.name}()` before and after it), or use torch.profiler")
    native = equivalent(skipped.name)
    if native is not None:
        return f"use `{native.instead}` instead of `{skipped.name}`: {native.note}"
    if skipped.kind == "torch-disabled":
        return (f"expected: torch runs `{skipped.name}` eagerly on purpose; to keep one graph, call it outside the "
                "compiled function (before or after it)")
    if skipped.kind == "import-system":
        return "import at the top of the module, not inside the compiled function"
    if acts_on_gradients(skipped) and _called_for_effect(b, skipped.name):
        return (f"call it after the compiled call, with the backward: `{skipped.name}` is part of the update that "
                "follows it (the step returns its loss; after the call, the loss's `backward()`, then the update); to "
                "compile the optimizer step, compile it on its own (torch's recipe: `@torch.compile` on a function "
                "of yours that calls the optimizer's `step()`, the learning rate a tensor where a scheduler changes "
                "it)")
    before = ("before the compiled function (a statement of its own: it is called for its effect, nothing to pass "
              "in)" if _called_for_effect(b, skipped.name) else "before the compiled function and pass its result in")
    return (f"call `{skipped.name}` {before}; or put it in a small function of yours decorated with "
            "@torch.compiler.disable (the graph still splits there: that function runs eagerly on every call)")


def acts_on_gradients(skipped) -> bool:
    """An optimizer's or an LR scheduler's method (torch.optim): the update that follows the backward."""
    where = f"{skipped.file or ''} {skipped.reason or ''}"  # torch's skip reason names the file when nothing else does
    return (skipped.module or "").startswith("torch.optim") or "torch/optim/" in where


def _called_for_effect(b, name: str) -> bool:
    """The user's line is the call alone (``torch.manual_seed(i)``): its result is not used."""
    code = (b.user_stack[-1].code if b.user_stack else "") or ""
    callee = code.strip().split("(", 1)[0].strip()
    return code.strip().endswith(")") and callee.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1] and " " not in callee
