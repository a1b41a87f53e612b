"""Provenance tracking (and the per-node Python stacks make_fx records for it) only where Inductor may lower."""

from __future__ import annotations

import functools

import torch
import torch._inductor.config as inductor_config
from tdiag.compiler.provenance import never_lowers
from torch._dynamo.backends.debugging import aot_eager
from torch._dynamo.backends.registry import lookup_backend
from torch._dynamo.repro.after_dynamo import WrapBackendDebug

import tdiag


def levels_seen_by(backend_factory):
    """Compile a small function under tdiag.capture() with a forward compiler that notes the provenance level."""
    seen: list[int] = []

    def fw_compiler(gm, example_inputs):
        seen.append(inductor_config.trace.provenance_tracking_level)
        return gm.forward

    before = inductor_config.trace.provenance_tracking_level
    with tdiag.capture(reset=True):
        torch.compile(lambda x: torch.relu(x) * 2, backend=backend_factory(fw_compiler))(torch.randn(4))
    assert inductor_config.trace.provenance_tracking_level == before  # restored after the capture
    return seen


def test_debugging_backend_compiles_without_provenance():
    assert levels_seen_by(lambda fw: functools.partial(aot_eager, fw_compiler=fw)) == [0]


def test_custom_backend_keeps_provenance():
    # A backend of the user's own may hand the graph to Inductor: provenance stays on for it.
    def custom(fw):
        return lambda gm, inputs: aot_eager(gm, inputs, fw_compiler=fw)

    assert levels_seen_by(custom) == [1]


def test_backends_named_as_torch_compile_wraps_them():
    def wrapped(name):
        inner = (torch._TorchCompileInductorWrapper(None, None, False) if name == "inductor"
                 else torch._TorchCompileWrapper(name, None, None, False))
        return WrapBackendDebug(inner, name)

    for name in ("eager", "aot_eager", "aot_eager_decomp_partition"):
        assert never_lowers(wrapped(name)) and never_lowers(lookup_backend(name)), name
    assert not never_lowers(wrapped("inductor"))
    assert not never_lowers(lambda gm, inputs: gm.forward)
