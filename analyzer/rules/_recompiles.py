"""Shared by the rules claiming recompilations: causes, which rule owns each (``claim_recompiles``), and how one
site's causes become a finding. What a rule matches and how it words it lives in the rule's own module."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict

from tdiag.analyzer.evidence import RecompileEvidence
from tdiag.analyzer.guard_words import is_string_value, module_path, user_names, user_words
from tdiag.analyzer.library_state import library_state
from tdiag.analyzer.mutated_container import changes, guarded_container
from tdiag.analyzer.model import Finding, Frame, GuardFailure, Recompile, Site
from tdiag.analyzer.paths import is_library_display
from tdiag.analyzer.rules._breaks import carried_across_break, cid_key, graph_keys, ranks_of
from tdiag.analyzer.torch_text import hit_recompile_limit


def primary_failure(r: Recompile) -> GuardFailure | None:
    """The failure against the newest cache entry: the one that would have been reused."""
    return r.failures[0] if r.failures else None


def classify(r: Recompile, claimants=None) -> str | None:
    """The code of the rule that owns this recompile: the first claimant (priority order) that matches it."""
    if claimants is None:
        from tdiag.analyzer.rules import claimants as registered

        claimants = registered("recompiles")
    failure = primary_failure(r)
    return next((e.rule.code for e in claimants if e.module.matches(r, failure)), None)


def recompile_site(r: Recompile) -> Site:
    if r.call_site is not None:
        return r.call_site
    f = primary_failure(r)
    if f is not None and f.path and f.line and not f.path.startswith("<"):
        return Site(f.path, f.line, function=r.code_name)
    return Site(r.path, r.line, function=r.code_name)


def cause_key(r: Recompile, code: str | None) -> tuple:
    """What changed, in which function: a function and its resume functions (same user name) recompiling for the
    same guard on the same input are one cause, whatever line called them."""
    f = primary_failure(r)
    if f is None:
        return (code, r.path, r.code_name, None)
    if (thing := _guarded_thing(f)) is not None:
        what = thing  # a dict's key order, or a global dict: every position or entry of it is one cause
    elif f.subject:
        what = (f.kind, _plain_subject(f.subject), f.dim)
    else:
        what = (f.kind, re.sub(r"\d+", "N", f.text))
    return (code, r.path, r.code_name, what)


def cause_site(recompiles: list[Recompile], frame_sites: dict | None = None) -> Site:
    """The user line of a cause: a line that called the compiled function (where mark_dynamic & co. go), else the
    line that entered any compile of the function, else where torch says the guard came from, else the function."""
    for r in recompiles:
        if r.call_site is not None:
            return r.call_site
    for r in recompiles:
        site = (frame_sites or {}).get((r.rank, r.frame_id))
        if site is not None:
            return site
    return recompile_site(recompiles[0])


def claim_recompiles(ctx, claimants) -> dict[str, list[tuple[Site, list[Recompile]]]]:
    """rule code -> [(user site, recompiles)] per cause (what changed, in which function). At a call line where one
    of the user's own functions recompiled, the recompiles of library frames reached from the same call (a helper
    that sees the derived node count, a module's forward that sees an input now requiring grad) are consequences of
    the same change: they go to the finding of the user's function (its highest-priority rule) instead of standing
    as findings of their own. Recompiles carried across a graph break are in that break's chain, not here."""
    causes: dict[tuple, list[Recompile]] = defaultdict(list)
    codes: dict[tuple, str] = {}
    shared = instances_sharing_a_frame(ctx.analysis.recompiles)
    for r in ctx.analysis.recompiles:
        if carried_across_break(r, ctx.break_sites):
            continue
        state = shared.get((r.rank, r.frame_id))
        if state is not None and state not in r.failures:
            # the frame serves several module instances: an input's size or an attribute of `self` that differs
            # with them is a symptom of that one cause, worded and fixed as it (not marked dynamic, not "changed by
            # each call": blind batch 7's pyramid of blocks, each compiled on its own)
            r = dataclasses.replace(r, failures=[state, *r.failures], hidden_failures=[])
        elif state is None and (dominant := dominant_failure(r)) is not None:
            # a guard on a global dict the program changes between calls: every cache entry fails it, so whatever
            # else failed with it (an input's requires_grad, the dict's length) is a symptom of that one cause
            r = dataclasses.replace(r, failures=[dominant, *(f for f in r.failures if f is not dominant)],
                                    hidden_failures=[])
        for cause in ((r,) if state is not None else (r, *with_hidden_cause(r))):
            code = classify(cause, claimants)
            if code is None:
                continue
            key = cause_key(cause, code)
            if any((c.rank, c.compile_id) == (r.rank, r.compile_id) for c in causes[key]):
                continue  # several guards of one recompile on the same thing (a dict's keys): one recompile
            causes[key].append(cause)
            codes[key] = code
    by_site: dict[tuple, list[tuple[str, Site, list[Recompile]]]] = defaultdict(list)
    for key, recompiles in causes.items():
        site = cause_site(recompiles, ctx.frame_sites)
        by_site[site.key].append((codes[key], site, recompiles))
    priority = {e.rule.code: e.rule.priority for e in claimants}
    owned: dict[str, list[tuple[Site, list[Recompile]]]] = defaultdict(list)
    for at_site in by_site.values():
        own = [code for code, _, rs in at_site if not is_library_display(rs[0].path)]
        owner = min(own, key=lambda c: priority[c]) if own else None
        for code, site, recompiles in at_site:
            if owner is not None and is_library_display(recompiles[0].path):
                code = owner
            owned[code].append((site, recompiles))
    return owned


def with_hidden_cause(r: Recompile) -> list[Recompile]:
    """The recompile once per guard that failed behind the one torch logged (``Recompile.hidden_failures``), each as
    its primary failure: a second cause of the same recompile, claimed by the rule that owns that guard."""
    return [dataclasses.replace(r, failures=[hidden], hidden_failures=[]) for hidden in r.hidden_failures]


def guard_kinds(*kinds: str):
    """``matches`` for a rule that owns recompiles whose failing guard is of these kinds (``GuardFailure.kind``)."""

    def matches(r: Recompile, f: GuardFailure | None) -> bool:
        return f is not None and f.kind in kinds

    return matches


WORDS = ("frame", "subject", "kind", "guard", "dim", "dim_index", "values", "compiled_for", "catalogue_fix",
         "change")  # the fields of words(): a claiming rule's templates may name only these (checked at load)


def words(r: Recompile, f: GuardFailure | None) -> dict[str, object]:
    """What a claiming rule's ``message``/``fix`` templates may name about a recompile and its failing guard."""
    return {
        "frame": frame_label(r),
        "subject": _module_attribute(f) or subject_name(f),
        "kind": f.kind if f else "guard",
        "guard": user_words(f.text, _qualname(r)) if f else "unknown guard",
        "dim": f" dim {f.dim}" if f and f.dim is not None else "",
        "dim_index": f.dim if f and f.dim is not None else 0,
        "values": f" (expected {f.expected}, got {f.actual})" if f and f.expected and f.actual else "",
        "compiled_for": f" (compiled for {f.expected})" if f and f.expected else "",
        "catalogue_fix": guard_fix(r, f),
        # what changed, in the user's terms: "the key order of `feats` changed ..."; a Python value by default
        "change": change_words(f) or f"Python value {_module_attribute(f) or subject_name(f)} changed"
                  + (f" (compiled for {f.expected})" if f and f.expected else ""),
    }


def guard_subject(f: GuardFailure | None, compiled_for: list[str] | None = None,
                  r: Recompile | None = None) -> tuple[str, dict[str, object]]:
    """What the guarded object is (the catalogue's subject kinds, catalogue/guards.toml) and the fields its words may
    name, all in the user's names: this classifies the evidence; the words are the catalogue's."""
    subject = subject_name(f)
    fields: dict[str, object] = {}
    owned = library_state(f, subject)
    if owned is not None:
        fields.update(attribute=owned.attribute, holder=owned.holder, library=owned.library)
        return ("optimizer_state" if owned.expected_once else "library_state"), fields
    if f is not None and "___stack" in (f.subject or "") and (f.path and f.line or r is not None and r.path and r.line):
        # a value carried across a graph break (what .tolist() returned): the break is the cause, at the line the
        # resumed code starts from (the recompiled frame's); the guard's own statement only where it is that line
        at = (r.path, r.line) if r is not None and r.path and r.line else (f.path, f.line)
        return "carried_across_break", {"statement": (f.source or "").strip() if at == (f.path, f.line) else "",
                                        "at": f"{at[0]}:{at[1]}"}
    order = dict_key_order(f)
    if order is not None:
        # Dynamo unrolled a loop over the dict and guards on its exact key order: another order, another graph
        return "dict_key_order", {"holder": order[0], **_statement_fields(f)}
    state = _module_state_size(f, r)
    if state is not None:
        # a parameter's or buffer's size changed: the same compiled forward serves several instances of one module
        # class with other sizes (each block of a pyramid compiled with its own .compile(): one code object, one
        # cache), so each instance recompiles it until the limit; the input sizes that change with it follow
        return "module_state_size", {"attribute": user_words(state.subject)}
    container = guarded_container(f.subject) if f is not None else None
    if container is not None and changes(f.source, container):
        return "mutated_container", {"container": container, "statement": f.source.strip(),
                                     "at": f"{f.path}:{f.line}" if f.path and f.line else "the compiled code"}
    held = global_dict(f)
    if held is not None:
        # a module-level dict the program changes between calls (a counter, statistics): its values are compiled in
        writer = next((g for g in ([f, *r.failures] if r is not None else [f]) if g.source
                       and changes(g.source, held[0])), None)
        return "global_mutable_dict", {"container": held[0], "key": held[1] or "",
                                       **(_statement_fields(writer) if writer is not None else {})}
    present = KEY_PRESENCE.search(f.text) if f is not None else None
    if present is not None:
        return "dict_key_presence", {"key": present["key"], "holder": user_words(present["holder"])}
    branch = (f.source or "").strip() if f is not None else ""
    branch_fields = {"branch": branch, "branch_at": f"{f.path}:{f.line}"} if f is not None and f.path and f.line \
        and branch.startswith(("if ", "elif ", "while ")) else None
    attribute = _module_attribute(f)
    if attribute is not None and re.fullmatch(r"-?\d+", f.expected or "") and not (
            branch_fields and attribute.count(".") > 1):  # a submodule's cache size deciding its branch: a branch
        at = f"{f.path}:{f.line}: `{f.source.strip()}`" if f.source and f.path and f.line else ""
        return "module_int_attribute", {"attribute": attribute, "at": at}
    if attribute is not None and re.fullmatch(r"-?\d+\.\d*(?:e-?\d+)?", f.expected or ""):
        # a float attribute a module passes to a functional op (nn.Dropout's p into F.dropout): torch specialises on
        # it, so each new value recompiles, made dynamic or not
        at = f"{f.path}:{f.line}: `{f.source.strip()}`" if f.source and f.path and f.line else ""
        return "module_float_attribute", {"attribute": attribute, "at": at}
    if f is not None and is_string_value(f.expected):
        # a sentence, not a name: a new value on every call, so no limit covers it
        # a sentence (spaces, or long) that took a new value each time, over several compiles: free text
        words = f.expected.strip()[1:-1]
        distinct = len(set(compiled_for or []))
        sentence = " " in words.strip() or len(words) > 40
        return ("free_text" if sentence and distinct >= 4 else "string"), fields
    if f is not None and f.kind == "value" and (f.expected or "").strip() in ("True", "False"):
        return "bool_flag", fields  # two values at most: one graph each
    if branch_fields:
        return "branch_decider", branch_fields
    if f is not None and f.kind == "length" and _goes_down(compiled_for or []):
        return "varying_length", fields  # a count that goes down too: items that vary per call, not a growing list
    return "argument", fields


def _goes_down(values: list[str]) -> bool:
    """The lengths the cause's compiles were made for (in order) go down somewhere: not a container that grows."""
    try:
        counts = [int(v) for v in values]
    except (TypeError, ValueError):
        return False
    return any(b < a for a, b in zip(counts, counts[1:]))


def instances_sharing_a_frame(recompiles: list[Recompile]) -> dict[tuple, GuardFailure]:
    """(rank, frame_id) -> a size guard on one of the frame's module's own parameters or running statistics that
    failed in one of its recompiles: the frame's compiled forward serves several instances of the module's class
    (one code object, one cache), and every other guard that differs between them follows from that."""
    out = {}
    for r in recompiles:
        for g in r.failures + r.hidden_failures:
            if g.kind in ("size", "stride") and MODULE_STATE.search(g.subject or ""):
                out.setdefault((r.rank, r.frame_id), g)
    return out


def _module_state_size(f: GuardFailure | None, r: Recompile | None) -> GuardFailure | None:
    """The failure, of ``f`` and the others of its recompile, that is a size guard on one of the module's own
    parameters or buffers; None where none is."""
    if f is None or f.kind not in ("size", "stride"):
        return None  # a value that changed (a cache length deciding a branch) is its own cause
    for g in [f, *((r.failures + r.hidden_failures) if r is not None else [])]:
        if g is not None and g.kind in ("size", "stride") and MODULE_STATE.search(g.subject or ""):
            return g
    return None


# a module's own parameter, or a normalisation layer's running statistics: sizes one instance never changes (unlike a
# cache buffer that grows: a rotary embedding's cos table), so a new size means another instance of the class
MODULE_STATE = re.compile(r"^(?:L\['self'\]|self)(?:\._modules\['[^']+'\])*"
                          r"\._(?:parameters\['[^']+'\]|buffers\['running_(?:mean|var)'\])$")
# torch's guard on a dict key's presence: ``not ___dict_contains('mask', L['batch'])``
KEY_PRESENCE = re.compile(r"___dict_contains\((?P<key>[^,()]+), (?P<holder>[^()]+?)\)")


# torch's guard on the order of a dict's keys, where Dynamo unrolled a loop over it (``for name, x in feats.items()``):
# ``list(dict.keys(feats))[2] == 'video'``; a key is a string or a number
KEY_ORDER = re.compile(r"^list\(dict\.keys\((?P<holder>.+)\)\)\[(?P<index>\d+)\]$")
# torch's guard on a value of a module-level dict: ``dict.__getitem__(G['OP_COUNTS'], list(dict.keys(...))[1]) == 48``
# (read through a key Dynamo got by iterating) or ``G['OP_COUNTS']['linear'] == 48`` (a constant key)
GLOBAL_DICT_ITEM = re.compile(r"^dict\.__getitem__\(G\['(?P<name>[A-Za-z]\w*)'\], (?P<key>.+)\)$")
GLOBAL_DICT_KEY = re.compile(r"^G\['(?P<name>[A-Za-z]\w*)'\]\[(?P<key>'[^']*'|\"[^\"]*\")\]$")
_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def dict_key_order(f: GuardFailure | None) -> tuple[str, int] | None:
    """(the dict as the user's code names it, the key's position) for a guard on a dict's key order; else None."""
    m = KEY_ORDER.match(f.subject or "") if f is not None else None
    if m is None or not re.fullmatch(r"'[^']*'|\"[^\"]*\"|-?\d+", (f.expected or "").strip()):
        return None
    return user_words(m["holder"]), int(m["index"])


def global_dict(f: GuardFailure | None) -> tuple[str, str | None] | None:
    """(the module-level dict's name, the key where the guard names it) for a guard on a value of a global dict;
    else None."""
    subject = (f.subject or "") if f is not None else ""
    m = GLOBAL_DICT_ITEM.match(subject) or GLOBAL_DICT_KEY.match(subject)
    if m is None or m["name"].startswith("__"):
        return None
    return m["name"], (m["key"] if is_string_value(m["key"]) else None)


def dominant_failure(r: Recompile) -> GuardFailure | None:
    """A guard on a global dict among the recompile's failures (torch's, then those behind them), preferring one
    whose source statement changes the dict: the cause of the whole recompile; None where none is."""
    found = [g for g in r.failures + r.hidden_failures if global_dict(g) is not None]
    writing = [g for g in found if g.source and changes(g.source, global_dict(g)[0])]
    return (writing or found or [None])[0]


def _guarded_thing(f: GuardFailure) -> tuple | None:
    order = dict_key_order(f)
    if order is not None:
        return ("key_order", order[0])
    held = global_dict(f)
    return ("global_dict", held[0]) if held is not None else None


def change_words(f: GuardFailure | None) -> str | None:
    """What changed, in the user's terms, for the guards whose text says nothing to the user (a dict's key order,
    a value of a global dict); None for any other guard."""
    order = dict_key_order(f)
    if order is not None:
        holder, index = order
        place = _ORDINALS[index] if index < len(_ORDINALS) else f"key number {index + 1} as its"
        return (f"the key order of `{holder}` changed (compiled for {f.expected} as its {place} key; the same keys in "
                "another order compile again)")
    held = global_dict(f)
    if held is not None:
        name, key = held
        entry = f"the value at key {key}" if key else "a value"
        return (f"the compiled code reads {entry} of the global dict `{name}`"
                + (f" (compiled for {f.expected})" if f.expected else "")
                + ", and the program changes that dict from call to call, so each call compiles again")
    return None


def _statement_fields(f: GuardFailure) -> dict[str, str]:
    """The user's statement a guard came from and where, for the catalogue's words; empty where torch gave none."""
    if not (f.source and f.path and f.line):
        return {}
    return {"statement": f.source.strip(), "at": f"{f.path}:{f.line}"}


def guard_fix(r: Recompile | None, f: GuardFailure | None, recompiles: int | None = None) -> str:
    """The fix line of a recompile: the first candidate of the catalogue's entry for this guard kind and subject."""
    return guard_candidate(r, f, recompiles)[1]


def guard_candidate(r: Recompile | None, f: GuardFailure | None, recompiles: int | None = None,
                    compiled_for: list[str] | None = None):
    """The catalogue's first candidate for this guard kind and subject (a cause that recompiled ``recompiles``
    times, its compiles made for the values ``compiled_for``), and its words in the user's names."""
    from tdiag.analyzer import catalogue

    kind, fields = guard_subject(f, compiled_for, r)
    entry = catalogue.for_guard(f.kind if f else None, kind, recompiles)
    return entry.first, catalogue.render_first(entry, "guards", **{**_fields(r, f), **fields, "count": recompiles or ""})


def _fields(r: Recompile | None, f: GuardFailure | None) -> dict[str, object]:
    return {
        "subject": _module_attribute(f) or subject_name(f),
        "frame": frame_label(r) if r is not None else "",
        "kind": f.kind if f else "guard",
        "dim_index": f.dim if f and f.dim is not None else 0,
        "compiled_for": f" (compiled for {f.expected})" if f and f.expected else "",
    }


def recompile_check(rule, module):
    """The check of a rule claiming recompiles: its causes, worded by the module's functions or the rule's templates."""
    message = getattr(module, "message", None) or (lambda r, f: rule.message.format(**words(r, f)))
    fix = getattr(module, "fix", None) or (lambda r, f: rule.fix.format(**words(r, f)))

    def check(ctx) -> list[Finding]:
        return recompile_findings(ctx, rule, message, fix)

    return check


def recompile_findings(ctx, rule, message, fix) -> list[Finding]:

    """One finding per user line and rule; each distinct cause (function + guard) listed with its own count."""
    a = ctx.analysis
    decisions = {(fr.rank, fr.frame_id): fr.automatic_dynamic for fr in a.frames}
    groups: dict[tuple[str, int], list[tuple[Site, list[Recompile]]]] = defaultdict(list)
    for site, recompiles in ctx.recompile_causes.get(rule.code, ()):
        groups[site.key].append((site, recompiles))
    findings = []
    live = ctx.live_claimants("recompiles") if groups else []  # not those that failed (rules/__init__.py)
    for (path, line), causes in groups.items():
        # the user's own function first (its guard words the finding), then by count
        causes.sort(key=lambda c: (is_library_display(c[1][0].path), classify(c[1][0], live) != rule.code, -len(c[1])))
        site, cause = causes[0]
        recompiles = [r for _, c in causes for r in c]
        counted = _counted(a, recompiles)
        # a recompile whose own logged guard is the cause words it where there is one (torch's guard has the
        # statement it came from; one read behind another guard may not)
        first = next((r for r in cause if r.failures and not r.failures[0].hidden), cause[0])
        failure = primary_failure(first)
        text = message(first, failure)
        if failure is not None and failure.hidden and change_words(failure) is None:
            # torch logged another guard of this recompile first
            now = f"is {failure.actual}" if failure.actual in ("None", "not None") else f"== {failure.actual}"
            text += (f" (failed behind the guard torch logged: the new compile guards "
                     f"{user_words(failure.subject, _qualname(first))} {now})")
        if len(causes) > 1:
            text += "; also: " + "; ".join(
                f"{frame_label(c[0])} "
                f"({_failure_words(c[0])})"
                + (f" x{len(c)}" if len(c) > 1 else "")
                for _, c in causes[1:]
            )
        dynamic = sorted({d for r in recompiles for d in decisions.get((r.rank, r.frame_id), [])})
        if dynamic and not (failure and failure.hidden):  # automatic dynamic follows the logged cause, a size
            text += f"; Dynamo then made {', '.join(_plain_decision(d) for d in dynamic)}"
        frames = sorted({(r.path, r.line) for r in recompiles})
        fix_text, bounded = fix(first, failure), False
        if rule.fix == "{catalogue_fix}" and not (failure and failure.hidden):
            # a property with a few states compiles once per state: the catalogue's bounded entries say so
            values = [primary_failure(r).expected for r in cause if r.failures and primary_failure(r).expected]
            candidate, fix_text = guard_candidate(first, failure, counted, values)
            bounded = candidate.kind == "expected"
        findings.append(
            rule.finding(
                message=text,
                fix=fix_text,
                path=path,
                line=line,
                column=site.column,
                function=site.function,
                occurrences=counted,
                compile_ids=sorted({r.compile_id for r in recompiles}, key=cid_key),
                impact=3.0 * counted,
                evidence=RecompileEvidence(
                    frame=first.code_name,
                    frame_path=first.path,
                    frame_line=first.line,
                    guard=failure.text if failure else None,
                    guard_kind=failure.kind if failure else None,
                    subject=failure.subject if failure else None,
                    dim=failure.dim if failure else None,
                    expected=failure.expected if failure else None,
                    actual=failure.actual if failure else None,
                    guard_source=failure.source if failure else None,
                    guard_path=failure.path if failure else None,
                    guard_line=failure.line if failure else None,
                    failures=[f.text for r in recompiles for f in r.failures],
                    frames=[f"{p}:{n}" for p, n in frames],
                    call_sites=sorted({f"{r.call_site.path}:{r.call_site.line}" for r in recompiles if r.call_site}),
                    automatic_dynamic=dynamic,
                ),
                ranks=ranks_of(recompiles),
                graph_keys=graph_keys(recompiles),
                library_frame=Frame(first.path, first.line, first.code_name, None, False)
                if is_library_display(first.path) else None,
            )
        )
        if bounded:  # torch's expected behaviour: info, nothing to fix, ranked after every fixable finding
            findings[-1] = dataclasses.replace(findings[-1], severity="info", by_design=True, impact=0.1)
    return findings


def _counted(a, recompiles: list[Recompile]) -> int:
    """How many recompiles these are as torch counts them (TORCH_LOGS=recompiles, the recompile limit's "after N
    recompilations"): each once, however many of its guards failed (a dict's keys, one guard per position), and not
    the attempt refused at the recompile limit, which compiled nothing (blind batch 9: 11 for torch's 5, 88 for 7)."""
    refused = {(g.rank, g.compile_id) for g in a.graphs if hit_recompile_limit(g.fail_reason)}
    distinct = {(r.rank, r.compile_id) for r in recompiles}
    return len(distinct - refused) or len(distinct)


OPTIMIZER_STATE = re.compile(r"(?P<owner>[\w'\[\]]*?)\.?state\[list\(dict\.keys\(")


def _failure_words(r: Recompile) -> str:
    """A cause listed after the first one: what changed in the user's terms, else torch's guard in the user's names."""
    f = primary_failure(r)
    if f is None:
        return "unknown guard"
    return change_words(f) or user_words(f.text, _qualname(r))


def _plain_decision(decision: str) -> str:
    """``L['decay'] -> dynamic`` as the user names it: ``decay -> dynamic``; a compiled module's own attributes from
    the module (``self._modules['rope']._buffers['cos'].size()[0]`` -> ``rope.cos.size()[0]``)."""
    return re.sub(r"^self\.", "", user_words(decision))


def _user_root(owner: str) -> str | None:
    m = re.fullmatch(r"[LG]\['(\w+)'\]|(\w+)", owner or "")
    name = (m.group(1) or m.group(2)) if m else None
    return None if name in (None, "self") else name


def _plain_subject(subject: str) -> str:
    return re.sub(r"___stack\d+", "___stack", subject)


def frame_label(r: Recompile) -> str:
    if is_library_display(r.path):  # torch's wrapper or a library forward: the name says what the user compiled
        return r.code_name
    return f"{r.code_name} ({r.path}:{r.line})"


def _module_attribute(failure: GuardFailure | None) -> str | None:
    """``self.calls`` for a guard on a plain attribute of the compiled module (``L['self'].calls``) or of one of its
    submodules (``self.norm.calls``), as its forward names it; None for anything else."""
    m = re.fullmatch(r"(?:L\['self'\]|self)((?:\._modules\['\w+'\])*\.\w+)", failure.subject or "") \
        if failure is not None else None
    # a submodule's attribute as the forward names it: L['self']._modules['norm'].count -> self.norm.count
    return "self" + module_path(m.group(1)) if m else None


def subject_name(failure: GuardFailure | None) -> str:
    if failure is None or not failure.subject:
        return "an input"
    s = failure.subject
    if "___stack" in s:
        # A resume function's argument: a value computed before a graph break (e.g. an .item() result).
        return "a value carried across a graph break (e.g. an .item() result)"
    state = OPTIMIZER_STATE.search(s)
    if state:  # len(self.state[list(dict.keys(self.state))[0]]): the optimizer's per-parameter state, filled by step()
        owner = _user_root(state.group("owner"))
        return (f"{owner}.state" if owner else "the optimizer's state") + \
            " (the optimizer's per-parameter state, filled by its first step())"
    order = dict_key_order(failure)
    if order is not None:
        return f"the key order of {order[0]}"
    held = global_dict(failure)
    if held is not None:
        return (f"the value at key {held[1]}" if held[1] else "a value") + f" in the global dict {held[0]}"
    return _user_expression(s)


def _user_expression(s: str) -> str:
    """An expression of torch's guard text as the user's code names it."""
    # module attributes as the user names them: self._modules['h']._modules['0']._parameters['bias'] -> h[0].bias
    s = module_path(s)
    s = re.sub(r"^[LG]\['(\w+)'\](?=[.\[])", r"\1", s)  # G['val_metric']._update_count -> val_metric._update_count
    s = re.sub(r"(?<=\()[LG]\['(\w+)'\](?=[.\[)])", r"\1", s)  # len(G['timings']) -> len(timings)
    s = re.sub(r"^L\['self'\]\.|^self\.", "", s)
    s = re.sub(r"^(?:L\['kwargs'\]|kwargs)\['([^']+)'\]$", r"\1", s)  # a keyword argument: input_ids=...
    return user_names(s)  # any name left that only Dynamo holds, in words (guard_words.py)


def _qualname(r: Recompile) -> str | None:
    """The compiled function's qualified name where torch logged one (``SGD.step``), for words about an object
    only Dynamo names (guard_words.user_words's ``frame``)."""
    return r.code_name if r.code_name and not r.code_name.startswith("torch_dynamo_resume") else None
