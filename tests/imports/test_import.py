"""`tdiag import` on real TORCH_TRACE logs: agreement with `tdiag run`, ranks, damaged and mixed inputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.tracer.trace_import import import_logs, plan_import

from tdiag.errors import TdiagError

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
TLPARSE_HEAD = HERE / "data" / "tlparse_simple_corrupted_json_head.log"


def do_import(trace: Path, out: Path, source_root: Path | None = None):
    import_logs(plan_import(trace), out, source_root)
    return build(out)


def tdiag(*args: str, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def said(a) -> list[str]:
    """Notes and record problems together: damage is reported as a note marked ``problem`` in the record."""
    return a.run.notes + a.run.record_problems


def breaks_of(a):
    return [(b.site.path, b.site.line, b.gb_id, b.compile_id, b.reason) for b in a.breaks]


def recompiles_of(a):
    return [(r.compile_id, r.path, r.line, [f.text for f in r.failures]) for r in a.recompiles]


def test_import_agrees_with_tdiag_run(real_trace_log, recorded_run, tmp_path):
    imported = do_import(real_trace_log, tmp_path / "imported", source_root=PROGRAMS)
    ran = build(recorded_run)
    assert breaks_of(imported) == breaks_of(ran)
    assert [b[:3] for b in breaks_of(imported)] == [
        ("breaks_and_recompile.py", 8, "GB0170"), ("breaks_and_recompile.py", 10, "GB0059"),
        ("breaks_and_recompile.py", 8, "GB0170"), ("breaks_and_recompile.py", 10, "GB0059"),
    ]
    assert recompiles_of(imported) == recompiles_of(ran) and len(imported.recompiles) == 3
    assert [(g.compile_id, g.status, g.op_count) for g in imported.graphs] == [(g.compile_id, g.status, g.op_count) for g in ran.graphs]
    codes = lambda a: sorted((f.code, f.path, f.line, f.occurrences) for f in a.findings if f.family in ("BRK", "RCP"))
    assert codes(imported) == codes(ran)
    assert imported.run.source == "tdiag import" and imported.run.torch_version == ran.run.torch_version
    assert "breaks_and_recompile.py" in imported.sources  # taken from disk under --source-root only
    assert imported.run.complete and imported.run.exit_code is None
    assert any("exit status" in n for n in imported.run.notes)


def test_without_source_root_no_source_is_read(real_trace_log, tmp_path):
    a = do_import(real_trace_log, tmp_path / "imported")
    assert a.sources == {}
    assert any("--source-root" in n for n in a.run.notes)
    assert a.breaks[0].site.path.endswith("tests/imports/programs/breaks_and_recompile.py")


def test_cli_import_then_report_json(real_trace_log, tmp_path):
    out = tmp_path / "rec"
    done = tdiag("import", str(real_trace_log.parent), "-o", str(out), "-q")
    assert done.returncode == 0, done.stderr
    assert "imported" in done.stderr and (out / "events.jsonl").exists()
    report = tdiag("report", str(out), "--format", "json", "--no-code")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["run"]["source"] == "tdiag import" and data["summary"]["graph_breaks"] == 4


def test_tlparse_log_imports_with_its_damage_reported(tmp_path):
    a = do_import(TLPARSE_HEAD, tmp_path / "rec")
    assert a.run.ranks == [] and a.run.torch_version is None  # this excerpt predates the torch_version artifact
    # The excerpt stops inside compile 0/0: the record says it was cut short rather than pretend it ended.
    assert not a.run.complete
    assert any("md5" in n for n in said(a)) and any("inside compile 0/0" in n for n in said(a))


def rank_dir(tmp_path: Path, *logs: tuple[str, str]) -> Path:
    d = tmp_path / "trace"
    d.mkdir()
    for name, text in logs:
        (d / name).write_text(text)
    return d


def test_ranks_merge_with_per_rank_counts(real_trace_log, tmp_path):
    text = real_trace_log.read_text()
    trace = rank_dir(tmp_path, ("dedicated_log_torch_trace_rank_0_a.log", text), ("dedicated_log_torch_trace_rank_1_b.log", text))
    a = do_import(trace, tmp_path / "rec", source_root=PROGRAMS)
    assert a.run.ranks == [0, 1] and a.run.incomplete_ranks == [] and a.run.complete
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["events.rank0.jsonl", "events.rank1.jsonl"]
    brk001 = next(f for f in a.findings if f.code == "BRK001")
    assert brk001.ranks == {0: 2, 1: 2} and brk001.occurrences == 4
    # compile ids repeat on every rank: each rank's graphs keep their own guards and recompile counts
    assert len(a.graphs) == 12 and all(g.guards for g in a.graphs if g.status == "ok")
    assert sorted(f.recompiles for f in a.frames) == [1, 1, 1, 1, 1, 1]
    assert not [f for f in a.findings if f.code == "DIV001"]


def test_truncated_rank_is_incomplete_and_the_others_are_analysed(real_trace_log, tmp_path):
    text = real_trace_log.read_text()
    cut = text.index('"artifact": {"name": "recompile_reasons"')  # rank 1 died in the middle of its run
    trace = rank_dir(
        tmp_path, ("dedicated_log_torch_trace_rank_0_a.log", text), ("dedicated_log_torch_trace_rank_1_b.log", text[: cut + 30])
    )
    a = do_import(trace, tmp_path / "rec")
    assert a.run.ranks == [0, 1] and a.run.incomplete_ranks == [1]
    assert [b.rank for b in a.breaks].count(0) == 4
    assert any("cut short" in n for n in said(a))
    div = [f for f in a.findings if f.code == "DIV001"]
    assert div and all("incomplete" in f.message for f in div)


def test_rank_that_never_compiled_is_named(real_trace_log, tmp_path):
    text = real_trace_log.read_text()
    head = text[: text.index("\nV", text.index("torch_version")) + 1]  # only the torch_version artifact
    trace = rank_dir(tmp_path, ("dedicated_log_torch_trace_rank_0_a.log", text), ("dedicated_log_torch_trace_rank_1_b.log", head))
    a = do_import(trace, tmp_path / "rec")
    assert a.run.incomplete_ranks == []
    assert any(n.startswith("rank 1 never compiled") for n in a.run.notes)
    count = next(f for f in a.findings if f.code == "DIV001" and f.severity == "error")
    assert "rank 0: 6, rank 1: 0" in count.message


def test_logs_of_two_runs_are_refused(real_trace_log, tmp_path):
    text = real_trace_log.read_text()
    trace = rank_dir(tmp_path, ("dedicated_log_torch_trace_rank_0_a.log", text), ("dedicated_log_torch_trace_rank_0_b.log", text))
    with pytest.raises(TdiagError, match="more than one run"):
        plan_import(trace)
    done = tdiag("import", str(trace), "-o", str(tmp_path / "rec"))
    assert done.returncode == 2
    assert "more than one run" in done.stderr and "rank 0: dedicated_log_torch_trace_rank_0_a.log" in done.stderr
    assert not (tmp_path / "rec").exists()


def test_rankless_log_next_to_rank_logs_is_skipped_with_a_note(real_trace_log, tmp_path):
    text = real_trace_log.read_text()
    trace = rank_dir(tmp_path, ("dedicated_log_torch_trace_rank_0_a.log", text), ("dedicated_log_torch_trace_zz.log", text))
    a = do_import(trace, tmp_path / "rec")
    assert a.run.ranks == [0]
    assert any("names no rank" in n for n in a.run.notes)


def test_missing_and_empty_inputs_are_usage_errors(tmp_path):
    assert tdiag("import", str(tmp_path / "nope")).returncode == 2
    done = tdiag("import", str(tmp_path))
    assert done.returncode == 2 and "no TORCH_TRACE logs" in done.stderr
