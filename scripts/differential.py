"""Differential harness: does tdiag change what torch compiles? (docs/differential.md)

Runs every program of tests/differential/programs under plain python and under tdiag in each mode (`tdiag run`,
`--no-profile`, `--deep`, `tdiag.capture()`, the pytest plugin for tests, `--nproc-per-node 2` for distributed
programs), reads torch's own Dynamo counters at each process's exit through a site hook, and compares them, stdout and
the exit code with the plain run. Prints a programs x modes table; exits 1 on any difference.

    python scripts/differential.py                      # the full set: every program, every mode, both nested settings
    python scripts/differential.py --no-inductor -j 2   # without the Inductor programs, two runs at a time
    python scripts/differential.py nested_forward_then_call --modes run,no-profile --nested off
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential_harness.report import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
