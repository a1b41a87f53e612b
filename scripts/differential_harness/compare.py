"""Compare each tdiag mode's outcome with the plain run's: counters per process, stdout, exit code.

Two differences are explained rather than counted. An exit code that differs only because one side met torch's gloo
exit abort after every process's program had ended (docs/multi-rank-exit.md): torch's crash, as likely without
tdiag.

And: while any structured-trace handler listens (tdiag's, or torch's own under TORCH_TRACE), torch builds its trace
events, and where that happens inside a compiled frame's eager part (a lazily compiled backward, a graph break)
Dynamo's frame callback is handed torch's own logging frames, which it skips. ``frames total/ok`` then grow by those
frames and nothing else changes. A frames-only difference is explained when the frames Dynamo saw are the plain
run's plus only frames it also saw in the plain run under TORCH_TRACE (``PLAIN_TRACED``): never a frame of tdiag,
never one fewer than without tdiag. Under ``--deep`` two frames of torch's JSON encoding of the Inductor config are
explained too (``DEEP_CONFIG_FRAMES``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from differential_harness.execute import Outcome

COUNTER_NAMES = {
    "frames": "frames total/ok", "stats": "unique graphs / calls captured", "graph_break": "graph breaks by reason",
    "recompiles": "recompiles", "resumes": "resume functions", "nested_graph_breaks": "nested_graph_breaks setting",
}
# codes: the frames Dynamo saw, only used to explain a frames difference. compile_cache: what the caches did depends
# on what ran before on the same cache directory; tests/compile_cache compares it between two warm runs.
NOT_COMPARED = ("codes", "compile_cache")


@dataclass
class Verdict:
    identical: bool
    differences: list[str]
    explained: list[str] = field(default_factory=list)
    needs_traced: bool = False  # a frames difference that the plain run under TORCH_TRACE may explain


def compare(plain: Outcome, other: Outcome, traced: Outcome | None = None) -> Verdict:
    diffs: list[str] = []
    explained: list[str] = []
    needs_traced = False
    if other.timed_out or plain.timed_out:
        diffs.append("timed out" + (" (plain)" if plain.timed_out else ""))
    if plain.exit_code != other.exit_code:
        text = f"exit code {plain.exit_code} -> {other.exit_code}"
        if _torch_exit_abort(plain, other):
            explained.append(text + " (torch's gloo exit abort, after every process's program ended)")
        else:
            diffs.append(text)
    if plain.stdout != other.stdout:
        diffs.append("stdout differs: " + _first_difference(plain.stdout, other.stdout))
    for role in sorted(set(plain.counters) | set(other.counters)):
        mine, theirs = plain.counters.get(role), other.counters.get(role)
        if mine is None or theirs is None:
            diffs.append(f"{role}: compiled only {'under tdiag' if mine is None else 'without tdiag'}")
            continue
        for key in sorted((set(mine) | set(theirs)) - set(NOT_COMPARED)):
            if mine.get(key) == theirs.get(key):
                continue
            text = f"{role}: {COUNTER_NAMES.get(key, key)} {_short(mine.get(key))} -> {_short(theirs.get(key))}"
            if key != "frames":
                diffs.append(text)
            elif traced is None:
                needs_traced = True
                diffs.append(text)
            else:
                reason = _unexplained_frames(mine, theirs, traced.counters.get(role), other.mode)
                (diffs if reason else explained).append(text + (f" ({reason})" if reason else
                                                                 " (torch's structured-trace frames, as under TORCH_TRACE)"))
    return Verdict(not diffs, diffs, explained, needs_traced)


def _torch_exit_abort(plain: Outcome, other: Outcome) -> bool:
    """One side failed only by torch's gloo exit abort (docs/multi-rank-exit.md; it happens without tdiag): a rank died
    of SIGABRT with C++'s terminate message, and yet every process of that side wrote its counters, which happens at
    exit, once its program has ended, for the same processes as the other side."""
    failed, fine = (plain, other) if plain.exit_code != 0 else (other, plain)
    same_processes = bool(failed.counters) and set(failed.counters) == set(fine.counters)
    return fine.exit_code == 0 and failed.exit_abort and same_processes


# --deep sets Inductor's _post_fusion_custom_pass (a function); torch's own logging of the Inductor config then
# encodes it through its JSON encoder's ``default`` hook, two more frames Dynamo is handed and skips.
DEEP_CONFIG_FRAMES = ("/json/encoder.py:default", "/torch/_dynamo/utils.py:default")


def _unexplained_frames(plain: dict, other: dict, traced: dict | None, mode: str = "") -> str:
    if traced is None:
        return "no TORCH_TRACE reference for this process"
    plain_codes, other_codes, traced_codes = set(plain["codes"]), set(other["codes"]), set(traced["codes"])
    hidden = plain_codes - other_codes
    if hidden:
        return "Dynamo saw fewer frames under tdiag: " + _short(sorted(hidden))
    extra = other_codes - plain_codes - traced_codes
    if mode == "deep":
        extra = {c for c in extra if not c.endswith(DEEP_CONFIG_FRAMES)}
    if extra:
        return "frames not seen even under TORCH_TRACE: " + _short(sorted(extra))
    return ""


def _first_difference(a: str, b: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x[:80]!r} -> {y[:80]!r}"
    return f"{len(la)} lines -> {len(lb)} lines"


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 300 else text[:297] + "..."


def summary(outcome: Outcome) -> str:
    """The plain run's counts, summed over its processes: frames / unique graphs / calls / breaks / recompiles."""
    frames = graphs = calls = breaks = recompiles = 0
    for c in outcome.counters.values():
        frames += c["frames"].get("total", 0)
        graphs += c["stats"].get("unique_graphs", 0)
        calls += c["stats"].get("calls_captured", 0)
        breaks += sum(c["graph_break"].values())
        recompiles += c["recompiles"]
    procs = f" ({len(outcome.counters)} procs)" if len(outcome.counters) > 1 else ""
    return f"{frames}/{graphs}/{calls}/{breaks}/{recompiles}{procs}"
