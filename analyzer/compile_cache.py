"""Compile caches, per graph and per run: record events -> CompileCacheFacts. Pure: reads the EventLog only.

torch logs one structured-trace artifact per cache lookup (``tdiag/torch_events.py``: ``CACHE_RESULTS``):
``fx_graph_cache_{hit,miss,bypass}`` for each Inductor graph (a graph's forward and its backward are looked up one by
one), ``aotautograd_cache_{hit,miss,bypass}`` for each AOTAutograd graph (forward and backward together). The JSON
payload carries the key, the key's components (one ``[hash] name: value`` line each, torch's ``debug_lines``), the
compile seconds a miss took (``time_taken_ns``) or a hit saved (``time_saved_ns``, ``time_saved_ms``), and a
bypass's reason. The capture also records how the program left the cache switches (``exit.compile_cache``,
tracer/cache_settings.py): with the caches off torch logs nothing, and "no event" must not read as "no miss".

The components are kept by reference (``components_ref``, a key of ``Analysis.code``): ``tdiag diff`` reads them to
name the component that changed (analyzer/cache_diff.py); nothing else pays for them.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import field
from typing import Any

from tdiag.analyzer.events import lazy_code

from tdiag import torch_events as te
from tdiag.lean_dataclass import lean_dataclass

CACHES = ("fx_graph", "aot_autograd")
NO_EVENTS = "no cache events recorded"
STAGE_NAMES = {"fx_graph": "fx_graph", "aotautograd": "aot_autograd"}


@lean_dataclass
class CacheOutcome:
    """One cache lookup of one graph."""

    cache: str  # fx_graph (Inductor's FX graph cache) or aot_autograd (AOTAutograd's cache)
    state: str  # hit, miss, bypass, or disabled (the program or the environment turned the cache off)
    role: str | None = None  # forward, backward, inference (FX graph cache); None for AOTAutograd (both at once)
    key: str | None = None
    seconds: float | None = None  # miss: compile seconds it cost; hit: seconds it saved (torch's figures)
    reason: str | None = None  # bypass / disabled: torch's words, or the switch that turned it off
    words: str | None = None  # bypass / disabled: the cause in the user's words
    fix: str | None = None  # bypass / disabled: what to change
    components_ref: str | None = None  # the artifact's payload (key components) in Analysis.code; None: not recorded


@lean_dataclass
class CacheCounts:
    """One cache's lookups of the run, by outcome."""

    hit: int = 0
    miss: int = 0
    bypass: int = 0


@lean_dataclass
class CompileCacheSummary:
    """The run's cache outcomes. ``recorded`` False: no cache event at all, and the counts are None, never zeros."""

    recorded: bool = False
    fx_graph: CacheCounts | None = None
    aot_autograd: CacheCounts | None = None
    seconds_saved: float = 0.0  # compile seconds the hits saved (torch's time_saved)
    seconds_missed: float = 0.0  # compile seconds the FX graph misses and bypasses cost (torch's time_taken)
    disabled: list[str] = field(default_factory=list)  # what turned a cache off (env var or config), user's words
    unreadable: int = 0  # cache artifacts whose payload could not be read (counted by state, without details)
    note: str | None = None  # NO_EVENTS when nothing was recorded, with why when known


@lean_dataclass
class CompileCacheFacts:
    """What the compile_cache stage read: each graph's lookups, the run's summary, the key components' payloads."""

    by_graph: dict[tuple[Any, str | None], list[CacheOutcome]] = field(default_factory=dict)
    summary: CompileCacheSummary = field(default_factory=CompileCacheSummary)
    payloads: dict[str, Any] = field(default_factory=dict)  # components_ref -> text or lazy loader (Analysis.code)


# -- switches -----------------------------------------------------------------------------------------------------
# (setting recorded at exit, value that turns caching off, the user's words, the fix)
SWITCHES = (
    ("env:TORCH_COMPILE_DEBUG", "1", "TORCH_COMPILE_DEBUG=1 turned the FX graph cache off",
     "unset TORCH_COMPILE_DEBUG (use TORCH_TRACE or TORCH_LOGS for the same detail with caches on)"),
    ("env:TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1",
     "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 turns every compile cache off",
     "unset TORCHINDUCTOR_FORCE_DISABLE_CACHES"),
    ("env:TORCHINDUCTOR_FX_GRAPH_CACHE", "0", "TORCHINDUCTOR_FX_GRAPH_CACHE=0 turns the FX graph cache off",
     "unset TORCHINDUCTOR_FX_GRAPH_CACHE"),
    ("env:TORCHINDUCTOR_AUTOGRAD_CACHE", "0", "TORCHINDUCTOR_AUTOGRAD_CACHE=0 turns the AOTAutograd cache off",
     "unset TORCHINDUCTOR_AUTOGRAD_CACHE"),
    ("inductor.force_disable_caches", True, "torch._inductor.config.force_disable_caches = True turns every compile "
     "cache off", "remove the torch._inductor.config.force_disable_caches = True line"),
    ("inductor.fx_graph_cache", False, "torch._inductor.config.fx_graph_cache = False turns the FX graph cache off",
     "remove the torch._inductor.config.fx_graph_cache = False line (it is on by default)"),
    ("functorch.enable_autograd_cache", False, "torch._functorch.config.enable_autograd_cache = False turns the "
     "AOTAutograd cache off", "remove the torch._functorch.config.enable_autograd_cache = False line"),
)

# -- bypass reasons: torch's words -> the user's, and the fix --------------------------------------------------------
BYPASSES = (
    (r"custom pass|custom_pass|post_grad_custom|_fusion_custom",
     "a custom Inductor pass that cannot be hashed into the cache key",
     "make the pass a torch._inductor.custom_graph_pass.CustomGraphPass with a uuid()"),
    (r"freezing", "torch._inductor.config.freezing = True: frozen weights are constants of the graph",
     "leave freezing off where compile time matters, or accept a compile per process"),
    (r"unpicklable|Failed to pickle", "the graph holds an object torch cannot hash into the cache key",
     "pass that object as a tensor input, or keep it out of the compiled region"),
    (r"Unsupported call_function|Unsupported call_method|Unsupported node op", "the graph calls a function or method "
     "the cache cannot key (a Python callable of the program's own)", "register it as a torch.library custom op"),
    (r"HigherOrderOperator|hop", "a higher-order operator (torch.cond, a wrapped function) the cache does not support",
     "upgrade torch, or keep that construct out of the compiled region"),
    (r"context_fn|selective activation|SAC",
     "selective activation checkpointing with a context_fn without a cache_hash",
     "give the context_fn a cache_hash attribute"),
    (r"uuid\(\)", "a custom solver or estimator without a uuid()", "wrap it in torch's Custom* class with a uuid()"),
    (r"fakify_first_call", "fakify_first_call is on", "turn fakify_first_call off"),
    (r"triton", "the installed Triton is too old for the AOTAutograd cache", "install the Triton torch was built with"),
    (r"not enabled", "the FX graph cache is off, so the AOTAutograd cache is bypassed too",
     "turn the FX graph cache on"),
)
DEEP_BYPASS = ("tdiag run --deep installs a fusion pass that bypasses the compile caches",
               "run without --deep to measure compile time with the caches on")


def bypass_words(reason: str, deep: bool) -> tuple[str, str]:
    if deep and re.search(r"pass", reason, re.I):  # --deep's fusion pass: the only custom pass tdiag sets
        return DEEP_BYPASS
    for pattern, words, fix in BYPASSES:
        if re.search(pattern, reason, re.I):
            return words, fix
    return f"torch bypassed the cache: {reason.splitlines()[0] if reason else 'no reason given'}", \
        "see torch's reason; the cache key cannot be computed for this graph"


def disabled_switches(settings: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """(setting, words, fix) for each recorded switch that turned a cache off."""
    if not isinstance(settings, dict):
        return []
    out = []
    for name, off, words, fix in SWITCHES:
        value = settings.get(name)
        if value is None:
            continue
        if (isinstance(off, bool) and value is off) or (isinstance(off, str) and str(value).strip() == off):
            out.append((name, words, fix))
    return out


# -- the facts ------------------------------------------------------------------------------------------------------
def compile_cache_facts(log: Any, inductor_graphs: set[tuple[Any, str | None]] | None = None) -> CompileCacheFacts:
    """``log``: the record's EventLog. ``inductor_graphs``: the (rank, compile id) of graphs Inductor compiled, so a
    graph without an event under a switched-off cache is marked ``disabled`` (None: unknown, none marked)."""
    facts = CompileCacheFacts()
    counts = {cache: CacheCounts() for cache in CACHES}
    parsed: dict[str, dict[str, Any] | None] = {}
    read: dict[str, tuple[CacheOutcome, bool]] = {}  # payload ref -> the outcome read from it, unreadable
    deep = any(h.get("deep") for h in log.headers)
    seen = False
    for ev in log.named(*te.CACHE_RESULTS):
        stage, state = te.CACHE_RESULTS[ev.name]
        cache = STAGE_NAMES[stage]
        seen = True
        setattr(counts[cache], state, getattr(counts[cache], state) + 1)
        ref = ev.payload_ref
        known = read.get(ref) if ref is not None else None
        if known is None:  # every rank of a job records the same payload blob: read each one once
            data = _payload(ev, parsed)
            known = (CacheOutcome(cache=cache, state=state), data is None)
            if data is not None:
                _read(known[0], data, deep)
                known[0].components_ref = ref if ref is not None and data.get("components") else None
            if ref is not None:
                read[ref] = known
        template, unreadable = known
        outcome = dataclasses.replace(template)
        facts.summary.unreadable += unreadable
        if outcome.components_ref is not None:
            facts.payloads.setdefault(outcome.components_ref, lazy_code(ev))
        facts.by_graph.setdefault((ev.rank, ev.compile_id), []).append(outcome)
    summary = facts.summary
    for outcomes in facts.by_graph.values():
        saved = [o.seconds or 0.0 for o in outcomes if o.state == "hit" and o.cache == "aot_autograd"]
        # an AOTAutograd hit loads its FX graphs from their cache: their hits are inside its saving
        summary.seconds_saved += sum(saved) if saved else sum(o.seconds or 0.0 for o in outcomes if o.state == "hit")
        summary.seconds_missed += sum(o.seconds or 0.0 for o in outcomes
                                      if o.cache == "fx_graph" and o.state in ("miss", "bypass"))
    # a switch counts where torch then looked nothing up in that cache: with lookups recorded it did not take
    # (set after the compiles, or a torch where it does not turn the cache off: TORCH_COMPILE_DEBUG=1 on 2.13)
    looked_up = {cache: sum((c.hit, c.miss, c.bypass)) > 0 for cache, c in counts.items()}
    switches = [s for s in _switches(log) if not looked_up[_switched_cache(s[0])]]
    summary.disabled = [words for _, words, _ in switches]
    if switches and inductor_graphs:
        _mark_disabled(facts, switches, inductor_graphs)
    summary.seconds_saved = round(summary.seconds_saved, 3)
    summary.seconds_missed = round(summary.seconds_missed, 3)
    if seen:
        summary.recorded = True
        summary.fx_graph, summary.aot_autograd = counts["fx_graph"], counts["aot_autograd"]
    else:
        summary.note = NO_EVENTS + (f": {'; '.join(summary.disabled)}" if summary.disabled else "")
    return facts


def _payload(ev: Any, parsed: dict[str, dict[str, Any] | None]) -> dict[str, Any] | None:
    ref = ev.payload_ref
    if ref is not None and ref in parsed:
        return parsed[ref]
    try:
        value = json.loads(ev.payload or "")
    except (ValueError, TypeError):
        value = None
    data = value if isinstance(value, dict) else None
    if ref is not None:
        parsed[ref] = data
    return data


def _read(outcome: CacheOutcome, data: dict[str, Any], deep: bool) -> None:
    key = data.get("key")
    outcome.key = key if isinstance(key, str) else None
    components = data.get("components")
    if outcome.cache == "fx_graph" and isinstance(components, list):
        outcome.role = _role(components)
    if outcome.state == "hit":
        ns = data.get("time_saved_ns")
        ms = data.get("time_saved_ms")
        outcome.seconds = _seconds(ns, 1e9) if ns is not None else _seconds(ms, 1e3)
    else:
        outcome.seconds = _seconds(data.get("time_taken_ns"), 1e9)
    if outcome.state == "bypass":
        reason = data.get("cache_bypass_reason")
        outcome.reason = str(reason) if reason is not None else None
        outcome.words, outcome.fix = bypass_words(outcome.reason or "", deep)


def _role(components: list[Any]) -> str:
    for line in components:
        if not isinstance(line, str):
            continue
        if "fx_kwargs[is_backward]: True" in line:
            return "backward"
        if "fx_kwargs[is_inference]: True" in line:
            return "inference"
    return "forward"


def _seconds(value: Any, per_second: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return round(value / per_second, 3)


def _switches(log: Any) -> list[tuple[str, str, str]]:
    seen: dict[str, tuple[str, str, str]] = {}
    for exit_event in log.exits.values():
        for item in disabled_switches(exit_event.get("compile_cache")):
            seen.setdefault(item[0], item)
    return list(seen.values())


def _switched_cache(setting: str) -> str:
    return "aot_autograd" if setting in AOT_SWITCHES else "fx_graph"


AOT_SWITCHES = ("env:TORCHINDUCTOR_AUTOGRAD_CACHE", "functorch.enable_autograd_cache")


def _mark_disabled(facts: CompileCacheFacts, switches, inductor_graphs) -> None:
    fx_off = [s for s in switches if s[0] not in AOT_SWITCHES]
    chosen = fx_off[0] if fx_off else switches[0]
    cache = "fx_graph" if fx_off else "aot_autograd"
    for key in inductor_graphs:
        outcomes = facts.by_graph.setdefault(key, [])
        if not any(o.cache == cache for o in outcomes):
            outcomes.append(CacheOutcome(cache=cache, state="disabled", reason=chosen[0], words=chosen[1],
                                         fix=chosen[2]))


# -- key components ---------------------------------------------------------------------------------------------------
COMPONENT_LINE = re.compile(r"\[(?P<hash>[0-9a-z]+)\] (?P<name>[^:\n]+?): (?P<value>.*)", re.S)


def components(payload_text: str | None) -> dict[str, tuple[str, str]] | None:
    """name -> (hash, value) from an artifact's payload; None when the payload or its components are unreadable."""
    try:
        data = json.loads(payload_text or "")
    except (ValueError, TypeError):
        return None
    lines = data.get("components") if isinstance(data, dict) else None
    if not isinstance(lines, list):
        return None
    out: dict[str, tuple[str, str]] = {}
    for line in lines:
        match = COMPONENT_LINE.match(line) if isinstance(line, str) else None
        if match is None:
            continue
        out[match["name"]] = (match["hash"], match["value"])
    return out if out else None


# -- into the Analysis ----------------------------------------------------------------------------------------------
def attach_compile_cache(analysis: Any, log: Any) -> CompileCacheFacts:
    """Put the facts where every output reads them: each graph's ``cache_outcomes``, ``summary.compile_cache`` and
    the key components' payloads in ``analysis.code`` (resolved only when read)."""
    inductor = {(g.rank, g.compile_id) for g in analysis.graphs if g.output_code_refs or "inductor" in g.stages}
    facts = compile_cache_facts(log, inductor)
    for graph in analysis.graphs:
        outcomes = facts.by_graph.get((graph.rank, graph.compile_id))
        if outcomes:
            graph.cache_outcomes = outcomes
    for ref, loader in facts.payloads.items():
        if ref not in analysis.code:
            analysis.code[ref] = loader
    analysis.summary.compile_cache = facts.summary
    return facts


def stage(facts: Any) -> CompileCacheFacts:
    """The compile_cache stage of analyzer/stages.py."""
    return attach_compile_cache(facts.analysis, facts.log)
