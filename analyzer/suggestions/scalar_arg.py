"""RCP002 (and DYN001 on a scalar): a Python number argument is guarded on, so each new value recompiles.

Passed as a 0-d tensor the value is data, not a constant baked into the graph. The patch wraps the argument in
``torch.tensor(...)`` at every call of the compiled function in its file (on CUDA on the device of the call's tensor
argument). Where the function uses the parameter purely in tensor arithmetic that is the fix. An int used as a size
or in an ``if`` gets ``dynamic=True`` on its torch.compile instead (compile_dynamic). Any other use (passed on to a
library call, say) gets both, as candidates `tdiag fix --verify` tries in turn: the tensor first on CUDA, where
CUDA graphs record once per value of an int input and replay a tensor; the symbolic int first on a CPU.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.helpers import parse_template_expression
from tdiag.analyzer.evidence import DynamicEvidence, RecompileEvidence, evidence_as
from tdiag.analyzer.guard_words import is_string_value
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for, callee_name, calls_to, frame_params
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    first_candidate,
    patch_for,
    replace_nodes,
    run_device,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import dotted
from tdiag.analyzer.suggestions.helpers.tensor_use import only_tensor_arithmetic, reads_of

WHY = (
    "Dynamo treats Python numbers, strings and flags passed to a compiled function as constants and guards on "
    "their value, so every new value compiles again (until automatic dynamic makes ints symbolic, and floats "
    "stay specialised). A tensor argument is data: one graph serves every value."
)

CUDA_GRAPHS_WHY = (
    " On a GPU it is also what lets CUDA graphs (mode=\"reduce-overhead\") pay: they record one graph per value of "
    "every int input, so an int that changes every call records every call, where a tensor replays one graph."
)

STRING_WHY = (
    "Dynamo compiles a string argument in as a constant and guards on its value: a string can be neither a tensor "
    "nor a dynamic size, so each value is a graph of its own. That is fine while the values are few: past "
    "torch._dynamo.config.recompile_limit (8) every later call runs eagerly."
)

LENGTH_WHY = (
    "Dynamo guards on the length of a Python list or dict the compiled code reads or appends to, so a container that "
    "grows on every call fails the guard every call and compiles again, until the recompile limit sends the rest "
    "to eager. Kept outside the compiled function, the container is never guarded."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions.helpers import module_int_attr, optimizer_hparams

    if optimizer_hparams.applies(finding):  # `param_groups[0]['lr']` of a compiled optimizer step
        return optimizer_hparams.suggest(finding, ctx)
    if module_int_attr.applies(finding):  # `self.count`: an attribute of the module, not an argument
        return module_int_attr.suggest(finding, ctx)
    from tdiag.analyzer.suggestions.helpers import library_state_fix

    owned = library_state_fix.owned_state(finding)
    if owned is not None:  # state a library keeps on the user's object: the user's call on it is what to move
        return library_state_fix.suggest(finding, ctx, owned)
    name, frame, frame_path, frame_line = _target(finding)
    if name is None or not frame:
        from tdiag.analyzer.suggestions.helpers import global_arg

        try:  # a module global the function reads: an argument of the same name
            return global_arg.suggest(finding, ctx)
        except NoPatch as why_not:
            raise NoPatch(f"the guarded value is not a named argument ({why_not})") from None
    params = frame_params(ctx, frame_path, frame, frame_line)
    if params is None or name not in params:
        raise NoPatch(f"`{name}` is not a parameter of {frame}: it is computed inside the compiled code")
    expected = evidence_as(finding.evidence, RecompileEvidence).expected
    if expected is not None and not _is_number(expected):
        raise NoPatch(f"`{name}` takes values like {expected}, which are not numbers")
    tree = ctx.tree(frame_path)
    func = tree.function_def(frame, frame_line)
    inside = func.body.body[0]
    reads = reads_of(tree, name, inside)
    problem = "cannot see every use" if reads is None else only_tensor_arithmetic(tree, name, reads)
    on_cuda = run_device(ctx.analysis) == "cuda"
    if not problem:
        return _as_tensor(tree, name, frame, params, on_cuda, note=None)
    from tdiag.analyzer.suggestions.helpers import compile_dynamic

    def symbolic(use=compile_dynamic.SIZE_USE) -> Suggestion:  # the int stays an int, symbolic on its compile
        return compile_dynamic.suggest(finding, ctx, name, frame, frame_path, frame_line, expected, use)

    if reads is None or _definite(tree, reads):
        try:
            return symbolic()
        except NoPatch as why_not:
            raise NoPatch(f"a tensor `{name}` would not behave like the number inside {frame}: {problem}; "
                          f"and no dynamic=True patch: {why_not}") from None
    # not known to fail: a candidate for `tdiag fix --verify` to try, never withheld on a guess
    unchecked = (f"a candidate to verify (`tdiag fix --verify` runs it and keeps it only if the output stays the "
                 f"same): not checked from the source: {problem}")

    def tensor() -> Suggestion:
        return _as_tensor(tree, name, frame, params, on_cuda, note=unchecked)

    def passed_on() -> Suggestion:
        return symbolic(compile_dynamic.PASSED_USE)

    # Under CUDA graphs a symbolic int is no help: torch records one graph per value of every int input
    # (cudagraph_trees' int key), so an int that changes every call records every call. A tensor replays. On a CPU
    # the symbolic int is the safer first try: it keeps the number's type wherever it goes.
    return first_candidate([tensor, passed_on] if on_cuda else [passed_on, tensor])


def _as_tensor(tree, name: str, frame: str, params: list[str], on_cuda: bool, note: str | None) -> Suggestion:
    """``torch.tensor(value)`` at every call of ``frame`` in its file; on CUDA created on the device of the call's
    first other plain argument (a CPU tensor among CUDA inputs splits the graph for CUDA graphs or keeps it out)."""
    torch = torch_alias(tree)
    replacements = {}
    for call in calls_to(tree, frame):
        arg = argument_for(call, name, params)
        if isinstance(arg.value, cst.Call) and dotted(arg.value.func) in (f"{torch}.tensor", f"{torch}.as_tensor"):
            continue
        sibling = _device_sibling(call, arg) if on_cuda else None
        template = "{torch}.tensor({value}, device={sibling}.device)" if sibling is not None else "{torch}.tensor({value})"
        replacements[arg.value] = parse_template_expression(
            template, config=tree.module.config_for_parsing, torch=cst.Name(torch), value=arg.value,
            **({"sibling": sibling} if sibling is not None else {}),
        )
    if not replacements:
        raise NoPatch(f"no call `{frame}(...)` in {tree.path} passes `{name}` as a plain value")
    new_module = with_torch_import(tree, replace_nodes(tree.module, replacements))
    return Suggestion(
        title=f"Pass `{name}` as a tensor",
        why=WHY + (CUDA_GRAPHS_WHY if on_cuda else ""),
        patch=patch_for(tree, new_module),
        patch_note=note,
        alternatives=_alternatives(name),
    )


def _device_sibling(call: cst.Call, scalar: cst.Arg) -> cst.BaseExpression | None:
    """The call's first other argument that is a plain name or attribute (``clean``, ``batch.x``): the tensor whose
    device the new tensor takes. None when there is none; verification finds out if it is not a tensor."""
    for arg in call.args:
        if arg is not scalar and not arg.star and isinstance(arg.value, (cst.Name, cst.Attribute)):
            return arg.value
    return None


# Why a tensor would certainly not do: a read feeds an `if`, a comparison, formatting, an index, a size or a Python number
# call (range, int), where it brings the graph break back or changes the type that flows on. Anything else (a
# method's argument, arithmetic with Python numbers only) may work: that is for verification to find out.
_NUMBER_CALLS = frozenset({"int", "float", "bool", "round", "len", "range", "str", "complex", "abs", "min", "max"})
# A size or a count: torch reads it as a Python int (a tensor there is read back with .item(), the break again)
_SIZE_CALLS = frozenset({"repeat", "view", "reshape", "expand", "tile", "narrow", "unflatten", "split", "chunk", "roll",
                         "topk", "kthvalue", "new_zeros", "new_ones", "new_empty", "new_full", "zeros", "ones", "empty",
                         "full", "arange", "rand", "randn", "randint", "eye", "unfold", "repeat_interleave"})
_DEFINITE_CONTEXTS = (cst.Comparison, cst.If, cst.While, cst.IfExp, cst.FormattedStringExpression, cst.Subscript,
                      cst.SubscriptElement, cst.Assert, cst.BooleanOperation)


def _definite(tree, reads) -> bool:
    for read in reads:
        node = read
        while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            parent = tree.parent(node)
            if isinstance(parent, _DEFINITE_CONTEXTS):
                return True
            if isinstance(parent, cst.Arg):
                call = tree.parent(parent)
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _NUMBER_CALLS:
                    return True
                if isinstance(call, cst.Call) and callee_name(call) in _SIZE_CALLS:
                    return True
            node = parent
    return False


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = finding.evidence if isinstance(finding.evidence, RecompileEvidence) else None  # not DYN001's decisions
    if evidence is not None and (evidence.subject or "").startswith("len("):
        return Suggestion(  # a container that grows every call: a tensor of its length would not stop the guard
            title=f"Keep the growing container out of the compiled function ({evidence.subject} changes every call)",
            why=LENGTH_WHY,
            alternatives=["fill the container after the compiled call returns (return the value from the compiled "
                          "function)", "in a framework, in its hook after the step (Lightning: on_train_batch_end)"],
        )
    name = _held_by_user(finding, ctx) or _target(finding)[0] or "the value"
    if evidence is not None and is_string_value(evidence.expected):
        return Suggestion(  # a string: neither a tensor nor dynamic, one graph per value by nature
            title=f"Let each value of `{name}` compile once (a string: one graph per value), or compile only the "
                  f"code that does not depend on it",
            why=STRING_WHY,
            alternatives=[f"raise torch._dynamo.config.recompile_limit to the number of values `{name}` takes "
                          "(its task or mode names)",
                          f"compile the part that is the same for every `{name}` (a shared trunk: "
                          f"torch.compile(module.trunk)) and run the part that depends on it uncompiled"],
        )
    return Suggestion(
        title=f"Keep `{name}` fixed across calls, or pass it as a tensor",
        why=WHY,
        alternatives=_alternatives(name),
    )


def _alternatives(name: str) -> list[str]:
    return [
        f"keep `{name}` constant in the hot loop (hoist it, or read it from a config once)",
        f"pass `{name}` as a 0-d tensor (torch.tensor({name})) when the function only does arithmetic with it",
        "when it takes a few values on purpose (a mode string, a flag), that is one graph per value: "
        "check the count stays below torch._dynamo.config.recompile_limit",
    ]


def _target(finding: Finding):
    """(parameter, frame, frame path, frame line): from automatic dynamic's decisions, or the recompile's guard."""
    if isinstance(finding.evidence, DynamicEvidence):
        for decision in evidence_as(finding.evidence, DynamicEvidence).decisions:
            m = re.match(r"^L\['(\w+)'\]\s*->", decision)
            if m:
                return m.group(1), finding.function, finding.path, finding.line
        return None, None, None, None
    ev = evidence_as(finding.evidence, RecompileEvidence)
    subject = ev.subject or ""
    m = re.match(r"^L\['(\w+)'\]$", subject)
    name = m.group(1) if m else subject if subject.isidentifier() else None
    return name, ev.frame, ev.frame_path, ev.frame_line


def _held_by_user(finding: Finding, ctx: SuggestionContext) -> str | None:
    """The user's expression at the call line for the guarded value (``kwargs['scale']`` -> ``s`` in
    ``cmodel(x, scale=s)``), so the text names what the user holds."""
    from tdiag.analyzer.suggestions.helpers.call_arguments import user_expression
    from tdiag.analyzer.suggestions.helpers.call_sites import compiled_call_on_line

    if not isinstance(finding.evidence, RecompileEvidence):
        return None
    ev = evidence_as(finding.evidence, RecompileEvidence)
    if not ev.subject:
        return None
    try:
        tree = ctx.tree(finding.path)
        call = compiled_call_on_line(tree, finding.line, ev.frame)
        return tree.code(user_expression(call, ev.subject, None))
    except NoPatch:
        return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() not in ("True", "False")
