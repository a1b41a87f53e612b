"""Where a program builds its optimizer and calls its step: what the optimizer patches rewrite.

An optimizer is a ``torch.optim.<Class>(...)`` call assigned to one name (``opt = torch.optim.AdamW(...)``, at
module level or in a function); its steps are the expression statements ``opt.step()``; an LR scheduler is a
``torch.optim.lr_scheduler.<Class>(opt, ...)`` call given that optimizer. A LightningModule's
``configure_optimizers`` builds the one optimizer Lightning steps itself (``optimizer.step(closure)`` in its
automatic optimization): a site with no steps of the user's, ``stepped_by`` Lightning, which the keyword patches
(foreach, fused) rewrite and the compiled-step recipe cannot.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.context import NoPatch
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants, dotted, is_expression_statement_call

from tdiag.lean_dataclass import lean_dataclass

# torch.optim classes with a fused implementation (torch/optim/*.py: `fused` in their signature, CUDA kernels)
FUSED = frozenset({"Adam", "AdamW", "SGD", "Adagrad"})


@lean_dataclass
class OptimizerSite:
    name: str  # the variable the optimizer is assigned to
    cls: str  # Adam, AdamW, SGD, ...
    call: cst.Call  # torch.optim.<cls>(...)
    statement: cst.SimpleStatementLine  # the assignment
    steps: list[cst.SimpleStatementLine]  # every `name.step()` line
    scheduler: bool  # an LR scheduler is given this optimizer
    stepped_by: str | None = None  # a framework that calls step() itself (Lightning); None: the user's own lines


def the_optimizer(tree: SourceTree, framework_steps: bool = True) -> OptimizerSite:
    """The one optimizer ``tree`` builds and steps (or, with ``framework_steps``, a LightningModule's
    ``configure_optimizers`` builds for Lightning to step); NoPatch when there is none or more than one."""
    found = []
    for statement in tree.nodes(cst.SimpleStatementLine):
        if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign):
            continue
        assign = statement.body[0]
        call = assign.value
        single_name = len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
        if not single_name or not isinstance(call, cst.Call):
            continue
        qualified = tree.qualified(call.func) or ""
        if not qualified.startswith("torch.optim.") or ".lr_scheduler." in qualified:
            continue
        name = assign.targets[0].target.value
        found.append(OptimizerSite(name, qualified.rsplit(".", 1)[-1], call, statement, _steps(tree, name),
                                   _has_scheduler(tree, name)))
    found = [site for site in found if site.steps]
    if not found:
        lightning = _configured_for_lightning(tree)
        if lightning is not None and framework_steps:
            return lightning
        if lightning is not None:
            raise NoPatch("Lightning steps the optimizer configure_optimizers returns itself, with a closure: the "
                          "compiled-step recipe does not fit there (foreach=True or fused=True does)")
        raise NoPatch(f"no `opt = torch.optim.<Optimizer>(...)` stepped with `opt.step()` in {tree.path}")
    if len({site.name for site in found}) > 1:
        raise NoPatch(f"{len(found)} optimizers in {tree.path}: which one the step spends its time in is not known")
    return found[0]


def _steps(tree: SourceTree, name: str) -> list[cst.SimpleStatementLine]:
    out = []
    for statement in tree.nodes(cst.SimpleStatementLine):
        call = is_expression_statement_call(statement)
        if call is not None and not call.args and dotted(call.func) == f"{name}.step":
            out.append(statement)
    return out


def _has_scheduler(tree: SourceTree, name: str) -> bool:
    for call in tree.nodes(cst.Call):
        if ".lr_scheduler." in (tree.qualified(call.func) or "") and call.args:
            first = call.args[0].value
            if isinstance(first, cst.Name) and first.value == name:
                return True
    return False


def _configured_for_lightning(tree: SourceTree) -> OptimizerSite | None:
    """The one ``torch.optim.<Class>(...)`` built in a LightningModule's ``configure_optimizers``, or None."""
    from tdiag.analyzer.suggestions.helpers.lightning_hook import lightning_class

    for function in tree.nodes(cst.FunctionDef):
        if function.name.value != "configure_optimizers" or lightning_class(tree, function) is None:
            continue
        calls = [c for c in descendants(function, cst.Call) if (tree.qualified(c.func) or "").startswith("torch.optim.")]
        optimizers = [c for c in calls if ".lr_scheduler." not in tree.qualified(c.func)]
        if len(optimizers) != 1:
            return None
        call = optimizers[0]
        return OptimizerSite("", tree.qualified(call.func).rsplit(".", 1)[-1], call,
                             tree.enclosing_statement_line(call), [], len(calls) > 1, stepped_by="Lightning")
    return None
