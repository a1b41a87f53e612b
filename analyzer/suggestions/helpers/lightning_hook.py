"""Patch kind: read the loss in Lightning's ``on_train_batch_end``. Host reads, a list of losses and prints that end a
LightningModule's ``training_step`` (``self.losses.append(loss.item())``, ``if batch_idx % 8 == 0: print(...)``)
move into the ``on_train_batch_end(self, outputs, batch, batch_idx)`` hook, reading ``outputs["loss"]``.

With ``torch.compile(model)`` and ``trainer.fit(model)``, Lightning compiles ``training_step``, not its hooks: after
each step it calls ``on_train_batch_end`` uncompiled, with the loss ``training_step`` returned as ``outputs["loss"]``
(detached). It is the ceiling program's hand fix (benchmarks/ceiling_programs/lightning_train_fixed.py): the step
becomes one graph with no host read in it and no list whose length Dynamo guards on (the list grew every step, so
every step recompiled until the recompile limit and the rest ran eagerly). The move is the plain read-after-call
(read_after_call.py) with the hook as the caller; it applies only where it holds by construction:

- the class subclasses Lightning's ``LightningModule`` and optimizes automatically (no ``automatic_optimization``
  assignment: with manual optimization ``outputs`` is not the returned loss), and the file does not set
  ``accumulate_grad_batches`` (Lightning divides ``outputs["loss"]`` by it);
- the lines end ``training_step`` before ``return NAME`` and are host-only (read_after_call.host_tail), Lightning's
  ``self.log`` and ``self.log_dict`` counting as logging (its hooks log as training_step does: on_step by default,
  the batch size taken from the same batch). On torch 2.13 with lightning 2.6, ``self.log`` inside the compiled
  step stops the program (Dynamo's internal error in ``inspect.getfullargspec``, CRS008), so the move is also the
  first candidate of that crash's fix;
- they read nothing but the returned loss, names they assign, ``self``, the step's batch and batch index (the
  hook's own arguments), builtins, the module's names and the step's own values, which then travel to the hook in
  the dict the step returns (``return {"loss": loss, "acc": acc}``: Lightning passes its other keys to the hook as
  they are, and optimizes the "loss" as before);
- in an existing hook, none of the names the moved lines bind is used already; they go first in its body, so they
  still run before what the hook did.

The printed text is the same and in the same order among the step's prints; `tdiag fix --verify` compares stdout.

The other hook is where a batch's sizes are marked dynamic (``mark_batch_dynamic``): Lightning makes the compiled
call, so no line of the user's holds the tensors; ``on_train_batch_start(self, batch, batch_idx)`` receives the very
batch ``training_step`` is then called with (after its move to the device), so ``torch._dynamo.mark_dynamic`` there
compiles the step once for every batch size (the smaller last batch of an epoch), as the hand fix does.
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.model import Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.read_after_call import host_tail, module_names, tail_lines, tail_names
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants

KIND = "lightning-hook"
HOOK = "on_train_batch_end"
HOOK_ARGS = ("outputs", "batch", "batch_idx")  # Lightning's names, for a hook the class does not define yet
START_HOOK, START_ARGS = "on_train_batch_start", ("batch", "batch_idx")
# "L['batch'][0].size()[0] -> dynamic": a size of a tensor inside the step's batch argument, as Dynamo decided it
_BATCH_SIZE = re.compile(r"^L\['(?P<root>\w+)'\](?P<path>(?:\[(?:\d+|'\w+')\])*)\.size\(\)\[(?P<dim>\d+)\] -> dynamic$")
LIGHTNING_ROOTS = ("lightning", "pytorch_lightning")
# Lightning's own logging, which its hooks take as training_step does (on_train_batch_end: on_step by default, as there)
LIGHTNING_LOGGING = ("self.log", "self.log_dict")
WHY = (
    "Lightning compiles `training_step` and calls `on_train_batch_end` after each step uncompiled, with the loss the "
    "step returned as `outputs[\"loss\"]`: the lines print the same text, and `training_step` is one graph with no "
    "host read inside (no device sync, nothing for Dynamo to guard on, such as the length of a list that grows "
    "every step)."
)


def build(tree: SourceTree, statement: cst.CSTNode | None) -> Suggestion:
    """The patch that moves the host-only lines ending ``training_step`` into ``on_train_batch_end``; NoPatch with the
    reason where the move could change what the program does."""
    function, tail, tensor = host_tail(tree, statement, LIGHTNING_LOGGING)
    if function.name.value != "training_step":
        raise NoPatch(f"`{function.name.value}` is not a LightningModule's training_step")
    owner = _lightning_class(tree, function)
    if any(isinstance(t.target, cst.Attribute) and t.target.attr.value == "automatic_optimization"
           for a in descendants(owner, cst.Assign) for t in a.targets):
        raise NoPatch("the module optimizes manually: Lightning's `outputs` is then not the returned loss")
    if "accumulate_grad_batches" in tree.text:
        raise NoPatch("the file sets accumulate_grad_batches: Lightning divides `outputs[\"loss\"]` by it")
    hook = _method(owner, HOOK)
    hook_args = _hook_args(hook, HOOK, HOOK_ARGS)
    step_args = [p.name.value for p in function.params.params[1:]]
    if len(step_args) > len(hook_args) - 1:
        raise NoPatch(f"training_step takes {len(step_args)} arguments besides self; the hook has the batch and its index")
    renames = dict(zip(step_args, hook_args[1:]))  # training_step's batch, batch_idx -> the hook's
    assigned, reads = tail_names(tail, tensor)
    # the step's own values the lines log (`self.log("train_acc", acc)`) travel in the returned dict, beside "loss":
    # Lightning passes its other keys to the hook as they are
    carried = sorted(reads - module_names(tree) - {"self"} - set(step_args))
    unbound = [name for name in carried if not tree.is_bound(name, tail[0])]
    if unbound:
        raise NoPatch(f"the lines read `{'`, `'.join(unbound)}`, which neither training_step nor {HOOK} has")
    if "loss" in carried:
        raise NoPatch("the lines read a `loss` that is not the returned one: it cannot travel beside it")
    binds = {tensor: f'{hook_args[0]}["loss"]'}
    binds.update({name: f'{hook_args[0]}["{name}"]' for name in carried})
    binds.update({step: hook for step, hook in renames.items() if step != hook and step in reads})
    # the names the moved lines bind in the hook must be free there: not its arguments, not used by its own lines
    used = set(hook_args).union(*(names_read(s) for s in (hook.body.body if hook is not None else ())))
    clash = sorted((assigned | set(binds)) & used)
    if clash:
        raise NoPatch(f"`{'`, `'.join(clash)}` is already used in {HOOK}")
    lines = [cst.parse_statement(f"{name} = {value}\n", config=tree.module.config_for_parsing)
             for name, value in binds.items()] + [s.with_changes(leading_lines=()) for s in tail]
    returned = None
    if carried:
        values = ", ".join([f'"loss": {tensor}', *(f'"{name}": {name}' for name in carried)])
        returned = cst.parse_statement(f"return {{{values}}}\n", config=tree.module.config_for_parsing)
    new_module = tree.module.visit(_IntoHook(function, set(tail), owner, (HOOK, HOOK_ARGS, hook), lines, tree.module,
                                             returned))
    also = f", returning `{'`, `'.join(carried)}` beside the loss" if carried else ""
    return Suggestion(
        title=f"Read `{tensor}` in {HOOK}: move {tail_lines(tree, tail)} of `training_step` into Lightning's hook, "
        f"which runs uncompiled after each step{also}",
        why=WHY,
        patch=patch_for(tree, new_module),
    )


def lightning_class(tree: SourceTree, function: cst.FunctionDef) -> cst.ClassDef | None:
    """The class ``function`` is a method of, when it subclasses Lightning's ``LightningModule`` in this file."""
    owner = tree.parent(tree.parent(function))
    if not isinstance(owner, cst.ClassDef):
        return None
    for base in owner.bases:
        name = tree.qualified(base.value) or ""
        if name.split(".")[0] in LIGHTNING_ROOTS and name.endswith("LightningModule"):
            return owner
    return None


def _lightning_class(tree: SourceTree, function: cst.FunctionDef) -> cst.ClassDef:
    owner = lightning_class(tree, function)
    if owner is None:
        parent = tree.parent(tree.parent(function))
        raise NoPatch(f"`{parent.name.value}` does not subclass Lightning's LightningModule in this file"
                      if isinstance(parent, cst.ClassDef) else f"{function.name.value} is not a method")
    return owner


def mark_batch_dynamic(tree: SourceTree, step_line: int, decisions: list[str]) -> Suggestion:
    """The patch that marks, first thing in ``on_train_batch_start``, each size of the batch Dynamo made dynamic
    after recompiling the LightningModule's ``training_step`` defined at ``step_line`` (``decisions``: torch's
    ``L['batch'][0].size()[0] -> dynamic``); NoPatch with the reason where the hook cannot see those tensors."""
    function = tree.function_def("training_step", step_line)
    if function is None:
        raise NoPatch("the recompiled frame is not a LightningModule's training_step")
    owner = _lightning_class(tree, function)
    step_args = [p.name.value for p in function.params.params[1:]]
    if not step_args:
        raise NoPatch("training_step takes no batch")
    sizes = [m for m in (_BATCH_SIZE.match(d) for d in decisions) if m and m["root"] == step_args[0]]
    if not sizes:
        raise NoPatch(f"Dynamo made no size of `{step_args[0]}` dynamic: on_train_batch_start sees only the batch")
    hook = _method(owner, START_HOOK)
    batch = _hook_args(hook, START_HOOK, START_ARGS)[0]
    if hook is not None and any(isinstance(t.target, cst.Name) and t.target.value == batch
                                for a in descendants(hook, cst.Assign) for t in a.targets):
        raise NoPatch(f"on_train_batch_start assigns `{batch}`: the marks would not reach the batch Lightning passes on")
    torch = torch_alias(tree)
    marks = [f"{batch}{m['path']}" for m in sizes]
    calls = [f"{torch}._dynamo.mark_dynamic({tensor}, {m['dim']})" for tensor, m in zip(marks, sizes)]
    lines = [cst.parse_statement(f"{call}\n", config=tree.module.config_for_parsing) for call in calls]
    new_module = tree.module.visit(_IntoHook(function, set(), owner, (START_HOOK, START_ARGS, hook), lines, tree.module))
    shown = ", ".join(f"`{t}` dim {m['dim']}" for t, m in zip(marks, sizes))
    return Suggestion(
        title=f"Mark the batch's sizes dynamic in {START_HOOK}: {shown}",
        why=("Lightning makes the compiled call, so no line of yours holds the batch; it passes on_train_batch_start "
             "the very batch training_step gets next. Marked dynamic there, the step compiles once with a symbolic "
             "size that serves every batch, the last smaller one too, instead of compiling again for it."),
        patch=patch_for(tree, with_torch_import(tree, new_module)),
        fix=(f"{'; '.join(calls)} in {START_HOOK}, which Lightning passes the batch training_step gets; or compile "
             "with dynamic=True"),
    )


def _method(owner: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    return next((s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _hook_args(hook: cst.FunctionDef | None, name: str, default: tuple[str, ...]) -> list[str]:
    """The hook's argument names after ``self`` (Lightning's ``default`` for a new hook)."""
    if hook is None:
        return list(default)
    params = hook.params
    if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg is not None:
        raise NoPatch(f"{name} takes *args or **kwargs")
    names = [p.name.value for p in params.params[1:]]
    if len(names) < 1:
        raise NoPatch(f"{name} takes no {default[0]} argument")
    return names


def compiled_lightning_module(tree: SourceTree, compile_call: cst.CSTNode) -> cst.ClassDef | None:
    """The LightningModule class of this file that ``compile_call`` (``torch.compile(Classifier(...))``, or of a
    name assigned once from such a call) compiles: Lightning then compiles its ``training_step`` and runs the loop."""
    if not isinstance(compile_call, cst.Call) or not compile_call.args:
        return None
    target = compile_call.args[0].value
    if isinstance(target, cst.Name):
        values = [a.value for a in tree.nodes(cst.Assign)
                  if any(isinstance(t.target, cst.Name) and t.target.value == target.value for t in a.targets)]
        target = values[0] if len(values) == 1 else None
    if not isinstance(target, cst.Call) or not isinstance(target.func, cst.Name):
        return None
    classes = [c for c in tree.nodes(cst.ClassDef) if c.name.value == target.func.value]
    step = _method(classes[0], "training_step") if len(classes) == 1 else None
    return lightning_class(tree, step) if step is not None else None


def mark_step_begin_in_start_hook(tree: SourceTree, owner: cst.ClassDef, replacements: dict) -> cst.Module:
    """The module with ``replacements`` (node -> node, by identity) made and, first in ``on_train_batch_start``
    (added when absent), ``torch.compiler.cudagraph_mark_step_begin()``: Lightning makes the compiled calls, so the
    hook that runs before each batch is where a training step begins for CUDA Graph Trees."""
    torch = torch_alias(tree)
    hook = _method(owner, START_HOOK)
    _hook_args(hook, START_HOOK, START_ARGS)  # refuses a hook of *args
    if hook is not None and any(tree.qualified(c.func) == "torch.compiler.cudagraph_mark_step_begin"
                                for c in descendants(hook, cst.Call)):
        return replace_nodes(tree.module, replacements)
    line = cst.parse_statement(f"{torch}.compiler.cudagraph_mark_step_begin()\n",
                               config=tree.module.config_for_parsing)
    step = _method(owner, "training_step")
    return tree.module.visit(_IntoHook(step, set(), owner, (START_HOOK, START_ARGS, hook), [line], tree.module,
                                       replacements=replacements))


class _IntoHook(cst.CSTTransformer):
    """Drops the moved lines from ``training_step`` and puts ``lines`` first in the hook (``(name, Lightning's
    arguments, its FunctionDef or None)``), which is added after the step when the class has none; any
    ``replacements`` (node -> node, by identity) are made in the same pass."""

    def __init__(self, step, moved, owner, hook, lines, module: cst.Module, returned=None, replacements=None):
        super().__init__()
        self.step, self.moved, self.owner, self.lines, self.module = step, moved, owner, lines, module
        self.name, self.args, self.hook = hook
        self.returned = returned  # the step's new last statement (a dict carrying values to the hook), or None
        self.replacements = {id(old): new for old, new in (replacements or {}).items()}

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.replacements:
            return self.replacements[id(original_node)]
        return super().on_leave(original_node, updated_node)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if original is self.step and self.moved:
            body = [new for old, new in zip(original.body.body, updated.body.body) if old not in self.moved]
            if self.returned is not None:
                body[-1] = self.returned.with_changes(leading_lines=body[-1].leading_lines)
            return updated.with_changes(body=updated.body.with_changes(body=body))
        if original is self.hook:
            body = list(updated.body.body)
            at = 1 if body and _is_docstring(body[0]) else 0
            return updated.with_changes(body=updated.body.with_changes(body=[*body[:at], *self.lines, *body[at:]]))
        return updated

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if original is not self.owner or self.hook is not None:
            return updated
        hook = cst.parse_statement(f"def {self.name}(self, {', '.join(self.args)}):\n    pass\n",
                                   config=self.module.config_for_parsing)
        hook = hook.with_changes(body=hook.body.with_changes(body=self.lines),
                                 leading_lines=(cst.EmptyLine(indent=False),))
        body = list(updated.body.body)
        at = next(i for i, s in enumerate(original.body.body) if s is self.step) + 1
        return updated.with_changes(body=updated.body.with_changes(body=[*body[:at], hook, *body[at:]]))


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
