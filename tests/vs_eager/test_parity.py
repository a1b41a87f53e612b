"""Compiled results against eager (issue 63): `tdiag run --vs-eager` compares what the program printed compiled with
what it prints with torch.compile disabled, and names the cause it saw.

The oracle is the program run plainly, without tdiag, with and without TORCH_COMPILE_DISABLE=1: where those two
print different results, torch.compile changed them; where they print the same, no finding may say otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag_testing import run_tdiag

PROGRAMS = Path(__file__).parent / "parity_programs"


def _plain(program: str, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROGRAMS / program)], env={**env, **extra}, capture_output=True,
                          text=True, timeout=300)


def _line_of(program: str, text: str) -> int:
    return (PROGRAMS / program).read_text().splitlines().index(text) + 1


def _findings(out: Path, env: dict[str, str]) -> list[dict]:
    """`tdiag lint --format json` (ruff's shape), each with ``path``/``line`` for short."""
    lint = run_tdiag(["lint", str(out), "--format", "json"], env)
    return [{**f, "path": f["filename"], "line": f["location"]["row"], "fix": (f["fix"] or {}).get("message", "")}
            for f in json.loads(lint.stdout)]


def _differs_from_eager(program: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, str]:
    """The oracle: the plain compiled and eager runs print different results."""
    compiled, eager = _plain(program, env), _plain(program, env, TORCH_COMPILE_DISABLE="1")
    assert compiled.returncode == eager.returncode == 0, compiled.stderr[-2000:]
    assert compiled.stdout != eager.stdout
    return compiled, eager.stdout


def test_a_hook_registered_after_compile_is_named_where_it_was_registered(tmp_path, session_env):
    compiled, eager_stdout = _differs_from_eager("hook_after_compile.py", session_env)
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "--vs-eager", "-o", str(out), str(PROGRAMS / "hook_after_compile.py")],
                     session_env)
    assert proc.returncode == 0 and proc.stdout == compiled.stdout, proc.stderr[-3000:]  # the user's run unchanged
    (finding,) = [f for f in _findings(out, session_env) if f["code"].startswith("EGR")]
    assert finding["code"] == "EGR001" and finding["severity"] == "error"
    register = "    model[2].register_forward_hook(steer)"
    assert (finding["path"], finding["line"]) == ("hook_after_compile.py", _line_of("hook_after_compile.py", register))
    assert compiled.stdout.strip() in finding["message"] and eager_stdout.strip() in finding["message"]
    assert "skip_nnmodule_hook_guards = False" in finding["fix"]

    # without --vs-eager the registration is still seen: a warning that says how to compare
    quiet = tmp_path / "quiet"
    assert run_tdiag(["run", "--no-tui", "-q", "-o", str(quiet), str(PROGRAMS / "hook_after_compile.py")],
                     session_env).returncode == 0
    (warning,) = [f for f in _findings(quiet, session_env) if f["code"].startswith("EGR")]
    assert warning["code"] == "EGR002" and warning["line"] == finding["line"] and "--vs-eager" in warning["message"]


def test_an_except_keyerror_settled_at_compile_time_is_named_at_the_lookup(tmp_path, session_env):
    compiled, _ = _differs_from_eager("optional_key.py", session_env)
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "-q", "--vs-eager", "-o", str(out), str(PROGRAMS / "optional_key.py")],
                     session_env)
    assert proc.returncode == 0 and proc.stdout == compiled.stdout, proc.stderr[-3000:]
    (finding,) = [f for f in _findings(out, session_env) if f["code"].startswith("EGR")]
    lookup = '            age = batch["user_age"]'
    assert (finding["code"], finding["line"]) == ("EGR001", _line_of("optional_key.py", lookup))
    assert "KeyError" in finding["message"] and '"user_age" in batch' in finding["fix"]

    # the fix the finding names, applied to a copy: compiled results equal eager's again (plain runs)
    fixed = tmp_path / "optional_key_fixed.py"
    source = (PROGRAMS / "optional_key.py").read_text()
    fixed.write_text(source.replace('''        try:
            age = batch["user_age"]
        except KeyError:''', '''        if "user_age" in batch:
            age = batch["user_age"]
        else:'''))
    runs = [subprocess.run([sys.executable, str(fixed)], env={**session_env, **extra}, capture_output=True, text=True,
                           timeout=300) for extra in ({}, {"TORCH_COMPILE_DISABLE": "1"})]
    assert runs[0].stdout == runs[1].stdout == _plain("optional_key.py", session_env,
                                                      TORCH_COMPILE_DISABLE="1").stdout


@pytest.mark.inductor
def test_inductors_own_random_numbers_are_named_where_the_model_is_called(tmp_path, session_env):
    """An nn.Sequential's forward is torch's code: the finding still lands on the user's line (the call), never
    dropped; the cause is Inductor's RNG, and torch's switch for eager's numbers is the fix (checked plainly)."""
    compiled, eager_stdout = _differs_from_eager("seeded_dropout.py", session_env)
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "-q", "--vs-eager", "-o", str(out), str(PROGRAMS / "seeded_dropout.py")],
                     session_env)
    assert proc.returncode == 0 and proc.stdout == compiled.stdout, proc.stderr[-3000:]
    (finding,) = [f for f in _findings(out, session_env) if f["code"] == "EGR001"]
    call = "    loss = nn.functional.mse_loss(model(x), y)"
    assert (finding["path"], finding["line"]) == ("seeded_dropout.py", _line_of("seeded_dropout.py", call))
    assert "random numbers" in finding["message"] and "fallback_random = True" in finding["fix"]

    fixed = tmp_path / "seeded_dropout_fixed.py"
    fixed.write_text((PROGRAMS / "seeded_dropout.py").read_text().replace(
        "model = torch.compile(model)", "torch._inductor.config.fallback_random = True\nmodel = torch.compile(model)"))
    again = subprocess.run([sys.executable, str(fixed)], env=session_env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout == eager_stdout, again.stderr[-2000:]
