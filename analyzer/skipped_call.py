"""The facts of a call Dynamo skipped, read from what torch reports with the break.

torch's ``SkipFunctionVariable.call_function`` (torch/_dynamo/variables/functions.py) ends the graph with gb_type
"Attempted to call function marked as skipped" and a developer debug context
``module: torch.utils.checkpoint, qualname: checkpoint_sequential, skip reason: file matches MOD_SKIPLIST (...)``;
the skip reason is ``trace_rules.check_file``'s or ``lookup_inner``'s. Its explanation names the file when torch
knows it (``the function `checkpoint_sequential` in file `.../torch/utils/checkpoint.py` ``). From those: the callee's
qualified name, its file and why torch skips it, which is what a fix is chosen from (a torch-native equivalent, moving
the call out, ``torch.compiler.disable``, or nothing when it is torch's own deliberate skip).
"""

from __future__ import annotations

import re

from tdiag.lean_dataclass import lean_dataclass

SKIPPED_GB_TYPES = ("attempted to call function marked as skipped", "attempted to inline function marked as skipped")
# call: `module: M, qualname: Q, skip reason: R`; inline: `qualname: Q, name: N, filename: `F`, skip reason: R`
_CONTEXT = re.compile(
    r"(?:module:\s*(?P<module>[^,]*),\s*)?qualname:\s*(?P<qualname>[^,]*),\s*"
    r"(?:name:\s*[^,]*,\s*filename:\s*`(?P<filename>[^`]*)`,\s*)?skip reason:\s*(?P<reason>.*)", re.S)
# torch's own wrapper for the functions it runs eagerly on purpose (torch._disable_dynamo: Optimizer.zero_grad, ...)
_TORCH_DISABLE_WRAPPER = "torch/_compile.py"
_FILE = re.compile(r"function `[^`]*` in file `(?P<file>[^`]+)`")
_SITE_PACKAGES = re.compile(r"^.*?(?:site-packages|dist-packages)/")

# Why torch skips it, in a user's words, keyed by what torch's skip reason says
KINDS = (
    ("cannot determine source file", "c-function", "a C function or Python builtin: Dynamo cannot read its bytecode"),
    ("mod_skiplist", "skipfiles", "its file is on torch's skip list (trace_rules MOD_SKIPLIST)"),
    ("skip directory", "skipfiles", "its file is under a directory Dynamo skips (trace_rules SKIP_DIRS)"),
    ("force-skipped", "skipfiles", "its file is force-skipped by torch"),
    ("unittest", "skipfiles", "it is in the unittest package"),
)


@lean_dataclass
class SkippedCall:
    """A function Dynamo would not trace, as torch named it."""

    qualname: str  # "checkpoint_sequential", "Random.random"
    module: str | None = None  # "torch.utils.checkpoint"; None where torch could not tell ("<unknown module>")
    file: str | None = None  # "torch/utils/checkpoint.py" (site-packages relative), None for a C function
    reason: str = ""  # torch's skip reason, as it wrote it
    kind: str = "marked-skipped"  # c-function, skipfiles, import-system, marked-skipped
    why: str = ""  # the kind in a user's words

    @property
    def name(self) -> str:
        """The dotted name a user would write: ``random.random`` for the bound ``Random.random`` of the module."""
        if self.module:
            return f"{self.module}.{self.qualname}"
        if self.qualname.startswith("Random."):  # random.random() is the module's hidden Random instance's method
            return "random." + self.qualname.split(".", 1)[1]
        return self.qualname

    @property
    def owner(self) -> str:
        """The top-level package it belongs to (torch, numpy, random), or "builtin" when torch could not tell."""
        if self.name.startswith("random."):
            return "random"
        return (self.module or "").split(".")[0] or "builtin"


def skipped_call(reason: str, explanation: str, context: str) -> SkippedCall | None:
    """The skipped call of a break, or None when the break is not torch's skipped-function break."""
    m = _CONTEXT.search(context or "")
    if m is None or not any(t in (reason or "").lower() for t in SKIPPED_GB_TYPES):
        return None
    module = (m.group("module") or "").strip()
    module = None if not module or module.startswith("<") else module
    skip_reason = " ".join(m.group("reason").split())
    file_match = _FILE.search(explanation or "")
    file = _SITE_PACKAGES.sub("", file_match.group("file")) if file_match else None
    if m.group("filename") and _SITE_PACKAGES.sub("", m.group("filename")) == _TORCH_DISABLE_WRAPPER:
        qualname = m.group("qualname").strip()
        return SkippedCall(qualname=qualname, module=_torch_module(qualname), file=None, reason=skip_reason,
                           kind="torch-disabled", why="torch runs it eagerly on purpose (torch._disable_dynamo)")
    kind, why = "marked-skipped", "Dynamo marks it as not to be traced (trace_rules)"
    for marker, k, w in KINDS:
        if marker in skip_reason.lower():
            kind, why = k, w
            break
    if (module or "").split(".")[0] in ("importlib", "pkgutil") or m.group("qualname").strip() in (
            "__import__", "import_module"):
        kind, why = "import-system", "an import-system call: importing at run time inside compiled code"
    return SkippedCall(qualname=m.group("qualname").strip(), module=module, file=file, reason=skip_reason, kind=kind,
                       why=why)


def _torch_module(qualname: str) -> str | None:
    """The module of a torch class method torch disables (``Optimizer.zero_grad`` -> ``torch.optim``)."""
    return "torch.optim" if qualname.startswith("Optimizer.") else None
