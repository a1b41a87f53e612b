"""GPU check of CGR002's loader candidate (issue 41): a training loop under ``mode="reduce-overhead"`` whose
DataLoader ends every epoch with a smaller batch.

The dataset (1000 rows) is not a multiple of the batch (64): the last batch of 40 rows is a new size, so the step is
recompiled (automatic dynamic) and recorded as a CUDA graph again. The script runs the program under plain python
(torch's own counters: the oracle), under ``tdiag run`` (CGR002 at the compiled call, the sizes [64, ...] and
[40, ...] named, ``drop_last=True`` offered on the loader), then ``tdiag fix RECORD --verify --repeat 2`` and reports
what verification decided: ``drop_last=True`` kept (the step time without the re-recording) or refused with its
reason. The program prints its loss to one decimal, so dropping 40 of 1000 rows stays within the output's tolerance
where it does not move the loss.

    python benchmarks/gpu_loader_remainder.py      # about 2 minutes on an H200

Prints CHECK and FIGURE lines; exits 1 if a check failed; prints SKIP and exits 0 without CUDA.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpu_common import FAILURES, check, no_cuda_reason  # noqa: E402  (benchmarks/ is sys.path[0])

PROGRAM = '''
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch._dynamo.utils import counters

torch.manual_seed(0)
data = TensorDataset(torch.randn(1000, 256), torch.randn(1000, 1))
loader = DataLoader(data, batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 1)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)


@torch.compile(mode="reduce-overhead")
def step(x, y):
    return torch.nn.functional.mse_loss(model(x), y)


for epoch in range(8):
    total = 0.0
    for x, y in loader:
        loss = step(x.cuda(), y.cuda())  # SITE: the compiled call the last batch records again
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        total += loss.item()
print(f"loss {total / len(loader):.1f}")
print(f"TORCH_RECOMPILES {sum(counters['recompiles'].values())}", file=__import__('sys').stderr)
'''


def main() -> int:
    reason = no_cuda_reason()
    if reason:
        print(reason)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="tdiag-loader-"))
    (tmp / "train.py").write_text(PROGRAM)
    for cmd in (["git", "init", "-q"], ["git", "add", "."],
                ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE"))}
    site = next(i for i, text in enumerate(PROGRAM.splitlines(), 1) if "# SITE" in text)
    plain = subprocess.run([sys.executable, "train.py"], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    check(plain.returncode == 0, f"plain run exits 0 ({plain.stderr[-300:]})")
    traced = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "record", "train.py"],
                            cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    check(traced.stdout == plain.stdout, "tdiag run leaves stdout as plain python prints it")
    from tdiag.analyzer import build

    analysis = build(tmp / "record")
    cgr002 = [f for f in analysis.findings if f.code == "CGR002"]
    check(any(f.line == site for f in cgr002), f"CGR002 at train.py:{site} ({[(f.line, f.message) for f in cgr002]})")
    for g in analysis.graphs:  # what the drop_last judgement reads: each recording's mode and input sizes
        if g.cudagraph is not None and any(g.compile_id in f.compile_ids for f in cgr002):
            for r in g.cudagraph.recordings:
                print(f"RECORDING {g.compile_id} {r.mode} {r.inputs} symint_key={r.symint_key}")
    offered = [f.suggestion for f in cgr002 if f.suggestion and f.suggestion.patch]
    check(any("drop_last=True" in s.patch for s in offered), "drop_last=True offered on the loader "
          f"({[s.title for s in offered] or [f.suggestion.patch_note for f in cgr002 if f.suggestion]})")
    fixed = subprocess.run([sys.executable, "-m", "tdiag", "fix", "record", "--verify", "--repeat", "2", "--format",
                            "json"], cwd=tmp, env=env, capture_output=True, text=True, timeout=540)
    data = json.loads(fixed.stdout) if fixed.stdout.strip() else {}
    for row in data.get("verification", []):
        before, after = row.get("before", {}), row.get("after", {})
        print(f"FIGURE round {row.get('round')} {row.get('label')}: pays={row.get('pays')} "
              f"problems={row.get('problems')} step {before.get('step_times_s')} -> {after.get('step_times_s')} "
              f"recompiles {before.get('recompiles')} -> {after.get('recompiles')}")
    kept = [p for r in data.get("round_outcomes", []) for p in r.get("kept", [])]
    check(bool(data), f"fix --verify answered ({fixed.stderr[-300:]})")
    print(f"FIGURE kept: {kept}")
    print("ALL CHECKS PASSED" if not FAILURES else "CHECKS FAILED: " + "; ".join(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
