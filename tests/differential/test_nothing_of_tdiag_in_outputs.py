"""Nothing of tdiag in any output: a finding, frame, guard, stack, path or name of tdiag's own code in the console
summary, `tdiag report --format json`, `tdiag lint` (json and full) or the HTML report would blame the user for
something tdiag did. Corpus programs run under `tdiag run` (measuring, the default); every output is searched for
the installed package's directories and tdiag's internal names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tdiag.compiler
import tdiag.tracer
from differential_testing import PROGRAMS

import tdiag

INTERNAL_NAMES = ("compiled_step", "runtime_window", "break_hook", "trace_logger", "import_watch", "lowering_watch",
                  "module_stacks", "deep_hooks", "cudagraph_watch", "exec_then_notify", "window.active", "_step_boundary")
# tracer/x.py, compiler/x.py, tdiag/x.py as a path of their own (torch/compiler/... is torch's, not ours)
PACKAGE_RELATIVE = re.compile(r"(?<![\w/.-])(?:tdiag|tracer|compiler)/[\w/]+\.py")


def package_dirs() -> list[str]:
    dirs = {os.path.dirname(os.path.realpath(m.__file__)) for m in (tdiag, tdiag.tracer, tdiag.compiler)}
    return sorted(d + "/" for d in dirs)


def leaks(text: str) -> list[str]:
    found = [d for d in package_dirs() if d in text]
    # as identifiers: `compiled_step` in a stack is tdiag's wrapper; `compiled_step_s` is a field of the data model
    found += [n for n in INTERNAL_NAMES if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text)]
    found += PACKAGE_RELATIVE.findall(text)
    return sorted(set(found))


def tdiag_cmd(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("program", ["nested_forward_then_call", "compiler_disable_helpers", "scalar_alternating_break"])
def test_no_output_names_tdiag(program, tmp_path, session_env):
    env = {**session_env, "COLUMNS": "200"}
    record, html = tmp_path / "run", tmp_path / "report.html"
    run = tdiag_cmd(["run", "--no-tui", "-o", str(record), "--html", str(html), f"{program}.py"], PROGRAMS, env)
    assert run.returncode == 0, run.stderr
    outputs = {"console summary": run.stderr, "program stdout": run.stdout, "html": html.read_text(encoding="utf-8")}
    for name, args in (("report json", ["report", "--format", "json"]), ("lint json", ["lint", "--format", "json"]),
                       ("lint full", ["lint", "--format", "full"])):
        proc = tdiag_cmd([*args, str(record)], tmp_path, env)
        assert proc.returncode in (0, 1), proc.stderr
        outputs[name] = proc.stdout
    assert "graph" in outputs["console summary"]  # the summary was printed (a search of nothing finds nothing)
    found = {name: leaks(text) for name, text in outputs.items() if leaks(text)}
    assert found == {}
