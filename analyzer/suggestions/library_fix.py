"""Fixes for causes that live inside a library, applied from the user's own code.

The user does not own the library line, so "move it out of the compiled code" or "keep the value a tensor" is no
fix. What is: a documented option or argument of the library call on the user's line, a value the library reads
(``model.loss_type``), a torch config knob that targets the cause (``ignore_logger_methods`` for a logger method,
``capture_dynamic_output_shape_ops`` for a data-dependent shape), or the library version that fixed it. Known causes
come from the catalogue (analyzer/library_causes.json); any other break inside a library gets the knob for its
kind and names the library and function.
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.evidence import BreakEvidence, RecompileEvidence, evidence_as
from tdiag.analyzer.library_causes import (
    LibraryCause,
    cause_frame,
    inner_cause,
    is_by_design,
    library_name,
    match,
    next_candidate,
)
from tdiag.analyzer.model import Finding, Frame, Suggestion
from tdiag.analyzer.rules import BREAK_FAMILIES, get_rule
from tdiag.analyzer.suggestions.helpers.call_arguments import user_expression
from tdiag.analyzer.suggestions.helpers.call_keyword import with_keyword
from tdiag.analyzer.suggestions.helpers.call_sites import callee_name, compiled_call_on_line, compiled_names
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    after_imports,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.logger_switch import refuse_where_it_breaks_metrics
from tdiag.analyzer.suggestions.helpers.skipped_frame import skip_caused_by
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

# transformers' model classes: GPT2LMHeadModel, AutoModelForCausalLM, BertForSequenceClassification
_MODEL_CLASS = re.compile(r"^[A-Z]\w*(?:Model$|Model[A-Z]|For[A-Z])")
_NOT_A_MODEL = re.compile(r"Collator|Tokenizer|Config|Processor|Pipeline|Arguments")
_LOGGER = re.compile(r"method: <Logger (?P<name>[\w.]+) \(\w+\)>\.(?P<method>\w+)")


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The library-side suggestion, or None when the finding's cause is not in a library (or nothing better than
    the rule's own suggester is known)."""
    found = match(finding)
    inner = _inner_break_fix(finding, ctx) if _frame_skipped(finding) else None
    if inner is not None:  # the break that made Dynamo skip the frame has its own fix: that first, the frame's next
        frame_fix = [c for c in [_from_catalogue(finding, ctx, *found)] if c.patch] if found else []
        inner.candidates = [*inner.candidates, *frame_fix]
        return inner
    if found is not None:
        return _from_catalogue(finding, ctx, *found)
    frame = cause_frame(finding)
    if frame is None or finding.family not in BREAK_FAMILIES:
        return None
    if _frame_skipped(finding) and not _LOGGER.search(evidence_as(finding.evidence, BreakEvidence).context or ""):
        # a frame Dynamo gave up on: the frame-skip suggester says which break made it skip, unless the line is a
        # call whose result nothing uses (a metric's update): that call goes after the compiled function
        return _call_outside(finding, ctx, frame)
    return _unknown_break(finding, ctx, frame)


def _call_outside(finding: Finding, ctx: SuggestionContext, frame: Frame) -> Suggestion | None:
    """A compiled function Dynamo gave up on for a break inside a library call on a line of its own, whose result
    nothing uses (``val_acc.update(preds, y)``: torchmetrics' torch.unique in a loop): the call is made after the
    compiled function, on what it returns. The break's own words would advise on library code the user cannot
    edit (blind new-shapes corpus: torchmetrics 1.9 skips the frame)."""
    try:
        tree = ctx.tree(finding.path)
    except NoPatch:
        return None
    statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
    if not (statement is not None and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
        return None
    text = tree.code(statement.body[0].value)
    function = finding.function or "the compiled function"
    return Suggestion(
        title=f"Call `{text}` after {function}, not inside it",
        fix=(f"call `{text}` outside the compiled function (after {function}, on what it returns), or put it in a "
             "small function of yours decorated with @torch.compiler.disable: the break is inside "
             f"{where(frame)}, which made Dynamo skip {function} whole"),
        why=(f"torch broke the graph inside {where(frame)} and could not resume, so all of {function} runs eagerly; "
             "the call's result is not used, so it can be made after the compiled function returns."),
        alternatives=["compile a smaller function that does not make this call"],
    )


def _frame_skipped(finding: Finding) -> bool:
    rule = get_rule(finding.code)
    return rule is not None and rule.suggester == "frame_skipped"


def _inner_break_fix(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The catalogue's patch for the break that made Dynamo skip a frame (library_causes.inner_cause), or None when
    that break has no known cause or its patch does not apply here."""
    entry = inner_cause(finding)
    if entry is None or finding.library_frame is None:
        return None
    suggestion = _from_catalogue(finding, ctx, entry, finding.library_frame)
    if suggestion.patch is None:
        return None
    suggestion.why = skip_caused_by(finding, "This break") + suggestion.why
    text = suggestion.title[:1].lower() + suggestion.title[1:]
    suggestion.fix = f"{text} (cause: {where(finding.library_frame)}, which made Dynamo skip the frame around it)"
    return suggestion


def fix_line(finding: Finding, suggestion: Suggestion) -> str:
    """The one-line fix the outputs show: the suggestion's title, naming the library function the cause is in."""
    found = match(finding)
    if found is not None and is_by_design(found[0]):
        return found[0].fix
    frame = found[1] if found else cause_frame(finding)
    text = suggestion.title[:1].lower() + suggestion.title[1:]
    if frame is not None and frame.function and frame.function != "?" and f"`{frame.function}`" not in text:
        text += f" (cause: {library_name(frame.path) or 'library'} `{frame.function}`)"
    return text


def where(frame: Frame) -> str:
    lib = library_name(frame.path) or "a library"
    function = frame.function if frame.function and frame.function != "?" else "its code"
    return f"{lib} `{function}` ({frame.path}:{frame.line})"


# --- catalogue entries ------------------------------------------------------------------------------------------


def _from_catalogue(finding: Finding, ctx: SuggestionContext, entry: LibraryCause, frame: Frame) -> Suggestion:
    if is_by_design(entry):
        return _by_design(finding, entry, frame)
    if entry.options.get("under_framework") == "ignore_logger":
        under = _under_framework_logger(finding, ctx, entry, frame)
        if under is not None:
            return under
    values = {"model": "model", "value": _value(finding, entry) or _guarded_value(finding, ctx, entry)
              or entry.options.get("value_default") or "..."}
    patch, note = None, None
    if entry.patch:
        try:
            patch, values = _PATCHES[entry.patch](finding, ctx, entry, values)
        except NoPatch as why_not:
            note = str(why_not)
    title = entry.fix.format(**values)
    suggestion = Suggestion(
        title=title[:1].upper() + title[1:],
        why=f"The cause is inside {where(_innermost(finding) or frame)}, reached from this line: {entry.cause}. "
        f"Known library cause `{entry.id}` (seen on {entry.seen_on}).",
        patch=patch,
        patch_note=note,
        alternatives=list(entry.alternatives),
    )
    if entry.options.get("next"):  # the entry's next candidate: `fix --verify` tries it where the first does not pay
        following = _from_catalogue(finding, ctx, next_candidate(entry), frame)
        if following.patch:
            if patch is None:
                return following
            suggestion.candidates = [following, *following.candidates]
    return suggestion


def _by_design(finding: Finding, entry: LibraryCause, frame: Frame) -> Suggestion:
    """torch's own deliberate break: info, nothing to fix (it still counts in the totals)."""
    finding.severity = "info"
    finding.by_design = True
    return Suggestion(
        title=entry.fix[:1].upper() + entry.fix[1:],
        why=f"The break is inside torch, in {where(frame)}, on purpose: {entry.cause}. "
        f"Known cause `{entry.id}` (seen on {entry.seen_on}).",
        patch_note="no patch: the break is torch's own design",
        alternatives=list(entry.alternatives),
    )


def _under_framework_logger(finding: Finding, ctx: SuggestionContext, entry: LibraryCause,
                            frame: Frame) -> Suggestion | None:
    """A framework (the Trainer) makes the compiled call and reads the value the entry would set
    (``_loss_shifts_labels`` from ``loss_type``: the loss it reports changes), so the patch that keeps the program's
    output is the logger's method in ``ignore_logger_methods``. None when the line itself calls the model."""
    try:
        tree = ctx.tree(finding.path)
        compiled_call_on_line(tree, finding.line, finding.function)
        return None  # the user's line calls the compiled model: the entry's own patch keeps the output
    except NoPatch:
        pass
    try:
        # the user's line calls the model by a name it assigns (`model(input_ids=ids, labels=ids)` inside their own
        # compiled step): no framework reads the value, and the entry's patch is the hand fix (gpt2_train_fixed.py)
        _model_statement(ctx.tree(finding.path), finding)
        return None
    except NoPatch:
        pass
    logger = _LOGGER.search(evidence_as(finding.evidence, BreakEvidence).context or "")
    if logger is None:
        return None
    suggestion = _ignore_logger(finding, ctx, where(frame), logger["name"], logger["method"])
    suggestion.why += f" {entry.options['framework_note']}"
    suggestion.alternatives = [entry.fix.format(model="model", value=_value(finding, entry) or "..."),
                               *suggestion.alternatives]
    return suggestion


def _value(finding: Finding, entry: LibraryCause) -> str | None:
    pattern = entry.options.get("value")
    if not pattern:
        return None
    m = re.search(pattern, _text(finding))
    return m.group(1) if m else None


def _guarded_value(finding: Finding, ctx: SuggestionContext, entry: LibraryCause) -> str | None:
    """The value the library settled on, read from the guards of the recompiled graph (``config.problem_type ==
    'single_label_classification'``): what the first call set, so setting it up front changes nothing else."""
    pattern = entry.options.get("value_from_guards")
    if not pattern:
        return None
    keys = set(finding.graph_keys)
    for graph in ctx.analysis.graphs:
        if graph.key in keys:
            for guard in graph.guards:
                m = re.search(pattern, guard.text)
                if m:
                    return m.group(1)
    return None


def _text(finding: Finding) -> str:
    ev = finding.evidence
    if isinstance(ev, BreakEvidence):
        return " ".join(filter(None, [ev.reason, ev.context, ev.explanation]))
    return finding.message


def _set_model_attribute(finding, ctx, entry, values):
    """``model.loss_type = "ForCausalLM"`` before the model is compiled (or after it is made)."""
    if values["value"] == "...":
        raise NoPatch("torch's reason does not show the value to set")
    return _on_the_model(finding, ctx, values,
                         lambda model: f"{model}.{entry.options['attribute']} = {values['value']!r}".replace("'", '"'),
                         entry.options["attribute"])


def _model_method(finding, ctx, entry, values):
    """``model.set_experts_implementation("batched_mm")`` before the model is compiled (or after it is made)."""
    return _on_the_model(finding, ctx, values,
                         lambda model: f"{model}.{entry.options['method']}({entry.options['method_args']})")


def _on_the_model(finding, ctx, values, statement_for, attribute: str | None = None):
    """One statement about the model the line calls (``statement_for(name)``), put before the line that compiles it,
    or after the line that builds it when a framework (``trainer.train()``) makes the compiled call, or when the
    compiled function reads the model from around it (the guard names it: ``model.config.problem_type is None``)."""
    tree = ctx.tree(finding.path)
    try:
        model, statement, before = _model_statement(tree, finding)
    except NoPatch as not_called:
        guarded = _guarded_model_statement(tree, finding, attribute) if attribute else None
        if guarded is not None:
            model, statement, before = guarded
        else:
            try:
                model, statement, before = _built_model_statement(
                    tree, library_name(finding.library_frame.path) if finding.library_frame else None)
            except NoPatch as not_built:
                raise NoPatch(f"{not_called}; {not_built}") from None
    if model in _peft_wrapped(tree):
        # peft's wrapper passes attribute reads to the model it wraps but keeps attribute writes: what the library
        # reads (`loss_type`) must be set on the base model (peft's `get_base_model()`)
        model = f"{model}.get_base_model()"
    line = cst.parse_statement(statement_for(model) + "\n")
    return _insert(tree, statement, [line], before), {**values, "model": model}


def _keyword_argument(finding, ctx, entry, values):
    """``cmodel(ids, use_cache=False)``: the keyword the library documents, added to the call on the user's line."""
    tree = ctx.tree(finding.path)
    call = _library_call(tree, finding)
    keyword, value = entry.options["keyword"], entry.options["keyword_value"]
    if any(a.keyword is not None and a.keyword.value == keyword for a in call.args) or any(a.star for a in call.args):
        raise NoPatch(f"the call already passes `{keyword}` (or passes keywords through **)")
    new_call = with_keyword(call, keyword, cst.parse_expression(value))
    return patch_for(tree, tree.module.deep_replace(call, new_call)), values


def _dynamo_config(finding, ctx, entry, values):
    """``torch._dynamo.config.NAME = VALUE`` once, after the file's imports."""
    tree = ctx.tree(finding.path)
    torch = torch_alias(tree)
    text = f"{torch}._dynamo.config.{entry.options['config']} = {entry.options['config_value']}\n"
    if any(tree.code(s).strip() == text.strip() for s in tree.module.body):
        raise NoPatch(f"torch._dynamo.config.{entry.options['config']} is already set")
    return after_imports(tree, [cst.parse_statement(text)]), values


def _lightning_hook(finding, ctx, entry, values):
    """The host reads that end a LightningModule's ``training_step`` moved into ``on_train_batch_end``
    (helpers/lightning_hook.py), the loss read there as ``outputs["loss"]``."""
    from tdiag.analyzer.suggestions.helpers import lightning_hook

    tree = ctx.tree(finding.path)
    return lightning_hook.build(tree, tree.statement_at(cst.SimpleStatementLine, finding.line)).patch, values


def _tensor_argument(finding, ctx, entry, values):
    """``compiled(sample, torch.tensor(t))``: the Python number the library guards on, passed as a 0-d tensor."""
    tree = ctx.tree(finding.path)
    ev = evidence_as(finding.evidence, RecompileEvidence)
    subject = ev.subject or entry.options["argument"]
    call = _library_call(tree, finding)
    try:
        value = user_expression(call, subject, None)
    except NoPatch:
        # a library forward whose source is not in the record: the documented parameter, second positional or by name
        value = _nth_or_keyword(call, entry.options["argument"], 1)
    torch = torch_alias(tree)
    if isinstance(value, cst.Call) and (dotted(value.func) or "").startswith(f"{torch}."):
        raise NoPatch("the argument is already made by a torch call")
    wrapped = cst.Call(func=cst.parse_expression(f"{torch}.tensor"), args=[cst.Arg(value=value)])
    return patch_for(tree, with_torch_import(tree, tree.module.deep_replace(value, wrapped))), values


def _self_loops_once(finding, ctx, entry, values):
    """``GCNConv(..., add_self_loops=False)`` and the loops added before the compiled call
    (helpers/self_loops_once.py)."""
    from tdiag.analyzer.suggestions.helpers import self_loops_once

    return self_loops_once.build(ctx.tree(finding.path), finding, entry.options["layer_class"]), values


def _compile_base_model(finding, ctx, entry, values):
    """``torch.compile(model.get_base_model(), ...)`` in place of ``torch.compile(model, ...)`` for a model made by
    peft's ``get_peft_model``: the wrapper's with-block frame is left uncompiled, the base model (LoRA layers
    inside) is compiled."""
    tree = ctx.tree(finding.path)
    compiles = [c for c in tree.nodes(cst.Call) if tree.qualified(c.func) == "torch.compile" and c.args
                and c.args[0].keyword is None and isinstance(c.args[0].value, cst.Name)]
    wrapped = _peft_wrapped(tree)
    targets = [c for c in compiles if c.args[0].value.value in wrapped]
    if len(targets) != 1:
        raise NoPatch("no single torch.compile(...) of a model made by get_peft_model(...) in this file")
    call = targets[0]
    model = call.args[0].value.value
    base = cst.parse_expression(f"{model}.{entry.options['base_model']}")
    new_call = call.with_changes(args=[call.args[0].with_changes(value=base), *call.args[1:]])
    return patch_for(tree, tree.module.deep_replace(call, new_call)), {**values, "model": model}


REGIONAL_WHY = (
    "The break is in the model's own forward, around its layers (a layer loop with a data-dependent branch, a config "
    "copied per call): compiling the whole model makes Dynamo trace that code and give up on it. Compiling each "
    "repeated layer instead (regional compilation, as transformers and accelerate recommend for models of repeated "
    "blocks) compiles the code that does the work, leaves the loop around it in Python, and compiles one layer's "
    "code once for all its instances. A candidate: `tdiag fix --verify` keeps it only when the breaks go and the "
    "output stays."
)


def regional_compile(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """``for layer in model.modules(): ... layer.compile(...)`` in place of ``compiled = torch.compile(model, ...)``
    (``compiled = model``), for a transformers model whose break is in code the user cannot edit. The layers are the
    classes the model names in ``_no_split_modules`` (transformers' own list of its repeated blocks)."""
    frame = cause_frame(finding)
    if frame is None or library_name(frame.path) != "transformers":
        raise NoPatch("not a break inside a transformers model")
    tree = ctx.tree(finding.path)
    model, statement, compiled_here = _model_statement(tree, finding)
    if not compiled_here:
        raise NoPatch("the model the line calls is not compiled by a `torch.compile(...)` assignment in this file")
    assign = statement.body[0]
    options = ", ".join(tree.code(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for a in assign.value.args[1:])
    loop = cst.parse_module(
        f"for layer in {model}.modules():  # regional compilation: its repeated layers, not the code around them\n"
        f"    if type(layer).__name__ in (getattr({model}, \"_no_split_modules\", None) or ()):\n"
        f"        layer.compile({options})\n").body[0]
    compiled = statement.with_changes(body=[assign.with_changes(value=cst.parse_expression(model))],
                                      leading_lines=[])
    patch = patch_for(tree, tree.module.deep_replace(statement, cst.FlattenSentinel(
        [loop.with_changes(leading_lines=statement.leading_lines), compiled])))
    return Suggestion(title=f"Compile the repeated layers of `{model}` instead of the whole model (regional "
                      "compilation)", why=REGIONAL_WHY, patch=patch,
                      fix=f"compile the repeated layers of `{model}` (`layer.compile()` for each class in its "
                          "`_no_split_modules`) instead of the whole model: the code that breaks stays in Python")


def _peft_wrapped(tree: SourceTree) -> set[str]:
    """The names the file assigns a model made by peft's ``get_peft_model(...)`` to."""
    return {name for name, value in _assignments(tree) if isinstance(value, cst.Call)
            and (tree.qualified(value.func) or "").endswith("get_peft_model")}


def _assignments(tree: SourceTree):
    """(name, value) of every single-target assignment in the file, any scope."""
    for assign in tree.nodes(cst.Assign):
        if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
            yield assign.targets[0].target.value, assign.value


_PATCHES = {
    "compile_base_model": _compile_base_model,
    "set_model_attribute": _set_model_attribute,
    "model_method": _model_method,
    "keyword_argument": _keyword_argument,
    "dynamo_config": _dynamo_config,
    "tensor_argument": _tensor_argument,
    "lightning_hook": _lightning_hook,
    "self_loops_once": _self_loops_once,
}


# --- breaks inside a library without a catalogue entry ----------------------------------------------------------


def _unknown_break(finding: Finding, ctx: SuggestionContext, frame: Frame) -> Suggestion:
    ev = evidence_as(finding.evidence, BreakEvidence)
    place = where(frame)
    logger = _LOGGER.search(ev.context or "")
    if logger is not None:
        return _ignore_logger(finding, ctx, place, logger["name"], logger["method"])
    known = _catalogued(finding, ctx, ev)
    if known is not None:
        return known
    reason = f"{ev.reason} {ev.context or ''}".lower()
    lib = library_name(frame.path) or "the library"
    alternatives = [f"check the documented arguments of the {lib} call on this line: one that supplies what "
                    f"`{frame.function}` computes at run time (a size, a count, a flag) avoids the break",
                    f"a newer {lib} may no longer break here",
                    "call it outside the compiled function (compile the part around it)"]
    rule = get_rule(finding.code)
    if (rule is not None and rule.suggester == "scalar_item") or "item()" in reason:  # the rule of .item() breaks
        knob = "torch._dynamo.config.capture_scalar_outputs = True (the value becomes an unbacked symbol)"
    elif "dynamic shape operator" in reason or "nonzero" in reason:
        knob = "torch._dynamo.config.capture_dynamic_output_shape_ops = True (the op's output size becomes symbolic)"
    else:
        knob = None
    title = f"The break is inside {place}: " + (f"set {knob}" if knob else "change how this line calls it")
    suggestion = Suggestion(title=title, why=f"torch broke the graph in library code the call on this line reaches "
                            f"({ev.reason}); it cannot be edited there, only changed from here.",
                            alternatives=alternatives)
    try:
        regional = regional_compile(finding, ctx)
    except NoPatch:
        return suggestion
    regional.alternatives = [title[:1].lower() + title[1:], *alternatives]
    return regional


def _catalogued(finding: Finding, ctx: SuggestionContext, ev: BreakEvidence) -> Suggestion | None:
    """The fix catalogue's words for this break type (catalogue/breaks.toml, by torch's GB id) where it has an entry:
    the break is in library code, but its type says what to change at the user's line (copy.deepcopy of tensors)."""
    from tdiag.analyzer import catalogue
    from tdiag.analyzer.suggestions.catalogue_candidates import break_entry, line_code

    code = line_code(finding, ctx)
    entry = break_entry(finding, ctx)
    if entry is None:
        return None
    words = catalogue.render_first(entry, "breaks", reason=ev.reason, call=code, function=finding.function or "function")
    return Suggestion(title=words[:1].upper() + words[1:], fix=words, why=entry.why)


def _ignore_logger(finding: Finding, ctx: SuggestionContext, place: str, logger: str, method: str) -> Suggestion:
    torch_line = f'torch._dynamo.config.ignore_logger_methods.add(logging.getLogger("{logger}").{method})'
    patch, note = None, None
    try:
        refuse_where_it_breaks_metrics(ctx)
        tree = ctx.tree(finding.path)
        torch = torch_alias(tree)
        line = cst.parse_statement(torch_line.replace("torch.", f"{torch}.", 1) + "\n")
        statements = [line]
        if "logging" not in tree.imported_names():
            statements.insert(0, cst.parse_statement("import logging\n"))
        patch = after_imports(tree, statements)
    except NoPatch as why_not:
        note = str(why_not)
    return Suggestion(
        title=f"Let Dynamo skip the `{logger}` logger's `{method}` (it is called in {place})",
        why="A logger method Dynamo cannot trace breaks the graph at every call; the call is in library code, so "
        "the fix is torch._dynamo.config.ignore_logger_methods, which skips that logger's method while tracing "
        "(eager code still logs). reorderable_logging_functions takes functions, not logger methods.",
        patch=patch, patch_note=note,
        alternatives=["avoid what the message warns about (an option or config value the message names)"],
    )


# --- where in the user's file ----------------------------------------------------------------------------------


def _innermost(finding: Finding) -> Frame | None:
    return finding.library_frame


def _library_call(tree: SourceTree, finding: Finding) -> cst.Call:
    """The call on the finding's line that goes into compiled or library code."""
    try:
        return compiled_call_on_line(tree, finding.line, finding.function)
    except NoPatch:
        calls = [c for c in tree.nodes_on_line(cst.Call, finding.line) if tree.start_line(c) == finding.line]
        outer = [c for c in calls if not any(a is not c and isinstance(a, cst.Call) and a in calls
                                             for a in tree.ancestors(c))]
        if len(outer) != 1:
            raise
        return outer[0]


def _nth_or_keyword(call: cst.Call, name: str, index: int) -> cst.BaseExpression:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > index and not any(a.star for a in call.args):
        return positional[index].value
    raise NoPatch(f"the call does not pass `{name}` visibly")


def _model_statement(tree: SourceTree, finding: Finding) -> tuple[str, cst.SimpleStatementLine, bool]:
    """(the model's name, the statement to insert at, insert before it?): before ``cmodel = torch.compile(model)``,
    else after the assignment of the module the line calls; searched in the functions around the line (a program
    written in a ``main()``), then at module level."""
    call = _library_call(tree, finding)
    callee = callee_name(call)
    if callee is None or not isinstance(call.func, cst.Name):
        raise NoPatch("the call does not go through a plain name")
    functions = {f.name.value for f in tree.nodes(cst.FunctionDef)}
    for body in _bodies_around(tree, call):
        for stmt in body:
            assign = _assignment_to(stmt, callee)
            if assign is None:
                continue
            value = assign.value
            if isinstance(value, cst.Call) and tree.qualified(value.func) == "torch.compile" and value.args:
                model = value.args[0].value
                if isinstance(model, cst.Name) and model.value in functions:
                    raise NoPatch(f"`{callee}` compiles the function `{model.value}`, not the model")
                if _model_expression(model):  # `model`, or `model.get_base_model()` (peft's wrapped model)
                    return tree.code(model), stmt, True
            if callee not in compiled_names(tree):
                return callee, stmt, False
    raise NoPatch(f"no assignment of `{callee}` to set the attribute on")


def _bodies_around(tree: SourceTree, node: cst.CSTNode | None) -> list:
    """The statement lists to search for an assignment the line relies on: each function around ``node``, innermost
    first (a program written in a ``main()``), then the module's."""
    functions = [a.body.body for a in tree.ancestors(node) if isinstance(a, cst.FunctionDef)] if node else []
    return [*functions, tree.module.body]


def _model_expression(expr: cst.BaseExpression) -> bool:
    """A name, or attributes and argument-less calls on one (``model.base_model.model``, ``model.get_base_model()``)."""
    while isinstance(expr, (cst.Attribute, cst.Call)):
        if isinstance(expr, cst.Call):
            if expr.args:
                return False
            expr = expr.func
        else:
            expr = expr.value
    return isinstance(expr, cst.Name)


def _guarded_model_statement(tree: SourceTree, finding: Finding, attribute: str) \
        -> tuple[str, cst.SimpleStatementLine, bool] | None:
    """(the model's expression, the statement that assigns its root name, False): for a compiled function that reads
    the model from the scope around it, the object the failed guard reads ``attribute`` on (``model`` in ``model.
    config.problem_type is None``), assigned in a function around the compiled call or at module level. None when the
    guard does not name it in the user's words or no single assignment of it is there."""
    guard = evidence_as(finding.evidence, RecompileEvidence).guard if isinstance(finding.evidence, RecompileEvidence) else None
    m = re.match(rf"^((\w+)(?:\.\w+)*)\.{re.escape(attribute)}\b", guard or "")
    if m is None:  # Dynamo's own names (L[...], G[...]) never reach a patch
        return None
    expression, root = m.group(1), m.group(2)
    calls = tree.nodes_on_line(cst.Call, finding.line)
    for body in _bodies_around(tree, calls[0] if calls else None):
        assigned = [stmt for stmt in body if _assignment_to(stmt, root) is not None]
        if len(assigned) == 1:
            return expression, assigned[0], False
        if assigned:
            return None
    return None


def _built_model_statement(tree: SourceTree, library: str | None) -> tuple[str, cst.SimpleStatementLine, bool]:
    """(the model's name, the statement that builds it, False): the one module-level ``model = Cls(...)`` /
    ``Cls.from_pretrained(...)`` of a class imported from the library the cause is in, for a line where a framework
    (the Trainer) makes the compiled call."""
    if not library:
        raise NoPatch("the cause's library is not known")
    built = []
    for stmt in tree.module.body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
            continue
        assign = stmt.body[0]
        value = assign.value
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) or not isinstance(value, cst.Call):
            continue
        func = value.func.value if isinstance(value.func, cst.Attribute) and value.func.attr.value in (
            "from_pretrained", "from_config") else value.func
        name = tree.qualified(func) or ""
        if name.startswith(library + ".") and _MODEL_CLASS.search(name.rsplit(".", 1)[-1]) \
                and not _NOT_A_MODEL.search(name.rsplit(".", 1)[-1]):
            built.append((assign.targets[0].target.value, stmt))
    if len(built) != 1:
        raise NoPatch(f"no single module-level assignment of a {library} model to set the attribute on")
    return built[0][0], built[0][1], False


def _assignment_to(stmt, name: str) -> cst.Assign | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        assign = stmt.body[0]
        if any(isinstance(t.target, cst.Name) and t.target.value == name for t in assign.targets):
            return assign
    return None


def _insert(tree: SourceTree, at: cst.SimpleStatementLine, statements: list, before: bool) -> str:
    """The statements put before (or after) ``at``, in whichever body holds it (the module's, a function's)."""
    placed = [*statements, at] if before else [at, *statements]
    return patch_for(tree, tree.module.deep_replace(at, cst.FlattenSentinel(placed)))
