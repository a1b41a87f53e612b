"""Put on PYTHONPATH of a child process: at exit, torch's own Dynamo counters go to $TDIAG_TEST_COUNTERS as JSON.

The oracle for "tdiag changes nothing torch compiles": the same program under plain python and under `tdiag run`,
read the same way, outside tdiag (an atexit hook registered before anything else, so it runs last).
"""

import atexit
import json
import os
import re
import sys


def _dump() -> None:
    torch_utils = sys.modules.get("torch._dynamo.utils")
    counters = getattr(torch_utils, "counters", None) if torch_utils else None
    if counters is None:
        return
    keep = ("frames", "stats", "graph_break", "recompiles", "unimplemented")
    # reasons name objects by address (`<function helper at 0x7f...>`): not part of what was compiled
    data = {k: {re.sub(r"0x[0-9a-f]+", "0x", str(r)): n for r, n in v.items()} for k, v in counters.items() if k in keep}
    with open(os.environ["TDIAG_TEST_COUNTERS"], "w") as f:
        json.dump(data, f, sort_keys=True)


if os.environ.get("TDIAG_TEST_COUNTERS"):
    atexit.register(_dump)
