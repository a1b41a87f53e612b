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

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted

RULE = Rule("CRS005", "compile-environment", "error", "The compiler's toolchain is missing: the program stopped",
            claims="crashes", priority=60)
KIND = "environment"

# Environment failures: (marker in torch's message or the exceptions chained to it, what is wrong, the fix).
ENVIRONMENT = (
    ("InvalidCxxCompiler", "no working C++ compiler",
     "install a C++ compiler (e.g. `apt install g++`), or point CXX at a working one; Inductor builds its CPU "
     "kernels with it (backend=\"aot_eager\" runs without one meanwhile)"),
    ("No working C++ compiler", "no working C++ compiler",
     "install a C++ compiler (e.g. `apt install g++`), or point CXX at a working one"),
    ("Cannot find a working triton installation", "Triton is not installed",
     "install the Triton build that matches this torch (`pip install triton` of the version torch pins), or "
     "compile for the CPU"),
    ("No module named 'triton'", "Triton is not installed",
     "install the Triton build that matches this torch (`pip install triton` of the version torch pins)"),
    ("triton", "Triton of another version than this torch expects",
     "install the Triton version this torch was built with (see torch's requirements), not a newer or older one"),
    ("out of resource: shared memory", "a kernel needs more shared memory than the GPU has",
     "lower the block sizes (torch._inductor.config.triton.max_block) or use mode=\"max-autotune-no-cudagraphs\""),
)
TRITON_VERSION = ("ImportError", "cannot import name", "has no attribute", "version")


def matches(crash) -> bool:
    return environment(crash) is not None


def describe(crash, ctx) -> None:
    crash.detail = environment(crash)
    crash.site = crash.call_site


def environment(crash) -> str | None:
    """What is wrong with the machine, as the first entry of ENVIRONMENT that torch's text names."""
    text = f"{crash.message}\n{crash.chain}"
    for marker, what, _fix in ENVIRONMENT:
        if marker == "triton":
            lowered = text.lower()
            if "triton" in lowered and any(w.lower() in lowered for w in TRITON_VERSION):
                return what
            continue
        if marker in text:
            return what
    return None


def environment_fix(what: str | None) -> str:
    """The fix for an environment failure ``environment`` named."""
    return next((fix for _, name, fix in ENVIRONMENT if name == what), "fix the compiler toolchain torch reports")


def message(crash, ctx) -> str:
    return f"{crash.detail} - torch.compile could not build its kernels ({quoted(crash.headline, 200)})"


def fix(crash, ctx) -> str:
    return environment_fix(crash.detail)
