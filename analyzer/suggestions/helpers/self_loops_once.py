"""The self-loops a torch_geometric layer adds on every call, added once before the compiled call instead.

``GCNConv`` normalises by adding the remaining self-loops inside its forward (``add_remaining_self_loops``: a
boolean mask whose output size depends on the data, so Dynamo breaks in every layer, and a compiled graph holding it
cannot be captured by CUDA graphs). torch_geometric documents the other way: build the layers with
``add_self_loops=False`` and give them an edge index that already has the loops. The loops are the same, and so are
the numbers (``gcn_norm`` then weighs every edge 1, as it weighs the loops it adds itself when ``improved`` is off).

The patch, all in the user's file: ``add_self_loops=False`` in each construction of the layer class inside the model
class whose forward calls it, and before the compiled call ``looped, _ = add_remaining_self_loops(edge, num_nodes=
nodes.size(0))`` with ``looped`` passed in the edge index's place (a new name, so the program's own ``edge_index``
keeps its meaning for any later use). Refused where the numbers could change: a layer built with ``improved`` or
given edge weights, or one whose ``add_self_loops`` is already set.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding
from tdiag.analyzer.suggestions.helpers.call_arguments import is_reference
from tdiag.analyzer.suggestions.helpers.call_keyword import with_keyword
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for, compiled_call_on_line
from tdiag.analyzer.suggestions.helpers.context import NoPatch, insert_after_imports, patch_for, replace_nodes
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

LOOPS_FUNCTION = "torch_geometric.utils.add_remaining_self_loops"


def build(tree: SourceTree, finding: Finding, layer_class: str) -> str:
    """The patch for ``finding`` (a break inside ``layer_class``'s self-loops, reached from a layer call on its line);
    NoPatch with the reason where the program's shape does not allow it."""
    model_class, forward = _model_forward(tree, finding.line)
    layers = _layer_constructions(tree, model_class, layer_class)
    edge, nodes = _edge_and_node_params(tree, forward, finding.line)
    call = _compiled_call(tree, finding)
    params = tree.params(forward)
    edge_arg, nodes_arg = argument_for(call, edge, params), argument_for(call, nodes, params)
    for arg in (edge_arg, nodes_arg):
        if not is_reference(arg.value):
            raise NoPatch(f"the compiled call passes `{tree.code(arg.value)}`, not a name: computing it twice "
                          "could change the program")
    statement = tree.enclosing_statement_line(call)
    if statement is None:
        raise NoPatch("the compiled call is not on a statement line of its own")
    looped = tree.fresh_name(f"{_last_name(tree.code(edge_arg.value))}_looped", call)
    add_loops = _import_name(tree)
    compute = cst.parse_statement(f"{looped}, _ = {add_loops}({tree.code(edge_arg.value)}, "
                                  f"num_nodes={tree.code(nodes_arg.value)}.size(0))\n")
    new_call = call.deep_replace(edge_arg, edge_arg.with_changes(value=cst.Name(looped)))
    replacements = {layer: with_keyword(layer, "add_self_loops", cst.Name("False")) for layer in layers}
    replacements[statement] = cst.FlattenSentinel([compute.with_changes(leading_lines=statement.leading_lines),
                                                   statement.deep_replace(call, new_call)
                                                   .with_changes(leading_lines=[])])
    module = replace_nodes(tree.module, replacements)
    return patch_for(tree, _with_import(tree, module, add_loops))


def _model_forward(tree: SourceTree, line: int) -> tuple[cst.ClassDef, cst.FunctionDef]:
    """The class and method holding the layer call on ``line``."""
    statement = next(iter(tree.nodes_on_line(cst.SimpleStatementLine, line)), None)
    function = tree.enclosing_function(statement) if statement is not None else None
    owner = tree.enclosing(function, cst.ClassDef) if function is not None else None
    if owner is None:
        raise NoPatch("the layer is not called from a method of a model class in this file")
    return owner, function


def _layer_constructions(tree: SourceTree, owner: cst.ClassDef, layer_class: str) -> list[cst.Call]:
    """Every ``layer_class(...)`` built in the model class; NoPatch where one's numbers would change without the
    loops it adds itself."""
    found = [c for c in tree.nodes(cst.Call) if (tree.qualified(c.func) or "").rsplit(".", 1)[-1] == layer_class
             and tree.enclosing(c, cst.ClassDef) is owner]
    if not found:
        raise NoPatch(f"the model class does not build its `{layer_class}` layers itself")
    for call in found:
        if any(a.star for a in call.args):
            raise NoPatch(f"a `{layer_class}(...)` passes options through * or **")
        keywords = {a.keyword.value: tree.code(a.value) for a in call.args if a.keyword is not None}
        if "add_self_loops" in keywords:
            raise NoPatch(f"a `{layer_class}(...)` already sets add_self_loops")
        if keywords.get("improved", "False") != "False" or keywords.get("normalize", "True") != "True":
            raise NoPatch(f"a `{layer_class}(...)` is built with improved=... or normalize=...: its self-loops weigh "
                          "other than the edges, so loops added beforehand would change its numbers")
        if len([a for a in call.args if a.keyword is None]) > 2:
            raise NoPatch(f"a `{layer_class}(...)` passes options by position")
    return found


def _edge_and_node_params(tree: SourceTree, forward: cst.FunctionDef, line: int) -> tuple[str, str]:
    """(the forward parameter carrying the edge index, the one carrying the node features): the layer call on
    ``line`` passes ``(features, edge_index)``; the features of a later layer are the earlier layer's output, so they
    are read from the first layer call that passes the same edge index."""
    params = tree.params(forward)
    calls = [c for c in tree.nodes_on_line(cst.Call, line) if _positional_names(c)[1:2]]
    edges = {_positional_names(c)[1] for c in calls} & set(params)
    if len(edges) != 1:
        raise NoPatch("the layer call on this line does not pass a parameter of the model's forward as its edge index")
    edge = edges.pop()
    if any(len([a for a in c.args if a.keyword is None]) > 2 for c in calls if _positional_names(c)[1] == edge):
        raise NoPatch("the layer is given edge weights: loops added beforehand would need their weights too")
    firsts = [_positional_names(c)[0] for c in sorted(
        (c for c in tree.nodes(cst.Call) if tree.enclosing_function(c) is forward and _positional_names(c)[1:2] == [edge]),
        key=tree.start_line)]
    if not firsts or firsts[0] not in params:
        raise NoPatch("the first layer's node features are not a parameter of the model's forward")
    return edge, firsts[0]


def _positional_names(call: cst.Call) -> list[str]:
    """The leading positional arguments that are plain names (``self.conv1(x, edge_index)`` -> ["x", "edge_index"])."""
    names = []
    for arg in call.args:
        if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
            break
        names.append(arg.value.value)
    return names


def _compiled_call(tree: SourceTree, finding: Finding) -> cst.Call:
    """The call into the compiled model: on the outermost user frame of this file that holds one."""
    stack = evidence_as(finding.evidence, BreakEvidence).user_stack
    for frame in stack:
        if frame.is_user and frame.path == finding.path and frame.line != finding.line:
            try:
                return compiled_call_on_line(tree, frame.line, None)
            except NoPatch:
                continue
    raise NoPatch("no call into the compiled model in this file")


def _import_name(tree: SourceTree) -> str:
    """How the file will spell ``add_remaining_self_loops``: its own import where it has one."""
    for local, full in tree.imported_names().items():
        if full == LOOPS_FUNCTION:
            return local
    return "add_remaining_self_loops"


def _with_import(tree: SourceTree, module: cst.Module, name: str) -> cst.Module:
    if tree.imported_names().get(name) == LOOPS_FUNCTION:
        return module
    line = cst.parse_statement(f"from {LOOPS_FUNCTION.rsplit('.', 1)[0]} import {name}\n")
    return insert_after_imports(module, [line])


def _last_name(expr: str) -> str:
    """``batch.edge_index`` -> ``edge_index``."""
    return expr.rsplit(".", 1)[-1]
