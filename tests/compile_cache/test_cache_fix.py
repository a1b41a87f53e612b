"""A cache fix through the loop a user runs (issue 42): `tdiag run` a program that turned the FX graph cache off,
then `tdiag fix REC --verify --apply`: CCH001's patch removes the line, the round is measured on warm runs (each
side fills a fresh cache, then runs again) and kept because the warm run after it hits the cache and compiles less.

The oracle is torch's own structured trace from plain runs (no tdiag) of the patched file, twice against one fresh
TORCHINDUCTOR_CACHE_DIR: the second run logs FX graph cache hits.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fix._project import make_project
from oracle import cache_results, run_traced

pytestmark = [pytest.mark.inductor, pytest.mark.slow]  # seven Inductor runs under tdiag, two plain: minutes on 2 cores
PROGRAM = Path(__file__).parent / "programs" / "cache_off.py"
LINE = "torch._inductor.config.fx_graph_cache = False"


def test_fix_verify_keeps_the_cache_switch_removal_measured_on_a_warm_run(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAM, session_env)
    original = (project.root / PROGRAM.name).read_text()
    proc = project.fix("--verify", "--apply")  # --repeat 2: each side its fastest of two warm runs
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    saved = json.loads((project.record / "fix" / "verification.json").read_text())
    (patch,) = [p for p in saved["patches"] if "CCH001" in p["codes"]]
    assert f"-{LINE}" in patch["patch"].splitlines()
    assert [k["id"] for k in saved["kept"]] == [patch["id"]], saved["round_outcomes"]
    (result,) = saved["verification"]
    cache = result["cache"]
    assert result["ok"] and result["pays"] and result["kept"], result["problems"]
    assert result["stdout_identical"] and result["before"]["exit_code"] == result["after"]["exit_code"] == 0
    # the warm runs: no FX graph cache lookup at all before (the switch), hits after
    assert cache["before"]["fx_hits"] == 0 and cache["after"]["fx_hits"] > 0
    before_s, after_s = cache["before"]["warm_compile_s"], cache["after"]["warm_compile_s"]
    assert before_s - after_s > max(0.1 * before_s, 0.1), cache["judged"]
    assert result["before"]["compile_time_s"] == before_s and result["after"]["compile_time_s"] == after_s

    # the verdict line on the terminal says the warm-start compile seconds before and after
    verdict = re.search(r"round 1: all patches: better: warm start: ([\d.]+)s compiling before, ([\d.]+)s after",
                        proc.stdout)
    assert verdict, proc.stdout[-3000:]
    assert (float(verdict[1]), float(verdict[2])) == (round(before_s, 1), round(after_s, 1))
    print(f"warm-start compile seconds: {before_s:.2f} s -> {after_s:.2f} s")

    # --apply wrote it: the line is gone, nothing else changed
    patched = (project.root / PROGRAM.name).read_text()
    assert LINE not in patched
    assert patched == original.replace(f"\n{LINE}\n", "")  # the line and one of the blank lines around it

    # torch's own account, without tdiag: the patched program, run twice against one fresh cache, hits on the second
    cache = tmp_path / "plain-cache"
    env = {**session_env, "TORCHINDUCTOR_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(cache / "triton")}
    for run in ("populate", "warm"):
        done = run_traced(project.root / PROGRAM.name, env, tmp_path / f"trace-{run}")
        assert done.returncode == 0 and done.stdout == project.run_stdout, done.stderr[-2000:]
    warm = cache_results(tmp_path / "trace-warm")
    assert warm.get("fx_graph_cache_hit", 0) > 0 and not warm.get("fx_graph_cache_miss"), warm
