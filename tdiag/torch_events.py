"""torch's structured-trace vocabulary in one place: the event and artifact names tdiag reads or writes.

torch's ``trace_structured`` names an event by the first key of its metadata that is not context (``dynamo_start``,
``compilation_metrics``...); an artifact (``trace_structured_artifact``) by ``artifact:<its name>``. These names are
torch's, not ours: when a torch release renames one, this file changes and nothing else (see docs/torch-versions.md).
Shared by the capture (tracer, compiler) and the analysis: standard library only, no torch import.
"""

from __future__ import annotations

import re

ARTIFACT_PREFIX = "artifact:"


def artifact(name: str) -> str:
    """The event name of torch's artifact ``name`` as tdiag records it."""
    return ARTIFACT_PREFIX + name


# Dynamo: one compile of a frame
DYNAMO_START = "dynamo_start"  # a frame's compile begins (user stack of the frame)
COMPILATION_METRICS = "compilation_metrics"  # a frame's compile ends: times, fail reason, graph counts
BWD_COMPILATION_METRICS = "bwd_compilation_metrics"  # the backward's compile (AOTAutograd, lazily at first backward)
DYNAMO_OUTPUT_GRAPH = "dynamo_output_graph"  # the FX graph Dynamo produced
DYNAMO_GUARDS = "dynamo_guards"  # guards, older torch
DYNAMO_CPP_GUARDS_STR = "dynamo_cpp_guards_str"  # guards as text (C++ guard manager)
STR = "str"  # an interned file name (``{"str": [path, index]}``)
CREATE_SYMBOL = "create_symbol"  # a dynamic dimension: automatic dynamic's decision
CHROMIUM_EVENT = "chromium_event"  # compile-time spans (inductor_compile and others)
INDUCTOR_COMPILE_SPAN = "inductor_compile"  # the chromium_event span of one Inductor compile

GRAPH_BREAK_REASON = artifact("dynamo_graph_break_reason")  # one graph break: reason, user stack
RECOMPILE_REASONS = artifact("recompile_reasons")  # the guards that failed before a recompile
TORCH_VERSION = artifact("torch_version")

# Where graph breaks, recompiles and guards name the user's files (the capture snapshots those sources).
SOURCE_EVENTS = (GRAPH_BREAK_REASON, RECOMPILE_REASONS, DYNAMO_CPP_GUARDS_STR)

# Inductor: compile caches, generated code, provenance
CACHE_RESULTS = {
    artifact("fx_graph_cache_hit"): ("fx_graph", "hit"),
    artifact("fx_graph_cache_miss"): ("fx_graph", "miss"),
    artifact("fx_graph_cache_bypass"): ("fx_graph", "bypass"),
    artifact("aotautograd_cache_hit"): ("aotautograd", "hit"),
    artifact("aotautograd_cache_miss"): ("aotautograd", "miss"),
    artifact("aotautograd_cache_bypass"): ("aotautograd", "bypass"),
}
INDUCTOR_OUTPUT_CODE = "inductor_output_code"

# DDPOptimizer: a compiled graph split at gradient-bucket boundaries
DDP_SPLIT_CHILD = "optimize_ddp_split_child"

# Events whose metadata carries the whole interpreter stack (dropped from the record; their own fields are kept).
FULL_STACK_EVENTS = frozenset({"create_symbol", "create_unbacked_symbol", "guard_added_fast", "guard_added", "expression_created"})


def without_attempt(compile_id: str) -> str:
    """``0/0`` for torch's ``0/0_1`` (a restarted compile's attempt): the trace's events name the frame without it."""
    return re.sub(r"_\d+$", "", compile_id)
