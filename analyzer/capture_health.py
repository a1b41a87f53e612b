"""Was the capture complete? Failures the hooks swallowed, and compiles that left no structured-trace event.
Was the analysis complete? A rule or suggester of tdiag's that raised (``RunInfo.analysis_problems``).

Every output reads ``incomplete_lines(run)`` and says the capture or the analysis was incomplete (what, how many,
which torch; which rule failed and where its traceback is) instead of an all-clear; the wording lives here so that
every output says the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from tdiag.analyzer.model import AnalysisProblem, CaptureProblem

NO_TRACE_EVENTS = "structured trace"
NO_METRICS = "compilation metrics"
MISSING = "missing"  # the exception of a touchpoint this torch lacks (tracer/problems.py)


def capture_problems(log: Any) -> list[CaptureProblem]:
    torch_version = log.header.get("torch")
    worst: dict[tuple[Any, str, str], dict[str, Any]] = {}
    for ev in log.other:
        if ev.get("type") != "capture_problem":
            continue
        what, exception = str(ev.get("what") or "capture"), str(ev.get("exception") or "")
        count = ev.get("count") if isinstance(ev.get("count"), int) and not isinstance(ev.get("count"), bool) else 1
        key = (ev.get("rank"), what, exception)
        if key not in worst or count > worst[key]["count"]:
            worst[key] = {**ev, "count": count}
    problems = [
        CaptureProblem(
            what=what, count=ev["count"], exception=exception or None, message=str(ev.get("message") or ""),
            torch_version=str(ev.get("torch") or torch_version or "") or None, rank=rank,
        )
        for (rank, what, exception), ev in worst.items()
    ]
    return problems + _compiles_without_trace(log, torch_version) + _unlogged_metrics(log, torch_version)


def _unlogged_metrics(log: Any, torch_version: str | None) -> list[CaptureProblem]:
    """Graphs Dynamo output whose compilation metrics torch failed to log (torch 2.11 raises writing its config when
    ``ignore_logging_functions`` holds a function: "Unexpected exception logging compilation metrics"). The graphs
    are counted from their output-graph events; their compile times, guard counts and failures are not known."""
    from tdiag import torch_events as te

    logged: dict[Any, set[str]] = defaultdict(set)
    for ev in log.named(te.COMPILATION_METRICS):
        logged[ev.rank].add(te.without_attempt(str(ev.data.get("compile_id") or ev.compile_id)))
    output: dict[Any, set[str]] = defaultdict(set)
    for ev in log.named(te.DYNAMO_OUTPUT_GRAPH):
        if ev.compile_id:
            output[ev.rank].add(ev.compile_id)
    return _gaps(output, logged, NO_METRICS, torch_version, lambda missing, ids: (
        f"torch logged no compilation metrics for {len(missing)} of {len(ids)} graphs (e.g. {sorted(missing)[0]}): "
        "they are counted, but their compile times, guards and failures are not known (on torch 2.11 a function in "
        "torch._dynamo.config.ignore_logging_functions, or ignore_logger_methods, makes torch's metrics logging "
        "raise)"))


def _compiles_without_trace(log: Any, torch_version: str | None) -> list[CaptureProblem]:
    """Dynamo compiles announced by torch's compile callbacks whose compile id no structured-trace event carries."""
    seen: dict[Any, set[str]] = defaultdict(set)
    for ev in log.torch:
        meta = ev.meta
        if meta.get("frame_id") is not None:
            seen[ev.rank].add(f"{meta.get('frame_id')}/{meta.get('frame_compile_id')}")
    started: dict[Any, set[str]] = defaultdict(set)
    for bracket in log.compile_brackets:
        if bracket.get("type") == "compile_start" and bracket.get("trigger") == "DYNAMO" and bracket.get("compile_id"):
            started[bracket.get("rank")].add(bracket["compile_id"])
    return _gaps(started, seen, NO_TRACE_EVENTS, torch_version, lambda missing, ids: (
        f"{len(missing)} of {len(ids)} compiles left no structured-trace event (e.g. {sorted(missing)[0]}): their "
        "graphs, breaks and recompilations are not in this record"))


def _gaps(expected: dict[Any, set[str]], seen: dict[Any, set[str]], what: str, torch_version: str | None,
          words: Callable[[set[str], set[str]], str]) -> list[CaptureProblem]:
    """One problem per rank (lowest first, a single process first) whose ``expected`` compile ids are not all
    ``seen``; ``words(missing, expected)`` says what that leaves out."""
    problems = []
    for rank, ids in sorted(expected.items(), key=lambda kv: (kv[0] is not None, kv[0] or 0)):
        missing = ids - seen.get(rank, set())
        if missing:
            problems.append(CaptureProblem(what=what, count=len(missing), exception=None,
                                           message=words(missing, ids), torch_version=torch_version, rank=rank))
    return problems


def headline(problems: list[CaptureProblem]) -> str:
    """One line for the top of any output: the capture was incomplete, so no result is an all-clear."""
    versions = sorted({p.torch_version for p in problems if p.torch_version})
    torch_part = f" on torch {', '.join(versions)}" if versions else ""
    total = sum(p.count for p in problems)
    return (f"capture incomplete{torch_part}: {total} failure(s) while recording; findings may be missing, "
            "so an empty list is not an all-clear")


def describe(problem: CaptureProblem) -> str:
    """``structured-trace handler failed 3 times (TypeError: ...) [rank 1]``."""
    if problem.what in (NO_TRACE_EVENTS, NO_METRICS):
        text = problem.message
    elif problem.exception == MISSING:  # tracer/problems.py: a private touchpoint this torch lacks
        text = f"{problem.what} is missing in torch {problem.torch_version or '(unknown)'}: {problem.message}"
    else:
        times = "once" if problem.count == 1 else f"{problem.count} times"
        cause = f"{problem.exception}: {problem.message}" if problem.message else (problem.exception or "")
        text = f"{problem.what} failed {times}" + (f" ({cause})" if cause else "")
    return text + (f" [rank {problem.rank}]" if problem.rank is not None else "")


def lines(problems: list[CaptureProblem]) -> list[str]:
    """The headline, then one line per problem: what every text output prints."""
    return [headline(problems), *(describe(p) for p in problems)] if problems else []


def analysis_line(problem: AnalysisProblem) -> str:
    """``analysis incomplete: rule CMP002 failed: KeyError: 'x' (its findings are missing; traceback in /tmp/...)``;
    ``analysis incomplete: kernels failed: ...`` for a stage (analyzer/stages.py), with the stages it cost;
    ``record cannot support an all-clear: ...`` for a record that ends before the program did (``record_limits``)."""
    if problem.part == "record":
        return f"{RECORD_LIMIT}: {problem.message}"
    if problem.part == "stage":
        return _stage_line(problem)
    who, lost = {"rule": (f"rule {problem.name}", "its findings are missing"),
                 "suggester": (f"suggester {problem.name}", "its patches are missing")}.get(
        problem.part, (problem.name, "findings may be missing"))
    times = "" if problem.count == 1 else f" {problem.count} times"
    cause = f"{problem.exception}: {problem.message}" if problem.message else problem.exception
    saved = f"traceback in {problem.traceback_file}" if problem.traceback_file else "traceback not saved"
    return f"analysis incomplete: {who} failed{times}: {cause} ({lost}; {saved})"


def _stage_line(problem: AnalysisProblem) -> str:
    from tdiag.analyzer.stages import STAGES

    produces = {s.name: s.produces for s in STAGES}
    lost = f"{produces.get(problem.name, 'its facts')}: missing"
    if problem.skipped:
        lost += "; skipped for want of them: " + ", ".join(problem.skipped)
    cause = f"{problem.exception}: {problem.message}" if problem.message else problem.exception
    saved = f"traceback in {problem.traceback_file}" if problem.traceback_file else "traceback not saved"
    return f"analysis incomplete: {problem.name} failed: {cause} ({lost}; {saved})"


RECORD_LIMIT = "record cannot support an all-clear"
UNKNOWN_AFTER = "findings after that point are unknown"


def record_limits(analysis: Any, log: Any) -> None:
    """Keep, as ``analysis_problems`` of part ``record``, why this record cannot support an all-clear: the run was
    interrupted, the record ends before the program did, lines of it could not be read, or the program exited with
    an error before anything was compiled. Every output then says so and lint and diff exit 2 (``is_incomplete``)."""
    run = analysis.run
    for name, message in _limits(analysis, log):
        run.analysis_problems.append(AnalysisProblem(part="record", name=name, exception="", message=message))


def _limits(analysis: Any, log: Any) -> list[tuple[str, str]]:
    from tdiag.analyzer.crash import ending

    # the graphs and crashes themselves, not the summary's counts: a failed summary stage must not read as "nothing
    # compiled"
    run, compiled, crash = analysis.run, len(analysis.graphs), ending(analysis.crashes)
    single = len(getattr(log, "headers", [])) <= 1
    limits = []
    if run.exit_reason == "keyboard_interrupt":
        # a compile the interrupt cut off leaves metrics without guarded code ("empty"): not a finished compile
        finished = sum(1 for g in analysis.graphs if g.status == "ok")
        started = compiled or any(b.get("type") == "compile_start" for b in getattr(log, "compile_brackets", []))
        when = ("during the first compile" if started else "before anything was compiled") if not finished else (
            f"after {finished} compile(s)")
        limits.append(("interrupted", f"the run was interrupted (Ctrl-C) {when}: {UNKNOWN_AFTER}"))
    elif single and not run.complete and run.source == "tdiag run":
        limits.append(("cut short", "the record ends before the program did (no exit event: the program was killed, "
                                    f"called os._exit(), or the record was cut short): {UNKNOWN_AFTER}"))
    unreadable = list(getattr(log, "problems", []))
    if unreadable:
        more = f" and {len(unreadable) - 1} more" if len(unreadable) > 1 else ""
        limits.append(("unreadable", f"{unreadable[0]}{more}: what the record held there is unknown"))
    if (single and not compiled and run.exit_reason != "keyboard_interrupt" and run.exit_code not in (0, None)
            and crash is None):
        limits.append(("never compiled", f"the program exited with code {run.exit_code} before anything was compiled "
                                         "(it stopped on its own: see its output): there is nothing to judge"))
    return limits


def incomplete_lines(run: Any) -> list[str]:
    """What every output prints before anything that could read as an all-clear: the capture's problems
    (``lines``), then one line per part of the analysis that failed. Empty for a complete capture and analysis."""
    return lines(run.capture_problems) + [analysis_line(p) for p in run.analysis_problems]


def is_incomplete(run: Any) -> bool:
    """The capture missed something or a part of the analysis failed: lint and diff exit 2, no output is an
    all-clear."""
    return bool(run.capture_problems or run.analysis_problems)


def empty_verdict(analysis: Any) -> tuple[str, str]:
    """What an empty list of findings means, for every output: (tone, sentence); tone is ``clear`` only for a
    complete capture that saw compiled code. A program that never ran a compiled function is not an all-clear:
    there was nothing to judge (torch.compile never called, or called on code that never ran)."""
    s = analysis.summary
    if getattr(s, "crash", None) is not None:  # findings filtered away (lint --select) must not read as all-clear
        from tdiag.analyzer.crash import headline

        return "stopped", f"No findings selected, but torch.compile stopped this program ({headline(analysis)}): this is not an all-clear."
    if analysis.run.capture_problems:
        return "incomplete", "No findings in what was captured, but the capture was incomplete: this is not an all-clear."
    if any(p.part == "record" for p in analysis.run.analysis_problems):
        return "incomplete", "No findings in what the record holds, but it cannot support an all-clear."
    if analysis.run.analysis_problems:
        return "incomplete", "No findings from the rules that ran, but the analysis was incomplete: this is not an all-clear."
    if s.frames_compiled == 0:
        return "nothing", ("Nothing was compiled: no torch.compile'd function ran in this program, "
                           "so there is nothing to judge.")
    if s.graph_breaks == 0 and s.recompiles == 0:
        return "clear", "No graph breaks, no recompilations: nothing to fix."
    return "clear", "No findings above the reporting threshold: nothing to fix."
