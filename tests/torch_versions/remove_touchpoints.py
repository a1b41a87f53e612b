"""For each private touchpoint of tracer/torch_compat.py: take it out of the real, imported torch (as a release
without it would be), run ``tdiag.capture()`` around a compile, put it back, and report which capture problems the
record says. Prints one JSON object: {touchpoint: [the ``what`` of each capture problem]}, and the same for a capture with
nothing removed.

Run as ``python remove_touchpoints.py OUT_DIR [NAME ...]`` in its own process: it edits torch's modules in place.
"""

from __future__ import annotations

import json
import logging
import sys
import types
from pathlib import Path

import torch
import torch._dynamo  # noqa: F401  (the Dynamo stage: its touchpoints are checked when the capture starts)
import torch._inductor.compile_fx  # noqa: F401  (the Inductor stage likewise)
from tdiag.analyzer import build
from tdiag.tracer.torch_compat import TOUCHPOINTS, stage_of

import tdiag

_GONE = object()
BASELINE = "(nothing removed)"
CHECKED_AT_ATTACH = ("start", "dynamo", "inductor", "deep")  # "loaded": CUDA only; "none": nothing is lost


def remove(name: str, kind: str):
    """Take ``name`` out of torch; return the function that puts it back."""
    if kind == "logger":
        loggers = logging.Logger.manager.loggerDict
        saved = loggers.pop(name)
        return lambda: loggers.__setitem__(name, saved)
    parent_name, _, attr = name.rpartition(".")
    module = sys.modules.get(name)
    parent = _resolve(parent_name)
    saved = parent.__dict__.get(attr, _GONE) if hasattr(parent, "__dict__") else _GONE
    if saved is _GONE:  # defined on a base class: shadow it on the class itself
        saved = getattr(parent, attr)
    _delete(parent, attr)
    if module is not None:
        sys.modules[name] = None  # a module of that name cannot be imported either

    def restore() -> None:
        _set(parent, attr, saved)
        if module is not None:
            sys.modules[name] = module

    return restore


def _delete(obj, attr: str) -> None:
    try:
        delattr(obj, attr)
    except Exception:  # torch's config modules refuse del of what is not an option (a nested config)
        types.ModuleType.__delattr__(obj, attr)


def _set(obj, attr: str, value) -> None:
    try:
        setattr(obj, attr, value)
    except Exception:
        types.ModuleType.__setattr__(obj, attr, value)


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in sys.modules:
            obj = sys.modules[".".join(parts[:cut])]
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            return obj
    raise LookupError(dotted)


def compiled_step():
    def f(x):
        return torch.nn.functional.relu(x) * 2

    torch.compile(f, backend="inductor")(torch.ones(4))


def main() -> None:
    out, names = Path(sys.argv[1]), set(sys.argv[2:])
    torch._dynamo.reset()
    with tdiag.capture(out / "baseline"):  # nothing removed: what this torch's capture says by itself
        compiled_step()
    found = {BASELINE: [p.what for p in build(out / "baseline").run.capture_problems]}
    for i, point in enumerate(TOUCHPOINTS):
        if (names and point.name not in names) or stage_of(point) not in CHECKED_AT_ATTACH:
            continue
        run = out / f"run{i}"
        torch._dynamo.reset()  # outside the capture: reset() inside one drops its compile callbacks
        restore = remove(point.name, point.kind)
        try:
            with tdiag.capture(run, deep=stage_of(point) == "deep"):
                try:
                    compiled_step()
                except Exception:  # torch itself may need what was taken: its failure is not under test here
                    pass
        finally:
            restore()
        found[point.name] = [p.what for p in build(run).run.capture_problems]
    print(json.dumps(found))


if __name__ == "__main__":
    main()
