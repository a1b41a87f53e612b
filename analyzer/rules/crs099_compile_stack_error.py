"""## What it does
Finds a program stopped by any other exception raised from inside torch.compile's stack (Dynamo, AOTAutograd,
Inductor, fake tensors, symbolic shapes) that no other CRS rule explains, with torch's own message: e.g. a
`TorchRuntimeError` when an operation fails on fake tensors while tracing.

## Why is this bad?
The program does not run to its end. Whether the error is in the program (shapes that do not match) or in torch,
torch.compile is where it surfaced, and the run is not an all-clear.

## Example
```python
torch.compile(lambda a, b: a @ b)(torch.ones(3, 4), torch.ones(5, 6))   # TorchRuntimeError while tracing
```

## Use instead
Read torch's message at the user line it names; where the program is right and torch is not, report it
(with `TORCHDYNAMO_VERBOSE=1`'s traceback) and `torch.compiler.disable` the function meanwhile.
"""

import re

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted, raised_at

from tdiag.lazy_regex import lazy_regex

WRAPPED = lazy_regex(r"got ((?:RuntimeError|TypeError|ValueError|IndexError|AssertionError)\(.*\))\s*$", re.M)
RULE = Rule("CRS099", "compile-stack-error", "error", "An error from inside torch.compile stopped the program",
            suggester="crash", claims="crashes", priority=999)
KIND = "compile_stack"


def matches(crash) -> bool:
    return crash.from_compile_stack


def message(crash, ctx) -> str:
    return f"torch.compile raised {crash.exception.rsplit('.', 1)[-1]}: {quoted(_reason(crash), 240)}{raised_at(crash)}"


def fix(crash, ctx) -> str:
    return ("fix what torch's message names at this line; if the program is right, torch.compiler.disable the "
            "function and report it to PyTorch")


def _reason(crash) -> str:
    """torch's headline, and the underlying error where Dynamo wrapped one ("RuntimeError when making fake tensor
    call" says less than the RuntimeError it wraps)."""
    m = WRAPPED.search(crash.message)
    if m is not None:
        return f"{crash.headline}: {m.group(1)}"
    return crash.headline
