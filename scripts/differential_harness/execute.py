"""Run one program under one mode and collect what is compared: torch's counters per process, stdout, exit code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from differential_harness.corpus import Program
from differential_harness.modes import Mode

SITE = Path(__file__).with_name("site")
COUNTERS_VAR, NESTED_VAR = "DIFFERENTIAL_COUNTERS_DIR", "DIFFERENTIAL_NESTED_GRAPH_BREAKS"
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
PYTEST_DURATION = re.compile(r" in \d+\.\d+s( \(\d+:\d\d:\d\d\))?")


@dataclass
class Outcome:
    program: str
    mode: str
    nested: bool
    exit_code: int | None
    stdout: str
    counters: dict[str, dict] = field(default_factory=dict)  # process role -> its counters
    seconds: float = 0.0
    stderr_tail: str = ""
    timed_out: bool = False
    # a rank died of SIGABRT with C++'s terminate message: torch's gloo exit abort (docs/multi-rank-exit.md) when the
    # counters say every process's program ended
    exit_abort: bool = False


def environment(base: dict[str, str], counters_dir: Path, nested: bool, cache_dir: Path) -> dict[str, str]:
    """The program's environment: the caller's, without torch logging switches, plus the site hook on the path."""
    env = {k: v for k, v in base.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO", "TORCH_COMPILE"))}
    env["PYTHONPATH"] = os.pathsep.join([str(SITE), *([base["PYTHONPATH"]] if base.get("PYTHONPATH") else [])])
    env[COUNTERS_VAR] = str(counters_dir)
    env[NESTED_VAR] = "1" if nested else "0"
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(cache_dir))
    # each corpus program stands for a user's project of its own: git's search for the repository (the root of
    # tdiag's paths) stops below this checkout, so outputs name `prog.py` (the program's folder is the cwd)
    env.setdefault("GIT_CEILING_DIRECTORIES", str(Path(__file__).resolve().parents[2]))
    env.update(PYTHONHASHSEED="0", PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


CPP_ABORT = "terminate called without an active exception"


def run(program: Program, mode: Mode, nested: bool, work: Path, cache_dir: Path) -> Outcome:
    work.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix=f"{program.name}-{mode.name}-", dir=work))
    counters_dir = directory / "counters"
    counters_dir.mkdir()
    command = mode.command(program, directory / "record")
    env = environment(dict(os.environ), counters_dir, nested, cache_dir)
    if mode.name == "plain-traced":
        env["TORCH_TRACE"] = str(directory / "trace")
    started = time.perf_counter()
    try:
        # from the program's own folder, its project (outputs name `prog.py`, as the expectations do)
        proc = subprocess.run(command, cwd=program.path.parent, env=env, capture_output=True, text=True, timeout=program.timeout,
                              stdin=subprocess.DEVNULL)
        exit_code, stdout, stderr, timed_out = proc.returncode, proc.stdout, proc.stderr, False
    except subprocess.TimeoutExpired as exc:
        exit_code, timed_out = None, True
        stdout, stderr = _text(exc.stdout), _text(exc.stderr)
    outcome = Outcome(program.name, mode.name, nested, exit_code, normalise_stdout(stdout, program),
                      read_counters(counters_dir), time.perf_counter() - started, stderr[-3000:], timed_out,
                      exit_abort=CPP_ABORT in stderr and "exitcode: -6" in stderr)
    (directory / "outcome.json").write_text(json.dumps(outcome.__dict__, indent=1, default=str), encoding="utf-8")
    return outcome


def _text(data: bytes | str | None) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")


def normalise_stdout(text: str, program: Program) -> str:
    """pytest prints its own wall time; nothing else is rewritten (corpus programs print no timings or addresses)."""
    return PYTEST_DURATION.sub(" in <time>", text) if program.kind == "pytest" else text


def read_counters(directory: Path) -> dict[str, dict]:
    """One entry per process that compiled something, keyed by its role (torchrun rank, multiprocessing name)."""
    found: dict[str, dict] = {}
    for path in sorted(directory.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        role, counters = record.pop("role"), comparable(record)
        counters.setdefault("codes", [])
        if not any(counters[k] for k in ("frames", "stats", "graph_break", "resumes", "recompiles")):
            continue  # imported torch._dynamo, compiled nothing (e.g. torchrun's own agent process)
        key, n = role, 1
        while key in found:  # two processes of one role (never expected): keep both, distinguishable
            n += 1
            key = f"{role}#{n}"
        found[key] = counters
    return found


def comparable(record: dict) -> dict:
    record.pop("pid", None)
    record["graph_break"] = {ADDRESS.sub("0x?", k): v for k, v in sorted(record.get("graph_break", {}).items())}
    return record
