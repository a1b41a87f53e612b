"""DDP on two gloo ranks under `tdiag run --nproc-per-node 2`: the nothing-compiled headline and its fix verified by a
re-run, DDPOptimizer's bucket splits reported as expected splits, and a real break still a finding.

Expectations come from torch's own stream in the record (``dynamo_output_graph``, ``optimize_ddp_split_child``,
``dynamo_graph_break_reason`` events) and from the programs' parameter sizes worked out by hand.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import gloo_exit
from tdiag.analyzer import build
from tdiag.analyzer.suggestions.helpers.diff import apply_patch
from tdiag.reports.graph_facts import graph_facts

from tdiag.record import open_record

PROGRAMS = Path(__file__).parent / "programs"


def run_two_ranks(program: Path, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", str(out), str(program)]
    done = subprocess.run(cmd, cwd=program.parent, env={**env, **gloo_exit.ENV}, capture_output=True, text=True,
                          timeout=400)
    gloo_exit.assert_job_exited_cleanly(done, out)
    assert [f.header["rank"] for f in open_record(out)] == [0, 1]
    return done


def torch_events(out: Path, name: str) -> Counter:
    """rank -> how many events of this name torch itself emitted (every rank listed, 0 included)."""
    counts: Counter = Counter()
    for rf in open_record(out):
        counts[rf.header["rank"]] += sum(1 for ev in rf.events() if ev["type"] == "torch" and ev["name"] == name)
    return counts


def test_compiled_ddp_container_runs_eagerly_and_the_fix_compiles(tmp_path, session_env):
    done = run_two_ranks(PROGRAMS / "ddp_container.py", tmp_path / "run", session_env)
    # torch's own accounting: Dynamo started frames, but produced no graph on either rank
    assert torch_events(tmp_path / "run", "dynamo_start")[0] > 0
    assert dict(torch_events(tmp_path / "run", "dynamo_output_graph")) == {0: 0, 1: 0}
    a = build(tmp_path / "run")
    headline = a.findings[0]
    assert (headline.code, headline.severity) == ("DST002", "error")
    assert (headline.path, headline.line) == ("ddp_container.py", 14)  # the user's call of the compiled model
    assert set(headline.ranks) == {0, 1}
    assert headline.evidence.wrapper == "DistributedDataParallel"
    assert headline.evidence.compile_line == "ddp_container.py:10"
    assert "DST002" in done.stderr.split("what torch.compile did", 1)[1]
    # the offered patch, applied to the program, compiles graphs on both ranks and clears the headline
    patch = headline.suggestion.patch
    assert "+model = DDP(torch.compile(net, backend=\"aot_eager\"))" in patch
    fixed = tmp_path / "fixed" / "ddp_container.py"
    fixed.parent.mkdir()
    fixed.write_text(apply_patch((PROGRAMS / "ddp_container.py").read_text(), patch))
    run_two_ranks(fixed, tmp_path / "run-fixed", session_env)
    fixed_graphs = torch_events(tmp_path / "run-fixed", "dynamo_output_graph")
    assert set(fixed_graphs) == {0, 1} and all(n > 0 for n in fixed_graphs.values())
    after = build(tmp_path / "run-fixed")
    assert after.summary.graphs >= 2 and not [f for f in after.findings if f.code == "DST002"]


def test_bucket_splits_are_expected_and_the_real_break_is_a_finding(tmp_path, session_env):
    run_two_ranks(PROGRAMS / "ddp_buckets.py", tmp_path / "run", session_env)
    a = build(tmp_path / "run")
    splits = [f for f in a.findings if f.code == "DST001"]
    # one expected-split finding per compiled piece of Net.forward, on both ranks
    assert splits and all(f.severity == "info" and f.by_design and set(f.ranks) == {0, 1} for f in splits)
    # each subgraph torch emitted is one bucket; each 512x512 Linear (1.0 MiB with its bias) fills a 1 MiB bucket
    children = torch_events(tmp_path / "run", "optimize_ddp_split_child")
    graphs = [g for g in a.graphs if g.ddp_buckets]
    assert {r: sum(len(g.ddp_buckets) for g in graphs if g.rank == r) for r in (0, 1)} == dict(children)
    buckets = {tuple(b.params) for g in graphs for b in g.ddp_buckets}
    assert buckets == {(f"layers.{i}.weight", f"layers.{i}.bias") for i in range(4)}
    assert all(b.bytes == (512 * 512 + 512) * 4 for g in graphs for b in g.ddp_buckets)
    assert any("submod_0: layers.0.weight, layers.0.bias (1.0 MiB)" in s for f in splits for s in f.evidence.buckets)
    # DDP's own breaks (its logger call, its context managers) are attributed to the wrapping at the user's call line
    call_line = next(i for i, t in enumerate((PROGRAMS / "ddp_buckets.py").read_text().splitlines(), 1) if "model(" in t)
    assert all(f"at ddp_buckets.py:{call_line}) are in DDP's own forward" in f.message for f in splits)
    # the splits are not graph breaks: the breaks are exactly torch's break artifacts
    assert len(a.breaks) == sum(torch_events(tmp_path / "run", "artifact:dynamo_graph_break_reason").values())
    real = [f for f in a.findings if f.code == "BRK001"]
    assert [(f.path, f.line) for f in real] == [("ddp_buckets.py", 18)] and set(real[0].ranks) == {0, 1}
    assert not [f for f in a.findings if f.code == "DST002"]
    # every graph view (HTML graph section, TUI graph screen) lists the buckets of a split graph
    (label, text), = graph_facts(graphs[0])
    assert label == "DDP buckets" and text.startswith(f"{len(graphs[0].ddp_buckets)} subgraphs (expected splits")


def test_fsdp2_hook_breaks_are_attributed_to_the_wrapping(tmp_path, session_env):
    program = PROGRAMS / "fsdp2_loop.py"
    lines = program.read_text().splitlines()
    call_line = next(i for i, text in enumerate(lines, 1) if "# CALL LINE" in text)
    sharded_call = next(i for i, text in enumerate(lines, 1) if "# SHARDED CALL" in text)
    run_two_ranks(program, tmp_path / "run", session_env)
    assert dict(torch_events(tmp_path / "run", "dynamo_output_graph")) == {0: 0, 1: 0}  # torch: no graph, either rank
    a = build(tmp_path / "run")
    headline = a.findings[0]
    assert (headline.code, headline.path, headline.line) == ("DST002", "fsdp2_loop.py", call_line)
    assert headline.evidence.wrapper == "fully_shard (FSDP2)"
    assert f"FSDP-sharded module at fsdp2_loop.py:{sharded_call}" in headline.message
    assert "skipping FSDP hooks" in headline.message and "before sharding it" in headline.fix
    # the break itself stays a finding on the user's line, with FSDP's frame as the library location
    skipped = next(f for f in a.findings if f.code == "BRK006")
    assert skipped.line == sharded_call and "distributed/fsdp/" in skipped.library_frame.path
    # the fix the finding names, applied (FIX=1: compile each layer, then shard it), compiles on both ranks
    run_two_ranks(program, tmp_path / "fixed", {**session_env, "FIX": "1"})
    fixed_graphs = torch_events(tmp_path / "fixed", "dynamo_output_graph")
    assert set(fixed_graphs) == {0, 1} and all(n > 0 for n in fixed_graphs.values())
    assert not [f for f in build(tmp_path / "fixed").findings if f.code == "DST002"]
