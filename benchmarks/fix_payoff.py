"""What `tdiag fix` buys, measured by `tdiag fix` itself: record a program, verify its patches, print before/after.

    python benchmarks/fix_payoff.py                              # examples/train.py, CPU, aot_eager (a minute)
    python benchmarks/fix_payoff.py --program benchmarks/fix_programs/mlp_train.py -- --device cpu --backend aot_eager --steps 60

1. copies the program into a temporary git repository (a user's project),
2. `tdiag run`s it there (the record holds the patches),
3. `tdiag fix RECORD --verify --apply --each --format json`: tdiag re-runs the unpatched and patched copies under
   `tdiag run` and compares them; the patches are then written to the temporary project,
4. prints the before/after of every variant (all patches, each alone) and the verdict.
The time per step is the runtime window `tdiag run` measures (steady state, after compiles settle); it is absent
when the program runs fewer steps than the window needs.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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


if __name__ == "__main__":
    sys.exit(main())
