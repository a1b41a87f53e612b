"""The modes a program runs under, as the command lines a user would type.

``plain`` is the oracle: the program without tdiag (``python prog.py``, ``python -m pytest -p no:tdiag prog.py``,
``torchrun --nproc-per-node 2 prog.py``). Every other mode runs the same program under tdiag one way.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from differential_harness.corpus import Program

LAUNCHER = Path(__file__).with_name("capture_launcher.py")
# The same in plain and plugin runs: quiet, no cache files in the repository, no conftest of the test tree (the
# program is the test), and the tdiag marker unknown without the plugin must not add a warning to stdout.
PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest", "-W", "ignore::pytest.PytestUnknownMarkWarning"]
TORCHRUN = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node"]


@dataclass(frozen=True)
class Mode:
    name: str
    title: str  # the column heading: the command, shortened
    tdiag_options: tuple[str, ...] = ()
    launcher: str = "run"  # run: `tdiag run`; capture: tdiag.capture(); plugin: the pytest plugin; plain: no tdiag

    def applies_to(self, program: Program) -> bool:
        if self.launcher == "plugin":
            return program.kind == "pytest"
        if self.launcher == "capture":
            return program.kind != "pytest"  # a test records through the plugin, which is tdiag.capture()
        return True

    def command(self, program: Program, record: Path) -> list[str]:
        py, prog = sys.executable, str(program.path)
        if self.launcher == "plain":
            if program.kind == "pytest":
                return [py, *PYTEST, "-p", "no:tdiag", prog]
            if program.kind == "distributed":
                return [py, *TORCHRUN, str(program.nproc), prog]
            return [py, prog]
        if self.launcher == "plugin":
            return [py, *PYTEST, prog]
        if self.launcher == "capture":
            if program.kind == "distributed":
                return [py, *TORCHRUN, str(program.nproc), str(LAUNCHER), str(record), prog]
            return [py, str(LAUNCHER), str(record), prog]
        run = [py, "-m", "tdiag", "run", "--no-tui", "-o", str(record), *self.tdiag_options]
        if program.kind == "distributed":
            run += ["--nproc-per-node", str(program.nproc)]
        if program.kind == "pytest":
            return [*run, *PYTEST, "-p", "no:tdiag", prog]  # `tdiag run -m pytest ...`: PYTEST starts with -m
        return [*run, prog]


PLAIN = Mode("plain", "python", launcher="plain")
# The reference for one difference tdiag cannot remove: torch's own structured-trace logging frames (compare.py)
PLAIN_TRACED = Mode("plain-traced", "python + TORCH_TRACE", launcher="plain")
MODES = {
    m.name: m
    for m in (
        PLAIN,
        Mode("run", "tdiag run"),
        Mode("no-profile", "run --no-profile", ("--no-profile",)),
        Mode("deep", "run --deep", ("--deep",)),
        Mode("capture", "tdiag.capture()", launcher="capture"),
        Mode("pytest-plugin", "pytest plugin", launcher="plugin"),
    )
}
TDIAG_MODES = [name for name in MODES if name != "plain"]
