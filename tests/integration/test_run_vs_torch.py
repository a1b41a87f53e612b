"""`tdiag run` agrees with torch's own accounting on every fixture program (the structured trace torch itself
writes under TORCH_TRACE, and torch._dynamo.explain for single calls)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag_testing import PROGRAMS, RecordedRuns, once_per_session, shared_dir

# program -> the rule codes its problems must be reported under (and nothing else of the BRK/RCP families)
EXPECTED = {
    "data_dependent_if.py": {"BRK001"},
    "item_call.py": {"BRK002"},
    "tolist_numpy.py": {"BRK003"},
    "print_call.py": {"BRK004"},
    "unsupported_builtin.py": {"BRK005"},
    "c_function.py": {"BRK005"},
    "third_party_call.py": {"BRK005"},
    "generator_ctx.py": {"BRK006"},
    "nested_break.py": {"BRK001"},
    "batch_size_change.py": {"RCP001"},
    "scalar_arg_change.py": {"RCP002"},
    "train_eval_flip.py": {"RCP003"},
    "dtype_change.py": {"RCP004"},
    "recompile_limit.py": {"RCP005", "RCP002"},
    "clean.py": set(),
    "branch_and_sizes.py": {"BRK001", "RCP001"},
    "compiled_sequential.py": {"RCP001"},
    "backend_raises.py": set(),  # its failed compile is CMP003, not a break or a recompile
}


# programs whose frame compile torch <= 2.10 fails outright (no break logged) where newer torch breaks and skips
FAILS_WITHOUT_BREAK = {"generator_ctx.py": {"CMP003"}}


@pytest.mark.parametrize("program", sorted(EXPECTED))
def test_counts_and_sites_match_torch(program, recorded, torch_account):
    run_dir, proc = recorded(program)
    agrees_with_torch(program, run_dir, proc, torch_account(PROGRAMS / program))


# torch._dynamo.config.nested_graph_breaks (off by default through 2.14, headed for on: pytorch#186100) changes
# where Dynamo resumes after a break inside a called function: the programs whose breaks are in nested frames
NESTED_PROGRAMS = ["nested_break.py", "generator_ctx.py", "third_party_call.py", "data_dependent_if.py"]
NESTED_SWITCH = Path(__file__).parent / "nested_graph_breaks"  # its sitecustomize sets the config


def _nested_graph_breaks_default() -> bool | None:
    """torch's default, read from its config file (not by importing torch into the test process: seconds per xdist
    worker); None where this torch has no such option."""
    spec = importlib.util.find_spec("torch")
    config = Path(spec.origin).parent / "_dynamo" / "config.py" if spec and spec.origin else None
    found = re.search(r"^nested_graph_breaks: bool = (True|False)", config.read_text(), re.M) if config and config.exists() else None
    return None if found is None else found.group(1) == "True"


NESTED_DEFAULT = _nested_graph_breaks_default()
NESTED_OTHER = None if NESTED_DEFAULT is None else not NESTED_DEFAULT  # the setting the default tests do not run


@pytest.fixture(scope="session")
def nested_graph_breaks(tmp_path_factory, session_env):
    """(recorded, torch_account) as the session's fixtures, for processes with nested_graph_breaks set to the value
    that is not torch's default (on through 2.14)."""
    from oracle import read_account, run_traced
    from oracle_cache import kept_run

    path = os.pathsep.join(p for p in (str(NESTED_SWITCH), session_env.get("PYTHONPATH", "")) if p)
    env = {**session_env, "PYTHONPATH": path, "TDIAG_TEST_NESTED_GRAPH_BREAKS": "1" if NESTED_OTHER else "0"}
    runs = RecordedRuns(shared_dir(tmp_path_factory, "runs-nested-graph-breaks"), env)
    traces = shared_dir(tmp_path_factory, "torch-trace-nested-graph-breaks")

    def account(program: Path):
        def make(trace_dir: Path) -> dict:
            proc = kept_run(run_traced, program, env, trace_dir)
            return {"stdout": proc.stdout, "returncode": proc.returncode, "stderr": proc.stderr}

        result = once_per_session(traces, program.stem, make)
        assert result["returncode"] == 0, result["stderr"][-3000:]
        return read_account(traces / program.stem, result["stdout"], result["returncode"])

    return runs, account


nested_config = pytest.mark.skipif(NESTED_DEFAULT is None, reason="this torch has no nested_graph_breaks")


@nested_config
@pytest.mark.parametrize("program", NESTED_PROGRAMS)
def test_counts_and_sites_match_torch_with_the_other_nested_setting(program, nested_graph_breaks):
    recorded, torch_account = nested_graph_breaks
    run_dir, proc = recorded(program)
    agrees_with_torch(program, run_dir, proc, torch_account(PROGRAMS / program))


@nested_config
def test_nested_graph_breaks_switch_is_in_effect(nested_graph_breaks, torch_account):
    """torch's own account of nested_break.py changes with the switch (with it on, fewer graphs: Dynamo resumes in
    `helper`), so the test above really compares with the other setting."""
    _, other_account = nested_graph_breaks
    on, off = other_account, torch_account
    if not NESTED_OTHER:
        on, off = off, on
    assert on(PROGRAMS / "nested_break.py").graphs < off(PROGRAMS / "nested_break.py").graphs


def agrees_with_torch(program: str, run_dir, proc, torch_says) -> None:
    assert proc.returncode == 0, proc.stderr
    analysis = build(run_dir)

    # the program ran exactly as under python
    assert proc.stdout == torch_says.stdout

    s = analysis.summary
    assert s.graphs == torch_says.graphs
    assert s.frames_compiled == torch_says.frame_compiles
    assert s.graph_breaks == len(torch_says.breaks)
    assert s.recompiles == len(torch_says.recompile_reasons)
    assert s.eager_fallbacks == torch_says.failed_frames

    # every break at the line torch names in the program's own file (innermost frame there), with torch's GB id
    ours = Counter((b.gb_id, b.site.line) for b in analysis.breaks)
    theirs = Counter((b["gb_id"], [ln for f, ln in b["lines"] if f == program][-1]) for b in torch_says.breaks)
    assert ours == theirs

    # every recompile reason torch gave is the one we report
    reported = [f.text for r in analysis.recompiles for f in r.failures]
    for text in reported:
        assert any(text in reason for reason in torch_says.recompile_reasons), text

    # no cause hidden: at every line, the distinct GB ids torch logged are the ones the findings there name
    # (each cause with its own id, cascades in the chain under their root)
    theirs_ids = defaultdict(set)
    for b in torch_says.breaks:
        theirs_ids[[ln for f, ln in b["lines"] if f == program][-1]].add(b["gb_id"])
    ours_ids = defaultdict(set)
    for f in analysis.findings:
        if f.family == "BRK":
            for cause in f.evidence.causes:  # a library cause lists every user line that reached it
                for site in cause["sites"]:
                    ours_ids[int(site.rpartition(":")[2])].add(cause["gb_id"])
            ours_ids[f.line] |= {c["gb_id"] for c in f.evidence.chain}
    assert ours_ids == theirs_ids

    codes = {f.code for f in analysis.findings if f.family in ("BRK", "RCP")}
    if program in FAILS_WITHOUT_BREAK and not torch_says.breaks:
        # torch <= 2.10 fails the whole frame compile here instead of logging a break ("SKIPPED INLINING" a generator
        # context's __enter__): no break to report, the failed compile is the finding
        assert torch_says.failed_frames >= 1 and codes == set()
        assert FAILS_WITHOUT_BREAK[program] <= {f.code for f in analysis.findings}
    else:
        assert codes == EXPECTED[program]
    assert all(f.path == program for f in analysis.findings if f.family == "BRK")


def test_library_break_points_at_the_user_line_and_keeps_the_library_frame(recorded):
    run_dir, _ = recorded("third_party_call.py")
    (finding,) = [f for f in build(run_dir).findings if f.code == "BRK005"]
    source = (PROGRAMS / "third_party_call.py").read_text().splitlines()
    assert "jinja2.Template" in source[finding.line - 1]
    assert finding.library_frame is not None and finding.library_frame.path.startswith("<site-packages>/jinja2/")


def test_bytecode_offsets_are_in_the_users_code_object(recorded):
    """Offsets point into the user's original function, not Dynamo's resume function (checked with dis)."""
    import dis

    run_dir, _ = recorded("item_call.py")
    (brk,) = build(run_dir).breaks
    code = compile((PROGRAMS / "item_call.py").read_text(), str(PROGRAMS / "item_call.py"), "exec")
    fn_code = next(c for c in code.co_consts if getattr(c, "co_name", None) == "normalise")
    instr = {i.offset: i for i in dis.get_instructions(fn_code)}[brk.offset]
    assert instr.opname == brk.opname
    assert instr.positions.lineno == brk.site.line
    assert brk.site.column == instr.positions.col_offset + 1


def test_breaks_after_resume_are_translated(recorded):
    """The second break of a frame is traced inside a resume function; its offset must still be the user's."""
    import dis

    run_dir, _ = recorded("explain_cases.py", "item_then_print")
    breaks = build(run_dir).breaks
    code = compile((PROGRAMS / "explain_cases.py").read_text(), "explain_cases.py", "exec")
    fn_code = next(c for c in code.co_consts if getattr(c, "co_name", None) == "item_then_print")
    by_offset = {i.offset: i for i in dis.get_instructions(fn_code)}
    assert len(breaks) == 2
    for b in breaks:
        assert b.offset in by_offset and by_offset[b.offset].opname == b.opname
        assert by_offset[b.offset].positions.lineno == b.site.line


EXPLAIN = """
import json, sys, torch
sys.path.insert(0, {programs!r})
import explain_cases as m
found = {{}}
for case in {cases!r}:
    out = torch._dynamo.explain(m.CASES[case])(*m.inputs())  # explain resets Dynamo first: each case on its own
    lines = []
    for r in out.break_reasons:
        frames = [f for f in r.user_stack if f.filename.endswith("explain_cases.py")]
        lines.append(frames[-1].lineno)
    # explain's graph_break_count is derived (graph_count - 1); its break_reasons are torch's own list of breaks
    found[case] = {{"graphs": out.graph_count, "breaks": len(out.break_reasons), "lines": sorted(lines)}}
print(json.dumps(found))
"""
EXPLAIN_CASES = ["branch", "item_then_print", "nested", "clean"]


@pytest.fixture(scope="session")
def explained(tmp_path_factory, session_env) -> dict:
    """torch._dynamo.explain of every case, in one python process for the session (each ``import torch`` costs
    seconds of CPU; explain resets Dynamo before each case, so they do not see each other)."""

    def make(_) -> dict:
        proc = subprocess.run(
            [sys.executable, "-c", EXPLAIN.format(programs=str(PROGRAMS), cases=EXPLAIN_CASES)],
            env=session_env, capture_output=True, text=True, timeout=300,
        )
        return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

    result = once_per_session(shared_dir(tmp_path_factory, "explain"), "cases", make)
    assert result["returncode"] == 0, result["stderr"][-3000:]
    return json.loads(result["stdout"].strip().splitlines()[-1])


@pytest.mark.parametrize("case", EXPLAIN_CASES)
def test_single_call_matches_explain(case, recorded, explained):
    explain = explained[case]
    run_dir, run = recorded("explain_cases.py", case)
    assert run.returncode == 0, run.stderr
    a = build(run_dir)
    assert a.summary.graphs == explain["graphs"]
    assert a.summary.graph_breaks == explain["breaks"]
    assert sorted(b.site.line for b in a.breaks) == explain["lines"]
