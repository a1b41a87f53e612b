"""The differential harness (scripts/differential_harness) for the tests of this directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "scripts") not in sys.path:
    sys.path.insert(0, str(REPO / "scripts"))

from differential_harness.compare import compare  # noqa: E402
from differential_harness.corpus import PROGRAMS, corpus, load  # noqa: E402
from differential_harness.execute import Outcome, environment, run  # noqa: E402
from differential_harness.modes import MODES, PLAIN, PLAIN_TRACED  # noqa: E402

__all__ = ["MODES", "PLAIN", "PROGRAMS", "Outcome", "compare", "corpus", "differences", "load", "run"]


def differences(name: str, modes: list[str], work: Path, cache: Path, nested: bool = False) -> dict[str, list[str]]:
    """Run ``name`` plainly and under each of ``modes``; mode -> what differed from the plain run (empty: nothing)."""
    program = load(PROGRAMS / f"{name}.py")
    plain = _plain(program, PLAIN, nested, work, cache)
    assert not plain.timed_out and plain.counters, f"{name}: the plain run compiled nothing: {plain.stderr_tail}"
    found, traced = {}, None
    for mode in modes:
        outcome = run(program, MODES[mode], nested, work, cache)
        verdict = compare(plain, outcome)
        if verdict.needs_traced:
            traced = traced or _plain(program, PLAIN_TRACED, nested, work, cache)
            verdict = compare(plain, outcome, traced)
        found[mode] = verdict.differences
    return found


def _plain(program, mode, nested: bool, work: Path, cache: Path) -> Outcome:
    """A plain run's outcome (no tdiag in it), kept between test runs by tests/oracle_cache.py under the key of
    everything it depends on: the corpus folder, the site hook on the path, the installed packages, the environment.
    An Inductor program stays live: its counters depend on the compile cache's state, which the key does not hold."""
    if program.inductor:
        return run(program, mode, nested, work, cache)
    from oracle_cache import kept_run

    def harness(_path, _env, _trace_dir, _args, _timeout) -> subprocess.CompletedProcess:
        outcome = run(program, mode, nested, work, cache)
        if outcome.timed_out:  # raised, so never kept
            raise subprocess.TimeoutExpired(mode.command(program, work), program.timeout, outcome.stdout)
        return subprocess.CompletedProcess(mode.name, 0, json.dumps(outcome.__dict__), "")

    # the run's environment with its per-run folders named alike (counters and cache live in fresh temporary folders)
    key_env = environment(dict(os.environ), Path("counters"), nested, Path("compile-cache"))
    done = kept_run(harness, program.path, key_env, None, (mode.name,), program.timeout)
    return Outcome(**json.loads(done.stdout))
