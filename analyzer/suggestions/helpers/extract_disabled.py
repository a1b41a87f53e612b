"""CRS008 on a line written directly in the compiled function: move the statement into a helper of its own,
decorated with ``@torch.compiler.disable``, so torch's fault is worked around and the rest stays compiled.

The helper is a new module-level function placed just before the compiled function (before its class, for a
method). Its parameters are the names the statement reads that are local to the compiled function (or to a function
around it), found with libcst's scope analysis; it returns the names the statement assigns that are read anywhere
else (a tuple for several), and the statement becomes the call. Passing a local to a function hands over the same
object, so the statement's changes to attributes and items of a local stay visible; rebinding is what a function
cannot do for its caller, so the rewrite is refused wherever the statement's meaning depends on its frame: a
``return``/``yield``/``await``, a ``break``/``continue`` of a loop outside it, ``global``/``nonlocal``/``del``,
``super()``/``locals()``/``vars()``, a name assigned inside a block it moves whole that is read later (the
helper could leave it unbound), or a name it assigns that is not the function's own local.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import FunctionScope
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted, is_expression_statement_call

WHY = (
    "The error is inside torch.compile, not in this code: the same line runs eagerly. Moved into a function of "
    "its own decorated with @torch.compiler.disable, the line runs eagerly (one graph break at its call) while the "
    "rest of {function} stays compiled, until torch fixes the bug."
)
_FRAME_CALLS = frozenset({"super", "locals", "vars", "exec", "eval"})


def suggest(finding: Finding, ctx: SuggestionContext, function: str) -> Suggestion:
    """The patch for the statement at ``finding.line`` in the compiled function ``function``."""
    tree = ctx.tree(finding.path)
    statement = _statement_at(tree, finding.line)
    func = tree.enclosing_function(statement)
    if func is None or func.name.value != function.rpartition(".")[2]:
        raise NoPatch(f"no function {function} around {finding.path}:{finding.line} in the recorded source")
    _refuse_frame_dependence(tree, statement)
    scope = tree.scopes.get(statement)
    if not isinstance(scope, FunctionScope):
        raise NoPatch("the line is not in a function's own body")
    params = _parameters(tree, statement)
    returned = _returned(tree, statement, scope)
    helper = _helper_name(tree, statement, func)
    torch = torch_alias(tree)
    config = tree.module.config_for_parsing
    body = [statement.with_changes(leading_lines=[])]
    if returned:
        body.append(cst.parse_statement(f"return {', '.join(returned)}\n", config=config))
    definition = cst.FunctionDef(
        name=cst.Name(helper),
        params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
        body=cst.IndentedBlock(body=body),
        decorators=[cst.Decorator(decorator=cst.parse_expression(f"{torch}.compiler.disable"))],
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
    )
    call = f"{helper}({', '.join(params)})"
    call_line = cst.parse_statement(f"{', '.join(returned) + ' = ' if returned else ''}{call}\n", config=config)
    call_line = call_line.with_changes(leading_lines=statement.leading_lines)
    if isinstance(statement, cst.SimpleStatementLine):
        call_line = call_line.with_changes(trailing_whitespace=statement.trailing_whitespace)
    new_module = _insert_before(tree, _top_level(tree, func), definition, statement, call_line)
    return Suggestion(
        title=f"Run line {finding.line} eagerly: move it into a new @torch.compiler.disable function `{helper}` "
              f"({finding.path}:{finding.line})",
        why=WHY.format(function=func.name.value),
        patch=patch_for(tree, with_torch_import(tree, new_module)),
        alternatives=[f"move the line out of {func.name.value} (after the compiled call), on the values it returns"],
    )


def _statement_at(tree: SourceTree, line: int) -> cst.CSTNode:
    """The innermost statement of a block that spans ``line``: a simple line, or a compound statement whose
    header is on the line (moved whole)."""
    spanning = [s for s in tree.nodes((cst.SimpleStatementLine, cst.BaseCompoundStatement))
                if tree.spans_line(s, line) and isinstance(tree.parent(s), cst.IndentedBlock)]
    if not spanning:
        raise NoPatch(f"no statement on line {line} of the recorded source")
    statement = max(spanning, key=lambda s: len(list(tree.ancestors(s))))  # the innermost
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        raise NoPatch("the line is a definition: decorate that function with @torch.compiler.disable instead")
    return statement


def _refuse_frame_dependence(tree: SourceTree, statement: cst.CSTNode) -> None:
    problems: list[str] = []
    loops = 0

    class Check(cst.CSTVisitor):
        def visit_Return(self, node) -> None:
            problems.append("a return")

        def visit_Yield(self, node) -> None:
            problems.append("a yield")

        def visit_Await(self, node) -> None:
            problems.append("an await")

        def visit_Global(self, node) -> None:
            problems.append("a global statement")

        def visit_Nonlocal(self, node) -> None:
            problems.append("a nonlocal statement")

        def visit_Del(self, node) -> None:
            problems.append("a del")

        def visit_Break(self, node) -> None:
            if not loops:
                problems.append("a break of a loop around it")

        def visit_Continue(self, node) -> None:
            if not loops:
                problems.append("a continue of a loop around it")

        def visit_For(self, node) -> None:
            nonlocal loops
            loops += 1

        def leave_For(self, node) -> None:
            nonlocal loops
            loops -= 1

        def visit_While(self, node) -> None:
            nonlocal loops
            loops += 1

        def leave_While(self, node) -> None:
            nonlocal loops
            loops -= 1

        def visit_FunctionDef(self, node) -> bool:
            problems.append("a function definition")
            return False

        def visit_Lambda(self, node) -> bool:
            return False  # its body runs wherever it is called, with its own frame

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in _FRAME_CALLS:
                problems.append(f"{node.func.value}(), which reads the function's own frame")

    statement.visit(Check())
    if problems:
        raise NoPatch(f"the statement at the line has {problems[0]}, which would mean something else in a helper: "
                      "move it out of the compiled function by hand")


def _inside(tree: SourceTree, node: cst.CSTNode, statement: cst.CSTNode) -> bool:
    return node is statement or any(a is statement for a in tree.ancestors(node))


def _parameters(tree: SourceTree, statement: cst.CSTNode) -> list[str]:
    """Names the statement reads that some assignment outside it binds in a function scope (the compiled
    function's locals and parameters, or a closure's), in order of first read."""
    names: list[str] = []
    accesses = sorted({a for s in _scopes(tree) for a in s.accesses if _inside(tree, a.node, statement)},
                      key=lambda a: _where(tree, a.node))
    for access in accesses:
        name = access.node.value if isinstance(access.node, cst.Name) else None
        if name is None or name in names:
            continue
        if any(isinstance(r.scope, FunctionScope) and not _inside(tree, r.node, statement)
               and not _scope_inside(tree, r.scope, statement) for r in access.referents):
            names.append(name)
    return names


def _where(tree: SourceTree, node: cst.CSTNode) -> tuple[int, int]:
    position = tree.positions.get(node)
    return (position.start.line, position.start.column) if position is not None else (0, 0)


def _returned(tree: SourceTree, statement: cst.CSTNode, scope: FunctionScope) -> list[str]:
    """Names the statement binds in the function that are read outside it (the caller needs them back)."""
    assigned: list[str] = []
    for s in _scopes(tree):
        for assignment in s.assignments:
            if not _inside(tree, assignment.node, statement) or _scope_inside(tree, s, statement):
                continue
            if s is not scope:
                raise NoPatch(f"the statement assigns `{assignment.name}`, which is not a local of the function")
            if assignment.name not in assigned:
                assigned.append(assignment.name)
    read_later = [n for n in assigned if any(
        not _inside(tree, a.node, statement) for s in _scopes(tree) for a in s.accesses[n]
        if any(r.scope is scope for r in a.referents))]
    if read_later and not isinstance(statement, cst.SimpleStatementLine):
        raise NoPatch(f"`{read_later[0]}` is assigned inside the block at the line and read later; a helper could "
                      "leave it unbound")
    return read_later


def _scopes(tree: SourceTree) -> set:
    return {s for s in tree.scopes.values() if s is not None}


def _scope_inside(tree: SourceTree, scope, statement: cst.CSTNode) -> bool:
    """A comprehension or lambda scope the statement itself creates."""
    node = getattr(scope, "node", None)
    return node is not None and not isinstance(node, cst.Module) and _inside(tree, node, statement)


def _helper_name(tree: SourceTree, statement: cst.CSTNode, func: cst.FunctionDef) -> str:
    """``_eager_print`` for a line that is one call, else ``_<function>_eager``; never a name the file uses."""
    call = is_expression_statement_call(statement)
    callee = (dotted(call.func) or "").rpartition(".")[2] if call is not None else ""
    preferred = f"_eager_{callee}" if callee else f"_{func.name.value.strip('_')}_eager"
    used = {n.value for n in tree.nodes(cst.Name)}
    candidate, n = preferred, 1
    while candidate in used:
        n += 1
        candidate = f"{preferred}_{n}"
    return candidate


def _top_level(tree: SourceTree, func: cst.FunctionDef) -> cst.CSTNode:
    """The module-level statement holding ``func`` (itself, its class, or the function around it)."""
    node = func
    while tree.parent(node) is not None and not isinstance(tree.parent(node), cst.Module):
        node = tree.parent(node)
    return node


def _insert_before(tree: SourceTree, top: cst.CSTNode, definition: cst.FunctionDef, statement: cst.CSTNode,
                   call_line: cst.CSTNode) -> cst.Module:
    """The module with ``statement`` replaced by ``call_line`` and ``definition`` placed before ``top``."""
    new_top = top.deep_replace(statement, call_line)
    if not any(line.comment is None for line in top.leading_lines):  # two blank lines between the definitions
        new_top = new_top.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *top.leading_lines])
    body = []
    for stmt in tree.module.body:
        if stmt is top:
            body.extend([definition, new_top])
        else:
            body.append(stmt)
    return tree.module.with_changes(body=body)
