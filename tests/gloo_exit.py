"""torch's gloo exit abort, told apart from a failure of tdiag or of the program.

Every allreduce that DDP issues during backward captures the thread's ``at::ThreadLocalState``, which holds the
contextvars context ``torch.autograd.graph._engine_run_backward`` stashes in TLS (a ``SafePyObject``). The gloo worker
thread that ran the allreduce frees it, and freeing it takes the GIL. When that worker is starved of CPU from the
moment it completes the last allreduce until the main thread starts finalizing the interpreter (a loaded machine),
Python ends the worker with ``pthread_exit`` inside that ``noexcept`` destructor and C++ calls ``std::terminate``:
"terminate called without an active exception", SIGABRT, after the program and tdiag have both finished.

It happens under plain torchrun, without tdiag: ``scripts/gloo_exit_race.py`` starves the gloo workers and reproduces
it both ways (the core dumps show the same stack: ``~AsyncAllreduceWork`` -> ``~ThreadLocalState`` ->
``SafePyObject`` decref -> ``take_gil`` -> ``pthread_exit``). It is pytorch#38228's class of crash.

``assert_job_exited_cleanly`` accepts that abort, with a warning, only when everything says it is this one: every rank's
record ends with the program's normal exit (code 0), the rank died of SIGABRT with C++'s message (its partner may
die of SIGSEGV in the same shutdown, and torchrun then ends the aborting one with SIGTERM), and the dump of
``PYTHONFAULTHANDLER=1`` shows no Python frame on any thread (the interpreter was shutting down). Anything else, such
as an abort before a rank's exit was recorded, or one with Python code on the stack, still fails.
"""

from __future__ import annotations

import re
import subprocess
import warnings
from pathlib import Path

from tdiag.commands._torchrun import program_finished
from tdiag.record import open_record

CPP_ABORT = "terminate called without an active exception"
FAULT_DUMP = re.compile(r"Fatal Python error: (?:Aborted|Segmentation fault)\n(.*?)(?:\nExtension modules:|\Z)", re.S)
# torchrun's "exitcode: -N" of a failed rank: SIGABRT, the abort itself; SIGSEGV, the other rank of the pair dying
# in the same shutdown (its worker thread's TLS freed under a finalizing interpreter); SIGTERM, torchrun ending the
# rest once the first failure is seen
SHUTDOWN_SIGNALS = {"-6", "-11", "-15"}
ENV = {"PYTHONFAULTHANDLER": "1"}  # an aborting rank prints every thread's Python stack


class TorchGlooExitAbort(UserWarning):
    """A rank died of torch's gloo exit abort after the program and tdiag had finished (see the module docstring)."""


def assert_job_exited_cleanly(done: subprocess.CompletedProcess, run_dir: Path) -> None:
    """The job exited 0, or its one failure is torch's gloo exit abort after every rank finished (then: a warning)."""
    output = done.stdout + done.stderr
    if done.returncode == 0:
        assert CPP_ABORT not in output, output
        return
    why = _not_torch_exit_abort(output, run_dir)
    assert why is None, f"{why}\n{output}"
    message = f"a rank hit torch's gloo exit abort after finishing; records complete in {run_dir}"
    warnings.warn(TorchGlooExitAbort(message), stacklevel=2)


def _not_torch_exit_abort(output: str, run_dir: Path) -> str | None:
    """Why this failure is not torch's gloo exit abort; None when it is."""
    codes = set(re.findall(r"exitcode\s*: (-?\d+)", output))
    if CPP_ABORT not in output or not codes & {"-6", "-11"} or not codes <= SHUTDOWN_SIGNALS:
        return "no rank died of SIGABRT (or SIGSEGV in the same shutdown) with C++'s terminate message"
    dumps = FAULT_DUMP.findall(output)
    if not dumps:
        return "no faulthandler dump (the rank must run with PYTHONFAULTHANDLER=1)"
    if any('File "' in dump for dump in dumps):
        return "a thread was running Python code when the rank aborted: not interpreter shutdown"
    finished = {rf.header.get("rank"): program_finished(rf) for rf in open_record(run_dir)}
    unfinished = sorted(rank for rank, done in finished.items() if not done)
    if not finished or unfinished:
        return f"rank(s) {unfinished or 'all'} did not record the program's normal exit before the abort"
    return None


def assert_plain_job_finished(plain, verdict, nproc: int) -> None:
    """The differential harness's plain run (torchrun, no tdiag) of an ``nproc``-rank job finished: every rank wrote its
    counters (at exit, once its program ended), and exited 0 or, only by torch's gloo exit abort, which the harness's
    ``compare`` explains (``verdict``, then: a warning). FSDP2's reduce-scatters run in backward hooks, so their
    work objects carry the stashed context this module's docstring describes (per_block.py's plain run, once on CI)."""
    assert len(plain.counters) == nproc, plain.stderr_tail
    if plain.exit_code != 0:
        assert plain.exit_abort and any("gloo exit abort" in e for e in verdict.explained), plain.stderr_tail
        warnings.warn(TorchGlooExitAbort("the plain run (no tdiag) hit torch's gloo exit abort after every rank "
                                         "wrote its counters"), stacklevel=2)
