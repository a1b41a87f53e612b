"""GPU check of measured cost (issue 11): a small transformer training step with SDPA on CUDA under `tdiag run`,
with a graph break and a shape recompile that lands inside the measured window.

    python benchmarks/gpu_cost_window.py      # from the repository root, tdiag importable; ~1-2 minutes on an H200

CHECK lines: the window was measured on CUDA; kernel device times from the window reconcile with the profiler's
total kernel time (the graphs' share is within it); the recompile / break findings outrank any finding on the
attention kernels. Exits 1 if a check failed; skips (exit 0) where CUDA is not available.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpu_common import FAILURES, check  # noqa: E402  (benchmarks/ is sys.path[0])

PROGRAM = '''
import torch
import torch.nn.functional as F

class Block(torch.nn.Module):
    def __init__(self, dim=512, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)
        self.n1 = torch.nn.LayerNorm(dim)
        self.n2 = torch.nn.LayerNorm(dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        if x.float().abs().mean() > 100:  # data-dependent branch: a graph break
            x = x * 0.5
        return x + self.fc2(F.gelu(self.fc1(self.n2(x))))

torch.manual_seed(0)
model = torch.nn.Sequential(Block(), Block()).cuda().to(torch.bfloat16)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(60):
    t = 256 if step < 12 else 192  # a new sequence length at step 12: a shape recompile inside the window
    x = torch.randn(16, t, 512, device="cuda", dtype=torch.bfloat16)
    loss = compiled(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
'''



def record(run_dir: Path) -> bool:
    """Run the program under `tdiag run` on the GPU; the record lands in ``run_dir``."""
    tmp = Path(tempfile.mkdtemp(prefix="tdiag-gpu-cost-"))
    (tmp / "train_sdpa.py").write_text(PROGRAM)
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "cache")}
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "--profile-window", "20:3:30", "-o", str(run_dir), "train_sdpa.py"]
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    check(proc.returncode == 0, f"tdiag run exit status {proc.returncode}")
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
    return proc.returncode == 0


def main() -> int:
    """``--record-only DIR``: capture only (a GPU host without the analysis dependencies); ``--analyse DIR``: check a
    record captured that way, anywhere. Without options: both, here."""
    if "--analyse" in sys.argv:
        run_dir = Path(sys.argv[sys.argv.index("--analyse") + 1])
    else:
        import torch

        if not torch.cuda.is_available():
            print("SKIP: CUDA is not available")
            return 0
        run_dir = Path(sys.argv[sys.argv.index("--record-only") + 1]) if "--record-only" in sys.argv else Path(tempfile.mkdtemp()) / "run"
        if not record(run_dir) or "--record-only" in sys.argv:
            return 1 if FAILURES else 0
    from tdiag.analyzer import build
    from tdiag.reports.cost_format import cost_label, runtime_line
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    (runtime_event,) = [e for e in events if e.get("type") == "runtime"]
    a = build(run_dir)
    r = a.summary.runtime
    print(runtime_line(r))
    check(r.status == "measured" and r.device == "cuda", f"window measured on CUDA ({r.status}, {r.device}, {r.reason})")
    if r.status != "measured":
        return 1
    total_kernel_s = sum(v[1] for v in runtime_event["kernels"].values()) * 1e-6
    graph_device_s = sum(g.runtime.device_s or 0 for g in a.graphs if g.runtime) + runtime_event["backward"]["device_us"] * 1e-6
    table_s = sum(k.device_s or 0 for g in a.graphs for k in g.kernels)
    print(f"profiler kernel total {total_kernel_s * 1e3:.2f} ms; compiled graphs (fwd+bwd) {graph_device_s * 1e3:.2f} ms; "
          f"kernel table joined by name {table_s * 1e3:.2f} ms; kernels whose launching op was not found "
          f"{runtime_event.get('unlinked_device_us', 0) * 1e-3:.2f} ms")
    check(0 < graph_device_s <= total_kernel_s * 1.01, "graphs' device time lies within the profiler's kernel total")
    check(graph_device_s >= 0.5 * total_kernel_s, "compiled graphs account for most kernel time (optimizer/loss are eager)")
    names = set(runtime_event["kernels"])
    joined = [k.name for g in a.graphs for k in g.kernels if k.device_s]
    check(bool(joined) and all(n in names for n in joined), f"{len(joined)} kernel-table entries joined by name")
    for i, f in enumerate(a.findings[:10]):
        print(f"  {i + 1:2}. {f.code} {f.path}:{f.line} {cost_label(f.cost)} [{f.cost.basis if f.cost else '-'}] {f.message[:70]}")
    first_problem = next((i for i, f in enumerate(a.findings) if f.family in ("RCP", "BRK", "DYN")), None)
    attention = [i for i, f in enumerate(a.findings) if f.family == "LOW" and "attention" in (f.message + repr(f.evidence)).lower()]
    check(first_problem is not None, "a recompile or break finding exists")
    check(first_problem is not None and all(first_problem < i for i in attention), "the recompile/break outranks the attention kernels")
    recompile = next((f for f in a.findings if f.family == "RCP"), None)
    check(recompile is not None and recompile.cost is not None and recompile.cost.basis in ("measured", "compile"),
          "the shape recompile carries a cost (compile inside the window, or compile seconds)")
    print("FAILED: " + "; ".join(FAILURES) if FAILURES else "all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
