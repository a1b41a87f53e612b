"""Patch kind: the compiled optimizer step, torch's documented recipe (the "torch.compile the optimizer" tutorial)::

    @torch.compile(fullgraph=False)
    def opt_step():
        opt.step()

defined right after the optimizer is built, and each ``opt.step()`` line calling it instead. Inductor then
generates one fused update for every parameter (a C++ kernel on a CPU, Triton on a GPU). ``fullgraph=False`` as in
the recipe: the optimizer's step has a deliberate graph break (its ``_use_grad`` wrapper), which torch handles.

With an LR scheduler given the optimizer, the compiled step would guard on ``lr`` as a Python float and recompile at
every change (pytorch#133898), so the patch also passes ``lr`` as a 0-d tensor (``lr=torch.tensor(0.01)``), which
schedulers update in place: one graph serves every value (the tutorial's "with an LR scheduler" section).
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import parse_template_expression
from tdiag.analyzer.model import Suggestion
from tdiag.analyzer.suggestions.helpers.call_keyword import keyword_value, with_keyword
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    insert_after_imports,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.optimizer_sites import the_optimizer
from tdiag.analyzer.suggestions.helpers.syntax import dotted

KIND = "compiled-optimizer-step"
WHY = (
    "The eager optimizer step runs several small ops per parameter; compiled (torch's recipe), Inductor fuses the "
    "update of every parameter into a few kernels. It compiles once, on the first step."
)
WHY_SCHEDULER = (
    " The learning rate becomes a 0-d tensor because an LR scheduler changes it: as a Python float every change "
    "would recompile the compiled step."
)


def build(ctx: SuggestionContext, path: str) -> Suggestion:
    tree = ctx.tree(path)
    site = the_optimizer(tree, framework_steps=False)
    fused = keyword_value(site.call, "fused")
    if isinstance(fused, cst.Name) and fused.value == "True":
        # the recipe fuses the default (foreach) update into a few kernels; the fused one already is one: compiling
        # it adds a compile and a round of `tdiag fix --verify` (~90 s of GPT-2's 300 s on an H100) for no fewer
        # launches
        raise NoPatch(f"{site.name} is fused already (fused=True: one kernel updates every parameter); compiling its "
                      "step would add a compile, not fewer launches")
    torch = torch_alias(tree)
    config = tree.module.config_for_parsing
    scope = tree.enclosing_function(site.statement)
    # the recipe's closure serves steps in the optimizer's own function; a step called elsewhere (a `train(model,
    # loader, optimizer)` the optimizer is passed to) would not see a function defined there, so the compiled step
    # is then defined at module level and takes the optimizer: Dynamo guards on the object, one compile serves it
    shared = all(tree.enclosing_function(step) is scope for step in site.steps)
    step_name = tree.fresh_name(f"{site.name}_step", site.call if shared else tree.module)
    parameter = "" if shared else tree.fresh_name("optimizer", tree.module)
    definition = cst.parse_statement(
        f"@{torch}.compile(fullgraph=False)\ndef {step_name}({parameter}):\n"
        f"{config.default_indent}{parameter or site.name}.step()\n",
        config=config,
    )
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    built = site.statement
    why = WHY
    if site.scheduler:
        lr = keyword_value(site.call, "lr")
        if lr is None:
            raise NoPatch("an LR scheduler changes lr, which the optimizer takes at its default: pass lr= as a tensor "
                          "(lr=torch.tensor(...)) before compiling its step")
        if not (isinstance(lr, cst.Call) and dotted(lr.func) in (f"{torch}.tensor", f"{torch}.as_tensor")):
            tensor = parse_template_expression("{torch}.tensor({value})", config=config, torch=cst.Name(torch),
                                               value=lr)
            new_call = with_keyword(site.call, "lr", tensor, replace=(tree.code(lr),))
            built = site.statement.with_changes(body=[site.statement.body[0].with_changes(value=new_call)])
        why += WHY_SCHEDULER
    replacements[site.statement] = cst.FlattenSentinel([built, definition]) if shared else built
    for statement in site.steps:
        receiver = "" if shared else tree.code(statement.body[0].value.func.value)  # `optimizer` of `optimizer.step()`
        call_line = cst.parse_statement(f"{step_name}({receiver})\n", config=config)
        replacements[statement] = call_line.with_changes(leading_lines=statement.leading_lines)
    module = replace_nodes(tree.module, replacements)
    if not shared:
        module = insert_after_imports(module, [definition.with_changes(
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()])])
    module = with_torch_import(tree, module)
    return Suggestion(
        title=f"Compile the optimizer step ({step_name}: torch's compiled-optimizer recipe)",
        why=why,
        patch=patch_for(tree, module),
        alternatives=["foreach=True (CPU) or fused=True (CUDA) on the optimizer: no compile, a smaller gain"],
        adds_graphs=True,
    )
