"""Compile caches explained on the GPU (issue 42): a GPT-2-like training step under `tdiag run`, cold, warm, with an
Inductor config key changed, with another batch size, with TORCHINDUCTOR_FORCE_DISABLE_CACHES=1, and a cold start on
an empty cache directory that loads the mega-cache saved by an earlier run. Results go to $OUT/gpu_cache.json as each
run ends.

    OUT=/tmp/out python benchmarks/gpu_cache.py            # needs CUDA; prints SKIP and exits 0 without it
    python benchmarks/gpu_cache.py --device cpu --program tests/compile_cache/programs/cache_step.py   # smoke test

Checks (CHECK lines, benchmarks/gpu_common.py): the cold run counts misses and no hits, the warm run hits and no
misses and hits exactly where a plain warm run hits (torch's own counters, read by the differential harness's site
hook), `tdiag diff` names the config key and the input shape that changed, TORCHINDUCTOR_FORCE_DISABLE_CACHES=1
is reported as CCH001, and loading the mega-cache makes a fresh cache directory hit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "scripts"))
from gpu_common import check, exit_status, no_cuda_reason  # noqa: E402

PROGRAM = HERE / "gpu_programs" / "gpt2_cache_step.py"
SITE = REPO / "scripts" / "differential_harness" / "site"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--program", type=Path, default=PROGRAM,
                        help="the program (default: the GPT-2-like step); it reads CACHE_STEP_CONFIG, CACHE_STEP_BATCH")
    args = parser.parse_args()
    if args.device == "cuda":
        reason = no_cuda_reason()
        if reason:
            print(reason)
            return 0
    out = Path(os.environ.get("OUT") or tempfile.mkdtemp(prefix="gpu-cache-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gpu-cache-work-"))
    cache, fresh = work / "inductor-cache", work / "fresh-cache"
    results: dict[str, dict] = {}

    def step(name: str, tdiag: bool = True, cache_dir: Path = cache, **env: str) -> dict:
        record = work / name
        counters = work / f"{name}-counters"
        counters.mkdir()
        environment = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache_dir),
                       "DIFFERENTIAL_COUNTERS_DIR": str(counters),
                       "PYTHONPATH": os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]), **env}
        if args.device == "cpu":
            environment["CUDA_VISIBLE_DEVICES"] = ""
        program = str(args.program.resolve())
        command = ([sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(record), program] if tdiag
                   else [sys.executable, program])
        started = time.perf_counter()
        proc = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=work)
        result = {"wall_s": round(time.perf_counter() - started, 2), "exit_code": proc.returncode,
                  "torch_counters": _counters(counters), "stderr_tail": proc.stderr[-1500:] if proc.returncode else ""}
        if tdiag and proc.returncode == 0:
            # from the work folder: `python -m tdiag` from a checkout would import the source tree's tdiag/ first
            report = subprocess.run([sys.executable, "-m", "tdiag", "report", str(record), "--format", "json",
                                     "--no-code"], capture_output=True, text=True, cwd=work)
            if report.returncode != 0 or not report.stdout.strip():  # kept, not fatal: the other steps still run
                result["report_error"] = f"tdiag report exit {report.returncode}: {report.stderr[-2000:]}"
                print(f"{name}: tdiag report failed: {report.stderr[-2000:]}", flush=True)
                results[name] = result
                return result
            data = json.loads(report.stdout)
            result.update(compile_cache=data["summary"]["compile_cache"],
                          compile_time_s=data["summary"]["compile_time_s"],
                          findings=[f["code"] for f in data["findings"]], record=str(record))
        results[name] = result
        (out / "gpu_cache.json").write_text(json.dumps(results, indent=1))
        print(f"{name}: {json.dumps({k: v for k, v in result.items() if k != 'stderr_tail'})}", flush=True)
        return result

    cold = step("cold", MEGA_SAVE=str(work / "mega.bin"))
    warm = step("warm")
    plain = step("warm_plain", tdiag=False)
    config = step("config", CACHE_STEP_CONFIG="1")
    shape = step("shape", CACHE_STEP_BATCH="12")
    debug = step("caches_off", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    mega = step("mega_cold_start", cache_dir=fresh, MEGA_LOAD=str(work / "mega.bin"))

    cc = lambda r, cache_name, state: ((r.get("compile_cache") or {}).get(cache_name) or {}).get(state)  # noqa: E731
    check(cc(cold, "fx_graph", "miss") and cc(cold, "fx_graph", "hit") == 0, "cold run: FX graph misses, no hits")
    check(cc(warm, "fx_graph", "hit") and cc(warm, "fx_graph", "miss") == 0, "warm run: FX graph hits, no misses")
    check(cc(warm, "fx_graph", "hit") == plain["torch_counters"].get("inductor.fxgraph_cache_hit"),
          "warm run under tdiag hits where the plain warm run hits (torch's counters)")
    for name, expected in (("config", "max_autotune_pointwise"), ("shape", "shape")):
        diff = subprocess.run([sys.executable, "-m", "tdiag", "diff", warm.get("record", ""),
                               results[name].get("record", ""), "--format", "json"], capture_output=True, text=True,
                              cwd=work)
        causes = json.loads(diff.stdout or "{}").get("compile_cache", []) if diff.stdout else []
        words = [c["words"] for cause in causes for c in cause["changes"]]
        results[name]["diff_words"] = words
        check(any(expected in w for w in words), f"tdiag diff names the {name} change ({expected})")
    check("CCH001" in debug.get("findings", []), "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 reported as CCH001")
    check(bool(cc(mega, "fx_graph", "hit")), "mega-cache: a fresh cache directory hits after load_cache_artifacts")
    results["figures"] = {
        "cold_compile_s": cold.get("compile_time_s"), "warm_compile_s": warm.get("compile_time_s"),
        "config_changed_compile_s": config.get("compile_time_s"),
        "shape_changed_compile_s": shape.get("compile_time_s"),
        "caches_off_compile_s": debug.get("compile_time_s"),
        "mega_cache_cold_start_compile_s": mega.get("compile_time_s"),
        "warm_saved_s": (cold.get("compile_time_s") or 0) - (warm.get("compile_time_s") or 0),
        "mega_cache_saved_s": (cold.get("compile_time_s") or 0) - (mega.get("compile_time_s") or 0),
    }
    (out / "gpu_cache.json").write_text(json.dumps(results, indent=1))
    print("figures:", json.dumps(results["figures"]))
    shutil.rmtree(work, ignore_errors=True)
    return exit_status()


def _counters(directory: Path) -> dict:
    """torch's cache counters of the run, summed over its processes: the site hook writes one file per process that
    imported Dynamo, Inductor's compile workers included (their counters are empty), so no one file is the run's."""
    total: dict[str, int] = {}
    for path in directory.glob("*.json"):
        for key, value in json.loads(path.read_text()).get("compile_cache", {}).items():
            total[key] = total.get(key, 0) + value
    return total


if __name__ == "__main__":
    sys.exit(main())
