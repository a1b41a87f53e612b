"""Does a finding's measured cost predict what its patch saves? (issue 22)

    python benchmarks/cost_vs_saving.py                  # the CPU programs below, aot_eager (several minutes)
    python benchmarks/cost_vs_saving.py --only item_loop # one of them
    python benchmarks/cost_vs_saving.py --gpu            # the CUDA programs (Inductor), on a GPU machine

For each program: copy it into a temporary project, `tdiag run` it (the record holds each finding's measured cost),
then `tdiag fix RECORD --verify --each --format json` (tdiag re-runs the unpatched copy and each patch alone under
`tdiag run` and measures time per step and compile time). One row per patch: the cost of the findings it fixes
(per step, or compile seconds) beside the saving that patch alone bought (before - after, per step; compile seconds),
and their ratio. Prints a Markdown table (docs/cost-vs-saving.md holds one) and writes JSON with --json PATH.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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


if __name__ == "__main__":
    sys.exit(main())
