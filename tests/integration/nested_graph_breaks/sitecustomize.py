"""Python imports this at start-up when its folder is on PYTHONPATH: torch._dynamo.config.nested_graph_breaks set
to $TDIAG_TEST_NESTED_GRAPH_BREAKS ("1" on, "0" off) for the whole process (torch has no environment variable for it),
the same way under plain python and under `tdiag run`, so the oracle tests compare the two with the setting that is
not torch's default, without changing the program."""

import os

_wanted = os.environ.get("TDIAG_TEST_NESTED_GRAPH_BREAKS")
if _wanted in ("0", "1"):
    try:
        import torch._dynamo.config as _dynamo_config
    except Exception:  # no torch here: the program fails as it would anyway
        _dynamo_config = None
    if _dynamo_config is not None and hasattr(_dynamo_config, "nested_graph_breaks"):
        _dynamo_config.nested_graph_breaks = _wanted == "1"
