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

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted, raised_at

RULE = Rule("CRS004", "backend-failed", "error", "The compiler backend raised and stopped the program",
            suggester="crash", claims="crashes")


def matches(crash) -> bool:
    return crash.kind == "backend_failed"


def message(crash, ctx) -> str:
    return f"compiling failed in the backend: {quoted(crash.detail or crash.headline, 240)}{raised_at(crash)}"


def fix(crash, ctx) -> str:
    return ("fix the backend's error, or compile with another backend meanwhile (backend=\"aot_eager\"); "
            "torch.compiler.disable the part that fails")
