"""Patch kind: a class statement inside a compiled function moved to module level (the catalogue's "move-out"
candidate for torch's "Invalid call to __build_class__"). Dynamo does not trace a class statement; defined once at
module level, the class costs nothing per call and the function is one graph.

It applies only where the class is the same class by construction: the statement sits at the top level of a
module-level function, its body reads none of the function's parameters or locals (a closure would change meaning),
and its name is free at module level.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for
from tdiag.analyzer.suggestions.helpers.hoist_to_caller import top_level_function
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import descendants

KIND = "move-out"


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    definition = tree.statement_at(cst.ClassDef, finding.line)
    if definition is None:
        raise NoPatch(f"no class statement starts on line {finding.line}")
    function = top_level_function(tree, definition)
    name = definition.name.value
    local = set(tree.params(function)) | {
        t.target.value for t in descendants(function.body, cst.AssignTarget) if isinstance(t.target, cst.Name)}
    closes_over = sorted((names_read(definition) - {name}) & local)
    if closes_over:
        raise NoPatch(f"class {name} reads `{', '.join(closes_over)}` of `{function.name.value}`: it would change "
                      "meaning at module level")
    if any(isinstance(s, (cst.ClassDef, cst.FunctionDef)) and s.name.value == name for s in tree.module.body) \
            or name in _module_assigned(tree):
        raise NoPatch(f"`{name}` already names something at module level")
    body = [s for s in function.body.body if s is not definition] or [cst.SimpleStatementLine([cst.Pass()])]
    if function.body.body[0] is definition:  # the blank line that followed the class no longer follows anything
        body[0] = body[0].with_changes(leading_lines=[])
    moved = definition.with_changes(leading_lines=function.leading_lines)
    new_body = []
    for statement in tree.module.body:
        if statement is function:
            new_body += [moved, function.with_changes(body=function.body.with_changes(body=body),
                                                      leading_lines=[cst.EmptyLine(), cst.EmptyLine()])]
        else:
            new_body.append(statement)
    return Suggestion(
        title=f"Define class {name} at module level, outside `{function.name.value}`",
        why="Dynamo does not trace a class statement: it breaks the graph on every call. Defined once at module "
        "level, the class is the same and the compiled function is one graph.",
        patch=patch_for(tree, tree.module.with_changes(body=new_body)),
    )


def _module_assigned(tree) -> set[str]:
    return {t.target.value for s in tree.module.body for t in descendants(s, cst.AssignTarget)
            if isinstance(t.target, cst.Name) and not isinstance(s, (cst.FunctionDef, cst.ClassDef))}
