"""## What it does
Finds a program that torch.compile stopped because the machine lacks what the compiler needs: no working C++
compiler (Inductor's CPU kernels), Triton missing or of another version than torch expects (GPU kernels), or a
kernel that needs more shared memory than the GPU has.

## Why is this bad?
The program does not run to its end, and nothing in the user's code is wrong: the fix is in the environment.

## Example
```text
torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx
```

## Use instead
Install the missing tool (a C++ compiler; the Triton version torch pins), or compile with `backend="aot_eager"`
until it is there.
"""

from tdiag.analyzer.crash import environment_fix
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted

RULE = Rule("CRS005", "compile-environment", "error", "The compiler's toolchain is missing: the program stopped",
            claims="crashes")


def matches(crash) -> bool:
    return crash.kind == "environment"


def message(crash, ctx) -> str:
    return f"{crash.detail} - torch.compile could not build its kernels ({quoted(crash.headline, 200)})"


def fix(crash, ctx) -> str:
    return environment_fix(crash.detail)
