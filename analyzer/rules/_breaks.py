"""Shared by the rules claiming graph breaks: causes (cascades folded under their root), which rule owns each
(``claim_breaks``: the first claimant by priority whose ``matches`` accepts it), and how one site's causes become a
finding. What a rule matches and how it words it lives in the rule's own module."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from dataclasses import field

from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.model import Finding, GraphBreak, GraphKey

from tdiag.lean_dataclass import lean_dataclass


def site_code(b: GraphBreak) -> str:
    user = next((f for f in reversed(b.user_stack) if f.is_user and f.line == b.site.line), None)
    return (user.code if user and user.code else "") or ""


def reason_text(b: GraphBreak) -> str:
    """torch's words for the break, lower-cased: what the BRK rules' ``matches`` read."""
    return f"{b.reason} {b.explanation} {b.context}".lower()


# Breaks that follow from another break in the same frame compile: Dynamo could not resume after the root break
# (inside a loop or a context manager it cannot reconstruct, or a value it cannot rebuild), or gave up restarting.
CASCADE_GB_IDS = {"GB7000", "GB0066", "GB0092", "GB0093", "GB1297", "GB0052"}
CASCADE_REASONS = ("graph break in loop", "graph break under", "reconstruction failure", "restartanalysis")


def is_cascade(b: GraphBreak) -> bool:
    if b.gb_id:  # the id names torch's own cause; the reason may be the hook's word for the frame ("graph break in loop")
        return b.gb_id in CASCADE_GB_IDS
    return any(m in b.reason.lower() for m in CASCADE_REASONS)


@lean_dataclass
class Cause:
    """One distinct cause at one user line: torch's break type (GB id) and, for a break inside a library, where.
    ``breaks`` are its occurrences; ``cascades`` the breaks it caused (folded under it, shown as its chain)."""

    breaks: list[GraphBreak] = field(default_factory=list)
    cascades: list[GraphBreak] = field(default_factory=list)

    @property
    def first(self) -> GraphBreak:
        # the break at the cause's first user line, preferring one that saw the exact column
        line = min((b.site.key for b in self.breaks), key=lambda k: (k[0] != self.breaks[0].site.path, k[1]))
        at = [b for b in self.breaks if b.site.key == line]
        chosen = next((b for b in at if b.site.column), at[0])
        if chosen.frame_skipped:
            # the skip's own record says only "frame skipped: fn": torch's words for what broke are the root's, at the
            # same line (blind batch 9: a scipy call in a loop), seen from the frame that was skipped
            root = next((b for b in self.breaks if not b.frame_skipped
                         and (b.site.path, b.site.line) == (chosen.site.path, chosen.site.line)), None)
            if root is not None:
                return dataclasses.replace(root, site=chosen.site, code_name=chosen.code_name, frame_skipped=True)
        return chosen

    @property
    def sites(self) -> list[str]:
        return sorted({f"{b.site.path}:{b.site.line}" for b in self.breaks})

    @property
    def seen_as(self) -> GraphBreak:
        """The break the claiming rules judge: the first, marked frame-skipped when Dynamo gave up on its compile."""
        first = self.first
        compiles = {(b.rank, b.compile_id) for b in self.breaks}
        same_compile = [b for b in self.cascades if (b.rank, b.compile_id) in compiles]
        if any(b.frame_skipped for b in self.breaks + same_compile) and not first.frame_skipped:
            first = dataclasses.replace(first, frame_skipped=True)
        return first


def cause_key(b: GraphBreak) -> tuple:
    """A break in the user's own code is identified by its line; one inside a library by the library location, so
    that one library cause reached from several user lines (both convs of a model calling the same helper) is one
    finding, anchored on the first line that reached it, the others listed with it."""
    if b.library_frame is not None:
        return (b.gb_id or b.reason, (b.library_frame.path, b.library_frame.line), _library_entry(b))
    return (b.site.key, b.gb_id or b.reason, None)


def _library_entry(b: GraphBreak) -> tuple[str, str] | None:
    """The library function the user's code called on the way to the break (torch's module-call plumbing
    skipped): ``global_mean_pool`` and a direct ``scatter`` reach the same ``.item()`` in scatter, but the fix is an
    argument of the function the user called, so they are two causes."""
    frames = b.user_stack
    last_user = max((i for i, f in enumerate(frames) if f.is_user), default=-1)
    for f in frames[last_user + 1:]:
        if not f.path.startswith("<site-packages>/torch/"):
            return (f.path, f.function)
    return None


def break_causes(breaks: list[GraphBreak]) -> list[Cause]:
    """Distinct causes, cascades folded under the root break of the same frame compile (else of the same line)."""
    causes: dict[tuple, Cause] = {}
    by_compile: dict[tuple, Cause] = {}
    by_site: dict[tuple, Cause] = {}
    cascades = []
    late_skips = []
    for b in breaks:
        if is_cascade(b) or _resume_artifact(b):
            cascades.append(b)
            continue
        if b.frame_skipped and b.library_frame is None:
            late_skips.append(b)
            continue
        cause = causes.setdefault(cause_key(b), Cause())
        cause.breaks.append(b)
        by_compile.setdefault((b.rank, b.compile_id), cause)
        by_site.setdefault(b.site.key, cause)
    for b in late_skips:
        # Dynamo gave up on a recompile of a frame that had already broken at this same line (the recompile came
        # from the earlier break, e.g. a value carried across it): a consequence, shown in that cause's chain
        root = next((c for c in causes.values() if any(
            r.site.key == b.site.key and r.rank == b.rank and _frame_of(r) == _frame_of(b) and r.compile_id != b.compile_id
            for r in c.breaks)), None)
        if root is not None:
            root.cascades.append(b)
            continue
        cause = causes.setdefault(cause_key(b), Cause())
        cause.breaks.append(b)
        by_compile.setdefault((b.rank, b.compile_id), cause)
        by_site.setdefault(b.site.key, cause)
    for b in cascades:
        root = by_compile.get((b.rank, b.compile_id)) or by_site.get(b.site.key)
        if root is not None:
            root.cascades.append(b)
        else:  # nothing caused it that torch logged: it is the cause
            causes.setdefault(cause_key(b), Cause()).breaks.append(b)
    return list(causes.values())


def _resume_artifact(b: GraphBreak) -> bool:
    """A break another break made: a tensor method "marked as skipped" (``Tensor.eq``), which Dynamo traces
    everywhere but in the code it resumes after a break on the same line, where the method was bound before the
    break (``target.eq(c.item())`` broken at ``.item()``; torch's account shows it in the resume function's compile).
    Folded under the root break of its compile or line, where there is one; else it stands as its own cause."""
    return b.gb_id == "GB0007" and re.search(r"qualname: Tensor\.\w+,", b.context or "") is not None


def carried_across_break(r, break_sites: set) -> bool:
    """A recompile of the code after a graph break because the value carried across it changed (``___stack0``,
    e.g. an ``.item()`` result): a consequence of that break, shown in its chain rather than as an RCP finding."""
    failure = r.failures[0] if r.failures else None
    if not (failure and failure.subject and (r.path, r.line) in break_sites):
        return False
    # the value on the stack at the break, or a local the resume function starts from (`i == 6` after
    # `i = int(t.item())` broke): the frame that recompiled starts at the break's line
    return "___stack" in failure.subject or (failure.kind == "value" and failure.subject.isidentifier())


def claim_breaks(breaks: list[GraphBreak], claimants) -> dict[str, list[Cause]]:
    """rule code -> its causes: each cause goes to the first claimant (priority order) whose ``matches`` accepts it."""
    owned: dict[str, list[Cause]] = defaultdict(list)
    for cause in break_causes(breaks):
        seen = cause.seen_as
        owner = next((e.rule.code for e in claimants if e.module.matches(seen)), None)
        if owner is not None:
            owned[owner].append(cause)
    return owned


WORDS = ("reason", "where", "function", "hint")  # the fields of words(): a claiming rule's templates may name only these (checked at load)


def words(b: GraphBreak) -> dict[str, str]:
    """What a claiming rule's ``message``/``fix`` templates may name about a break."""
    return {
        "reason": b.reason,
        "where": where(b),
        "function": b.code_name or b.site.function or "function",
        "hint": b.hints[0] if b.hints else "see the graph-break page linked with this finding",
    }


# torch's hints that are no fix for the user: "write Dynamo tracing rules", "report an issue", "a Dynamo bug"
_NOT_A_FIX = ("write dynamo tracing rules", "report an issue", "please file", "likely to be a dynamo bug",
              "file an issue")


def torch_fix_hint(b: GraphBreak) -> str | None:
    """torch's first hint for the break that asks the user for a change (not "report an issue to PyTorch")."""
    return next((h for h in b.hints if not any(w in h.lower() for w in _NOT_A_FIX)), None)


def catalogue_fix(b: GraphBreak, **extra: str) -> str | None:
    """The first candidate of the fix catalogue's entry for this break type (catalogue/breaks.toml: torch's GB id,
    and the user's line where the entry names one), in the user's names; None where the catalogue has none."""
    from tdiag.analyzer import catalogue

    entry = catalogue.for_break(b.gb_id, break_text(b))
    if entry is None:
        return None
    return catalogue.render_first(entry, "breaks", **words(b), call=site_code(b).strip(), **extra)


def break_text(b: GraphBreak) -> str:
    """What a catalogue entry's ``site`` reads: the user's line, then torch's words for the break."""
    return "\n".join((site_code(b), b.reason or "", b.explanation or "", b.context or ""))


def no_known_fix(b: GraphBreak) -> str:
    """A break type neither the catalogue nor torch's hint has a fix for: the generic move, said as such."""
    what = f"{b.gb_id} ({b.reason})" if b.gb_id else b.reason
    return (f"tdiag's catalogue has no fix for {what} and torch's hint only asks to report it: move this line out of "
            "the compiled function (before or after the call), or into a small function of yours decorated with "
            "@torch.compiler.disable")


def break_check(rule, module):
    """The check of a rule claiming breaks: its causes, worded by the module's functions or the rule's templates."""
    message = getattr(module, "message", None) or (lambda b: rule.message.format(**words(b)))
    fix = getattr(module, "fix", None) or (lambda b: rule.fix.format(**words(b)))

    def check(ctx) -> list[Finding]:
        return break_findings(ctx, rule, message, fix)

    return check


def break_findings(ctx, rule, message, fix) -> list[Finding]:
    """One finding per user line for the breaks of this rule, each distinct cause listed with its own GB id and
    count (never hidden behind the first), cascades shown as the chain under their root.
    ``message(b)``/``fix(b)`` word it for the first break of the first cause."""
    groups: dict[tuple[str, int], list[Cause]] = defaultdict(list)
    for cause in ctx.break_causes.get(rule.code, ()):
        groups[cause.first.site.key].append(cause)
    if not groups:
        return []
    failures = {(g.rank, g.compile_id): g.fail_reason for g in ctx.analysis.graphs if g.fail_reason}
    carried = defaultdict(int)
    for r in ctx.analysis.recompiles:
        if carried_across_break(r, ctx.break_sites):
            carried[(r.path, r.line)] += 1
    findings = []
    for (path, line), causes in groups.items():
        # the cause that leads is the one torch told most about (its GB id, its stack), then the most frequent:
        # a break recorded with no stack (a backend's exception, seen by the break hook alone) says nothing of
        # where it came from, and would hide the library frame of its better-described twin
        causes.sort(key=lambda c: (not _described(c.first), -len(c.breaks)))
        first = causes[0].first
        breaks = [b for c in causes for b in c.breaks]
        everything = breaks + [b for c in causes for b in c.cascades]
        compile_ids = sorted({b.compile_id for b in everything}, key=cid_key)
        text = message(first)
        # a break the hook alone saw (no GB id, no stack) is listed only when its reason is news: the same words as
        # a described cause, or torch's bare "graph break", are that cause's twin
        reasons = {c.first.reason for c in causes if _described(c.first)} | {"graph break"}
        listed = [causes[0], *(c for c in causes[1:] if _described(c.first) or c.first.reason not in reasons)]
        if len(listed) > 1:
            text += "; also at this line: " + "; ".join(_cause_label(c.first, len(c.breaks)) for c in listed[1:])
        others = sorted({site for c in causes for site in c.sites} - {f"{path}:{line}"}, key=_site_order)
        if others:
            text += "; the same cause is also reached from " + ", ".join(others)
        chain = _chain(causes, failures)
        if carried.get((path, line)):
            chain.append({"gb_id": None, "reason": "the code after it recompiled for a new value carried across the "
                          "break", "occurrences": carried[(path, line)]})
        if chain:
            text += "; then " + ", ".join(f"{item['reason']} ({item['gb_id']})" if item["gb_id"] else item["reason"]
                                          for item in chain)
        findings.append(
            rule.finding(
                message=text,
                fix=fix(first),
                path=path,
                line=line,
                column=first.site.column,
                end_column=first.site.end_column,
                function=first.site.function,
                gb_id=first.gb_id,
                gb_url=first.gb_url,
                occurrences=len(breaks),
                compile_ids=compile_ids,
                impact=impact_of_breaks(breaks),
                library_frame=first.library_frame,
                evidence=BreakEvidence(
                    reason=first.reason,
                    explanation=first.explanation,
                    hints=list(first.hints),
                    context=first.context,
                    user_stack=[dataclasses.replace(f) for f in first.user_stack],
                    offset=first.offset,
                    opname=first.opname,
                    code_name=first.code_name,
                    source=site_code(first) or None,
                    causes=[_cause_entry(c) for c in listed],
                    chain=chain,
                    inner_code=_inner_code(ctx, rule, first) if rule.suggester == "frame_skipped" else None,
                ),
                ranks=ranks_of(breaks),
                graph_keys=graph_keys(everything),
            )
        )
    return findings


def _inner_code(ctx, rule, b: GraphBreak) -> str | None:
    """The rule that would own ``b`` had Dynamo resumed after it: the first other claimant, in priority order, that
    accepts the break as not frame-skipped. A skip's fix is the fix of the break that caused it."""
    plain = dataclasses.replace(b, frame_skipped=False)
    return next((e.rule.code for e in ctx.live_claimants("breaks")
                 if e.rule.code != rule.code and e.module.matches(plain)), None)


def _described(b: GraphBreak) -> bool:
    return bool(b.gb_id or b.user_stack)


def _frame_of(b: GraphBreak) -> str:
    return b.compile_id.rsplit("/", 1)[0]


def _site_order(site: str) -> tuple:
    path, _, line = site.rpartition(":")
    return (path, int(line) if line.isdigit() else 0)


def _cause_label(b: GraphBreak, n: int) -> str:
    where_ = f" in {b.library_frame.path}:{b.library_frame.line}" if b.library_frame is not None else ""
    gb = f" ({b.gb_id})" if b.gb_id else ""
    return f"{b.reason}{gb}{where_}" + (f" x{n}" if n > 1 else "")


def _cause_entry(c: Cause) -> dict:
    b = c.first
    lib = b.library_frame
    return {
        "gb_id": b.gb_id,
        "gb_url": b.gb_url,
        "reason": b.reason,
        "occurrences": len(c.breaks),
        "library_frame": f"{lib.path}:{lib.line}" if lib is not None else None,
        "sites": c.sites,  # every user line that reached it
    }


def _chain(causes: list[Cause], failures: dict | None = None) -> list[dict]:
    """The cascades under these causes, one entry per distinct GB id with its count: the breaks folded under a
    root, and the follow-up breaks torch names in a failed compile's reason ("While handling this graph break,
    another graph break occurred: graph break in loop ... gb7000")."""
    seen: dict[tuple, dict] = {}

    def add(gb_id, reason):
        item = seen.setdefault((gb_id, reason), {"gb_id": gb_id, "reason": reason, "occurrences": 0})
        item["occurrences"] += 1

    for c in causes:
        for b in c.cascades:
            add(b.gb_id, b.reason)
        for key in sorted({(b.rank, b.compile_id) for b in c.breaks}, key=str):
            reason = (failures or {}).get(key) or ""
            for part in reason.split(ANOTHER_BREAK)[1:]:
                gb = re.search(r"gb(\d{4})\.html", part)
                add(f"GB{gb.group(1)}" if gb else None, part.strip().splitlines()[0].strip() if part.strip() else "")
    return list(seen.values())


ANOTHER_BREAK = "*** While handling this graph break, another graph break occurred: ***"


def impact_of_breaks(breaks: list[GraphBreak]) -> float:
    # Each break splits a graph in two and adds a Python round trip per call; a skipped frame loses all of it.
    return float(len(breaks)) * (10.0 if any(b.frame_skipped for b in breaks) else 1.0)


def graph_keys(items) -> list[GraphKey]:
    """The graphs of breaks or recompiles, rank included."""
    return sorted({GraphKey(item.rank, item.compile_id) for item in items})


def ranks_of(items) -> dict[int, int]:
    counts: dict[int, int] = defaultdict(int)
    for item in items:
        rank = getattr(item, "rank", None)
        if rank is not None:
            counts[rank] += 1
    return dict(counts)


def cid_key(cid: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", cid))


def where(b: GraphBreak) -> str:
    if b.library_frame is not None:
        return f" (inside {b.library_frame.path}:{b.library_frame.line}, reached from this line)"
    return ""
