"""The ceiling: how much of what a hand-fixed program gains does `tdiag fix --verify` recover, in rounds?

    python benchmarks/bench_ceiling.py                       # every program, CPU, aot_eager
    python benchmarks/bench_ceiling.py --only mlp_train --device cuda --backend inductor

For each program in benchmarks/ceiling_programs/ (NAME.py, NAME_fixed.py written by hand: graph-clean, no
avoidable recompile, the hot step compiled whole with fullgraph=True where torch can; NAME_expert.py: the hand fix
plus CUDA graphs and a compiled or fused optimizer, from torch's documentation), five versions are timed by the
program itself (_timing.py: the median step after its warm-up steps, written to a file, never printed):
  before    NAME.py as written, compiled;
  tdiag     NAME.py after `tdiag fix --verify --apply` (its rounds) in a temporary git project;
  hand      NAME_fixed.py;
  expert    NAME_expert.py (the ceiling: on a CPU its CUDA graphs are off, so it is the hand fix + compiled optimizer);
  eager     NAME.py with TORCH_COMPILE_DISABLE=1.
Each version runs --runs times, interleaved with the others, and the best of its runs is kept (on a shared machine
the slowest runs measure the neighbours). recovered = (before - tdiag) / (before - expert) (before - hand where no
expert was measured), for programs where that version is faster than before beyond the runs' spread; otherwise the
gain is within noise and no share is claimed. Where tdiag falls short, the note lists the findings still reported
after its last round (the causes it could not patch). Writes the table as markdown with --markdown FILE (docs/ceiling.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "benchmarks" / "ceiling_programs"
VERSIONS = ("before", "tdiag", "hand", "expert", "eager")


@dataclass
class Result:
    name: str
    times: dict[str, list[float]] = field(default_factory=dict)  # version -> step seconds of each run
    rounds: int = 0
    kept: list[str] = field(default_factory=list)
    left: dict[str, int] = field(default_factory=dict)  # findings after the last kept round
    error: str = ""
    fix: dict = field(default_factory=dict)  # `tdiag fix --format json` as it answered
    patched: str = ""  # the program after tdiag's kept rounds

    def read_fix(self, data: dict) -> None:
        """`tdiag fix --format json`'s answer: its rounds, the patches kept and the findings its last kept run left."""
        self.fix = data
        self.rounds = data.get("rounds", 0)
        self.kept = [p["id"] for p in data.get("kept") or []]
        kept_runs = [c for c in data.get("verification", []) if c.get("kept")]
        verification = data.get("verification") or []
        last = kept_runs[-1]["after"] if kept_runs else (verification[0]["before"] if verification else {})
        self.left = dict(last.get("findings", {}))

    def best(self, version: str) -> float | None:
        return min(self.times.get(version) or [None], key=lambda t: t if t is not None else float("inf"))

    def spread(self, version: str) -> float:
        t = self.times.get(version) or []
        return (max(t) - min(t)) if len(t) > 1 else 0.0

    def ceiling(self) -> str:
        """The version whose gain tdiag's rounds are measured against: the expert's, else the hand fix's."""
        return "expert" if self.best("expert") is not None else "hand"

    def recovered(self) -> float | None:
        top = self.ceiling()
        before, after, best = self.best("before"), self.best("tdiag"), self.best(top)
        if None in (before, after, best):
            return None
        if before - best <= max(self.spread("before"), self.spread(top)):
            return None  # the ceiling's gain is within the runs' spread: nothing to recover
        return (before - after) / (before - best)

    def faster_than_eager(self, version: str) -> bool | None:
        """Whether ``version``'s compiled step beats eager beyond both runs' spread (None: not both measured)."""
        mine, eager = self.best(version), self.best("eager")
        if None in (mine, eager):
            return None
        return eager - mine > max(self.spread(version), self.spread("eager"))


def programs(only: list[str] | None) -> list[str]:
    names = sorted(p.stem for p in PROGRAMS.glob("*.py")
                   if not p.stem.startswith("_") and not p.stem.endswith(("_fixed", "_expert")))
    return [n for n in names if not only or n in only]


def env_for(timing_file: Path | None, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env.pop("CEILING_TIMING_FILE", None)
    if timing_file is not None:
        env["CEILING_TIMING_FILE"] = str(timing_file)
    env.update(extra or {})
    return env


def within(seconds: float, deadline: float | None) -> float:
    """A subprocess timeout: `seconds`, or what is left before `deadline` (time.monotonic()) when that is sooner."""
    return seconds if deadline is None else max(1.0, min(seconds, deadline - time.monotonic()))


def run(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run in a session of its own: past `timeout` the whole process group is killed (tdiag fix's
    program runs included), then TimeoutExpired is raised."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          **kwargs) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def timed(script: Path, args: list[str], extra_env: dict[str, str] | None = None, timeout: float = 900,
          deadline: float | None = None) -> float | None:
    return timed_with_output(script, args, extra_env, timeout, deadline)[0]


def timed_with_output(script: Path, args: list[str], extra_env: dict[str, str] | None = None, timeout: float = 900,
                      deadline: float | None = None) -> tuple[float | None, str]:
    """The program's own steady step time (None when it failed or ran out of time) and its stdout."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.json"
        try:
            proc = run([sys.executable, script.name, *args], within(timeout, deadline), cwd=script.parent,
                       env=env_for(out, extra_env))
        except subprocess.TimeoutExpired:
            print(f"  {script.name} stopped: past the time budget", file=sys.stderr)
            return None, ""
        if proc.returncode != 0 or not out.exists():
            print(f"  {script.name} failed (exit {proc.returncode}): {proc.stderr.strip()[-600:]}", file=sys.stderr)
            return None, proc.stdout
        return json.loads(out.read_text())["step_s"], proc.stdout


FIX_BUDGET_MARGIN_S = 10  # tdiag fix's start, its analysis of the record and its writing after the last run


def tdiag_rounds(name: str, args: list[str], work: Path, result: Result, repeat: int,
                 deadline: float | None = None) -> Path | None:
    """Record NAME.py in a temporary git project, let `tdiag fix --verify --apply` take its rounds; the patched file."""
    project = work / "project"
    project.mkdir(parents=True)
    shutil.copy(PROGRAMS / f"{name}.py", project / f"{name}.py")
    shutil.copy(PROGRAMS / "_timing.py", project / "_timing.py")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "program"]):
        subprocess.run(git + cmd, cwd=project, check=True, capture_output=True)
    record = work / "record"
    try:
        run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record), f"{name}.py", *args],
            within(1800, deadline), cwd=project, env=env_for(None))
    except subprocess.TimeoutExpired:
        result.error = "tdiag run stopped: past the time budget"
        return None
    if not (record / "events.jsonl").exists():
        result.error = "tdiag run left no record"
        return None
    # tdiag's own --budget ends the flow between runs with what it verified (applied, in its JSON); the kill at the
    # deadline stays as the backstop (a run longer than every earlier one)
    budget = ["--budget", f"{max(within(3600, deadline) - FIX_BUDGET_MARGIN_S, 1):.0f}"] if deadline else []
    try:
        # TDIAG_FIX_ARGS: the user's own further options (`--output-tolerance 1e-2`: TF32's rounding accepted)
        proc = run([sys.executable, "-m", "tdiag", "fix", str(record), "--verify", "--apply", "--repeat", str(repeat),
                    *budget, *shlex.split(os.environ.get("TDIAG_FIX_ARGS", "")), "--format", "json"],
                   within(3600, deadline), cwd=project, env=env_for(None))
    except subprocess.TimeoutExpired:  # the program as tdiag left it: the rounds applied so far
        result.error = "tdiag fix stopped: past the time budget"
        return project / f"{name}.py"
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        result.error = f"tdiag fix failed: {proc.stderr.strip()[-400:]}"
        return project / f"{name}.py"
    result.read_fix(data)
    return project / f"{name}.py"


def measure(name: str, args: list[str], runs: int, repeat: int, deadline: float | None = None,
            rounds: bool = True) -> Result:
    """The five versions of NAME (without ``rounds``, all but tdiag's); with `deadline` (time.monotonic()), every
    subprocess stops there."""
    result = Result(name, {v: [] for v in VERSIONS})
    with tempfile.TemporaryDirectory(prefix="tdiag-ceiling-") as tmp:
        patched = tdiag_rounds(name, args, Path(tmp), result, repeat, deadline) if rounds else None
        result.patched = patched.read_text() if patched is not None else ""
        expert = PROGRAMS / f"{name}_expert.py"
        scripts = {"before": PROGRAMS / f"{name}.py", "tdiag": patched, "hand": PROGRAMS / f"{name}_fixed.py",
                   "expert": expert if expert.exists() else None, "eager": PROGRAMS / f"{name}.py"}
        for _ in range(runs):  # interleaved: each version sees the machine in the same states
            for version in VERSIONS:
                if scripts[version] is None:
                    continue
                extra = {"TORCH_COMPILE_DISABLE": "1"} if version == "eager" else None
                t = timed(scripts[version], args, extra, deadline=deadline)
                if t is not None:
                    result.times[version].append(t)
    return result


def table(results: list[Result], header: str) -> str:
    lines = [header, "",
             "| program | before ms | tdiag ms | hand-fixed ms | expert ms | eager ms | recovered | rounds | patches kept "
             "| left after tdiag |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        cells = []
        for v in VERSIONS:
            b = r.best(v)
            cells.append("–" if b is None else f"{b * 1e3:.2f} (±{r.spread(v) * 5e2:.2f})")
        share = r.recovered()
        left = ", ".join(f"{code}×{n}" for code, n in sorted(r.left.items())) or "none"
        lines.append(f"| {r.name} | {' | '.join(cells)} | {'–' if share is None else f'{share:.0%}'} | {r.rounds} | "
                     f"{len(r.kept)} | {left}{' (' + r.error + ')' if r.error else ''} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="a program name (repeatable)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each version (the best is kept)")
    parser.add_argument("--repeat", type=int, default=2, help="tdiag fix --verify --repeat")
    parser.add_argument("--markdown", type=Path, help="write the table to this file")
    parser.add_argument("--keep", type=Path, help="write NAME.fix.json (tdiag fix's answer) and NAME.tdiag.py here")
    args = parser.parse_args(argv)
    results = []
    for name in programs(args.only):
        print(f"{name}: tdiag rounds, then {args.runs} timed runs of each version", flush=True)
        results.append(measure(name, ["--device", args.device, "--backend", args.backend], args.runs, args.repeat))
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"{name}.fix.json").write_text(json.dumps(results[-1].fix, indent=1))
            (args.keep / f"{name}.tdiag.py").write_text(results[-1].patched)
        print(table(results[-1:], ""), flush=True)
    text = table(results, f"device {args.device}, backend {args.backend}, best of {args.runs} runs (± half the range)")
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    shares = [r.recovered() for r in results]
    judged = [s for s in shares if s is not None]
    print(f"CHECK ceiling_recovered: {sum(s >= 0.9 for s in judged)}/{len(judged)} programs with a measurable gain "
          f"recover >= 90% of it (their ceiling: the expert version where there is one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
