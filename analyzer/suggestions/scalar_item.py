"""BRK002: ``.item()`` inside compiled code. Keep the value a tensor when it only feeds tensor arithmetic;
otherwise let Dynamo capture the scalar (``capture_scalar_outputs``)."""

from __future__ import annotations

import libcst as cst
from libcst.helpers import parse_template_statement
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers import lightning_hook, read_after_call
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    first_candidate,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted
from tdiag.analyzer.suggestions.helpers.tensor_use import only_tensor_arithmetic, reads_of

KEEP_TENSOR_WHY = (
    "`.item()` copies the value to the host, which forces a device sync and ends the graph; the Python float it "
    "returns is then also guarded on, so a new value can recompile the code after it. Arithmetic with a 0-d "
    "tensor gives the same result and stays in one graph. `.detach()` keeps what `.item()` also did: the value "
    "is a constant to autograd, so no gradient flows back through it and training takes the same steps."
)
CAPTURE_WHY = (
    "With capture_scalar_outputs Dynamo keeps `.item()` in the graph as a symbolic scalar instead of breaking, "
    "and does not specialise on its value. Branching on that value in Python still breaks the graph."
)
CAPTURE_FLAG = "_dynamo.config.capture_scalar_outputs"


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    try:
        call = host_call_on_line(tree, finding, ("item",))
    except NoPatch as no_call:
        return _conversion(tree, no_call)
    try:
        return keep_tensor(tree, call)
    except NoPatch as why_not:
        keep_tensor_refused = why_not
    # the candidates in the order `tdiag fix --verify` tries them: the read taken out of the function, then the
    # scalar captured in the graph
    kept_words = f"keep it a tensor (no patch: {keep_tensor_refused})"
    first = first_candidate((*read_elsewhere(tree, call), lambda: capture_scalar_outputs(tree)), [kept_words])
    first.alternatives = [kept_words, *_vectorise_alternatives()]
    return first


def _conversion(tree: SourceTree, no_call: NoPatch) -> Suggestion:
    """torch reports Tensor.item for a conversion with no `.item()` to rewrite (`float(t)`, `int(t)`, a tensor
    passed where Python wants a number): the scalar captured in the graph, the one patch that does not depend on the
    syntax, a candidate `tdiag fix --verify` keeps only where the break goes and the output stays."""
    try:
        suggestion = capture_scalar_outputs(tree)
    except NoPatch:
        raise no_call from None
    suggestion.alternatives = ["keep the value a tensor: use it in tensor arithmetic instead of converting it",
                               *_vectorise_alternatives()]
    return suggestion


def read_elsewhere(tree: SourceTree, call: cst.Call) -> tuple:
    """The patches that take the host read out of the compiled function, in the order they are tried: the read moved
    after the call (or, in a LightningModule's training_step, into the hook Lightning calls after it), or the tensor
    returned and read there (the hand fixes: one graph, nothing on the host)."""
    statement = tree.enclosing_statement_line(call)
    return (lambda: read_after_call.build(tree, statement),
            lambda: lightning_hook.build(tree, statement),
            lambda: read_after_call.build_returned(tree, call))


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    return Suggestion(
        title="Keep the value a tensor, or set torch._dynamo.config.capture_scalar_outputs = True",
        why=KEEP_TENSOR_WHY,
        alternatives=_vectorise_alternatives(),
    )


def host_call_on_line(tree: SourceTree, finding: Finding, methods: tuple[str, ...]) -> cst.Call:
    """The ``.item()``-style call the break points at (by column when several are on the line)."""
    calls = [
        c
        for c in tree.nodes_on_line(cst.Call, finding.line)
        if isinstance(c.func, cst.Attribute) and c.func.attr.value in methods and not c.args
    ]
    if finding.column is not None and len(calls) > 1:
        # Columns are 1-based; a break points at the whole call expression.
        at_column = [c for c in calls if tree.positions[c].start.column + 1 == finding.column]
        calls = at_column or calls
    if len(calls) != 1:
        raise NoPatch(f"expected one .{'/.'.join(methods)}() call on line {finding.line}, found {len(calls)}")
    return calls[0]


def keep_tensor(tree: SourceTree, call: cst.Call) -> Suggestion:
    assign = tree.parent(call)
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        raise NoPatch("the .item() result is not assigned to a name")
    name = assign.targets[0].target.value
    if tree.enclosing_function(call) is None:
        raise NoPatch("the .item() call is not inside a function")
    reads = reads_of(tree, name, assign)
    if reads is None:
        raise NoPatch(f"`{name}` is reassigned or used by an inner function")
    problem = only_tensor_arithmetic(tree, name, reads)
    if problem:
        raise NoPatch(problem)
    assert isinstance(call.func, cst.Attribute)
    # `.detach()`, not the bare tensor: a gradient through the kept value would change what the program trains
    # (tdiag's own example: its losses moved in the 4th decimal, identical with the detach)
    new_module = tree.module.deep_replace(call, call.with_changes(func=call.func.with_changes(attr=cst.Name("detach"))))
    return Suggestion(
        title=f"Keep `{name}` a tensor: .detach() in place of .item()",
        why=KEEP_TENSOR_WHY,
        patch=patch_for(tree, new_module),
        alternatives=[
            "set torch._dynamo.config.capture_scalar_outputs = True to trace .item() as a symbolic scalar",
            *_vectorise_alternatives(),
        ],
    )


def capture_scalar_outputs(tree: SourceTree) -> Suggestion:
    """The patch that turns on capture_scalar_outputs right after the file's ``import torch``."""
    if CAPTURE_FLAG in tree.text:
        raise NoPatch("the file already sets capture_scalar_outputs")
    torch = torch_alias(tree)
    flag_line = parse_template_statement(
        "{torch}._dynamo.config.capture_scalar_outputs = True", config=tree.module.config_for_parsing, torch=cst.Name(torch)
    )
    module = with_torch_import(tree, tree.module)
    body = list(module.body)
    at = next((i + 1 for i, stmt in enumerate(body) if imports_torch(stmt)), None)
    if at is None:
        raise NoPatch("no top-level `import torch` line to put the setting after")
    new_module = module.with_changes(body=[*body[:at], flag_line, *body[at:]])
    return Suggestion(
        title="Set torch._dynamo.config.capture_scalar_outputs = True",
        why=CAPTURE_WHY,
        patch=patch_for(tree, new_module),
        alternatives=_vectorise_alternatives(),
    )


def imports_torch(stmt: cst.CSTNode) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return any(isinstance(s, cst.Import) and any(dotted(a.name) == "torch" for a in s.names) for s in stmt.body)


def _vectorise_alternatives() -> list[str]:
    return [
        "vectorise: express the per-element Python logic as tensor operations so no value leaves the device",
        "move the host read out of the compiled function and pass the result in",
    ]
