"""## What it does
Reports a warning torch's compile stack printed (Dynamo, Inductor, AOTAutograd, or any of torch while Dynamo
traced) that tdiag has no specific words for, at the user's line it concerns, quoting torch's text.

## Why is this bad?
torch warns from inside its own files while it compiles the user's code: the warning's location names torch, not
the line it is about, and it is printed once among the program's other output. It may say that torch changed or
skipped something the program relies on.

## Example
Any warning torch.compile prints while compiling a function of the user's.

## Use instead
Read torch's warning, quoted in full with the finding; where it names a setting or an API, that is the change.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._warnings import warning_findings

RULE = Rule("WRN099", "other-torch-warning", "info", "torch's compile stack printed a warning (other cause)")


def check(ctx):
    # only what torch addressed to the user's line: a warning torch's own tracing raises inside torch is not theirs
    other = [w for w in ctx.torch_warnings if w.entry is None and w.from_compile_stack and w.addressed_to_user]
    return warning_findings(RULE, ctx, other, message, fix)


def message(w) -> str:
    when = "while compiling this line" if w.during_compile else "at this line"
    return f"torch warned {when}: \"{w.quote}\" ({w.category} from {w.module})"


def fix(w) -> str:
    return "no fix known to tdiag: torch's warning is quoted in full with the finding"
