"""RCP001/DYN001: a tensor size changed between calls. Mark the dimension dynamic before the compiled call.

The finding's line is the caller's line (for DYN001: the recompile's call site). The guarded name is a parameter of
the compiled function, so the patch maps it to the argument the call passes; an argument that is an expression is
bound to a name first, since ``mark_dynamic`` has to see the very tensor object the call receives.
"""

from __future__ import annotations

import builtins
import re

import libcst as cst
from libcst.helpers import parse_template_statement
from tdiag.analyzer.evidence import DynamicEvidence, RecompileEvidence, evidence_as
from tdiag.analyzer.library_causes import library_name
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer import catalogue
from tdiag.analyzer.rules._recompiles import MODULE_STATE
from tdiag.analyzer.suggestions.helpers.call_arguments import is_reference, user_expression
from tdiag.analyzer.suggestions.helpers.call_sites import compiled_call_on_line, frame_params
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_statement,
    torch_alias,
    with_torch_import,
)

# "L['x'].size()[0] -> dynamic": the tensor-size decisions in FrameInfo.automatic_dynamic.
_SIZE_DECISION = re.compile(r"^L\['(?P<name>\w+)'\]\.size\(\)\[(?P<dim>\d+)\]")

WHY = (
    "Every new size compiles the function again until Dynamo gives up on specialising it (or hits the recompile "
    "limit and falls back to eager). Marking the dimension dynamic before the first call compiles one graph "
    "with a symbolic size that serves every value."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    target = _target(finding, ctx)
    if target is None:
        if isinstance(finding.evidence, DynamicEvidence) and _scalar_decision(finding):
            from tdiag.analyzer.suggestions import scalar_arg

            return scalar_arg.suggest(finding, ctx)
        raise NoPatch("no call site recorded for this recompile")
    path, line, frame, frame_path, frame_line, subject, dim = target
    if (frame or "").rsplit(".", 1)[-1] == "training_step" and frame_path in ctx.analysis.sources:
        from tdiag.analyzer.suggestions.helpers import lightning_hook

        try:  # Lightning makes the compiled call: the batch is marked in the hook it passes the batch to first
            return lightning_hook.mark_batch_dynamic(ctx.tree(frame_path), frame_line, _decisions(finding))
        except NoPatch:
            pass  # not a LightningModule's step: the caller's line, as for any compiled function
    tree = ctx.tree(path)
    try:
        call = compiled_call_on_line(tree, line, frame)
    except NoPatch:
        framework = _framework_call(tree, line)
        if framework is not None:  # the framework makes the compiled call: its knob, or what to expect
            return _framework_suggestion(finding, framework)
        call = _model_call_on_line(tree, line)  # a model compiled for the user (accelerate's prepare)
        framework = "accelerate"
    else:
        framework = None
    if _inner_library_frame(frame, frame_path):
        raise NoPatch(f"`{subject}` is a parameter of {library_name(frame_path) or 'a library'}'s `{frame}`, which "
                      "the call reaches inside the library (Dynamo compiled it as a frame of its own after its caller "
                      "fell back): it is not an argument of this call")
    params = frame_params(ctx, frame_path, frame, frame_line)
    value = user_expression(call, subject, params)
    also = _distinct(tree, [(value, dim), *_also_marked(finding, call, params, (subject, dim))])[1:]
    statement = tree.enclosing_statement_line(call)
    if statement is None:
        raise NoPatch("the compiled call is inside a compound statement's header; mark the tensor where it is made")
    torch = torch_alias(tree)
    config = tree.module.config_for_parsing
    lines = []
    if is_reference(value):  # `ids`, `batch["input_ids"]`: the very tensor the call receives
        tensor = value
        new_statement = statement
    elif any(value is arg.value for arg in call.args):
        # `compiled(torch.randn(b, 8))`: bind the argument so mark_dynamic sees the tensor the call receives.
        tensor = cst.Name(tree.fresh_name(_name_hint(subject), statement))
        lines.append(parse_template_statement("{name} = {value}", config=config, name=tensor, value=value))
        new_statement = statement.deep_replace(value, tensor)
    else:
        raise NoPatch(f"`{subject}` is reached through an expression evaluated by the call; mark it where it is made")
    # several sizes marked at once (a batch's ids and labels, both padded to one length) may be related by the code
    # (`logits.view(-1, V)` against `labels.view(-1)`): mark_dynamic then stops the program with "Constraints
    # violated (idx.size()[1], targets.size()[1])" where torch relates them (big_gpt2_sft on an H100 once TF32 was
    # on), so they are marked with maybe_mark_dynamic, which asks for the same dynamic sizes and lets torch relate
    # them; `tdiag fix --verify` still sees a recompile that stays
    mark = "maybe_mark_dynamic" if also else "mark_dynamic"
    for marked, marked_dim in [(tensor, dim), *also]:
        lines.append(
            parse_template_statement(
                "{torch}._dynamo." + mark + "({tensor}, {dim})",
                config=config, torch=cst.Name(torch), tensor=marked, dim=cst.Integer(str(marked_dim)),
            )
        )
    lines[0] = lines[0].with_changes(leading_lines=statement.leading_lines)
    new_statement = new_statement.with_changes(leading_lines=[])
    patch = patch_for(tree, with_torch_import(tree, replace_statement(tree, statement, [*lines, new_statement])))
    held = tree.module.code_for_node(tensor)
    shown = tree.module.code_for_node(value)
    others = "".join(f" and `{tree.module.code_for_node(t)}` dim {d}" for t, d in also)
    return Suggestion(
        title=f"Mark `{held if is_reference(value) else shown}` dim {dim}{others} dynamic before the call",
        why=WHY,
        patch=patch,
        alternatives=[*_framework_alternatives(finding, framework), *_alternatives(finding)],
        # the one-line fix names the tensor the user holds, not torch's name for it; a value that is no reference
        # gets its name from the patch, which exists only once it is applied
        fix=(f"{torch}._dynamo.{mark}({held}, {dim}) before the call"
             + "".join(f" and {torch}._dynamo.{mark}({tree.module.code_for_node(t)}, {d})" for t, d in also)
             + ", or compile with dynamic=True"
             if is_reference(value) else
             f"{torch}._dynamo.mark_dynamic on the tensor passed as `{shown}` (dim {dim}), bound to a name before "
             "the call; or compile with dynamic=True") if isinstance(finding.evidence, RecompileEvidence) else None,
    )


def _framework_alternatives(finding: Finding, framework: str | None) -> list[str]:
    from tdiag.analyzer.library_causes import framework_cause

    entry = framework_cause(finding, framework) if framework else None
    return [entry.fix, *entry.alternatives] if entry else []


# The method on the user's line that makes a framework call the compiled model: the catalogue's "framework" key.
_FRAMEWORK_METHODS = {"train": "trainer", "generate": "generate", "encode": "encode"}


def _framework_call(tree, line: int) -> str | None:
    """``trainer.train()``, ``model.generate(ids)``, ``model.encode(texts)`` on the line: the framework calls the
    compiled function with tensors it makes, which the user's line does not hold."""
    for call in tree.nodes_on_line(cst.Call, line):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _FRAMEWORK_METHODS:
            return _FRAMEWORK_METHODS[call.func.attr.value]
    return None


def _framework_suggestion(finding: Finding, framework: str) -> Suggestion:
    from tdiag.analyzer.library_causes import framework_cause

    entry = framework_cause(finding, framework)
    if entry is None:
        raise NoPatch(f"the {framework} call on this line makes the compiled call; its tensors are not the user's")
    return Suggestion(
        title=entry.fix[:1].upper() + entry.fix[1:],
        fix=entry.fix,
        why=f"The compiled call is made by the library, not by this line: {entry.cause}. "
        f"Known library cause `{entry.id}` (seen on {entry.seen_on}).",
        patch_note="no patch: the tensors are made inside the library call; the fix is its own option",
        alternatives=list(entry.alternatives),
    )


def _model_call_on_line(tree, line: int) -> cst.Call:
    """The one plain ``name(...)`` call on the line to a name the file binds (not a builtin, not an import): a
    model compiled for the user, e.g. by ``accelerator.prepare`` with a dynamo_backend."""
    imported = tree.imported_names()
    calls = [c for c in tree.nodes_on_line(cst.Call, line) if isinstance(c.func, cst.Name) and c.args
             and c.func.value not in imported and not hasattr(builtins, c.func.value)]
    if len(calls) != 1:
        raise NoPatch(f"no call into a compiled function on line {line}")
    return calls[0]


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    if isinstance(finding.evidence, RecompileEvidence) and MODULE_STATE.search(finding.evidence.subject or ""):
        # a module's own parameter or running statistic: several instances share the compiled forward, nothing to
        # mark (the rule's fix is the catalogue's: compile the model that holds them once)
        return Suggestion(title="Compile the model that holds the module's instances once, not each instance",
                          why=catalogue.for_guard("size", "module_state_size").why)
    target = _target(finding, ctx)
    subject, dim = (target[5], target[6]) if target else _subject_and_dim(finding)
    subject = _user_subject(finding, ctx, target) or subject
    return Suggestion(
        title=f"Mark `{subject}` dim {dim} dynamic before the compiled call",
        why=WHY,
        alternatives=[f"torch._dynamo.mark_dynamic({subject}, {dim}) on the tensor before the call", *_alternatives(finding)],
    )


def _also_marked(finding: Finding, call: cst.Call, params: list[str] | None,
                 first: tuple[str, int]) -> list[tuple[cst.BaseExpression, int]]:
    """The other sizes Dynamo made dynamic at the same recompile (torch's ``L['edge_index'].size()[1] -> dynamic``
    beside the guard's ``x`` dim 0), as (the argument the call passes, dim): marked in the same patch, since each
    one left unmarked recompiles once more (and costs a round of `fix --verify` to find). Only arguments the call
    passes as references (the very tensor it receives): one computed by an expression is left to its own finding."""
    out = []
    for decision in _decisions(finding):
        m = _SIZE_DECISION.match(decision)
        if not m or (m["name"], int(m["dim"])) == first:
            continue
        if params is None and not any(a.keyword is not None and a.keyword.value == m["name"] for a in call.args):
            continue  # without the function's source only a keyword names the argument (one positional is a guess)
        try:
            value = user_expression(call, m["name"], params)
        except NoPatch:
            continue
        if is_reference(value):
            out.append((value, int(m["dim"])))
    return out


def _distinct(tree, marks: list[tuple[cst.BaseExpression, int]]) -> list[tuple[cst.BaseExpression, int]]:
    """Each (tensor, dim) once, by the user's text: two parameters given the same tensor (``model(input_ids=ids,
    labels=ids)``, peft_train) are one mark, not two identical lines."""
    seen, out = set(), []
    for value, dim in marks:
        key = (tree.module.code_for_node(value), dim)
        if key not in seen:
            seen.add(key)
            out.append((value, dim))
    return out


def _alternatives(finding: Finding) -> list[str]:
    return [
        "torch.compile(..., dynamic=True): every size symbolic from the first compile (may cost some speed)",
        "when the sizes come from a small set (e.g. a last partial batch), pad or bucket to those sizes, "
        "or drop the last batch (DataLoader(drop_last=True)), so each size compiles once",
    ]


def _target(finding: Finding, ctx: SuggestionContext):
    """(call path, call line, frame, frame path, frame line, parameter, dim) for the finding, or None."""
    if isinstance(finding.evidence, RecompileEvidence):  # a shape recompile's guard; else automatic dynamic's
        ev = finding.evidence
        if ev.subject is None or ev.dim is None:
            return None
        return finding.path, finding.line, ev.frame, ev.frame_path, ev.frame_line, _plain(ev.subject), ev.dim
    for decision in evidence_as(finding.evidence, DynamicEvidence).decisions:
        m = _SIZE_DECISION.match(decision)
        if not m:
            continue
        for r in ctx.analysis.recompiles:
            if r.code_name == finding.function and r.path == finding.path and r.line == finding.line and r.call_site:
                return r.call_site.path, r.call_site.line, r.code_name, r.path, r.line, m["name"], int(m["dim"])
    return None


def _decisions(finding: Finding) -> list[str]:
    """What Dynamo made dynamic after the recompile (torch's ``L['x'].size()[0] -> dynamic``)."""
    if isinstance(finding.evidence, RecompileEvidence):
        return finding.evidence.automatic_dynamic
    return evidence_as(finding.evidence, DynamicEvidence).decisions


def _inner_library_frame(frame: str | None, frame_path: str | None) -> bool:
    """The recompiled frame is a library's helper, not the model the user's line calls (a module's ``forward``)."""
    from tdiag.analyzer.library_causes import is_library_path

    return bool(frame and frame_path and is_library_path(frame_path)
                and frame.rsplit(".", 1)[-1] not in ("forward", "__call__", "_call_impl", "_wrapped_call_impl"))


def _scalar_decision(finding: Finding) -> bool:
    return any(re.match(r"^L\['\w+'\]\s*->", d) for d in evidence_as(finding.evidence, DynamicEvidence).decisions)


def _subject_and_dim(finding: Finding) -> tuple[str, int]:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    return ev.subject or "x", ev.dim or 0


def _plain(subject: str) -> str:
    m = re.match(r"^L\['(\w+)'\]$", subject)
    return m.group(1) if m else subject


def _name_hint(subject: str) -> str:
    """A variable name for a bound argument: the last identifier of torch's name (``kwargs['input_ids']`` -> input_ids)."""
    words = re.findall(r"[A-Za-z_]\w*", subject.replace("L['", "").replace("kwargs", ""))
    return words[-1] if words else "x"


def _user_subject(finding: Finding, ctx: SuggestionContext, target) -> str | None:
    """The user's expression for the guarded tensor, for the text fix when no patch could be built."""
    if target is None:
        return None
    try:
        tree = ctx.tree(target[0])
        call = compiled_call_on_line(tree, target[1], target[2])
        return tree.module.code_for_node(user_expression(call, target[5], None))
    except NoPatch:
        return None
