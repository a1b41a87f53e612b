"""torch's own accounting, read independently of tdiag: TORCH_TRACE logs written by torch itself.

Runs a program under plain python with TORCH_TRACE set, then reads the structured-trace files with a minimal
parser of its own, so that tdiag's counts and locations can be checked against what torch logged.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

GLOG = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]+\] ")


@dataclass
class TorchAccount:
    graphs: int = 0  # dynamo_output_graph events
    frame_compiles: int = 0  # compilation_metrics events
    breaks: list[dict] = field(default_factory=list)  # {"gb_id", "lines": [(file, line), ...innermost last]}
    recompile_reasons: list[str] = field(default_factory=list)
    failed_frames: int = 0
    stdout: str = ""
    returncode: int = 0
    stderr: str = ""
    trace_dir: Path | None = None


def account(
    program: Path, env: dict[str, str], trace_dir: Path, args: list[str] = (), timeout: int = 300
) -> TorchAccount:
    """torch's account of ``python program args`` (kept between test runs where nothing it depends on changed:
    oracle_cache.py)."""
    from oracle_cache import kept_run

    proc = kept_run(run_traced, program, env, trace_dir, args, timeout)
    acc = read_account(trace_dir, proc.stdout, proc.returncode)
    acc.stderr, acc.trace_dir = proc.stderr, trace_dir
    return acc


def run_traced(program: Path, env: dict[str, str], trace_dir: Path, args=(), timeout: int = 300):
    """``python program args`` with TORCH_TRACE=trace_dir, from the program's folder."""
    env = {**env, "TORCH_TRACE": str(trace_dir)}
    return subprocess.run([sys.executable, program.name, *args], cwd=program.parent, env=env, capture_output=True,
                          text=True, timeout=timeout)


def run_plain(program: Path, env: dict[str, str], trace_dir: Path | None = None, args=(), timeout: int = 300):
    """``python program args`` from the program's folder, no trace (``trace_dir`` unused: run_traced's shape, so
    oracle_cache.kept_run can keep it)."""
    return subprocess.run([sys.executable, program.name, *args], cwd=program.parent, env=env, capture_output=True,
                          text=True, timeout=timeout)


def read_account(trace_dir: Path, stdout: str = "", returncode: int = 0) -> TorchAccount:
    acc = TorchAccount(stdout=stdout, returncode=returncode)
    for log in sorted(trace_dir.glob("*.log")):
        for name, meta, payload in _envelopes(log):
            if name == "dynamo_output_graph":
                acc.graphs += 1
            elif name == "compilation_metrics":
                acc.frame_compiles += 1
                if meta["compilation_metrics"].get("fail_type"):
                    acc.failed_frames += 1
            elif name == "dynamo_graph_break_reason":
                gb = re.search(r"gb(\d{4})\.html", payload)
                tb = payload.split("User code traceback:", 1)[-1].split("Traceback (most recent call last)")[0]
                lines = [(Path(f).name, int(n)) for f, n in re.findall(r'File "([^"]+)", line (\d+)', tb)]
                acc.breaks.append({"gb_id": f"GB{gb.group(1)}" if gb else None, "lines": lines})
            elif name == "recompile_reasons":
                acc.recompile_reasons.append(payload)
    return acc


def _envelopes(path: Path):
    name = meta = None
    payload: list[str] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if raw.startswith("\t"):
            payload.append(raw[1:])
            continue
        if name is not None:
            yield name, meta, "\n".join(payload)
        name, payload = None, []
        m = GLOG.match(raw)
        if not m:
            continue
        try:
            meta = json.loads(raw[m.end():])
        except ValueError:
            continue
        keys = [k for k in meta if k not in ("frame_id", "frame_compile_id", "attempt", "rank", "has_payload", "compiled_autograd_id", "stack")]
        if not keys:
            continue
        name = meta["artifact"]["name"] if keys[0] == "artifact" else keys[0]
    if name is not None:
        yield name, meta, "\n".join(payload)


def cache_results(trace_dir: Path) -> dict[str, int]:
    """How many times torch logged each compile-cache outcome (``fx_graph_cache_hit``, ``aotautograd_cache_miss``,
    ...) in the structured trace under ``trace_dir``: torch's own record of every cache lookup."""
    counts: dict[str, int] = {}
    for log in sorted(trace_dir.glob("*.log")):
        for name, _meta, _payload in _envelopes(log):
            if name.startswith(("fx_graph_cache_", "aotautograd_cache_")):
                counts[name] = counts.get(name, 0) + 1
    return counts
