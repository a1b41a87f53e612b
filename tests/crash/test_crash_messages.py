"""Crash kinds this CPU machine cannot raise for real (CUDA graphs, Triton): torch's own exception objects, built by
torch's own code, through the same capture (tracer.crash.describe) and analysis as a recorded crash. The GPU case
runs for real in benchmarks/gpu_crash.py."""

from __future__ import annotations

import textwrap

from tdiag.analyzer.crash import read_crashes
from tdiag.analyzer.model import Analysis, Finding, FrameInfo, RunInfo, Site, Summary
from tdiag.analyzer.paths import PathMapper
from tdiag.analyzer.rules import run_rules
from tdiag.analyzer.suggestions import attach_suggestions
from tdiag.tracer.crash import describe

ROOT = "/project"
GENERATE = textwrap.dedent("""\
    import torch

    model = torch.compile(torch.nn.Linear(8, 8).cuda(), mode="reduce-overhead")
    x = torch.randn(4, 8, device="cuda")
    for step in range(3):
        h1 = model(x)
        h2 = model(h1 * 0.5)
        loss = (h1 + h2).sum()
    print(loss.item())
""")


def _raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as caught:
        return caught


def _analysis(event: dict, frames: list[FrameInfo] | None = None, source: str = GENERATE) -> Analysis:
    paths = PathMapper(ROOT, [], ROOT)
    a = Analysis(run=RunInfo(exit_reason="exception"), sources={"gen.py": source}, frames=frames or [])
    a.crashes = read_crashes([{**event, "rank": None}], paths, [])
    a.findings = run_rules(a, None)
    a.summary = Summary(crash=a.crashes[0] if a.crashes[0].caused_by_torch else None)
    return a


def test_cudagraph_output_overwritten_is_recognised_from_torchs_message():
    from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

    message = CUDAGraphTreeManager.format_dealloc_msg("File gen.py, line 3")  # what torch sets on the freed storage
    event = describe(_raised(RuntimeError(message)))
    event["frames"] = [[f"{ROOT}/gen.py", 8, "<module>"]]  # where the output was read (a CUDA-only traceback)
    call = Site("gen.py", 6, function="<module>")
    a = _analysis(event, [FrameInfo(0, "forward", "<site-packages>/torch/nn/modules/linear.py", 1, call_site=call)])
    (f,) = a.findings
    assert (f.code, f.line) == ("CRS007", 6)
    assert "read at gen.py:8 after a later call replayed the graph and overwrote it" in f.message
    attach_suggestions(a.findings, a)
    added = [ln for ln in f.suggestion.patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert added == ["+    torch.compiler.cudagraph_mark_step_begin()"]
    assert "\n for step in range(3):\n+    torch.compiler.cudagraph_mark_step_begin()\n     h1 = model(x)" in f.suggestion.patch
    # the next candidate fix --verify tries when marking the step does not pay: a copy of the kept output
    (clone,) = f.suggestion.candidates
    assert _added(clone.patch) == ["+    h1 = model(x).clone()"]


def _added(patch: str) -> list[str]:
    return [ln for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def test_an_output_kept_outside_any_loop_gets_the_clone_patch():
    """No iteration to mark: the kept output is cloned at the user's line (the only candidate)."""
    from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

    source = textwrap.dedent("""\
        import torch

        model = torch.compile(torch.nn.Linear(8, 8).cuda(), mode="reduce-overhead")
        x = torch.randn(4, 8, device="cuda")
        first = model(x)
        second = model(x * 2)
        print((first + second).sum().item())
    """)
    event = describe(_raised(RuntimeError(CUDAGraphTreeManager.format_dealloc_msg("File gen.py, line 5"))))
    event["frames"] = [[f"{ROOT}/gen.py", 7, "<module>"]]
    call = Site("gen.py", 5, function="<module>")
    a = _analysis(event, [FrameInfo(0, "forward", "<site-packages>/torch/nn/modules/linear.py", 1, call_site=call)],
                  source)
    (f,) = a.findings
    assert (f.code, f.line) == ("CRS007", 5)
    attach_suggestions(a.findings, a)
    assert _added(f.suggestion.patch) == ["+first = model(x).clone()"]
    assert f.suggestion.candidates == []


def test_triton_missing_is_an_environment_failure_with_its_fix():
    from torch._inductor.exc import InductorError, TritonMissing

    event = describe(_raised(InductorError(TritonMissing(None), None)))
    event["frames"] = [[f"{ROOT}/gen.py", 6, "<module>"],
                       [f"{ROOT}/.venv/lib/python3.12/site-packages/torch/_dynamo/eval_frame.py", 1, "compile_wrapper"]]
    (f,) = _analysis(event).findings
    assert (f.code, f.line) == ("CRS005", 6)
    assert f.message.startswith("the program stopped: Triton is not installed")
    assert "install the Triton build that matches this torch" in f.fix


def test_a_plain_error_from_user_code_is_not_torchs():
    event = describe(_raised(KeyError("missing")))
    event["frames"] = [[f"{ROOT}/gen.py", 8, "<module>"]]
    a = _analysis(event)
    assert a.findings == [] and a.crashes[0].caused_by_torch is False


def test_crash_finding_outranks_everything():
    """The CRS finding is first whatever the others cost (analyzer/ranking.py: the one rank key)."""
    from tdiag.analyzer.model import Cost
    from tdiag.analyzer.ranking import rank_key as _rank_key

    crash = Finding("CRS001", "graph-break-error", "error", "", "", "a.py", 9)
    costly = Finding("BRK001", "data-dependent-branch", "error", "", "", "a.py", 1, impact=1e9,
                     cost=Cost(total_s=100.0, basis="measured"))
    assert sorted([costly, crash], key=_rank_key)[0] is crash


def test_thread_hook_records_then_hands_on_and_leaves_a_replaced_hook_alone():
    """threading.excepthook: the thread's exception is recorded, then the previous hook gets it; uninstalling
    restores the previous hook, unless the program installed its own meanwhile (that one stays)."""
    import threading

    from tdiag.tracer.crash import ThreadCrashes

    original = threading.excepthook
    handed_on: list[type] = []
    threading.excepthook = lambda args: handed_on.append(args.exc_type)
    try:
        events: list[dict] = []
        undo = ThreadCrashes(events.append, ()).install()
        worker = threading.Thread(target=lambda: 1 / 0, name="worker-1")
        worker.start()
        worker.join()
        undo()
        assert handed_on == [ZeroDivisionError]
        assert [(e["exception"], e["thread"]) for e in events] == [("ZeroDivisionError", "worker-1")]
        assert threading.excepthook is not original and threading.excepthook.__name__ == "<lambda>"  # restored

        undo = ThreadCrashes(events.append, ()).install()
        def programs_own(args):
            return None

        threading.excepthook = programs_own
        undo()
        assert threading.excepthook is programs_own
    finally:
        threading.excepthook = original


def test_a_patch_that_breaks_the_program_is_refused_with_torchs_reason(tmp_path):
    """`tdiag fix --verify` refuses a patch whose run stopped where the program ran before (mode="reduce-overhead"
    with an output kept across calls), and the refusal names torch's reason, as torch worded it."""
    from torch._inductor.cudagraph_trees import CUDAGraphTreeManager

    from tdiag.fixing.compare import compare
    from tdiag.fixing.verify import RunResult

    message = CUDAGraphTreeManager.format_dealloc_msg("File gen.py, line 3")
    event = describe(_raised(RuntimeError(message)))
    event["frames"] = [[f"{ROOT}/gen.py", 8, "<module>"]]
    broken = _analysis(event, [FrameInfo(0, "forward", "<site-packages>/torch/nn/modules/linear.py", 1,
                                         call_site=Site("gen.py", 6, function="<module>"))])
    fine = Analysis(run=RunInfo(exit_reason="exit"), sources={"gen.py": GENERATE})
    before = [(fine, RunResult("before", tmp_path, 0, "2.5\n", "", 1.0))]
    after = [(broken, RunResult("after", tmp_path, 1, "", "", 1.0))]
    verdict = compare("reduce-overhead", ["RUN002@gen.py:3"], before, after)
    assert not verdict.ok
    assert any("exit code changed: 0 -> 1" in p and "accessing tensor output of CUDAGraphs that has been overwritten"
               in p for p in verdict.problems), verdict.problems
