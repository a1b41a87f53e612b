"""Inductor's hooks install when the program imports Inductor's compile_fx (compiler/instrument.py), and the capture
modules loaded then are hidden from Dynamo like those loaded at the start (tracer/hidden_capture.py)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import torch
import tdiag.tracer.hidden_capture as hidden

visited = []
module_codes = hidden.module_codes
hidden.module_codes = lambda module: visited.append(module.__name__) or module_codes(module)

import tdiag
with tdiag.capture(reset=True):
    torch.compile(lambda x: x * 2, backend="eager")(torch.ones(2))
    before = {name for name in sys.modules if name.startswith("tdiag.compiler.")}
    import torch._inductor.compile_fx  # what Inductor's every compile imports first
    after = {name for name in sys.modules if name.startswith("tdiag.compiler.")}
print(json.dumps({"before": sorted(before), "after": sorted(after), "hidden": visited}))
"""


def test_inductor_side_waits_for_inductor_and_is_hidden_from_dynamo():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    inductor_side = {"tdiag.compiler.lowering_watch", "tdiag.compiler.provenance", "tdiag.compiler.aot_node_stacks"}
    assert not inductor_side & set(seen["before"])  # an eager compile loads none of them
    assert inductor_side <= set(seen["after"])
    assert inductor_side <= set(seen["hidden"])  # marked once they loaded
    assert len(seen["hidden"]) == len(set(seen["hidden"]))  # each module marked once per session
