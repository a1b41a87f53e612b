"""GPU check of tdiag on DDP with NCCL (issue 14): two ranks on two GPUs under ``tdiag run --nproc-per-node 2``.

    NCCL_NVLS_ENABLE=0 python benchmarks/gpu_ddp.py      # about 1-2 minutes on two H200s

Run 1 trains a user-defined model as ``torch.compile(DDP(Net(), bucket_cap_mb=...))`` with Inductor: one run
directory, one record per rank, DDPOptimizer's bucket splits reported as expected splits (as many buckets per rank
as torch emitted subgraphs), and no hang (each run has a time limit). Run 2 compiles ``DDP(nn.Sequential)``:
nothing is compiled, and that is the first finding. Prints CHECK lines; exits 1 if a check failed. Skips (exit 0)
with a line saying so when fewer than 2 GPUs are visible. NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpu_common import FAILURES, check  # noqa: E402  (benchmarks/ is sys.path[0])

TIME_LIMIT_S = 240  # a run that has not finished by then is hung

COMMON = '''
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank = dist.get_rank()
device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(device)
torch.manual_seed(0)
'''

BUCKETS = COMMON + '''

class Net(torch.nn.Module):
    def __init__(self, dim=1024, depth=8):
        super().__init__()
        self.blocks = torch.nn.ModuleList(torch.nn.Linear(dim, dim) for _ in range(depth))  # 4.0 MiB each

    def forward(self, x):
        for block in self.blocks:
            x = torch.nn.functional.gelu(block(x))
        return x


model = torch.compile(DDP(Net().to(device), bucket_cap_mb=8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    optimizer.zero_grad()
    model(torch.randn(64, 1024, device=device)).pow(2).mean().backward()
    optimizer.step()
torch.cuda.synchronize()
print(f"rank {rank} done")
dist.destroy_process_group()
'''

CONTAINER = COMMON + '''
net = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 1024)).to(device)
model = torch.compile(DDP(net))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    optimizer.zero_grad()
    model(torch.randn(64, 1024, device=device)).pow(2).mean().backward()  # CALL LINE
    optimizer.step()
torch.cuda.synchronize()
print(f"rank {rank} done")
dist.destroy_process_group()
'''


def run_two_ranks(name: str, source: str, tmp: Path, env: dict[str, str]):
    folder = tmp / name
    folder.mkdir()
    (folder / f"{name}.py").write_text(source)
    out = folder / "record"
    cmd = [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", str(out), f"{name}.py"]
    started = time.time()
    try:
        done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired as exc:
        check(False, f"{name}: finished within {TIME_LIMIT_S}s (no NCCL hang)")
        print((exc.stderr or b"")[-4000:])
        return None, None
    elapsed = time.time() - started
    check(done.returncode == 0, f"{name}: exit 0 in {elapsed:.0f}s, within {TIME_LIMIT_S}s (no NCCL hang)")
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-6000:])
        return None, None
    print(done.stderr[done.stderr.find("what torch.compile did") - 40:][-3000:])
    return out, done


def torch_events(out: Path, name: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for path in sorted(out.glob("events.rank*.jsonl")):
        rank = int(path.name.split(".")[1][4:])
        counts[rank] = sum(1 for line in path.open() if f'"name": "{name}"' in line or f'"name":"{name}"' in line)
    return counts


def main() -> int:
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus < 2:
        print(f"gpu_ddp: needs 2 GPUs, {gpus} visible: skipped (not run)")
        return 0
    from tdiag.analyzer import build

    print(f"gpu_ddp: torch {torch.__version__}, {gpus} x {torch.cuda.get_device_name(0)}")
    tmp = Path(tempfile.mkdtemp(prefix="tdiag-ddp-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE"))}
    env.update(NCCL_NVLS_ENABLE="0", TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor-cache"), CUDA_VISIBLE_DEVICES="0,1")

    out, done = run_two_ranks("ddp_buckets", BUCKETS, tmp, env)
    if out is not None:
        files = sorted(p.name for p in out.glob("events*.jsonl"))
        check(files == ["events.rank0.jsonl", "events.rank1.jsonl"], f"ddp_buckets: one run dir, one record per rank {files}")
        a = build(out)
        check(a.run.ranks == [0, 1] and a.run.complete, f"ddp_buckets: both ranks complete (ranks {a.run.ranks})")
        check(done.stderr.count("what torch.compile did") == 1, "ddp_buckets: one merged summary printed")
        children = torch_events(out, "optimize_ddp_split_child")
        buckets = {r: sum(len(g.ddp_buckets) for g in a.graphs if g.rank == r) for r in (0, 1)}
        check(children.get(0, 0) > 1 and buckets == children,
              f"ddp_buckets: buckets per rank {buckets} = torch's split subgraphs {children}")
        splits = [f for f in a.findings if f.code == "DST001"]
        check(bool(splits) and all(f.severity == "info" and set(f.ranks) == {"0", "1"} for f in splits),
              f"ddp_buckets: DST001 expected splits on both ranks ({len(splits)} finding(s))")
        for f in splits:
            print(f"   {f.path}:{f.line} {f.message}\n   buckets: {json.dumps(f.evidence.buckets, indent=1)}")
        check(len(a.breaks) == sum(torch_events(out, "artifact:dynamo_graph_break_reason").values()),
              f"ddp_buckets: splits not counted as breaks ({len(a.breaks)} breaks = torch's break artifacts)")
        check(not [f for f in a.findings if f.code == "DST002"], "ddp_buckets: no nothing-compiled finding")
        kernels = sum(len(g.kernels) for g in a.graphs)
        check(kernels > 0, f"ddp_buckets: Inductor kernels recorded on GPU ({kernels})")

    out, done = run_two_ranks("ddp_container", CONTAINER, tmp, env)
    if out is not None:
        a = build(out)
        check(sum(torch_events(out, "dynamo_output_graph").values()) == 0,
              "ddp_container: torch's own stream has no graph on either rank")
        first = a.findings[0] if a.findings else None
        call_line = next(i for i, line in enumerate(CONTAINER.splitlines(), 1) if "# CALL LINE" in line)
        check(first is not None and first.code == "DST002" and first.line == call_line and set(first.ranks) == {"0", "1"},
              f"ddp_container: DST002 ranked first on ddp_container.py:{call_line} "
              f"({first.code if first else None} {first.line if first else None})")
        if first is not None and first.suggestion is not None:
            print(f"   {first.message}\n   patch:\n{first.suggestion.patch}")
    print(f"\n{'ALL CHECKS PASSED' if not FAILURES else 'CHECKS FAILED: ' + '; '.join(FAILURES)}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
