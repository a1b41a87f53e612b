"""A patch that makes the program raise is refused with the exception that stopped it, also where torch.compile did
not raise it (a patched optimizer argument torch.optim refuses), not only "the exit code changed"."""

from __future__ import annotations

import subprocess
import sys

from tdiag.analyzer import build

from tdiag.fixing.compare import compare
from tdiag.fixing.verify import RunResult

PROGRAM = '''import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(model.parameters(), lr={lr})
step = torch.compile(lambda x: model(x).pow(2).mean(), backend="eager")
for i in range(3):
    loss = step(torch.ones(2, 4))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {{i}}")
'''


def _run(folder, lr: str, session_env) -> tuple:
    folder.mkdir()
    (folder / "train.py").write_text(PROGRAM.format(lr=lr))
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", "train.py"], cwd=folder,
                          env=session_env, capture_output=True, text=True, timeout=300)
    result = RunResult(lr, folder / "rec", proc.returncode, proc.stdout, proc.stderr[-2000:], 0.0)
    return build(folder / "rec"), result


def test_the_refusal_names_the_programs_own_exception(tmp_path, session_env):
    before = _run(tmp_path / "before", "1e-3", session_env)
    after = _run(tmp_path / "after", "torch.tensor(1e-3), foreach=True", session_env)
    assert before[1].exit_code == 0 and after[1].exit_code == 1  # torch.optim's own refusal, outside torch.compile
    c = compare("foreach", ["RUN001"], [before], [after])
    assert not c.pays
    [exit_problem] = [p for p in c.problems if p.startswith("the program's exit code changed: 0 -> 1")]
    assert "(ValueError: lr as a Tensor is not supported for capturable=False and foreach=True)" in exit_problem
