"""The one Finding a crash gets (CRS*): on the user's line, severity error, ranked before everything else."""

from __future__ import annotations

from collections.abc import Callable

from tdiag.analyzer.caught_in_trace import caught_by_traced_try
from tdiag.analyzer.crash_causes import cause_of
from tdiag.analyzer.evidence import CrashEvidence
from tdiag.analyzer.model import Crash, Finding, GraphKey, Site  # Finding: the return type

IMPACT = 10_000.0  # the program did not run to its end: nothing else matters until this is fixed


def claim_crashes(crashes: list[Crash], claimants, ctx) -> dict[int, object]:
    """index in ``crashes`` -> the claimant (a Registered) that owns it: the first, in priority order, whose
    ``matches(crash)`` accepts it. The owner names the kind (its module's ``KIND``) and places and details the crash
    (``describe(crash, ctx)``: site, policy, detail); a crash no rule claims is the program's own error."""
    owners = {}
    for index, crash in enumerate(crashes):
        _unclaimed(crash)
        owner = next((e for e in claimants if e.module.matches(crash)), None)
        if owner is None:
            continue
        crash.kind, crash.caused_by_torch = owner.module.KIND, True
        crash.site = crash.cause_site or crash.call_site
        describe = getattr(owner.module, "describe", None)
        if describe is not None:
            describe(crash, ctx)
        owners[index] = owner
    return owners


def _unclaimed(crash: Crash) -> None:
    """What a claim decides, undone: claiming again (a re-analysed export) decides from the facts alone."""
    crash.kind, crash.caused_by_torch, crash.policy, crash.detail = "program", False, None, None
    crash.site = crash.call_site


def crash_check(rule, module) -> Callable:
    """``check(ctx)`` of a rule claiming crashes (``claims="crashes"``): the crashes it owns (``ctx.crash_claims``),
    worded by its ``message(crash, ctx)`` and ``fix(crash, ctx)``, on ``site(crash, ctx)`` when the module defines
    one (else the crash's site as ``describe`` left it, else the compiled call)."""
    site = getattr(module, "site", None)

    def check(ctx) -> list[Finding]:
        findings = []
        for index, owner in sorted(ctx.crash_claims.items()):
            if owner.rule.code != rule.code:
                continue
            crash = ctx.analysis.crashes[index]
            where = (site(crash, ctx) if site is not None else None) or crash.site or crash.call_site
            message, fix = module.message(crash, ctx), module.fix(crash, ctx)
            # crash_causes.json: the cause in the user's program
            known = cause_of(crash.exception, crash.message, graph_codes(ctx.analysis))
            caught = caught_by_traced_try(crash.exception, ctx.analysis) if known is None else None
            if known is not None:
                message, fix = f"{message} (cause: {known.cause})", known.fix
            elif caught is not None:
                message, fix = f"{message} (cause: {_caught_cause(caught)})", _caught_fix(caught)
            message += _eager_finished(ctx.log, crash)
            findings.append(_finding(rule, crash, where or Site("<unknown>", 0), message, fix))
        return findings

    return check


def _caught_cause(caught) -> str:
    return (f"the `try` at {caught.path}:{caught.line} in {caught.function} catches {caught.catches or 'every error'}, "
            "but Dynamo traced its body into the compiled graph, which has no `except` path: the error the graph "
            "raises when it runs escapes the compiled function, so the `except` branch never runs")


def _caught_fix(caught) -> str:
    return (f"keep the error-driven retry out of compiled code: decorate {caught.function} with "
            "@torch.compiler.disable (its `try`/`except` then runs eagerly, as written), or compute without raising "
            "(an op's `_ex` variant that returns an error code, e.g. torch.linalg.cholesky_ex)")


def _eager_finished(log, crash: Crash) -> str:
    """The eager side of `tdiag run --vs-eager`: where the program runs to its end with torch.compile disabled, the
    stop is torch.compile's, whatever the error says."""
    from tdiag.analyzer.eager_compare import events

    exits = [r.get("exit_code") for ev in events(log) for r in ev.get("runs") or [] if isinstance(r, dict)]
    if not crash.ended_program or 0 not in exits:
        return ""
    return "; with torch.compile disabled the program runs to its end (exit 0): the stop is torch.compile's"


def graph_codes(analysis) -> tuple[str, ...]:
    """The readable code of every graph the run compiled (what a crash cause's ``graph_code`` is searched in)."""
    return tuple(code for g in analysis.graphs if g.graph_code_ref
                 and isinstance(code := analysis.code.get(g.graph_code_ref), str))


def _finding(rule, crash: Crash, where: Site, message: str, fix: str) -> Finding:
    call = crash.call_site
    return rule.finding(
        message=f"{stopped(crash)}: {message}", fix=fix,
        path=where.path, line=where.line, column=where.column, end_column=where.end_column,
        function=where.function, gb_id=crash.gb_id, gb_url=gb_url(crash.gb_id),
        compile_ids=[crash.compile_id] if crash.compile_id else [], impact=IMPACT,
        evidence=CrashEvidence(exception=crash.exception, thread=crash.thread, ended_program=crash.ended_program,
                               call=f"{call.path}:{call.line}" if call is not None else None,
                               policy=crash.policy, detail=crash.detail, torch_message=crash.message),
        ranks={crash.rank: 1} if crash.rank is not None else {},
        graph_keys=[GraphKey(crash.rank, crash.compile_id)] if crash.compile_id else [],
    )


def stopped(crash: Crash) -> str:
    return "the program stopped" if crash.ended_program else f"thread {crash.thread!r} stopped"


def raised_at(crash: Crash) -> str:
    """", raised by the compiled call at train.py:12" when that is another line than the finding's."""
    call = crash.call_site
    if call is None or call == crash.site:
        return ""
    return f"; the compiled call at {call.path}:{call.line} raised {crash.exception.rsplit('.', 1)[-1]}"


def gb_url(gb_id: str | None) -> str | None:
    if not gb_id:
        return None
    return f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{gb_id.lower()}.html"


def quoted(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
