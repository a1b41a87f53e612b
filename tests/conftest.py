"""Shared fixtures: real `tdiag run` subprocesses over the fixture programs, one compile cache per session."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tdiag_testing import RecordedRuns, once_per_session, shared_dir


@pytest.fixture(scope="session")
def session_env(tmp_path_factory) -> dict[str, str]:
    """Environment for child processes: one Inductor cache per session, no user TORCH_* settings leaking in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    # one Inductor cache for the whole session, shared by the xdist workers: a kernel compiled by one is a cache hit
    # for the other (Inductor's cache is written atomically, safe across processes). scripts/test names a cache kept
    # between test runs (TDIAG_TEST_COMPILE_CACHE, under ~/.cache): torch keys every entry by its inputs (the graph,
    # torch's version, the config), so a kept entry is what a fresh compile would make, and a test that needs a cold
    # compile makes its own cache (tests/compiler/conftest.py)
    kept = os.environ.get("TDIAG_TEST_COMPILE_CACHE")
    cache = Path(kept) if kept else shared_dir(tmp_path_factory, "inductor-cache")
    cache.mkdir(parents=True, exist_ok=True)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    env["TRITON_CACHE_DIR"] = str(cache / "triton")
    env["PYTHONUNBUFFERED"] = "1"
    # Each fixture program's folder stands for a user's project of its own: git's search for the repository (which
    # `tdiag run` takes as the root of every path, tdiag/project_root.py) stops below this checkout, so the suite's
    # paths read `prog.py`, not `tests/programs/prog.py`. tests/integration/test_project_root.py runs without it.
    env["GIT_CEILING_DIRECTORIES"] = str(Path(__file__).resolve().parent.parent)
    return env


@pytest.fixture(scope="session")
def recorded(tmp_path_factory, session_env) -> RecordedRuns:
    return RecordedRuns(shared_dir(tmp_path_factory, "runs"), session_env)


@pytest.fixture(scope="session")
def torch_account(tmp_path_factory, session_env):
    """``torch_account(program, *args)``: torch's own account (tests/oracle.py) of the program run once per session
    under plain python with TORCH_TRACE, shared by the modules and the xdist workers; its logs are ``.trace_dir``,
    read only."""
    from oracle import read_account, run_traced
    from oracle_cache import kept_run

    folder = shared_dir(tmp_path_factory, "torch-trace")

    def get(program: Path, *args: str):
        key = "-".join([program.parent.name, program.stem, *args])

        def make(trace_dir: Path) -> dict:
            # A cache of the plain runs' own: a plain run and a run under tdiag share cache keys (issue 42), and an
            # entry a plain run compiled has no provenance handles, which the kernel tests of the tdiag runs need.
            plain_cache = Path(session_env["TORCHINDUCTOR_CACHE_DIR"]) / "plain-runs"
            env = {**session_env, "TORCHINDUCTOR_CACHE_DIR": str(plain_cache)}
            proc = kept_run(run_traced, program, env, trace_dir, args)
            return {"stdout": proc.stdout, "stderr": proc.stderr, "returncode": proc.returncode}

        result = once_per_session(folder, key, make)
        acc = read_account(folder / key, result["stdout"], result["returncode"])
        acc.stderr, acc.trace_dir = result["stderr"], folder / key
        return acc

    return get


HOT_LOOP = os.path.join(os.path.dirname(__file__), "runtime", "programs", "hot_loop_break.py")


@pytest.fixture(scope="session")
def hot_loop_record(tmp_path_factory, session_env):
    """A measured record (one real `tdiag run` per test session) of tests/runtime/programs/hot_loop_break.py: a break
    called 50 times a step in `hot` (line 22) and once in `once` (line 15), shared by the TUI and HTML cost tests."""
    from tdiag_testing import run_tdiag

    def make(out):
        proc = run_tdiag(["run", "--no-tui", "-q", "-o", str(out), HOT_LOOP, "30"], session_env)
        return {"returncode": proc.returncode, "stderr": proc.stderr}

    folder = shared_dir(tmp_path_factory, "cost")
    result = once_per_session(folder, "run", make)
    assert result["returncode"] == 0, result["stderr"]
    return folder / "run"


@pytest.fixture(scope="session")
def hot_loop_analysis(hot_loop_record):
    """The Analysis of ``hot_loop_record``, its runtime window measured."""
    from tdiag.analyzer import build

    analysis = build(hot_loop_record)
    assert analysis.summary.runtime.status == "measured"
    return analysis


@pytest.fixture(scope="session")
def torch_bug_record(tmp_path_factory, session_env) -> Path:
    """The record (one real `tdiag run` per session) of tests/crash/programs/torch_internal_error.py: valid code
    that torch.compile fails on inside torch (InternalTorchDynamoError), so the program stops with exit 1."""
    from tdiag_testing import TESTS, run_tdiag

    def make(out: Path) -> dict:
        proc = run_tdiag(["run", "--no-tui", "-q", "-o", str(out), "torch_internal_error.py"], session_env,
                         cwd=TESTS / "crash" / "programs")
        return {"returncode": proc.returncode, "stderr": proc.stderr}

    folder = shared_dir(tmp_path_factory, "torch-bug")
    result = once_per_session(folder, "run", make)
    assert result["returncode"] == 1, result["stderr"][-2000:]
    return folder / "run"


# Session fixtures made once per session by whichever worker asks first (once_per_session): their modules share one
# xdist group, so one worker makes each and its tests read it, instead of the other worker idling on the lock.
SHARED_RUN_GROUPS = {
    "mlp": "kernel-runs", "mlp_warm": "kernel-runs", "vit": "kernel-runs", "mixer": "kernel-runs",
    "timed": "kernel-runs", "train_runs": "compiler-runs", "lint_records": "lint-records",
}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup`` (scripts/test), the tests of a module that share a module-scoped fixture (a real
    run, a browser) go to one worker, so the fixture is built once instead of once per worker; the modules that read
    one of SHARED_RUN_GROUPS go, whole, to that group's worker."""
    shared = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        for name in (info.names_closure if info else ()):
            if name in SHARED_RUN_GROUPS:
                shared.setdefault(item.nodeid.split("::")[0], SHARED_RUN_GROUPS[name])
    for item in items:
        module = item.nodeid.split("::")[0]
        info = getattr(item, "_fixtureinfo", None)
        if module in shared:
            item.add_marker(pytest.mark.xdist_group(shared[module]))
        elif info is not None and any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(module))


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots kept for a human (and CI upload); the folder is gitignored."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser():
    """Debian's headless chromium driven by playwright (the HTML report, the notebook export, the kernel tables).
    Module scope, not session: playwright's sync API keeps an asyncio loop marked as running on this thread while it
    lives, which would break every later test in the same worker that starts its own loop (the TUI's)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
