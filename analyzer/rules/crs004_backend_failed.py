"""## What it does
Finds a program that torch.compile stopped because the compiler backend raised: `BackendCompilerFailed` from a
custom backend, `InductorError` or a lowering error from Inductor. The finding names the backend's own error, and
the user line torch names for the failing node where it does, else the compiled call.

## Why is this bad?
The program does not run to its end. Unless `torch._dynamo.config.suppress_errors` is set, a backend failure is
fatal; with it set, the function silently runs eagerly instead (CMP003).

## Example
```python
def my_backend(gm, example_inputs):
    raise RuntimeError("cannot handle this graph")

torch.compile(step, backend=my_backend)(x)   # BackendCompilerFailed
```

## Use instead
Fix the error the backend reports, compile the function with another backend meanwhile
(`backend="aot_eager"`), or `torch.compiler.disable` the part that fails.
"""

from tdiag.analyzer.crash import op_target, short_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted, raised_at

RULE = Rule("CRS004", "backend-failed", "error", "The compiler backend raised and stopped the program",
            suggester="crash", claims="crashes", priority=70)
KIND = "backend_failed"
BACKEND_ERRORS = ("BackendCompilerFailed", "InductorError", "LoweringException")


def matches(crash) -> bool:
    return short_name(crash.exception) in BACKEND_ERRORS or crash.inner is not None


def describe(crash, ctx) -> None:
    backend = crash.backend or ("inductor" if short_name(crash.exception) == "InductorError" else None)
    own = crash.inner or crash.headline
    crash.detail = f"backend {backend!r} raised {own}" if backend else own
    target = op_target(crash.message)
    if target is not None:
        crash.detail += f" (op {target})"
    # the node's user line where torch names its op (crash.op_site); else the user line torch quotes; else the
    # user's own backend code that raised (a frame below torch's entry), else the compiled call
    own_backend = None if backend == "inductor" else crash.backend_site
    crash.site = crash.op_site or crash.quoted_site or own_backend or crash.call_site


def message(crash, ctx) -> str:
    return f"compiling failed in the backend: {quoted(crash.detail or crash.headline, 240)}{raised_at(crash)}"


def fix(crash, ctx) -> str:
    return ("fix the backend's error, or compile with another backend meanwhile (backend=\"aot_eager\"); "
            "torch.compiler.disable the part that fails")
