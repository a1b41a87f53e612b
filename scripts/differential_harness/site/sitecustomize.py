"""The differential harness's site hook: reads torch's own Dynamo counters at exit, without changing the program.

Put on PYTHONPATH by scripts/differential.py for every run, plain and under tdiag alike, so whatever it costs is the
same on both sides. At interpreter start it only registers an atexit handler (first, so it runs last, after the
program's and tdiag's own handlers) and, when asked, a one-shot import hook that sets
``torch._dynamo.config.nested_graph_breaks`` right after torch imports that config. At exit, in a process that
imported ``torch._dynamo``, it writes one JSON file per process (pid in the name) into the directory named by
``DIFFERENTIAL_COUNTERS_DIR``. Standard library only; a site hook that already existed on the path is chained.
"""

import atexit
import importlib.abc
import importlib.util
import json
import os
import sys

DIR_VAR = "DIFFERENTIAL_COUNTERS_DIR"
NESTED_VAR = "DIFFERENTIAL_NESTED_GRAPH_BREAKS"
CONFIG_MODULE = "torch._dynamo.config"


def _role():
    """A name for this process that is the same in every mode: torchrun's rank and multiprocessing's process name."""
    mp = sys.modules.get("multiprocessing")
    name = mp.current_process().name if mp is not None else "MainProcess"
    rank = os.environ.get("RANK")
    return name if rank is None else f"rank{rank}:{name}"


def _frame_recompiles(convert_frame):
    counter = getattr(convert_frame, "FRAME_COMPILE_COUNTER", None) or {}
    return sum(max(0, int(n) - 1) for n in counter.values())


def _frame_codes(convert_frame):
    """The code objects Dynamo's frame callback was handed (what ``frames total`` counts): file and name."""
    seen = getattr(getattr(convert_frame, "input_codes", None), "seen", None) or []
    codes = {f"{c.co_filename}:{c.co_name}" for c in (ref() for ref in seen) if c is not None}
    return sorted(codes)


def _dump():
    directory = os.environ.get(DIR_VAR)
    dynamo_utils = sys.modules.get("torch._dynamo.utils")
    if not directory or dynamo_utils is None:
        return
    counters = getattr(dynamo_utils, "counters", {})
    config = sys.modules.get(CONFIG_MODULE)
    convert_frame = sys.modules.get("torch._dynamo.convert_frame")
    record = {
        "role": _role(),
        "pid": os.getpid(),
        "frames": dict(counters.get("frames", {})),
        "stats": dict(counters.get("stats", {})),
        "graph_break": dict(counters.get("graph_break", {})),
        "resumes": sum(counters.get("resumes", {}).values()),
        "recompiles": _frame_recompiles(convert_frame),
        "codes": _frame_codes(convert_frame),
        "nested_graph_breaks": getattr(config, "nested_graph_breaks", None),
        # the compile caches' own accounting (issue 42): where a run hit, missed or bypassed
        "compile_cache": {f"{group}.{name}": n for group in ("inductor", "aot_autograd")
                          for name, n in sorted(counters.get(group, {}).items()) if "cache_" in name},
    }
    path = os.path.join(directory, f"{os.getpid()}.json")
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(record, fh, sort_keys=True)
    os.replace(path + ".tmp", path)


class _SetNestedGraphBreaks(importlib.abc.MetaPathFinder):
    """Sets the flag right after torch executes its Dynamo config module, then leaves ``sys.meta_path``."""

    def __init__(self):
        self._finding = False

    def find_spec(self, fullname, path, target=None):
        if fullname != CONFIG_MODULE or self._finding:
            return None
        self._finding = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_set(module):
            exec_module(module)
            vars(loader).pop("exec_module", None)
            module.nested_graph_breaks = True
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass

        loader.exec_module = exec_then_set
        return spec


def _chain_next_sitecustomize():
    """Run the sitecustomize this one shadows (the first one further down sys.path), as Python would have."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if os.environ.get(DIR_VAR):
    atexit.register(_dump)
if os.environ.get(NESTED_VAR) == "1":
    sys.meta_path.insert(0, _SetNestedGraphBreaks())
_chain_next_sitecustomize()
