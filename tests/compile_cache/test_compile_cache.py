"""Compile caches explained (issue 42), on real Inductor on the CPU: one tiny training step run cold, warm, with an
Inductor config key changed and with another batch size, against one private cache directory. The runs are made
once for the module (Inductor on CPU pays g++ per kernel) and every test reads them.

The oracle is torch's own accounting from a plain run (``python cache_step.py``, no tdiag): the counters
``inductor.fxgraph_cache_hit`` / ``_miss`` the differential harness reads at exit (scripts/differential_harness).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from differential_testing import MODES, PLAIN, run  # noqa: E402, I001  (puts the harness on the path)
from differential_harness.corpus import Program  # noqa: E402  # isort: skip

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = [pytest.mark.inductor, pytest.mark.slow]
PROGRAM = Program(Path(__file__).parent / "programs" / "cache_step.py", inductor=True, timeout=600)
CONFIG_LINE = 14  # `torch._inductor.config.max_autotune_pointwise = True` in cache_step.py


@contextmanager
def environ(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (Outcome, record): cold, warm (tdiag run), warm_plain (python, no record), config, shape, and
    fx_cache_off (TORCHINDUCTOR_FX_GRAPH_CACHE=0: the compiled kernels' own cache stays warm, so it costs little)."""
    work = tmp_path_factory.mktemp("compile-cache")
    cache = work / "inductor-cache"  # private: nothing else in the session has filled it
    out = {}

    def go(name, mode, **env):
        with environ(TORCHINDUCTOR_CACHE_DIR=str(cache), **env):
            outcome = run(PROGRAM, mode, False, work, cache)
        assert outcome.exit_code == 0 and not outcome.timed_out, f"{name}: {outcome.stderr_tail}"
        records = sorted(work.glob(f"{PROGRAM.name}-{outcome.mode}-*/record"), key=lambda p: p.stat().st_mtime)
        out[name] = (outcome, records[-1] if mode is not PLAIN else None)  # the run just made is the newest

    go("cold", MODES["run"])
    go("warm", MODES["run"])
    go("warm_plain", PLAIN)
    go("config", MODES["run"], CACHE_STEP_CONFIG="1")
    go("shape", MODES["run"], CACHE_STEP_BATCH="6")
    go("fx_cache_off", MODES["run"], TORCHINDUCTOR_FX_GRAPH_CACHE="0")
    go("deep", MODES["deep"])
    return out


@pytest.fixture(scope="module")
def analyses(runs):
    from tdiag.analyzer import build

    return {name: build(record) for name, (_, record) in runs.items() if record is not None}


def _torch_counts(outcome) -> dict[str, int]:
    (counters,) = outcome.counters.values()
    return counters.get("compile_cache", {})


def test_cold_run_counts_misses_and_no_hits(analyses, runs):
    cc = analyses["cold"].summary.compile_cache
    assert cc.recorded
    assert cc.fx_graph.hit == 0 and cc.aot_autograd.hit == 0
    # torch's own count in that process: one FX lookup per graph (forward, backward), one AOTAutograd lookup
    torch_counts = _torch_counts(runs["cold"][0])
    assert cc.fx_graph.miss == torch_counts["inductor.fxgraph_cache_miss"] >= 2
    assert cc.aot_autograd.miss == torch_counts["aot_autograd.autograd_cache_miss"] >= 1
    assert cc.seconds_missed > 0 and cc.seconds_saved == 0
    roles = sorted(o.role for g in analyses["cold"].graphs for o in g.cache_outcomes if o.cache == "fx_graph")
    assert roles == ["backward", "forward"]


def test_warm_run_under_tdiag_hits_where_a_plain_warm_run_hits(analyses, runs):
    from tdiag.analyzer.diff import diff
    from tdiag.reports.diff_text import cache_lines

    cc = analyses["warm"].summary.compile_cache
    assert cc.fx_graph.miss == 0, "\n".join(cache_lines(diff(analyses["cold"], analyses["warm"]).cache))
    plain = _torch_counts(runs["warm_plain"][0])
    assert plain.get("inductor.fxgraph_cache_hit", 0) >= 2 and plain.get("inductor.fxgraph_cache_miss", 0) == 0
    assert (cc.fx_graph.hit, cc.fx_graph.miss) == (plain["inductor.fxgraph_cache_hit"], 0)
    assert (cc.aot_autograd.hit, cc.aot_autograd.miss) == (plain.get("aot_autograd.autograd_cache_hit", 0), 0)
    assert _torch_counts(runs["warm"][0]) == plain  # the same lookups, the same outcomes, with and without tdiag
    assert cc.seconds_saved > 0


def test_diff_names_the_config_key_that_changed_with_both_values_and_the_line(analyses):
    from tdiag.analyzer.diff import diff

    result = diff(analyses["warm"], analyses["config"])
    assert {c.role for c in result.cache} == {"forward", "backward"}
    for cause in result.cache:
        assert (cause.base_state, cause.new_state) == ("hit", "miss")
        config = [c for c in cause.changes if c.kind == "config"]
        assert [c.component for c in config] == ["inductor_config[max_autotune_pointwise]"], cause.changes
        assert (config[0].base, config[0].new) == ("False", "True")
        assert config[0].site is not None and config[0].site.endswith(f"cache_step.py:{CONFIG_LINE}")
        assert not [c for c in cause.changes if c.kind in ("input", "code", "version")]
    assert analyses["config"].summary.compile_cache.fx_graph.hit == 0


def test_diff_names_the_input_shape_that_changed(analyses):
    from tdiag.analyzer.diff import diff
    from tdiag.reports.diff_text import cache_lines

    result = diff(analyses["warm"], analyses["shape"])
    forward = next(c for c in result.cache if c.role == "forward")
    inputs = [c for c in forward.changes if c.kind == "input"]
    assert inputs and all(c.base == "[4, 8]" and c.new == "[6, 8]" for c in inputs), forward.changes
    assert not [c for c in forward.changes if c.kind == "config"]
    assert "shape [4, 8] -> [6, 8]" in "\n".join(cache_lines(result.cache))


def test_console_summary_leads_with_the_cache_outcome(analyses):
    from tdiag.reports.console import plain_lines, summary_lines

    text = "\n".join(plain_lines(summary_lines(analyses["warm"], None, 200), 200))
    first = text.splitlines()[:4]
    assert any(line.startswith("compile cache: FX graph 2 hit, 0 miss, 0 bypass") for line in first), first


def test_a_record_without_cache_events_says_so_never_zero_misses(runs):
    from tdiag.analyzer import build, events
    from tdiag.reports.cache_text import cache_line

    from tdiag import torch_events as te

    log = events.load(runs["cold"][1])
    log.torch = [ev for ev in log.torch if ev.name not in te.CACHE_RESULTS]  # as an older torch would record it
    a = build(log)
    cc = a.summary.compile_cache
    assert not cc.recorded and cc.fx_graph is None and cc.aot_autograd is None
    assert cache_line(a.summary) == "compile cache: no cache events recorded"
    assert a.to_dict(include_code=False)["summary"]["compile_cache"]["fx_graph"] is None


def test_damaged_key_components_are_reported_unreadable_and_the_rest_stands(analyses):
    from tdiag.analyzer.diff import diff

    new = analyses["config"]
    backward = next(o for g in new.graphs for o in g.cache_outcomes if o.role == "backward")
    saved = dict.__getitem__(new.code, backward.components_ref)
    new.code[backward.components_ref] = '{"components": ["[abc'  # a record cut mid-payload
    try:
        causes = {c.role: c for c in diff(analyses["warm"], new).cache}
    finally:
        new.code[backward.components_ref] = saved
    assert [c.kind for c in causes["backward"].changes] == ["unreadable"]
    assert "unreadable" in causes["backward"].changes[0].words
    assert [c.component for c in causes["forward"].changes if c.kind == "config"] == \
        ["inductor_config[max_autotune_pointwise]"]


def test_a_cache_turned_off_by_the_environment_is_a_finding_not_zero_misses(analyses, runs):
    a = analyses["fx_cache_off"]
    cc = a.summary.compile_cache
    assert "TORCHINDUCTOR_FX_GRAPH_CACHE=0 turns the FX graph cache off" in cc.disabled
    assert _torch_counts(runs["fx_cache_off"][0]).get("inductor.fxgraph_cache_miss", 0) == 0  # torch looked nothing up
    assert cc.fx_graph is None or (cc.fx_graph.hit, cc.fx_graph.miss) == (0, 0)
    (finding,) = [f for f in a.findings if f.code == "CCH001"]
    assert "TORCHINDUCTOR_FX_GRAPH_CACHE=0" in finding.message and "every run" in finding.message
    assert finding.evidence.seconds > 0
    # an environment switch has no file to patch: the fix names the variable to unset (CCH001's cache_switch kind)
    assert finding.suggestion.patch is None
    assert finding.suggestion.title == "Unset TORCHINDUCTOR_FX_GRAPH_CACHE in the job's environment"
    states = {o.state for g in a.graphs for o in g.cache_outcomes if o.cache == "fx_graph"}
    assert states == {"disabled"}


def test_deep_says_it_bypasses_the_caches(analyses):
    a = analyses["deep"]
    bypasses = [o for g in a.graphs for o in g.cache_outcomes if o.state == "bypass"]
    assert bypasses and a.summary.compile_cache.fx_graph.hit == 0
    assert all(o.words.startswith("tdiag run --deep installs a fusion pass") for o in bypasses), bypasses
    findings = [f for f in a.findings if f.code == "CCH002"]
    assert findings and all("without --deep" in f.fix for f in findings)


def test_a_rank_that_missed_a_key_another_rank_hit(runs, tmp_path):
    """The cold and the warm run's rank files as the two ranks of one job (rank 0 started on an empty cache, rank 1
    on a warm one, as with a node-local cache directory): the same keys, rank 0 missed what rank 1 hit."""
    import json

    from tdiag.analyzer import build

    for rank, name in enumerate(("cold", "warm")):
        lines = (runs[name][1] / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        header = json.loads(lines[0])
        header.update(rank=rank, host=f"node-{rank}")
        (tmp_path / f"events.rank{rank}.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]),
                                                          encoding="utf-8")
    a = build(tmp_path)
    (finding,) = [f for f in a.findings if f.code == "CCH004"]
    assert finding.message.startswith("rank(s) 0 missed 2 FX graph cache lookup(s) that another rank hit")
    assert {k.rank for k in finding.graph_keys} == {0}


def test_tdiag_run_explains_its_misses_against_the_baseline(analyses, runs):
    import io
    from types import SimpleNamespace

    from tdiag.commands._cache_baseline import explain_against_baseline

    out = io.StringIO()
    explain_against_baseline(SimpleNamespace(baseline=str(runs["warm"][1])), runs["shape"][1], analyses["shape"], out)
    text = out.getvalue()
    assert text.startswith(f"compared with {runs['warm'][1]}:") and "hit -> miss" in text
    assert "input 2: shape [4, 8] -> [6, 8]" in text
    quiet = io.StringIO()  # a run that hit everywhere has nothing to explain
    explain_against_baseline(SimpleNamespace(baseline=str(runs["cold"][1])), runs["warm"][1], analyses["warm"], quiet)
    assert quiet.getvalue() == ""
