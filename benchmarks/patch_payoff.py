"""What tdiag's patches buy, measured three ways (one benchmark, one mode each):

    python benchmarks/patch_payoff.py verify [--program PROG] [-- ARGS]   # `tdiag fix --verify` before/after
    python benchmarks/patch_payoff.py step-time [--device cpu]            # examples/train.py's step, patched vs not
    python benchmarks/patch_payoff.py cost-vs-saving [--only NAME] [--gpu]  # a finding's cost beside its patch's saving

Each mode's own description: ``python benchmarks/patch_payoff.py MODE --help``, or VERIFY_DOC, STEP_TIME_DOC and
COST_VS_SAVING_DOC below. Results: docs/performance.md ("Patches pay off"), docs/gpu.md, docs/cost-vs-saving.md.
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

VERIFY_DOC = """What `tdiag fix` buys, measured by `tdiag fix` itself: record a program, verify its patches, print before/after.

    python benchmarks/patch_payoff.py step-time verify                              # examples/train.py, CPU, aot_eager (a minute)
    python benchmarks/patch_payoff.py step-time verify --program benchmarks/fix_programs/mlp_train.py -- --device cpu --backend aot_eager --steps 60

1. copies the program into a temporary git repository (a user's project),
2. `tdiag run`s it there (the record holds the patches),
3. `tdiag fix RECORD --verify --apply --each --format json`: tdiag re-runs the unpatched and patched copies under
   `tdiag run` and compares them; the patches are then written to the temporary project,
4. prints the before/after of every variant (all patches, each alone) and the verdict.
The time per step is the runtime window `tdiag run` measures (steady state, after compiles settle); it is absent
when the program runs fewer steps than the window needs.
"""

def verify_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="patch_payoff.py verify", description=VERIFY_DOC.splitlines()[0])
    parser.add_argument("--program", default=str(REPO / "examples" / "train.py"))
    parser.add_argument("--no-each", action="store_true", help="only the patches together (fewer runs)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary project and records")
    parser.add_argument("program_args", nargs="*", help="arguments for the program (after --)")
    args = parser.parse_args(argv)
    data = run_loop(Path(args.program), args.program_args, each=not args.no_each, keep=args.keep)
    print_result(data)
    return 0 if data["ok"] else 1


def run_loop(program: Path, program_args: list[str], each: bool = True, keep: bool = False) -> dict:
    work = Path(tempfile.mkdtemp(prefix="tdiag-fix-payoff-"))
    try:
        project = work / "project"
        project.mkdir()
        shutil.copy(program, project / program.name)
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        if shutil.which("git"):  # a committed project, as a user's would be (without git: no dirty check)
            for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "program"]):
                subprocess.run(git + cmd, cwd=project, check=True, capture_output=True)
        record = work / "record"
        run = subprocess.run(
            [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record), program.name, *program_args],
            cwd=project, capture_output=True, text=True,
        )
        if not (record / "events.jsonl").exists():
            raise SystemExit(f"tdiag run failed:\n{run.stderr[-3000:]}")
        print(f"recorded {program.name} {' '.join(program_args)} (exit {run.returncode})", flush=True)
        fix = [sys.executable, "-m", "tdiag", "fix", str(record), "--verify", "--apply", "--format", "json"]
        proc = subprocess.run(fix + (["--each"] if each else []), cwd=project, capture_output=True, text=True)
        if not proc.stdout.strip():
            raise SystemExit(f"tdiag fix failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        data = json.loads(proc.stdout)
        data["exit_code"] = proc.returncode
        data["diff_applied"] = subprocess.run(["git", "diff"], cwd=project, capture_output=True, text=True).stdout
        return data
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


ROWS = (
    ("graphs", "graphs", "{:.0f}"),
    ("graph breaks", "graph_breaks", "{:.0f}"),
    ("recompiles", "recompiles", "{:.0f}"),
    ("eager fallbacks", "eager_fallbacks", "{:.0f}"),
    ("compile time (s)", "compile_time_s", "{:.2f}"),
    ("time per step (ms)", "step_time_s", "{:.3f}"),
    ("steps measured", "steps_measured", "{:.0f}"),
    ("program wall time (s)", "run_time_s", "{:.2f}"),
)


def print_result(data: dict) -> None:
    print("\npatches:")
    for p in data["patches"]:
        state = "applied" if p["applied_together"] else f"held back ({p['held_back']})"
        print(f"  {p['id']:28} {p['title']}  [{state}]")
    for c in data["verification"]:
        print(f"\n{c['label']}: {'no regression' if c['ok'] else 'WORSE: ' + '; '.join(c['problems'])}")
        print(f"  {'':24}{'before':>12}{'after':>12}{'ratio':>9}")
        for label, key, fmt in ROWS:
            b, a = c["before"][key], c["after"][key]
            if b is None and a is None:
                continue
            scale = 1e3 if key == "step_time_s" else 1
            cells = ["-" if v is None else fmt.format(v * scale) for v in (b, a)]
            ratio = f"{b / a:8.2f}x" if key.endswith("_s") and a and b else ""
            print(f"  {label:24}{cells[0]:>12}{cells[1]:>12}{ratio:>9}")
        print(f"  {'stdout identical':24}{'':>12}{'yes' if c['stdout_identical'] else 'NO':>12}")
    print(f"\ntdiag fix exit code {data['exit_code']}; applied: {bool(data['applied'])}")


STEP_TIME_DOC = """What tdiag's patches buy on examples/train.py: compiled training-step time before and after applying them.

    python benchmarks/patch_payoff.py step-time                # CUDA + Inductor; prints a message and exits 0 without CUDA
    python benchmarks/patch_payoff.py step-time --steps 300 --device cpu   # smoke test on a CPU (Inductor C++, slow)

1. records `examples/train.py` under `tdiag run` (a temp copy, CPU, aot_eager: only the findings are needed),
2. applies every distinct patch that tdiag suggests to a second copy (in the order findings are ranked, each
   checked to still apply, since patches are against the recorded source),
3. in a fresh subprocess per variant, imports that file's `Model` and times the step
   `mse_loss(compiled(x), y).backward(); opt.step(); opt.zero_grad()` with torch.compile (Inductor) over the batch
   sizes the example uses (16, 16, 24), first cold (compiles and recompiles), then warm (median of many steps).
   The patched variant calls torch._dynamo.mark_dynamic(x, 0) before the call when the patched `main()` does.
"""

EXAMPLE = REPO / "examples" / "train.py"
BATCHES = (16, 16, 24)


def step_time_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="patch_payoff.py step-time", description=STEP_TIME_DOC.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="warm steps to time per variant")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--variant", help=argparse.SUPPRESS)  # internal: time one file in this process
    parser.add_argument("--keep", action="store_true", help="keep the temp folder with the record and patched copy")
    args = parser.parse_args(argv)
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
        [sys.executable, __file__, "step-time", "--variant", str(path), "--steps", str(args.steps), "--device", args.device],
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


COST_VS_SAVING_DOC = """Does a finding's measured cost predict what its patch saves? (issue 22)

    python benchmarks/patch_payoff.py cost-vs-saving                  # the CPU programs below, aot_eager (several minutes)
    python benchmarks/patch_payoff.py cost-vs-saving --only item_loop # one of them
    python benchmarks/patch_payoff.py cost-vs-saving --gpu            # the CUDA programs (Inductor), on a GPU machine

For each program: copy it into a temporary project, `tdiag run` it (the record holds each finding's measured cost),
then `tdiag fix RECORD --verify --each --format json` (tdiag re-runs the unpatched copy and each patch alone under
`tdiag run` and measures time per step and compile time). One row per patch: the cost of the findings it fixes
(per step, or compile seconds) beside the saving that patch alone bought (before - after, per step; compile seconds),
and their ratio. Prints a Markdown table (docs/cost-vs-saving.md holds one) and writes JSON with --json PATH.
"""

PROGRAMS = {
    "train": (REPO / "examples" / "train.py", ["--epochs", "12"]),  # 36 steps: a full 20-step window
    "mlp_train": (REPO / "benchmarks" / "fix_programs" / "mlp_train.py", ["--device", "cpu", "--backend", "aot_eager", "--steps", "60"]),
    "branch_loop": (REPO / "benchmarks" / "cost_programs" / "branch_loop.py", []),
    "item_loop": (REPO / "benchmarks" / "cost_programs" / "item_loop.py", []),
    "scalar_loop": (REPO / "benchmarks" / "cost_programs" / "scalar_loop.py", []),
    "batch_loop": (REPO / "benchmarks" / "cost_programs" / "batch_loop.py", []),
}
# on CUDA with Inductor: a break's lost fusion and the launch overhead of the extra graphs are part of the saving there
GPU_PROGRAMS = {
    "mlp_train_cuda": (REPO / "benchmarks" / "fix_programs" / "mlp_train.py", ["--device", "cuda", "--backend", "inductor", "--steps", "60"]),
}


def measure(name: str, program: Path, args: list[str]) -> list[dict]:
    from tdiag.analyzer import build

    work = Path(tempfile.mkdtemp(prefix=f"tdiag-cost-{name}-"))
    try:
        project = work / "project"
        project.mkdir()
        shutil.copy(program, project / program.name)
        record = work / "record"
        subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record), program.name, *args],
                       cwd=project, capture_output=True, text=True)
        analysis = build(record)
        proc = subprocess.run([sys.executable, "-m", "tdiag", "fix", str(record), "--verify", "--each", "--format", "json"],
                              cwd=project, capture_output=True, text=True)
        if not proc.stdout.strip():
            return [{"program": name, "error": proc.stderr[-500:]}]
        data = json.loads(proc.stdout)
        return [_row(name, analysis, patch, data["verification"]) for patch in data["patches"]]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _row(name: str, analysis, patch: dict, comparisons: list[dict]) -> dict:
    code_line = patch["id"]  # "BRK001@train.py:21"
    code, _, where = code_line.partition("@")
    line = int(where.rsplit(":", 1)[1]) if ":" in where else None
    findings = [f for f in analysis.findings if f.code in (patch.get("codes") or [code])
                and (line is None or f.line == line or f.code == code)]
    per_step = sum(f.cost.per_call_ms or 0 for f in findings if f.cost and f.cost.basis == "measured")
    compile_s = sum(f.cost.total_s for f in findings if f.cost and f.cost.basis == "compile")
    alone = next((c for c in comparisons if c["label"] == patch["id"]), None)
    if alone is None and len(comparisons) == 1 and comparisons[0]["patches"] == [patch["id"]]:
        alone = comparisons[0]  # the only patch: "all patches" is that patch alone
    row = {"program": name, "patch": patch["id"], "title": patch["title"], "cost_ms_per_step": per_step or None,
           "cost_compile_s": compile_s or None, "partial": bool(analysis.summary.runtime and analysis.summary.runtime.partial)}
    if alone is not None:
        b, a = alone["before"], alone["after"]
        if b.get("step_time_s") and a.get("step_time_s"):
            row["saving_ms_per_step"] = (b["step_time_s"] - a["step_time_s"]) * 1e3
            row["step_ms_before"] = b["step_time_s"] * 1e3
        row["saving_compile_s"] = (b.get("compile_time_s") or 0) - (a.get("compile_time_s") or 0)
        row["gone"] = alone.get("gone")
    return row


def table(rows: list[dict]) -> str:
    out = ["| program | patch | cost (measured) | saving (patch alone) | saving / cost |", "|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['program']} | - | fix failed: {r['error'][:60]} | | |")
            continue
        if r.get("cost_ms_per_step"):
            cost, saving = f"{r['cost_ms_per_step']:.3g} ms/step", r.get("saving_ms_per_step")
            ratio = f"{saving / r['cost_ms_per_step']:.2f}" if saving is not None else "-"
            saving = f"{saving:.3g} ms/step of {r['step_ms_before']:.3g}" if saving is not None else "not measured"
        elif r.get("cost_compile_s"):
            cost, saving = f"{r['cost_compile_s']:.3g} s compile", r.get("saving_compile_s")
            ratio = f"{saving / r['cost_compile_s']:.2f}" if saving is not None else "-"
            saving = f"{saving:.3g} s compile" if saving is not None else "not measured"
        else:
            cost, saving, ratio = "none", "-", "-"
        partial = " (partial window)" if r.get("partial") else ""
        out.append(f"| {r['program']} | `{r['patch']}` {r['title']} | {cost}{partial} | {saving} | {ratio} |")
    return "\n".join(out)


def cost_vs_saving_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="patch_payoff.py cost-vs-saving", description=COST_VS_SAVING_DOC.splitlines()[0])
    parser.add_argument("--only", action="append", help="program name(s) of PROGRAMS")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--gpu", action="store_true", help="the CUDA programs instead of the CPU ones")
    args = parser.parse_args(argv)
    rows: list[dict] = []
    for name, (program, program_args) in (GPU_PROGRAMS if args.gpu else PROGRAMS).items():
        if args.only and name not in args.only:
            continue
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        rows += measure(name, program, program_args)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


MODES = {"verify": verify_main, "step-time": step_time_main, "cost-vs-saving": cost_vs_saving_main}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in MODES:
        print(__doc__, file=sys.stderr)
        return 2
    return MODES[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
