"""Provenance tracking (and the per-node Python stacks make_fx records for it) only where Inductor may lower."""

from __future__ import annotations

import functools
import json
import subprocess
import sys

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


CUSTOM_BACKENDS = """
import json, sys
import torch, torch._inductor.config as inductor_config
from torch._dynamo.backends.debugging import aot_eager
import tdiag

seen = {}
def custom(name, hands_to_inductor):
    def backend(gm, inputs):
        if hands_to_inductor:
            import torch._inductor.compile_fx  # what handing a graph to Inductor runs first
        def fw(gm, example_inputs):
            seen[name] = inductor_config.trace.provenance_tracking_level
            return gm.forward
        return aot_eager(gm, inputs, fw_compiler=fw)
    return backend

assert "torch._inductor.compile_fx" not in sys.modules
with tdiag.capture(reset=True):
    torch.compile(lambda x: torch.relu(x) * 2, backend=custom("own", False))(torch.randn(4))
    torch.compile(lambda x: torch.sin(x) * 2, backend=custom("inductor", True))(torch.randn(4))
print(json.dumps(seen))
"""


def test_custom_backend_has_provenance_once_it_hands_graphs_to_inductor():
    # Provenance maps Inductor's kernels to lines: a backend of the user's own that never imports Inductor has none to
    # map (and is spared make_fx's per-node stacks); one that hands its graph to Inductor compiles with it on.
    done = subprocess.run([sys.executable, "-c", CUSTOM_BACKENDS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"own": 0, "inductor": 1}


def test_backends_named_as_torch_compile_wraps_them():
    def wrapped(name):
        inner = (torch._TorchCompileInductorWrapper(None, None, False) if name == "inductor"
                 else torch._TorchCompileWrapper(name, None, None, False))
        return WrapBackendDebug(inner, name)

    for name in ("eager", "aot_eager", "aot_eager_decomp_partition"):
        assert never_lowers(wrapped(name)) and never_lowers(lookup_backend(name)), name
    assert not never_lowers(wrapped("inductor"))
    assert not never_lowers(lambda gm, inputs: gm.forward)
