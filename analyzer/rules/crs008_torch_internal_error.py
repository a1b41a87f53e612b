"""## What it does
Finds a program that torch.compile stopped with an internal error of its own: Dynamo, AOTAutograd or Inductor
tripped over valid code (`InternalTorchDynamoError`, an `AssertionError`, `KeyError`, ... raised from torch's
compile stack rather than from the user's code, or a message in which torch says it is a bug of its own). The
finding is on the user line Dynamo was tracing, names the torch release, and gives the facts for a bug report.

## Why is this bad?
The program does not run to its end, and nothing in it is wrong: the same code runs without torch.compile. Until
torch is fixed, the narrowest workaround keeps everything else compiled.

## Example
```python
@torch.compile(dynamic=True)
def step(x):
    report(x)                        # InternalTorchDynamoError: ValueError: Unknown format code 'f' ...
    return x * 2

def report(x):
    print(f"rows {x.shape[0]:.1f}")  # valid Python; Dynamo fails to format a symbolic size
```

## Use instead
```python
@torch.compiler.disable              # runs eagerly; the rest of step stays compiled
def report(x):
    print(f"rows {x.shape[0]:.1f}")
```
A line written in the compiled function itself moves into a function of its own, so only that line runs eagerly:
```python
@torch.compiler.disable
def _eager_print(y):
    print(f"rows {y.shape[0]:.1f}")

@torch.compile(dynamic=True)
def step(x):
    y = x * 2
    _eager_print(y)                  # was: print(f"rows {y.shape[0]:.1f}")
    return y.sum()
```
or move the line out of the compiled function (after the call). Report the bug to PyTorch with the facts in the
finding's evidence (torch version, the line, torch's message, a minimal repro).
"""

from tdiag.analyzer.crash import short_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted, raised_at

RULE = Rule("CRS008", "torch-internal-error", "error", "torch.compile failed inside torch (a torch bug)",
            suggester="crash", claims="crashes", priority=65)
KIND = "torch_internal"
# Python's own error types: raised from torch's compile stack they are torch's code failing, not a user error
# torch reports (those have types of their own: Unsupported, UserError, TorchRuntimeError, ...).
INTERNAL_TYPES = frozenset({"AssertionError", "KeyError", "AttributeError", "IndexError", "TypeError", "ValueError",
                            "NameError", "UnboundLocalError", "NotImplementedError", "RecursionError",
                            "StopIteration", "AsPythonConstantNotImplementedError"})
# torch's own words for an error it considers its bug
TORCH_BUG_TEXTS = ("This is a bug in PyTorch", "internal error, please report a bug", "indicates a guard bug",
                   "usually an internal error in Dynamo", "This is unexpected, please file a bug")
WRAPPERS = frozenset({"InternalTorchDynamoError", "BackendCompilerFailed", "InductorError"})


def matches(crash) -> bool:
    short = short_name(crash.exception)
    if short == "InternalTorchDynamoError" or any(text in crash.message for text in TORCH_BUG_TEXTS):
        return True
    if not crash.from_compile_stack or crash.backend_site is not None and crash.backend not in (None, "inductor"):
        return False  # the user's own backend raised: CRS004
    original = short_name(crash.original) if crash.original else short
    # torch's wrapper around a Python error its own code raised, or that error itself from torch's frames
    return original in INTERNAL_TYPES and crash.original_in_torch and (short in WRAPPERS or short in INTERNAL_TYPES)


def site(crash, ctx):
    """The line Dynamo was tracing; else the innermost line of the user's in the traceback: a compiled function's
    call into a library whose frame torch failed to compile (``metric.update(...)``), a line the user owns, not the
    compiled call around it."""
    return crash.cause_site or crash.backend_site or crash.call_site


def describe(crash, ctx) -> None:
    crash.detail = internal_error(crash)


def internal_error(crash) -> str:
    """torch's own account of what failed: ``ValueError: Unknown format code 'f' ...``."""
    short = short_name(crash.exception)
    if short == "InternalTorchDynamoError" or crash.original is None:
        return crash.headline
    return f"{short_name(crash.original)} inside torch ({crash.headline})"


def torch_release(ctx) -> str:
    version = ctx.analysis.run.torch_version or ""
    return ".".join(version.split("+", 1)[0].split(".")[:2]) or "(unknown version)"


def message(crash, ctx) -> str:
    return (f"torch.compile failed inside torch {torch_release(ctx)} (a torch bug, not your code): "
            f"{quoted(crash.detail or crash.headline, 240)}{raised_at(crash)}")


def fix(crash, ctx) -> str:
    call = _library_call(crash, ctx)
    if call is not None:  # the compiled function's own call into the code torch failed on: the user owns that line
        return (f"call `{call}` outside the compiled function (on what it returns), or put it in a small function of "
                "yours decorated with @torch.compiler.disable (it then runs eagerly each call); report the failure "
                "to PyTorch with the facts in this finding")
    return ("torch.compiler.disable the smallest function around this line, or move the line into a function of its "
            "own decorated with @torch.compiler.disable (the rest stays compiled), or out of the compiled function; "
            "report it to PyTorch with the facts in this finding")


def _library_call(crash, ctx) -> str | None:
    """The statement at the crash's line when it is a plain call made inside the compiled function that torch was
    compiling into (the traceback's innermost user line, not Dynamo's own), e.g. ``val_acc.update(preds, y)``."""
    where = site(crash, ctx)
    if where is None or crash.cause_site is not None or where == crash.call_site:
        return None
    lines = (ctx.analysis.sources.get(where.path) or "").splitlines()
    text = lines[where.line - 1].split("#", 1)[0].strip() if 0 < where.line <= len(lines) else ""
    is_call = text.endswith(")") and "(" in text and "=" not in text.split("(", 1)[0]
    return text if is_call and not text.startswith(("return", "yield", "if ", "for ", "while ")) else None
