"""One capture session: every hook installed on entry, every one undone on exit, each guarded separately.

Used by ``tdiag run`` (around the user's program) and by ``tdiag.capture()`` (around a block of code).
"""

from __future__ import annotations

import os
import platform
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tdiag.tracer import break_hook, crash, import_watch, progress, random_parity, torch_warnings
from tdiag.tracer.collector import TraceCollector
from tdiag.tracer.problems import CaptureProblems
from tdiag.tracer.sources import SourceSnapshotter, offer_event_sources

import tdiag
from tdiag import torch_events as te
from tdiag.record import RecordWriter
from tdiag.torch_releases import TESTED

Listener = Callable[[progress.CompileProgress], None]


def header_fields(argv: list[str], root: Path, rank: int | None, extra: dict[str, Any] | None = None,
                  launcher: str | None = None) -> dict[str, Any]:
    """``launcher``: the script that started tdiag (the ``tdiag`` console script pip writes), whose frame sits under
    the user's program in every stack torch records."""
    import torch

    device = _device_at_start(torch)
    return {
        "tdiag": tdiag.__version__,
        "torch": torch.__version__,
        "torch_tested": list(TESTED),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "host": socket.gethostname(),  # the node: ranks of a multi-node job are told apart by it
        "device": device,
        "argv": argv,
        "root": str(root),
        "cwd": os.getcwd(),
        "rank": rank,
        "pid": os.getpid(),
        "started": time.time(),
        "tool_paths": tool_paths(launcher),
        **(extra or {}),
    }


def _device_at_start(torch: Any) -> str:
    """Never initialise CUDA before the program runs: it costs a CUDA context, breaks a program that sets
    CUDA_VISIBLE_DEVICES itself, and poisons fork for its DataLoader workers. The name is read when CUDA is up
    already; otherwise NVML's device count says whether there is a GPU, and the exit event names it (_device_at_exit)."""
    try:
        if torch.cuda.is_initialized():
            return "cuda: " + torch.cuda.get_device_name(torch.cuda.current_device())
        return "cuda" if torch.cuda.device_count() > 0 else "cpu"
    except Exception:
        return "cpu"


def _device_at_exit() -> str | None:
    """The GPU's name once the program initialised CUDA (None when it never did: the header's device stands)."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            return "cuda: " + torch.cuda.get_device_name(torch.cuda.current_device())
    except Exception:  # not a loss: the header's device ("cuda") stands, without the GPU's name
        pass
    return None


def _matmul_at_exit() -> dict[str, Any]:
    """What torch's TF32 warning checks, as the program left it: the GPU's compute capability and the float32 matmul
    precision. torch warns only while Inductor compiles a graph anew (compile_fx.py's ``_warn_tf32_disabled``), so a
    run its compile cache served says nothing: the analysis decides from these instead (analyzer/torch_warnings.py)."""
    import warnings

    torch = sys.modules.get("torch")
    out: dict[str, Any] = {}
    with warnings.catch_warnings():  # a torch that deprecates one of these reads warns tdiag, never the user's stderr
        warnings.simplefilter("ignore")
        try:
            out["capability"] = list(torch.cuda.get_device_capability())
            out["precision"] = torch.get_float32_matmul_precision()  # "highest" (no TF32), "high", "medium"
            out["allow_tf32"] = bool(torch.backends.cuda.matmul.allow_tf32)
            out["fp32_precision"] = str(torch.backends.cuda.matmul.fp32_precision)  # torch 2.9+: "tf32" when on
        except Exception:  # a torch without one of them: what was read stands
            pass
    return out


def tool_paths(launcher: str | None = None) -> list[str]:
    """Where tdiag's own code lives, so the analysis can drop its frames from user stacks."""
    import runpy

    launchers = {os.path.abspath(launcher), os.path.realpath(launcher)} if launcher else set()
    return sorted(set(tool_dirs()) | launchers | {os.path.realpath(runpy.__file__), "<frozen runpy>"})


def tool_dirs() -> tuple[str, ...]:
    """The directories of tdiag's own packages (their frames are dropped from the program's tracebacks)."""
    import tdiag.compiler
    import tdiag.tracer

    return tuple(sorted({os.path.dirname(os.path.realpath(m.__file__)) for m in (tdiag, tdiag.tracer, tdiag.compiler)}))


class TraceSession:
    """Install the capture; ``listener(CompileProgress)`` sees progress (compile start/end, break, recompile)."""

    def __init__(
        self, writer: RecordWriter, root: Path, listener: Listener | None = None, deep: bool = False, profile: Any = None,
        virtual_sources: Any = None,
    ):
        """``profile``: a ``runtime_window.WindowSpec`` to measure a runtime window, or None for no measurement.
        ``virtual_sources``: see ``sources.VirtualSources`` (notebook cells)."""
        self.writer = writer
        self.listener = listener
        self.sources = SourceSnapshotter(writer, root, virtual_sources)
        self.problems = CaptureProblems(writer.write)
        self.collector = TraceCollector(writer, self._on_torch_event, on_error=self.failed)
        self.deep = deep
        self._undo: list[Callable[[], None]] = []
        self._hidden_modules: set[str] = set()  # capture modules whose code this session marked for Dynamo to skip
        self.window: Any = None
        self.profile = profile

    # -- hooks -------------------------------------------------------------------------------------------------
    def __enter__(self) -> TraceSession:
        self.report_missing("start")  # before the collector's getLogger creates the trace logger torch may have renamed
        self.collector.install()
        self._undo.append(self.collector.uninstall)
        self._replay_interned_filenames()
        try:
            self._undo.append(crash.ThreadCrashes(self.writer.write, tool_dirs()).install())
        except Exception as exc:
            self.failed("thread exception hook", exc)
        self._install_warning_hook()
        self._undo.append(random_parity.install(self.failed))  # verification runs only (random_parity.py)
        # A program that never compiles never imports torch._dynamo (~1 s): its hooks wait for that import.
        self._undo.append(import_watch.after_import("torch._dynamo", self._install_dynamo_hooks, self._unwatchable))
        return self

    def _install_warning_hook(self) -> None:
        try:
            undo = torch_warnings.install(self._on_warning, self.failed, self.sources.is_user_file)
        except Exception as exc:
            self.failed("torch warning hook", exc)
            return
        if undo is None:
            self.missing("warnings._showwarnmsg (Python)", "torch's warnings are not recorded: none becomes a finding")
        else:
            self._undo.append(undo)

    def _install_dynamo_hooks(self) -> None:
        try:
            self._install_each_dynamo_hook()
        except Exception as exc:  # runs inside the program's import of torch._dynamo: never fail that import
            self.failed("installing the Dynamo hooks", exc)

    def _unwatchable(self) -> None:
        self.missing("torch._dynamo (its import could not be followed)", "no graph-break offsets, live progress, "
                     "Inductor detail or runtime window in this record")

    def _install_each_dynamo_hook(self) -> None:
        self.report_missing("dynamo")
        undo = break_hook.install(self._on_break, on_error=self.failed)
        if undo is None:
            self.missing("torch._dynamo.symbolic_convert.InstructionTranslatorBase.log_graph_break",
                         "breaks come from the trace only, without bytecode offsets")
        else:
            self._undo.append(undo)
        undo = progress.install(self._on_compile_event, on_error=self.failed)
        if undo is None:
            self.missing("torch._dynamo.callback.callback_handler", "no live compile progress, no lazy-backward "
                         "compile time")
        else:
            self._undo.append(undo)
        self._instrument_compiler()
        self._install_runtime_window()
        self._hide_from_dynamo()

    def report_missing(self, stage: str) -> None:
        """Each touchpoint of ``stage`` this torch lacks is a capture problem (tracer/torch_compat.py)."""
        from tdiag.tracer import torch_compat

        try:
            for point in torch_compat.missing(stage):
                self.missing(point.name, point.fallback)
        except Exception as exc:
            self.failed("checking torch's touchpoints", exc)

    def _hide_from_dynamo(self) -> None:
        from tdiag.tracer.hidden_capture import hide_capture

        try:
            hide_capture(self._hidden_modules)
        except Exception as exc:
            self.failed("hiding tdiag's callbacks from Dynamo (torch's frame counters include them)", exc)

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self.window is not None:
            try:
                self.window.close()  # before the hooks go: a window cut short is recorded as not measured
            except Exception as exc:
                self.failed("runtime window", exc)
        self.report_missing("loaded")
        while self._undo:
            try:
                self._undo.pop()()
            except Exception as exc:
                self.failed("undoing a hook", exc)
        self.problems.flush()

    def _replay_interned_filenames(self) -> None:
        """Stacks in the trace name files by index; indexes interned before this session began are never logged
        again (e.g. tdiag.capture() inside a process that compiled before), so write the table as it stands."""
        try:
            from torch._logging.structured import INTERN_TABLE
        except Exception:
            return
        for name, index in list(INTERN_TABLE.items()):
            self.writer.write({"type": "torch", "t": time.time(), "name": "str", "meta": {"str": [name, index]}})
            self.sources.offer([name])

    def _instrument_compiler(self) -> None:
        try:
            from tdiag.compiler.instrument import enable

            undo = enable(self, deep=self.deep, installed=self._hide_from_dynamo)
        except Exception as exc:  # the compiler layer is optional detail, never a reason to fail the run
            self.failed("Inductor instrumentation", exc)
            return
        if undo is not None:
            self._undo.append(undo)

    def _install_runtime_window(self) -> None:
        if self.profile is None:
            return
        from tdiag.tracer.runtime_window import RuntimeWindow

        window = RuntimeWindow(self.writer.write, self.profile)
        try:
            undo = window.install()
        except Exception as exc:  # e.g. no way to hide the wrapper from Dynamo: measuring would change the program
            self.failed("runtime window", exc)
            return
        if undo is None:
            self.missing("torch._dynamo.eval_frame._TorchDynamoContext", "no runtime window: costs were not measured")
            return
        self.window = window
        self._undo.append(undo)

    # -- events ------------------------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        self.writer.write({"type": "note", "text": text})

    def missing(self, touchpoint: str, lost: str) -> None:
        """This torch lacks ``touchpoint``: the capture is incomplete by ``lost`` (see ``problems``)."""
        self.problems.missing(touchpoint, lost)

    def write(self, event: dict[str, Any]) -> None:
        self.writer.write(event)

    def crashed(self, exc: BaseException) -> None:
        """The program ends with ``exc``: keep it in the record (its traceback then prints as without tdiag)."""
        try:
            self.writer.write(crash.describe(exc))
        except Exception as failure:
            self.failed("crash capture", failure)
        try:
            crash.without_tool_frames(exc, tool_dirs())
        except Exception as failure:
            self.failed("crash capture", failure)

    def failed(self, what: str, exc: BaseException) -> None:
        """A hook swallowed ``exc`` so as not to break torch: count it into the record (see ``problems``)."""
        self.problems.failed(what, exc)

    def _on_break(self, site: dict[str, Any]) -> None:
        self.writer.write(site)
        self.sources.offer([site.get("filename", "")])

    def _on_warning(self, event: dict[str, Any]) -> None:
        self.writer.write(event)
        frame = event.get("user_frame")
        if frame:
            self.sources.offer([frame["filename"]])

    def _on_compile_event(self, event: dict[str, Any]) -> None:
        self.writer.write(event)
        if event.get("stack"):
            self.sources.offer([frame["filename"] for frame in event["stack"]])
        if self.window is not None:
            self.window.on_compile(event)
        if self.listener is not None:
            self._tell(progress.from_bracket(event))

    def _on_torch_event(self, name: str, metadata: dict[str, Any], payload: str | None) -> None:
        offer_event_sources(self.sources, name, metadata, payload)
        if self.window is not None and name == te.COMPILATION_METRICS and _runs_eagerly(metadata.get(name)):
            self.window.sample_eager_frames()
        if self.listener is not None:
            self._tell(progress.from_torch_event(name, metadata))

    def _tell(self, event: progress.CompileProgress | None) -> None:
        if event is not None and self.listener is not None:
            self.listener(event)


def _runs_eagerly(metrics: Any) -> bool:
    """A frame that failed to compile (Dynamo skipped it) or hit the recompile limit: it runs eagerly, outside any
    compiled frame, where only the window's stack samples can cost it (BRK006, RCP005)."""
    return isinstance(metrics, dict) and bool(metrics.get("fail_type") or metrics.get("fail_reason"))


def record_exit(writer: RecordWriter, code: int | None, reason: str, started: float) -> None:
    event = {"type": "exit", "code": code, "reason": reason, "duration_s": time.time() - started}
    device = _device_at_exit()
    if device is not None:
        event["device"] = device
        matmul = _matmul_at_exit()
        if matmul:
            event["matmul"] = matmul
    try:
        from tdiag.tracer.cache_settings import cache_settings

        event["compile_cache"] = cache_settings()
    except Exception:  # extra: the exit event is written without it
        pass
    writer.write(event)
