"""The live status line appears only while a compile runs longer than a moment, and is gone when it ends.

Events go through the capture's own translation (``tracer.progress``), as ``tdiag run`` delivers them.
"""

import io
import time

from tdiag.reports import live
from tdiag.tracer.progress import CompileProgress, from_bracket, from_torch_event


class TTY(io.StringIO):
    def isatty(self):
        return True


def test_status_shows_during_a_long_compile_and_is_removed(monkeypatch):
    monkeypatch.setattr(live, "SHOW_AFTER_S", 0.05)
    stream = TTY()
    status = live.LiveStatus(stream)
    status.console.force_terminal = True
    status.on_progress(from_bracket({"type": "compile_start", "compile_id": "0/0", "trigger": "DYNAMO"}))
    status.on_progress(from_torch_event("dynamo_start", {"dynamo_start": {"stack": [{"name": "forward"}]},
                                                         "frame_id": 0, "frame_compile_id": 0}))
    status.on_progress(from_torch_event("artifact:dynamo_graph_break_reason", {}))
    deadline = time.monotonic() + 5
    while status._status is None and time.monotonic() < deadline:
        time.sleep(0.01)
    status.on_progress(from_bracket({"type": "compile_end", "compile_id": "0/0"}))
    out = stream.getvalue()
    assert "tdiag: compiling forward [0/0]" in out and "1 breaks" in out
    assert status._status is None


def test_short_compiles_print_nothing():
    stream = TTY()
    status = live.LiveStatus(stream)
    status.on_progress(CompileProgress("compile_start", "DYNAMO 0/0"))
    status.on_progress(CompileProgress("compile_end"))
    # the end cancelled the pending show: nothing can print later
    assert status._timer is None and status._status is None
    assert stream.getvalue() == ""


def test_torch_event_names_stay_in_the_capture():
    assert from_torch_event("artifact:recompile_reasons", {}) == CompileProgress("recompile")
    assert from_torch_event("compilation_metrics", {"compilation_metrics": {}}) == CompileProgress("compiled")
    assert from_torch_event("dynamo_guards", {}) is None
