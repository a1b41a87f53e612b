"""Where a recompile is reported: the user line that called the compiled function. torch's dynamo_start stack drops
that caller (a compiled function called from main() is logged as the line that called main()); tdiag takes it from
the interpreter's stack when the compile starts (tracer/progress.py caller_stack)."""

from __future__ import annotations

from pathlib import Path

from tdiag_testing import run_tdiag

PROGRAM = Path(__file__).parent / "programs" / "called_from_main.py"
CALL_LINE = 16  # cstep(torch.ones(4, 4)) in main()


def test_recompile_is_reported_at_the_calling_line(tmp_path, session_env):
    from tdiag.analyzer import build

    assert PROGRAM.read_text().splitlines()[CALL_LINE - 1].strip().startswith("cstep(torch.ones(4, 4))")
    # --no-profile: the runtime window wraps compiled calls in a frame of its own, which torch drops instead
    proc = run_tdiag(["run", "--no-tui", "-q", "--no-profile", "-o", str(tmp_path / "run"), str(PROGRAM)], session_env)
    assert proc.returncode == 0, proc.stderr
    analysis = build(tmp_path / "run")
    (recompile,) = analysis.recompiles
    assert recompile.failures[0].text == "tensor 'x' rank mismatch. expected 1, actual 2"
    assert (recompile.call_site.path, recompile.call_site.line) == ("called_from_main.py", CALL_LINE)
    assert [(f.code, f.line) for f in analysis.findings if f.code.startswith("RCP")] == [("RCP001", CALL_LINE)]
