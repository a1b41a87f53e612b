"""Patch kind: make the call before the compiled function and pass its result in (the catalogue's "move-out"
candidate for a call Dynamo cannot put into a graph: a tensor created with ``requires_grad=True``, a draw from a
``torch.Generator`` passed in).

``bias = torch.zeros(3, requires_grad=True)`` at the top level of compiled ``f(x)`` becomes a parameter ``bias`` of
``f``, and every ``f(a)`` in the file becomes ``f(a, bias=torch.zeros(3, requires_grad=True))``; a call inside a
larger expression (``x + 0.1 * torch.randn(x.shape, generator=gen)``) is replaced by a new parameter the same way,
its arguments written in the caller's names (``torch.randn(x.shape, generator=gen)`` at ``f(x, gen)``).

It applies only where the move keeps what the call computes by construction:

- the statement sits at the top level of a module-level function (not in a loop or a branch, which would change how
  often the call runs), and is the function's only assignment to the new parameter's name;
- the call reads only the function's parameters (never reassigned before it), the module's names and builtins;
- every use of the function in the file is a call (or its ``torch.compile``), each passing the parameters the call
  reads as names or constant attributes of names, so the caller evaluates the very same objects.

What the move may still change (the order of two random draws, a side effect of the call before the function's
earlier lines) is what `tdiag fix --verify` measures: the program's output against the run before the patch.
"""

from __future__ import annotations

import builtins

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.call_arguments import is_reference
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants, dotted

KIND = "move-out"


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
    if statement is None:
        raise NoPatch(f"no simple statement starts on line {finding.line}")
    function = top_level_function(tree, statement)
    expression, name, remove = _what_moves(tree, statement, function)
    params = tree.params(function)
    _reads_only_parameters(tree, expression, function, statement, params)
    callers = calls_of(tree, function)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for call in callers:
        value = _in_callers_names(expression, call, params)
        replacements[call] = call.with_changes(args=[*with_trailing_comma(call.args), keyword_arg(name, value)])
    new_params = function.params.with_changes(params=[*with_trailing_comma(function.params.params),
                                                      cst.Param(cst.Name(name))])
    body = [s for s in function.body.body if s is not statement] if remove else None
    new_function = function.with_changes(params=new_params)
    if body is not None:
        new_function = new_function.with_changes(body=function.body.with_changes(body=body))
    else:
        replacements[expression] = cst.Name(name)
    module = replace_nodes(tree.module, replacements)
    module = replace_nodes(module, {_same(module, function): _rebuilt(new_function, replacements, remove)})
    what = tree.code(expression)
    return Suggestion(
        title=f"Make `{what}` before the compiled call and pass it in as `{name}`",
        why="Dynamo cannot put this call into a graph; made by the caller, its result enters the compiled function "
        "as an input, and the function stays one graph.",
        patch=patch_for(tree, module),
    )


def top_level_function(tree: SourceTree, statement: cst.CSTNode) -> cst.FunctionDef:
    """The module-level function whose own body holds ``statement`` (not a loop's or a branch's)."""
    block = tree.parent(statement)
    function = tree.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(function, cst.FunctionDef):
        raise NoPatch("the line is inside a loop, a branch or a with block, not at the top of a function")
    if tree.parent(function) is not tree.module:
        raise NoPatch(f"`{function.name.value}` is not a module-level function")
    if function.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or function.params.star_kwarg \
            or function.params.kwonly_params or any(p.default is not None for p in function.params.params):
        raise NoPatch(f"`{function.name.value}` has defaults, *args or keyword-only parameters")
    return function


def _what_moves(tree: SourceTree, statement: cst.SimpleStatementLine,
                function: cst.FunctionDef) -> tuple[cst.BaseExpression, str, bool]:
    """The call that moves, the parameter it becomes, and whether its whole statement goes (``name = call``)."""
    inner = statement.body[0] if len(statement.body) == 1 else None
    if isinstance(inner, cst.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0].target, cst.Name) \
            and isinstance(inner.value, cst.Call):
        name = inner.targets[0].target.value
        assigned = [t for t in descendants(function.body, cst.AssignTarget) if isinstance(t.target, cst.Name)
                    and t.target.value == name]
        if len(assigned) != 1 or name in tree.params(function):
            raise NoPatch(f"`{name}` is assigned more than once in `{function.name.value}`")
        return inner.value, name, True
    calls = [c for c in descendants(statement, cst.Call)
             if not any(isinstance(a, cst.Call) for a in _between(tree, c, statement))]
    torch_calls = [c for c in calls if (tree.qualified(c.func) or "").startswith("torch.")]
    if len(torch_calls) != 1:
        raise NoPatch("the line holds no single torch call to make before the compiled function")
    call = torch_calls[0]
    short = (dotted(call.func) or "value").rsplit(".", 1)[-1]
    return call, tree.fresh_name(f"{short}_value", function.body), False


def _between(tree: SourceTree, node: cst.CSTNode, top: cst.CSTNode):
    for a in tree.ancestors(node):
        if a is top:
            return
        yield a


def _reads_only_parameters(tree: SourceTree, expression: cst.BaseExpression, function: cst.FunctionDef,
                           statement: cst.CSTNode, params: list[str]) -> None:
    read = names_read(expression)
    assigned = {t.target.value for t in descendants(function.body, cst.AssignTarget) if isinstance(t.target, cst.Name)}
    assigned |= {n.target.value for n in descendants(function.body, (cst.AugAssign, cst.AnnAssign))
                 if isinstance(n.target, cst.Name)}
    local = sorted(n for n in read if n in assigned)
    if local:
        raise NoPatch(f"the call reads `{', '.join(local)}`, which `{function.name.value}` computes itself")
    module_names = {n for n in read if n not in params and (tree.is_bound(n, tree.module) or hasattr(builtins, n))}
    unknown = sorted(read - set(params) - module_names)
    if unknown:
        raise NoPatch(f"the call reads `{', '.join(unknown)}`, which the caller does not have")


def calls_of(tree: SourceTree, function: cst.FunctionDef) -> list[cst.Call]:
    """Every call of the function in the file (through its ``torch.compile`` too); NoPatch where it is used any
    other way (passed as a value: a caller this patch cannot see)."""
    name = function.name.value
    names = {name}
    compiles: set[int] = set()
    for assign in tree.nodes(cst.Assign):
        value = assign.value
        if isinstance(value, cst.Call) and tree.qualified(value.func) == "torch.compile" and value.args \
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name:
            compiles.add(id(value.args[0].value))
            names |= {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
    calls = []
    for node in tree.nodes(cst.Name):
        if node.value not in names or node is function.name or id(node) in compiles:
            continue
        parent = tree.parent(node)
        if isinstance(parent, cst.AssignTarget):
            continue
        if not (isinstance(parent, cst.Call) and parent.func is node):
            raise NoPatch(f"`{node.value}` is used other than by calling it (line {tree.start_line(node)})")
        if tree.enclosing_function(parent) is function:
            raise NoPatch(f"`{name}` calls itself")
        calls.append(parent)
    if not calls:
        raise NoPatch(f"the file never calls `{name}`")
    return calls


def _in_callers_names(expression: cst.BaseExpression, call: cst.Call, params: list[str]) -> cst.BaseExpression:
    """The moved call with each parameter it reads replaced by the argument this call passes for it."""
    arguments = {}
    for param in sorted(names_read(expression) & set(params)):
        value = argument_for(call, param, params).value
        if not (is_reference(value) or isinstance(value, (cst.Integer, cst.Float, cst.SimpleString))):
            raise NoPatch(f"`{param}` is passed as an expression, which the caller would evaluate twice")
        arguments[param] = value

    class Rename(cst.CSTTransformer):
        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)  # an attribute name is no read of a parameter

        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)

        def leave_Name(self, original, updated):
            return arguments.get(original.value, updated)

    return expression.visit(Rename())


def with_trailing_comma(items) -> list:
    """``items`` (arguments or parameters) with a comma after the last, so one more can follow it."""
    items = list(items)
    if items:
        items[-1] = items[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return items


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``, as a call's keyword argument is written (no spaces around ``=``)."""
    return cst.Arg(value=value, keyword=cst.Name(name),
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


def _same(module: cst.Module, function: cst.FunctionDef) -> cst.FunctionDef:
    """The function in the rewritten module (calls inside other functions were replaced, not this one's node)."""
    return next(s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == function.name.value)


def _rebuilt(new_function: cst.FunctionDef, replacements, remove: bool) -> cst.FunctionDef:
    """The function with its new parameter, and the moved call replaced in its body (when the statement stays)."""
    return new_function if remove else replace_nodes(cst.Module(body=[new_function]), replacements).body[0]
