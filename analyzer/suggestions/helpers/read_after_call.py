"""Patch kind: read the value after the call. Host reads at the end of a compiled function (``val = loss.item()``,
``print(f"loss {val:.4f}")``) move to right after the caller's ``loss = step(ids)``, reading the tensor the function
already returns.

It is what a hand fix does (the ceiling programs' ``_fixed.py``): the compiled function becomes one graph with no
host read inside, and the output is the same text in the same order, since the moved lines ran just before the
``return`` and now run just after it. It applies only where that holds by construction:

- the lines are the last ones of the function before ``return NAME``, at the function's top level, and each is a
  print or logging call, an assignment to a new name of a host read (``.item()``, ``.tolist()``, ``float(...)``),
  a host read kept in a list or on an object (``losses.append(loss.item())``, ``self.last_loss = loss.item()``), or an
  ``if`` on host values holding only those;
- they read nothing but the returned tensor, names they assign themselves, builtins and the module's own names;
- every call of the compiled function keeps its result in a name (``loss = step(ids)``), and the function is not
  also called uncompiled, so no call loses the output;
- the moved names are free where they land.

The same move takes ``loss.backward()`` out of a compiled training step (``backward=True``): Dynamo does not trace
``Tensor.backward()`` (torch's GB0123, with ``trace_autograd_ops`` off, the default), so the step splits there and the
backward runs eagerly between the two graphs anyway. Called right after the step returns the loss, it is the same
backward (AOTAutograd compiled it with the forward, as it does for any compiled loss), at the same point of the
program, and the step is one graph: the usual shape of a compiled training step.

Measured (issue 41, H200, torch 2.11): GPT-2's round-1 re-run took 39-46 s with ``capture_scalar_outputs`` for the
same ``.item()`` and 17 s with the read moved out (benchmarks/gpu_round1_probe.py), and the program's own step time
is the hand fix's.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import libcst as cst
from tdiag.analyzer.model import Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, patch_for
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants, dotted, is_expression_statement_call

KIND = "read-after-call"
HOST_READ_METHODS = ("item", "tolist")
HOST_READ_BUILTINS = ("float", "int", "round", "bool", "str", "format", "abs", "len", "sum", "min", "max")
LIST_KEEPING = ("append", "extend")  # `losses.append(loss.item())`: a host value kept across steps
LOGGING_ROOTS = ("print", "logging", "logger", "log", "warnings", "LOGGER", "_logger", "_log")
WHY = (
    "The function already returns `{tensor}`: reading and printing it after the call prints the same text in the "
    "same order, and the compiled function is one graph with no host read inside (no device sync, no symbolic "
    "scalar for Inductor to compile, nothing Dynamo has to replay)."
)
BACKWARD_WHY = (
    "Dynamo does not trace `Tensor.backward()` (torch's default, trace_autograd_ops off): the step splits into two "
    "graphs there and the backward runs eagerly between them anyway. The function already returns `{tensor}`: "
    "calling `.backward()` on it right after the call runs the same backward at the same point of the program "
    "(AOTAutograd compiled it with the forward), and the step compiles as one graph."
)


def build(tree: SourceTree, statement: cst.SimpleStatementLine | None, backward: bool = False) -> Suggestion:
    """The patch that moves the host-read lines ending the compiled function holding ``statement`` after each call
    of it; NoPatch with the reason where the move could change what the program does. ``backward``: ``statement``
    is ``TENSOR.backward(...)`` of the returned tensor, which moves with the lines after it."""
    function, tail, tensor = host_tail(tree, statement, backward=backward)
    assigned, reads = tail_names(tail, tensor)
    outside = reads - module_names(tree)
    if outside:
        raise NoPatch(f"the lines read `{'`, `'.join(sorted(outside))}`, which the caller does not have")
    sites = _call_sites(tree, function)
    landing: dict[cst.SimpleStatementLine, list[cst.SimpleStatementLine]] = {}
    for site, target in sites:
        # a name the lines assign must be free there, and the caller's name for the result must not be one the
        # lines read as something else (a global `loss` would read the new value once the call has assigned it)
        taken = sorted(n for n in assigned if tree.is_bound(n, site))
        if target in assigned | reads or taken:
            raise NoPatch(f"`{'`, `'.join(taken or [target])}` is already used at line {tree.start_line(site)}")
        landing[site] = [_renamed(s, tensor, target).with_changes(leading_lines=()) for s in tail]
    new_module = tree.module.visit(_Move(set(tail), landing))
    lines = tail_lines(tree, tail)
    callers = ", ".join(f"line {tree.start_line(s)}" for s, _ in sites)
    what = f"Read `{tensor}`"
    if backward:
        effects = [s for s in tail if is_expression_statement_call(s) is not None and not _is_backward_of(s, tensor)]
        what = f"Call `{tensor}.backward()`" + (" and the update" if effects else "")
    return Suggestion(
        title=f"{what} after the call: move {lines} of `{function.name.value}` after its call ({callers})",
        why=(BACKWARD_WHY if backward else WHY).format(tensor=tensor),
        patch=patch_for(tree, new_module),
    )


def host_tail(tree: SourceTree, statement: cst.CSTNode | None, logging: tuple[str, ...] = (),
              backward: bool = False) -> tuple[cst.FunctionDef, list[cst.CSTNode], str]:
    """(the function, the host-only statements that end it before ``return NAME`` from the one holding ``statement``
    on, NAME); NoPatch with the reason where there is no such tail. ``logging``: more calls that count as logging
    where the lines land (Lightning's ``self.log`` in a hook). ``backward``: ``NAME.backward(...)`` moves too."""
    if statement is None:
        raise NoPatch("the read is not a statement of its own")
    function = tree.enclosing_function(statement)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        raise NoPatch("the line is not inside a function")
    body = list(function.body.body)
    top = next((s for s in [statement, *tree.ancestors(statement)] if s in body), None)
    if top is None:
        raise NoPatch("the line is not part of the function's own statements")
    tensor = _returned_name(body[-1])
    if tensor is None:
        raise NoPatch(f"`{function.name.value}` does not end with `return <name>`")
    at = body.index(top)
    if at == len(body) - 1:
        raise NoPatch("the line is the function's return")
    if backward and not _is_backward_of(body[at], tensor):
        raise NoPatch(f"line {tree.start_line(body[at])} is not `{tensor}.backward()` of the `{tensor}` that "
                      f"`{function.name.value}` returns")
    for stmt in body[at:-1]:
        # after the backward, a call made for its effect (clipping, the optimizer's and the scheduler's step,
        # zero_grad) moves with it: in the function it ran after the returned value was computed, after the call it
        # runs at the same point, before anything else reads what it changed
        after_backward = backward and (_is_backward_of(stmt, tensor) or is_expression_statement_call(stmt) is not None)
        problem = None if after_backward else _not_host_only(stmt, tensor, logging)
        if problem:
            raise NoPatch(f"line {tree.start_line(stmt)} {problem}: only host reads and logging can move after the call")
    start = at
    while start > 0 and _not_host_only(body[start - 1], tensor, logging) is None:
        start -= 1
    return function, body[start:-1], tensor


def tail_names(tail: list[cst.CSTNode], tensor: str) -> tuple[set[str], set[str]]:
    """(the names the tail assigns, the names it reads besides those, the returned tensor and the builtins)."""
    assigned = {name for s in tail for name in _assigned_names(s)}
    reads = set().union(*(names_read(s) for s in tail)) - assigned - {tensor} - set(dir(builtins))
    return assigned, reads


def tail_lines(tree: SourceTree, tail: list[cst.CSTNode]) -> str:
    """"line 12" / "lines 12-15": where the tail starts and ends."""
    end = tree.positions[tail[-1]].end.line
    return f"lines {tree.start_line(tail[0])}-{end}" if end > tree.start_line(tail[0]) else f"line {end}"


def build_returned(tree: SourceTree, read: cst.Call) -> Suggestion:
    """The patch for a host read the function returns (``return loss, loss.item()``, or ``n = E.item()`` then
    ``return out, n``): the function returns the tensor and each caller reads it right after the call
    (``loss, value = step(...)`` then ``value = value.item()``), the same value at the same point of the program."""
    function = tree.enclosing_function(read)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        raise NoPatch("the read is not inside a function")
    assert isinstance(read.func, cst.Attribute)
    method = read.func.attr.value
    body = list(function.body.body)
    last = body[-1]
    if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)
            and last.body[0].value is not None):
        raise NoPatch(f"`{function.name.value}` does not end with a return")
    value = last.body[0].value
    elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    statement = tree.enclosing_statement_line(read)
    if statement is last:
        position = next((i for i, e in enumerate(elements) if e is read), None)
    else:
        name = _assigned_name(statement) if statement in body else None
        if name is None or statement.body[0].value is not read:
            raise NoPatch(f"the .{method}() value is neither returned nor assigned to a name at the function's top level")
        uses = [n for n in descendants(function, cst.Name) if n.value == name]
        position = next((i for i, e in enumerate(elements) if isinstance(e, cst.Name) and e.value == name), None)
        if len(uses) != 2:  # the assignment and the return, nothing else reads it
            raise NoPatch(f"`{name}` is used in the function besides being returned")
    if position is None:
        raise NoPatch(f"the .{method}() value is not one of the values `{function.name.value}` returns")
    sites = [(site, targets[position])
             for site, targets in _tuple_call_sites(tree, function, len(elements) if isinstance(value, cst.Tuple) else None)]
    landing = {site: [cst.parse_statement(f"{target} = {target}.{method}()\n", config=tree.module.config_for_parsing)]
               for site, target in sites}
    new_module = _replace_and_land(tree, read, read.func.value, landing)
    callers = ", ".join(f"line {tree.start_line(s)}" for s, _ in sites)
    return Suggestion(
        title=f"Return the tensor and call .{method}() after the call ({callers})",
        why=("The value leaves the device inside the compiled function, which ends the graph there. Returned as a "
             f"tensor and read with .{method}() right after the call, the caller gets the same value at the same "
             "point, and the compiled function is one graph."),
        patch=patch_for(tree, new_module),
    )


def _replace_and_land(tree: SourceTree, node: cst.CSTNode, replacement: cst.CSTNode,
                      landing: dict[cst.CSTNode, list[cst.SimpleStatementLine]]) -> cst.Module:
    class Both(_Move):
        def on_leave(self, original, updated):
            if original is node:
                return replacement
            return super().on_leave(original, updated)

    return tree.module.visit(Both(set(), landing))


def _tuple_call_sites(tree: SourceTree, function: cst.FunctionDef, arity: int | None):
    """Each statement calling the compiled function with its result unpacked into names (``a, b = step(...)``, or
    ``a = step(...)`` for a single value), with those names."""
    sites = []
    for call in _compiled_calls(tree, function):
        assign = tree.parent(call)
        stmt = tree.parent(assign) if assign is not None else None
        line = tree.start_line(call)
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(stmt, cst.SimpleStatementLine)
                and len(stmt.body) == 1 and isinstance(tree.parent(stmt), (cst.IndentedBlock, cst.Module))):
            raise NoPatch(f"the call at line {line} does not keep the result in "
                          + (f"a name (`x = {call.func.value}(...)`)" if arity is None else "names"))
        target = assign.targets[0].target
        if arity is None and isinstance(target, cst.Name):
            sites.append((stmt, [target.value]))
        elif (arity is not None and isinstance(target, cst.Tuple) and len(target.elements) == arity
              and all(isinstance(e.value, cst.Name) for e in target.elements)):
            sites.append((stmt, [e.value.value for e in target.elements]))
        elif arity is None:
            raise NoPatch(f"the call at line {line} does not keep the result in a name (`x = {call.func.value}(...)`)")
        else:
            raise NoPatch(f"the call at line {line} does not unpack the result into one name per value")
    return sites


def _returned_name(stmt: cst.CSTNode) -> str | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return):
        value = stmt.body[0].value
        return value.value if isinstance(value, cst.Name) else None
    return None


def _is_backward_of(stmt: cst.CSTNode, tensor: str) -> bool:
    """``TENSOR.backward(...)`` as a statement of its own."""
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.Call) and dotted(stmt.body[0].value.func) == f"{tensor}.backward")


def _assigned_name(stmt: cst.SimpleStatementLine) -> str | None:
    inner = stmt.body[0]
    if isinstance(inner, cst.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0].target, cst.Name):
        return inner.targets[0].target.value
    return None


def _assigned_names(stmt: cst.CSTNode) -> list[str]:
    """The names a tail statement assigns, inside an ``if`` too."""
    if isinstance(stmt, cst.If):
        names = [name for inner in stmt.body.body for name in _assigned_names(inner)]
        if isinstance(stmt.orelse, cst.If):  # elif: its own branches
            return names + _assigned_names(stmt.orelse)
        if isinstance(stmt.orelse, cst.Else):
            names += [name for inner in stmt.orelse.body.body for name in _assigned_names(inner)]
        return names
    name = _assigned_name(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
    return [name] if name else []


def _not_host_only(stmt: cst.CSTNode, tensor: str, logging: tuple[str, ...] = ()) -> str | None:
    """None when ``stmt`` only reads values to the host, keeps them in a list or logs them (``logging``: more calls
    that count as logging); else what it does besides."""
    if isinstance(stmt, cst.If):
        return _not_host_only_if(stmt, tensor, logging)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return "is not a single simple statement"
    inner = stmt.body[0]
    if isinstance(inner, cst.Expr) and isinstance(inner.value, cst.Call):
        name = dotted(inner.value.func) or ""
        if name.split(".")[0] in LOGGING_ROOTS or name in logging:
            return None
        if name.rsplit(".", 1)[-1] in LIST_KEEPING and "." in name:
            return _not_host_read(inner.value.args)  # `losses.append(loss.item())`: bookkeeping on the host
        return f"calls `{name or 'something'}`, which is not a print or logging call"
    if isinstance(inner, (cst.Assign, cst.AugAssign)) and _attribute_target(inner):
        # `self.last_loss = loss.item()`, `stats.total += loss.item()`: a host value kept on an object
        return _not_host_read(inner.value) if descendants(inner.value, cst.Call) else "computes its value on the device, not a host read"
    name = _assigned_name(stmt)
    if name is None:
        return "is neither an assignment to a name nor a logging call"
    if name == tensor:
        return f"reassigns `{tensor}`, which the function returns"
    if not descendants(inner.value, cst.Call):
        # a constant (`tag = "low"`) is host work; arithmetic on names may be the device's
        return "computes its value on the device, not a host read" if names_read(inner.value) else None
    return _not_host_read(inner.value)


def _attribute_target(assign: cst.Assign | cst.AugAssign) -> bool:
    """One target, an attribute of a name (``self.last_loss``, ``stats.total``)."""
    if isinstance(assign, cst.AugAssign):
        target = assign.target
    elif len(assign.targets) == 1:
        target = assign.targets[0].target
    else:
        return False
    return isinstance(target, cst.Attribute) and dotted(target) is not None


def _not_host_only_if(stmt: cst.If, tensor: str, logging: tuple[str, ...]) -> str | None:
    """An ``if`` on host values (``batch_idx % 8 == 0``) whose branches are host-only."""
    problem = _not_host_read(stmt.test)
    if problem:
        return f"tests a value that {problem}"
    orelse = stmt.orelse
    blocks = [stmt.body, *([orelse.body] if isinstance(orelse, cst.Else) else [])]
    if isinstance(orelse, cst.If):
        problem = _not_host_only_if(orelse, tensor, logging)
        if problem:
            return problem
    for block in blocks:
        if not isinstance(block, cst.IndentedBlock):
            return "is an `if` on one line"
        for inner in block.body:
            problem = _not_host_only(inner, tensor, logging)
            if problem:
                return problem
    return None


def _not_host_read(node: cst.CSTNode | Sequence[cst.CSTNode]) -> str | None:
    """None when every call in ``node`` is a host read (``.item()``, ``float(...)``, ``len(...)``)."""
    nodes = node if isinstance(node, Sequence) else [node]
    for call in (c for n in nodes for c in descendants(n, cst.Call)):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in HOST_READ_METHODS:
            continue
        if isinstance(func, cst.Name) and func.value in HOST_READ_BUILTINS:
            continue
        return f"calls `{dotted(func) or 'something'}`, not a host read"
    return None


def module_names(tree: SourceTree) -> set[str]:
    """Names bound at the module's top level: imports, assignments, functions and classes."""
    names: set[str] = set()
    for stmt in tree.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        names.add((dotted(bound) or "").split(".")[0])
                elif isinstance(small, cst.Assign):
                    names.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    names.add(small.target.value)
    return names


def _compiled_calls(tree: SourceTree, function: cst.FunctionDef) -> list[cst.Call]:
    """Every call of the function compiled (``step = torch.compile(f)``, or ``@torch.compile`` on it); NoPatch when
    there is none or the function is also called uncompiled (that call would lose what moves)."""
    own = function.name.value
    compiled = {own} if any(_is_compile(tree, d.decorator) for d in function.decorators) else set()
    for assign in tree.nodes(cst.Assign):
        value = assign.value
        if (isinstance(value, cst.Call) and tree.qualified(value.func) == "torch.compile" and value.args
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == own):
            compiled.update(t.target.value for t in assign.targets if isinstance(t.target, cst.Name))
    if not compiled:
        raise NoPatch(f"no `torch.compile` of `{own}` in this file to find its calls by")
    calls = []
    for call in tree.nodes(cst.Call):
        if not (isinstance(call.func, cst.Name) and call.func.value in compiled | {own}):
            continue
        if call.func.value == own and own not in compiled:
            raise NoPatch(f"`{own}` is also called uncompiled (line {tree.start_line(call)}), and that call would "
                          "lose the output")
        calls.append(call)
    if not calls:
        raise NoPatch(f"no call of the compiled `{own}` in this file")
    return calls


def _call_sites(tree: SourceTree, function: cst.FunctionDef) -> list[tuple[cst.SimpleStatementLine, str]]:
    """Each ``NAME = compiled(...)`` statement calling the function compiled, with NAME."""
    return [(stmt, names[0]) for stmt, names in _tuple_call_sites(tree, function, None)]


def _is_compile(tree: SourceTree, decorator: cst.BaseExpression) -> bool:
    expr = decorator.func if isinstance(decorator, cst.Call) else decorator
    return tree.qualified(expr) == "torch.compile"


def _renamed(stmt: cst.SimpleStatementLine, old: str, new: str) -> cst.SimpleStatementLine:
    if old == new:
        return stmt

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value=new) if updated.value == old else updated

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            return updated.with_changes(attr=original.attr)  # `loss.item`: only the object is renamed

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)  # `print(..., sep=...)`: keywords stay

    return stmt.visit(Rename())


class _Move(cst.CSTTransformer):
    """Drops the moved lines from the function and puts their copies after each call statement."""

    def __init__(self, moved: set[cst.CSTNode], landing: dict[cst.CSTNode, list[cst.SimpleStatementLine]]):
        super().__init__()
        self.moved, self.landing = moved, landing

    def _body(self, original, updated) -> list:
        body = []
        for before, after in zip(original.body, updated.body):
            if before in self.moved:
                continue
            body.append(after)
            body.extend(self.landing.get(before, ()))
        return body

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated.with_changes(body=self._body(original, updated))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._body(original, updated))
