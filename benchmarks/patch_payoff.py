"""What tdiag's patches buy on examples/train.py: compiled training-step time before and after applying them.

    python benchmarks/patch_payoff.py                # CUDA + Inductor; prints a message and exits 0 without CUDA
    python benchmarks/patch_payoff.py --steps 300 --device cpu   # smoke test on a CPU (Inductor C++, slow)

1. records `examples/train.py` under `tdiag run` (a temp copy, CPU, aot_eager: only the findings are needed),
2. applies every distinct patch that tdiag suggests to a second copy (in the order findings are ranked, each
   checked to still apply, since patches are against the recorded source),
3. in a fresh subprocess per variant, imports that file's `Model` and times the step
   `mse_loss(compiled(x), y).backward(); opt.step(); opt.zero_grad()` with torch.compile (Inductor) over the batch
   sizes the example uses (16, 16, 24), first cold (compiles and recompiles), then warm (median of many steps).
   The patched variant calls torch._dynamo.mark_dynamic(x, 0) before the call when the patched `main()` does.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "train.py"
BATCHES = (16, 16, 24)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="warm steps to time per variant")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--variant", help=argparse.SUPPRESS)  # internal: time one file in this process
    parser.add_argument("--keep", action="store_true", help="keep the temp folder with the record and patched copy")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(time_variant(Path(args.variant), args.steps, args.device)))
        return 0
    if args.device == "cuda" and not _cuda_available():
        print("patch_payoff: skipped, no CUDA device (run on a GPU machine, or pass --device cpu for a smoke test)")
        return 0

    work = Path(tempfile.mkdtemp(prefix="tdiag-payoff-"))
    try:
        before, after, applied = make_variants(work)
        print(f"applied {len(applied)} patch(es) from tdiag's record of examples/train.py:")
        for line in applied:
            print(f"  {line}")
        results = {name: _time_in_subprocess(path, args) for name, path in (("before", before), ("after", after))}
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    b, a = results["before"], results["after"]
    print(f"\n{'':24}{'before':>12}{'after':>12}{'ratio':>10}")
    print(f"{'graphs compiled':24}{b['graphs']:>12}{a['graphs']:>12}")
    print(f"{'cold first epoch (s)':24}{b['cold_s']:>12.2f}{a['cold_s']:>12.2f}{b['cold_s'] / a['cold_s']:>9.2f}x")
    for batch in sorted(set(BATCHES)):
        key = f"median_ms_{batch}"
        print(f"{f'warm step, batch {batch} (ms)':24}{b[key]:>12.3f}{a[key]:>12.3f}{b[key] / a[key]:>9.2f}x")
    print(f"{'warm step, all (ms)':24}{b['median_ms']:>12.3f}{a['median_ms']:>12.3f}{b['median_ms'] / a['median_ms']:>9.2f}x")
    print(f"\n(device {b['device']}, torch {b['torch']}, {args.steps} warm steps per variant, median)")
    return 0


def make_variants(work: Path) -> tuple[Path, Path, list[str]]:
    """Record the example, apply its patches to a copy; (original copy, patched copy, what was applied)."""
    from tdiag.analyzer import build
    from tdiag.analyzer.suggestions import apply_patch

    (work / "before").mkdir()
    (work / "after").mkdir()
    before = work / "before" / "train.py"
    shutil.copy(EXAMPLE, before)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env["CUDA_VISIBLE_DEVICES"] = ""  # the record is made on the CPU; it only has to show the findings
    record = work / "record"
    proc = subprocess.run(
        [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record), str(before)],
        cwd=before.parent, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"tdiag run failed:\n{proc.stderr[-3000:]}")
    analysis = build(record)
    text = analysis.sources["train.py"]
    applied, seen = [], set()
    for finding in analysis.findings:
        patch = finding.suggestion.patch if finding.suggestion else None
        if not patch or patch in seen:  # RCP001 and DYN001 can carry the same patch
            continue
        seen.add(patch)
        patched = apply_patch(text, patch)
        if patched is None:
            applied.append(f"{finding.code} {finding.path}:{finding.line}: skipped, overlaps an earlier patch")
            continue
        text = patched
        applied.append(f"{finding.code} {finding.path}:{finding.line}: {finding.suggestion.title}")
    after = work / "after" / "train.py"
    after.write_text(text)
    return before, after, applied


def time_variant(path: Path, steps: int, device: str) -> dict:
    import torch
    from torch import nn

    spec = importlib.util.spec_from_file_location(f"payoff_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines Model; main() only runs under __main__
    marks_dynamic = "mark_dynamic(" in path.read_text()  # the patched main() marks the batch dim dynamic

    torch.manual_seed(0)
    model = module.Model().to(device)
    compiled = torch.compile(model)  # Inductor
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = {b: (torch.randn(b, 32, device=device), torch.randn(b, device=device)) for b in set(BATCHES)}

    def step(batch: int) -> None:
        x, y = data[batch]
        if marks_dynamic:
            torch._dynamo.mark_dynamic(x, 0)
        loss = nn.functional.mse_loss(compiled(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    sync()
    start = time.perf_counter()
    for batch in BATCHES:
        step(batch)
    sync()
    cold = time.perf_counter() - start
    for _ in range(20):  # settle caches and clocks
        for batch in BATCHES:
            step(batch)
    times: dict[int, list[float]] = {b: [] for b in set(BATCHES)}
    for i in range(steps):
        batch = BATCHES[i % len(BATCHES)]
        sync()
        t0 = time.perf_counter()
        step(batch)
        sync()
        times[batch].append(time.perf_counter() - t0)
    counters = torch._dynamo.utils.counters
    result = {
        "cold_s": cold,
        "median_ms": statistics.median(t for ts in times.values() for t in ts) * 1e3,
        "graphs": int(counters["stats"]["unique_graphs"]),
        "device": torch.cuda.get_device_name() if device.startswith("cuda") else device,
        "torch": torch.__version__,
    }
    result.update({f"median_ms_{b}": statistics.median(ts) * 1e3 for b, ts in times.items()})
    return result


def _time_in_subprocess(path: Path, args) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--variant", str(path), "--steps", str(args.steps), "--device", args.device],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"timing {path} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


if __name__ == "__main__":
    sys.exit(main())
