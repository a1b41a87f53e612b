"""`tdiag run` imports nothing heavy that the program and the end-of-run summary do not need (issue 16).

Each module below costs start-up or exit time (0.05-0.3 s) and none is needed to record a Dynamo-only program and print
its summary: the report libraries belong to `--html`/the TUI/patches, Inductor's CUDA-graph trees to Inductor compiles,
rich to a summary shown in a terminal (a CI log is plain text), the diff model to `tdiag diff`, the output-code parser
to records with Inductor code, the MCP SDK (and its pydantic, anyio, starlette) to `tdiag mcp`.
The baseline is the same program under plain python, so a module torch itself loads is never blamed on tdiag.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = Path(__file__).parents[1] / "programs" / "clean.py"  # aot_eager: Dynamo + AOTAutograd, no Inductor
HEAVY = ["libcst", "textual", "plotly", "jinja2", "torch._inductor.cudagraph_trees", "torch._inductor.compile_fx",
         "rich", "tdiag.analyzer.diff", "tdiag.analyzer.output_code",
         "mcp", "pydantic", "anyio", "starlette", "tdiag.mcp_server", "tdiag.commands.mcp"]

PLAIN = f"""
import json, runpy, sys
runpy.run_path({str(PROGRAM)!r}, run_name="__main__")
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
"""

TRACED = f"""
import json, sys
from tdiag.cli import main
code = main(["run", "--no-tui", "--no-profile", "-o", sys.argv[1], {str(PROGRAM)!r}])
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
sys.exit(code)
"""


def _loaded(script: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "tdiag" in done.stderr or not args  # the summary really was printed (the exit path ran)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_run_with_summary_loads_no_heavy_module_beyond_the_program(tmp_path: Path) -> None:
    baseline = _loaded(PLAIN)
    assert _loaded(TRACED, str(tmp_path / "run")) == baseline


# Every class tdiag defines on the way to the summary, as ``tdiag run`` loads them: a plain ``@dataclass`` compiles
# __init__, __eq__ and __repr__ from source (a frozen one three more), and one without a docstring calls
# inspect.signature for its __doc__.
DEFINITIONS = f"""
import dataclasses, json, sys
from tdiag.cli import main
from tdiag.lean_dataclass import _eq, _init
code = main(["run", "--no-tui", "--no-profile", "-o", sys.argv[1], {str(PROGRAM)!r}])
costly = []
for name, module in list(sys.modules.items()):
    for value in list(vars(module).values()) if name.startswith("tdiag") else []:
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
            if value.__init__ is not _init and value.__eq__ is not _eq:
                costly.append(f"{{name}}.{{value.__name__}}: @dataclass, use @lean_dataclass")
            if (value.__doc__ or "").startswith(value.__name__ + "("):
                costly.append(f"{{name}}.{{value.__name__}}: no docstring")
print(json.dumps(sorted(set(costly))))
sys.exit(code)
"""


def test_the_summary_path_defines_its_classes_cheaply(tmp_path: Path) -> None:
    """Issue 26: the end-of-run path's cost was mostly its imports, and most of those the ~60 dataclasses of the model
    (benchmarks/bench_overhead.py --instructions, docs/performance.md). A new class there stays as cheap as the others."""
    assert _loaded(DEFINITIONS, str(tmp_path / "run")) == []


CUDA_PROGRAM = """
import torch
print("initialised before the program:", torch.cuda.is_initialized())
x = torch.ones(4, device="cuda")
f = torch.compile(lambda t: t * 2, backend="eager")
print(float(f(x).sum()))
"""


@pytest.mark.gpu
def test_cuda_is_left_to_the_program(tmp_path: Path) -> None:
    """tdiag must not initialise CUDA before the program (CUDA_VISIBLE_DEVICES set by the program, fork-safe
    DataLoader workers); the GPU's name is still in the analysis, read at exit."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    program = tmp_path / "uses_cuda.py"
    program.write_text(CUDA_PROGRAM)
    done = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "--no-profile", "-o",
                           str(tmp_path / "run"), str(program)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "initialised before the program: False" in done.stdout
    from tdiag.analyzer import build

    assert build(tmp_path / "run", suggestions=False).run.device == "cuda: " + torch.cuda.get_device_name(0)


EAGER_ONLY = """
import sys
import torch
print(float(torch.ones(3).sum()))
print("dynamo imported:", "torch._dynamo" in sys.modules)
"""


def test_program_that_never_compiles_never_imports_dynamo(tmp_path: Path) -> None:
    """The Dynamo hooks wait for the program's own import of torch._dynamo (~1 s): a program that never compiles
    runs under tdiag with the modules it has under python, and the summary says nothing was judged."""
    program = tmp_path / "eager_only.py"
    program.write_text(EAGER_ONLY)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=600)
    traced = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(tmp_path / "run"),
                             str(program)], capture_output=True, text=True, timeout=600)
    assert plain.returncode == traced.returncode == 0, traced.stderr[-3000:]
    assert "dynamo imported: False" in plain.stdout
    assert traced.stdout == plain.stdout
    assert "Nothing was compiled" in traced.stderr and "nothing to fix" not in traced.stderr
    from tdiag.analyzer import build
    from tdiag.reports.html.render import render
    from tdiag.tui.screens.overview import all_clear

    analysis = build(tmp_path / "run", suggestions=False)  # every output says the same, none says all-clear
    assert "Nothing was compiled" in render(analysis) and "Nothing was compiled" in all_clear(analysis).plain
