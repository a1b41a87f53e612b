"""Why a warm start missed: the cache-key component that changed between two runs, read from torch's own components.

Each FX graph cache artifact lists the key's components, one ``[hash] name: value`` line each (torch's
``FxGraphHashDetails.debug_lines``): the graph module, every input's metadata, every Inductor config key, the compile
options, torch's build and the system (Triton, CUDA, GPU). For each graph NEW missed where BASE had compiled or hit
the same graph (same rank, function and compile index; same role: forward, backward, inference), the components
whose hashes differ are the cause, named in the user's words. Pure: reads two Analyses (their ``code`` store holds
the payloads, analyzer/compile_cache.py).
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from tdiag.analyzer.compile_cache import components as read_components

from tdiag.lean_dataclass import lean_dataclass

MAX_VALUE = 80


@lean_dataclass
class KeyChange:
    kind: str  # config, version, code, input, constant, setting, unreadable
    component: str  # torch's name of the component (``inductor_config[max_autotune]``, ``example_inputs[2]``)
    words: str  # what changed, in the user's words, both values where they are readable
    base: str | None = None
    new: str | None = None
    site: str | None = None  # path:line of the program's line that sets it (config keys), when the sources show one


@lean_dataclass
class CacheMissCause:
    """One graph that NEW missed where BASE compiled or hit it, and the key components that changed."""

    compile_id: str
    function: str
    role: str | None
    base_state: str
    new_state: str
    rank: int | None = None
    changes: list[KeyChange] = field(default_factory=list)
    note: str | None = None  # why no component is named (same key: a cache directory emptied or not shared)


def explain_misses(base: Any, new: Any) -> list[CacheMissCause]:
    base_graphs = {_identity(g): g for g in base.graphs}
    out = []
    for graph in new.graphs:
        before = base_graphs.get(_identity(graph))
        if before is None:
            continue
        for outcome in graph.cache_outcomes:
            if outcome.cache != "fx_graph" or outcome.state not in ("miss", "bypass"):
                continue
            earlier = next((o for o in before.cache_outcomes if o.cache == "fx_graph" and o.role == outcome.role
                            and o.state in ("hit", "miss")), None)
            if earlier is None:
                continue
            cause = CacheMissCause(graph.compile_id, graph.code_name, outcome.role, earlier.state, outcome.state,
                                   graph.rank)
            if outcome.state == "bypass":
                cause.note = outcome.words
            elif earlier.key is not None and earlier.key == outcome.key:
                cause.note = ("the same key as before: the cache entry was not there (another TORCHINDUCTOR_CACHE_DIR, "
                              "a cleared or unshared cache)")
            else:
                cause.changes = _changes(base, new, earlier.components_ref, outcome.components_ref)
            out.append(cause)
    return out


def _identity(graph: Any) -> tuple:
    return (graph.rank, graph.code_name, graph.path, graph.line, graph.frame_compile_id)


def _changes(base: Any, new: Any, base_ref: str | None, new_ref: str | None) -> list[KeyChange]:
    before = read_components(base.code.get(base_ref)) if base_ref else None
    after = read_components(new.code.get(new_ref)) if new_ref else None
    if before is None or after is None:
        which = " and ".join(w for w, c in (("the base run's", before), ("this run's", after)) if c is None)
        return [KeyChange("unreadable", "components", f"the cache key's components of {which} lookup are unreadable "
                          "(damaged or not recorded): the component that changed cannot be named")]
    changes = []
    for name in sorted(set(before) | set(after)):
        b, n = before.get(name), after.get(name)
        if b is not None and n is not None and b[0] == n[0]:
            continue
        changes.append(_change(name, b[1] if b else None, n[1] if n else None, new.sources or base.sources))
    return sorted(changes, key=lambda c: KINDS.index(c.kind) if c.kind in KINDS else len(KINDS))


KINDS = ("config", "input", "code", "constant", "version", "setting", "unreadable")
CONFIG = re.compile(r"^(inductor_config|inductor_config_comms|functorch_config|aot_config)\[(?P<key>[^\]]+)\]$")
INPUT = re.compile(r"^example_inputs\[(?P<index>\d+)\]$")
TENSOR = re.compile(r"dtype=(?P<dtype>[\w.]+), shape=torch\.Size\((?P<shape>\[[^\]]*\])\), "
                    r"stride=(?P<stride>\([^)]*\))")


def _change(name: str, base: str | None, new: str | None, sources: dict[str, str]) -> KeyChange:
    config = CONFIG.match(name)
    if config:
        key = config["key"]
        owner = "Inductor" if name.startswith("inductor") else "functorch"
        return KeyChange("config", name, f"{owner} config {key}: {_short(base)} -> {_short(new)}", base, new,
                         _setting_site(key, sources))
    if INPUT.match(name):
        return _input_change(name, int(INPUT.match(name)["index"]), base, new)
    if name == "gm":
        return KeyChange("code", name, "the graph's code changed" + _first_difference(base, new))
    if "constant" in name or name.startswith("graph_constants"):
        return KeyChange("constant", name, f"a constant or global folded into the graph changed ({name})")
    if name == "torch_version":
        return KeyChange("version", name, "torch changed (another build or version of torch)")
    if name.startswith("system_info"):
        what = name[len("system_info"):].strip("[]") or "system"
        return KeyChange("version", name, f"the system changed ({what}: Triton, CUDA or the GPU): "
                         f"{_short(base)} -> {_short(new)}", base, new)
    if name == "provenance_tracking_level":
        return KeyChange("setting", name, f"Inductor provenance tracking level {_short(base)} -> {_short(new)} "
                         "(TORCH_COMPILE_DEBUG=1 or INDUCTOR_PROVENANCE=1 set it)", base, new)
    if name.startswith("fx_kwargs"):
        return KeyChange("setting", name, f"compile option {name[10:-1]}: {_short(base)} -> {_short(new)}", base, new)
    return KeyChange("setting", name, f"{name}: {_short(base)} -> {_short(new)}", base, new)


def _input_change(name: str, index: int, base: str | None, new: str | None) -> KeyChange:
    b, n = TENSOR.search(base or ""), TENSOR.search(new or "")
    if b and n:
        parts = [f"{what} {b[what]} -> {n[what]}" for what in ("shape", "dtype", "stride") if b[what] != n[what]]
        if parts:
            return KeyChange("input", name, f"input {index}: " + ", ".join(parts), b["shape"], n["shape"])
    if base is None or new is None:
        return KeyChange("input", name, f"input {index} {'added' if base is None else 'removed'} (the graph's inputs "
                         "changed)")
    return KeyChange("input", name, f"input {index} changed: {_short(base)} -> {_short(new)}", base, new)


def _setting_site(key: str, sources: dict[str, str]) -> str | None:
    """The program's line that assigns the config key (``....config.KEY = ...`` or ``patch(KEY=...)``)."""
    leaf = re.escape(key.rsplit(".", 1)[-1])
    pattern = re.compile(rf"(\.{leaf}\s*=[^=]|[\"']{re.escape(key)}[\"']\s*[:,]|\b{leaf}\s*=[^=])")
    for path, text in sources.items():
        for number, line in enumerate((text or "").splitlines(), 1):
            if "config" in line and pattern.search(line) and not line.lstrip().startswith("#"):
                return f"{path}:{number}"
    return None


def _first_difference(base: str | None, new: str | None) -> str:
    b, n = (base or "").splitlines(), (new or "").splitlines()
    for x, y in zip(b, n):
        if x != y:
            return f": {_short(x.strip())} -> {_short(y.strip())}"
    return ""


def _short(value: str | None) -> str:
    if value is None:
        return "(absent)"
    text = " ".join(str(value).split())
    if not text.isprintable():
        return "(binary)"
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."
