"""Records shaped as tdiag's capture writes them on a GPU machine, for the CUDA-graph tests that run on a CPU: the
header, the program's source and torch's compilation metrics of its one compiled function (compile id 0/0)."""

from __future__ import annotations

from tdiag.record import RecordWriter


def start_record(tmp_path, text: str, function: str = "step", line: int = 4) -> tuple[RecordWriter, str]:
    """A writer of ``tmp_path``'s record of ``train.py`` (``text``) whose ``function`` at ``line`` compiled once;
    the caller writes the rest and closes it. Returns the writer and the program's path."""
    path = str(tmp_path / "train.py")
    w = RecordWriter(tmp_path / "events.jsonl", {"argv": ["train.py"], "root": str(tmp_path), "cwd": str(tmp_path)})
    w.write({"type": "source", "path": path, "text": text})
    w.write({"type": "torch", "name": "compilation_metrics", "meta": {
        "frame_id": 0, "frame_compile_id": 0,
        "compilation_metrics": {"compile_id": "0/0", "co_name": function, "co_filename": path,
                                "co_firstlineno": line, "graph_op_count": 3, "has_guarded_code": True}}})
    return w, path
