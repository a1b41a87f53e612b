"""## What it does
Reports graph breaks that no more specific BRK rule covers, with torch's own reason and hints.

## Why is this bad?
Every graph break splits the compiled region and adds a Python round trip per call.

## Example
Any construct Dynamo reports as a graph break (see the linked GB page for the exact cause).

## Use instead
The fix tdiag's catalogue lists for the break type (analyzer/catalogue/breaks.toml, keyed on torch's GB id), else
torch's own hint, quoted as torch's; the linked graph-break page lists the known workarounds.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import catalogue_fix, no_known_fix, torch_fix_hint, words

from tdiag.lazy_regex import lazy_regex

# Claims last: every break no other rule claims, worded with torch's own reason and hint.
RULE = Rule("BRK099", "other-graph-break", "warning", "Graph break (other cause)", claims="breaks", priority=999,
            message="graph break: {reason}{where}", fix="{hint}")


def matches(b) -> bool:
    return True


# torch's debug context when a call's argument cannot become a graph input ("Failed to convert args/kwargs to proxy",
# GB0055): "call_function args: SizeVariable(length=2) LazyVariableTracker(realized: UserDefinedObjectVariable(Generator))"
_OPAQUE_ARGUMENT = lazy_regex(r"UserDefinedObjectVariable\((\w+)\)")


def _opaque_argument(b) -> str | None:
    """The type of the object the call was given that Dynamo cannot put in a graph, when torch's context names it."""
    m = _OPAQUE_ARGUMENT.search(b.context or "") if "proxy" in (b.reason or "").lower() else None
    return m.group(1) if m else None


def message(b) -> str:
    opaque = _opaque_argument(b)
    detail = f" (an argument is a `{opaque}` object)" if opaque else ""
    return f"graph break: {b.reason}{detail}{words(b)['where']}"


def fix(b) -> str:
    """The first candidate of the catalogue's entry for this break type (catalogue/breaks.toml); without one,
    torch's own hint, quoted as torch's, where it asks for a change; else the generic move, said as such."""
    catalogue = catalogue_fix(b, opaque=_opaque_argument(b) or "")
    if catalogue is not None:
        return catalogue
    hint = torch_fix_hint(b)
    return f"torch's hint: {hint}" if hint else no_known_fix(b)

