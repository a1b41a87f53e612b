"""Run by the tests in a subprocess: torch._dynamo.explain's graph-break count for each fixture's explain_target."""

import json
import runpy
import sys

import torch

counts = {}
for path in sys.argv[1:]:
    namespace = runpy.run_path(path, run_name="explained")  # not __main__: only definitions run
    fn, args = namespace["explain_target"]()
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    torch._dynamo.reset()
    counts[path] = torch._dynamo.explain(fn)(*args).graph_break_count
print(json.dumps(counts))
