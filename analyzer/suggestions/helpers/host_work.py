"""Is a function host work (printing, logging, formatting, I/O, clocks) rather than tensor compute worth compiling?

Read from the syntax only, so conservative: every call in the body must be one we can name as host work (a print,
a logger or ``warnings`` call, a write or flush, ``time``/``sys``/``os``/``json`` functions, string methods, the
Python builtins that convert or format), or a tensor value read to the host for printing (``y.item()``,
``y.mean().item()``, ``y.tolist()``, ``y.shape``). Any other call (a torch function, a tensor method whose result
stays a tensor, a module, another user function) may be compute, and the function is not host work.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

_BUILTINS = frozenset({
    "print", "len", "str", "repr", "format", "int", "float", "bool", "round", "min", "max", "abs", "tuple", "list",
    "dict", "set", "sorted", "isinstance", "range", "enumerate", "zip", "open", "any", "all", "id", "type", "hex",
})
_MODULES = frozenset({"logging", "warnings", "sys", "time", "os", "json", "datetime", "pathlib", "csv", "pprint",
                      "traceback", "socket", "subprocess", "shutil", "tqdm"})
_LOGGER_ROOTS = frozenset({"logger", "log", "LOGGER", "_logger", "_log", "logging", "warnings"})
_HOST_METHODS = frozenset({
    "write", "writelines", "flush", "close", "debug", "info", "warning", "warn", "error", "exception", "critical",
    "log", "format", "join", "strip", "lstrip", "rstrip", "ljust", "rjust", "center", "upper", "lower", "replace",
    "split", "encode", "decode", "append", "extend", "update", "get", "items", "keys", "values", "set_postfix",
    "set_description", "add_scalar", "add_text",
})
# a tensor read to Python: the value leaves the graph here, which is what printing it needs
_TO_HOST = frozenset({"item", "tolist", "numpy", "cpu", "size", "dim", "numel", "stride", "is_contiguous"})


def compute_call(tree: SourceTree, func: cst.FunctionDef) -> str | None:
    """The first call in ``func`` that may be tensor compute, as ``line N: `code` ``; None when it is host work."""
    for call in tree.nodes(cst.Call):
        if tree.enclosing_function(call) is func and not _host_call(tree, call):
            return f"line {tree.start_line(call)}: `{tree.code(call)}`"
    return None


def _host_call(tree: SourceTree, call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in _BUILTINS
    if not isinstance(func, cst.Attribute):
        return False
    name = dotted(func) or ""
    root = name.split(".")[0]
    if root in _MODULES or root in _LOGGER_ROOTS or func.attr.value in _HOST_METHODS or func.attr.value in _TO_HOST:
        return not (tree.qualified(func) or "").startswith("torch.")
    return _read_to_host(tree, call)


def _read_to_host(tree: SourceTree, call: cst.Call) -> bool:
    """``y.mean()`` in ``y.mean().item()``: a tensor method whose result goes straight to the host."""
    if (tree.qualified(call.func) or "").startswith("torch."):
        return False
    attribute = tree.parent(call)
    outer = tree.parent(attribute) if isinstance(attribute, cst.Attribute) else None
    return (isinstance(outer, cst.Call) and outer.func is attribute and attribute.attr.value in _TO_HOST
            and not outer.args)
