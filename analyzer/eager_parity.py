"""Compiled results against eager: what ``tdiag run --vs-eager`` printed compiled and with torch.compile disabled,
and the causes tdiag can see when they differ.

The compiled run's stdout is the ``program_stdout`` event (tracer/stdout_copy.py); each eager run's is in the
``eager_baseline`` event (tdiag/commands/_vs_eager.py). They are compared within the program's own run-to-run
spread (analyzer/output_noise.py). torch reports nothing when compiled code computes something else, so the causes
come from what the capture saw:

- a forward hook registered on a module after torch compiled code (``module_hook`` events, tracer/hook_watch.py):
  Dynamo does not guard on hooks (``torch._dynamo.config.skip_nnmodule_hook_guards``), the compiled model ignores it;
- ``try: ... except KeyError`` (or IndexError, LookupError, AttributeError) inside a compiled function: Dynamo
  settles which branch runs when it traces and guards on no key's absence, so the graph of the ``except`` branch is
  reused for inputs that have the key;
- random ops (dropout, ``rand``, ``bernoulli``) in a graph Inductor compiled: Inductor draws its own random numbers,
  not eager's, so a seeded program computes other values (``torch._inductor.config.fallback_random = True`` uses
  eager's).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tdiag.analyzer.eager_compare import _compiled_exit, events
from tdiag.analyzer.output_noise import EagerParity, eager_parity
from tdiag.lean_dataclass import lean_dataclass

SETTLED_EXCEPTIONS = {"KeyError", "IndexError", "LookupError", "AttributeError"}
# ops of Dynamo's FX graph that draw random numbers (F.dropout, torch.rand*, bernoulli, multinomial, normal_)
RANDOM_OPS = re.compile(r"\b(dropout|rand|randn|rand_like|randn_like|randint|bernoulli|multinomial|normal_|uniform_)\b")


@lean_dataclass
class SettledExcept:
    """A ``try`` in a compiled function whose handler catches a lookup error: its line, what it catches."""

    path: str
    line: int
    function: str
    catches: str
    statement: str


def parity(log: Any) -> EagerParity | None:
    """None where the run was not compared with eager (no ``--vs-eager``)."""
    found = events(log)
    if not found:
        return None
    compiled = [ev for ev in getattr(log, "other", []) if ev.get("type") == "program_stdout"]
    runs = [r for r in found[-1].get("runs") or [] if isinstance(r, dict) and isinstance(r.get("stdout"), str)]
    if not compiled or not isinstance(compiled[-1].get("text"), str):
        return EagerParity("not measured", "the compiled run's output was not kept")
    if not runs:
        return EagerParity("not measured", found[-1].get("reason") or "no eager run kept its output")
    return eager_parity([compiled[-1]["text"]], [r["stdout"] for r in runs], _compiled_exit(log),
                        runs[0].get("exit_code"))


def late_hooks(log: Any) -> list[dict[str, Any]]:
    """The module hooks registered after torch compiled code, as recorded (tracer/hook_watch.py)."""
    return [ev for ev in getattr(log, "other", []) if ev.get("type") == "module_hook" and ev.get("path")]


def settled_excepts(sources: dict[str, str], functions: set[tuple[str, str]]) -> list[SettledExcept]:
    """``try``/``except KeyError`` and the like inside the compiled functions ``functions`` ((path, name) pairs) of
    the record's source snapshots."""
    out = []
    for path in sorted({p for p, _ in functions}):
        text = sources.get(path)
        if not text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or (path, node.name) not in functions:
                continue
            for inner in ast.walk(node):
                if not isinstance(inner, ast.Try):
                    continue
                for handler in inner.handlers:
                    caught = _names(handler.type) & SETTLED_EXCEPTIONS
                    if caught:
                        first = inner.body[0]
                        out.append(SettledExcept(path, first.lineno, node.name, ", ".join(sorted(caught)),
                                                 lines[first.lineno - 1].strip()))
    return out


def _names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    if isinstance(node, ast.Tuple):
        return set().union(*(_names(e) for e in node.elts))
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return set()


def random_inductor_graphs(analysis: Any) -> list[Any]:
    """The graphs Inductor compiled (they have its output code) whose Dynamo graph draws random numbers."""
    out = []
    for g in analysis.graphs:
        if g.status != "ok" or not g.output_code_refs or not g.graph_code_ref:
            continue
        code = analysis.code.get(g.graph_code_ref)
        if isinstance(code, str) and RANDOM_OPS.search(code):
            out.append(g)
    return out


# nn.TransformerEncoder given a padding mask: in eval mode eager takes its nested-tensor fast path, whose outputs at
# padded positions are zeros; torch.compile turns that path off (torch/nn/modules/transformer.py checks
# torch.compiler.is_compiling), so the compiled outputs there are computed values
TRANSFORMER_ENCODER = re.compile(r"\bTransformerEncoder\(")
PADDING_MASK = re.compile(r"\bsrc_key_padding_mask\s*=")
NESTED_OFF = re.compile(r"enable_nested_tensor\s*=\s*False")


def nested_tensor_fast_path(analysis: Any) -> str | None:
    """The user's file that builds an nn.TransformerEncoder and passes it a padding mask with the nested-tensor path
    left on (eager's fast path then zeroes padded positions, the compiled model does not); None where none does."""
    for path, text in sorted((analysis.sources or {}).items()):
        if isinstance(text, str) and TRANSFORMER_ENCODER.search(text) and PADDING_MASK.search(text) \
                and not NESTED_OFF.search(text):
            return path
    return None


# a graph computing in bfloat16 or float16: its readable code annotates tensors as bf16[...] / f16[...], or casts to them
LOW_PRECISION = re.compile(r"\b(?:bf16|f16)\[|torch\.(?:bfloat16|float16|half)\b")


def low_precision_inductor_graphs(analysis: Any) -> list[Any]:
    """The graphs Inductor compiled that compute in bfloat16/float16: Inductor keeps a fused kernel's intermediates
    in float32 where eager rounds every op's output to the low precision, so the printed results move."""
    out = []
    for g in analysis.graphs:
        if g.status != "ok" or not g.output_code_refs or not g.graph_code_ref:
            continue
        code = analysis.code.get(g.graph_code_ref)
        if isinstance(code, str) and LOW_PRECISION.search(code):
            out.append(g)
    return out
