"""Every reader command (report, lint, diff, tui's loader, import) on truncated, corrupt, empty, huge and foreign
files: a result or a one-line error with exit 2, never a traceback."""

from __future__ import annotations

import json

import pytest
from hardening_util import report

from tdiag.cli import main

CLASSES = {}


def _classes(real: bytes) -> dict[str, bytes]:
    lines = real.splitlines(keepends=True)
    huge = json.dumps({"type": "note", "text": "H" * 50_000_000}).encode() + b"\n"  # one 50 MB line
    return {
        "empty": b"",
        "foreign-text": b"hello, this is not a record\n" * 100,
        "foreign-binary": bytes(range(256)) * 64,
        "foreign-json": b'{"a": 1}\n[1, 2, 3]\n',
        "truncated-header": lines[0][: len(lines[0]) // 2],
        "truncated-mid-line": real[: len(real) // 2],
        "corrupt-middle": b"".join(lines[:3] + [b"{not json\n", b"\x00\xff\xfe\n"] + lines[3:]),
        "header-only": lines[0],
        "huge-line": b"".join(lines[:-1] + [huge, lines[-1]]),
        "newer-version": lines[0].replace(b'"version":1', b'"version":99') + b"".join(lines[1:]),
    }


@pytest.fixture(scope="module")
def bad_files(recorded, tmp_path_factory):
    run_dir, _ = recorded("data_dependent_if.py")
    real = (run_dir / "events.jsonl").read_bytes()
    base = tmp_path_factory.mktemp("bad")
    out = {}
    for name, data in _classes(real).items():
        (base / name).mkdir()
        (base / name / "events.jsonl").write_bytes(data)
        out[name] = base / name
    return out


COMMANDS = {
    "report": lambda rec, tmp: ["report", str(rec), "-f", "json", "-o", str(tmp / "r.json")],
    "report-html": lambda rec, tmp: ["report", str(rec), "-o", str(tmp / "r.html")],
    "lint": lambda rec, tmp: ["lint", str(rec), "--format", "json"],
    "diff": lambda rec, tmp: ["diff", str(rec), str(rec)],
    "import": lambda rec, tmp: ["import", str(rec / "events.jsonl"), "-q", "-o", str(tmp / "imp")],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_reader_commands_on_bad_records(bad_files, tmp_path, capsys, command):
    outcomes = {}
    for name, rec in bad_files.items():
        tmp = tmp_path / name
        tmp.mkdir()
        code = main(COMMANDS[command](rec, tmp))
        captured = capsys.readouterr()
        assert code in (0, 1, 2), (name, code)
        assert "Traceback" not in captured.err and "internal error" not in captured.err, (name, captured.err)
        if code == 2:
            assert len(captured.err.strip().splitlines()) >= 1
        outcomes[name] = code
    summary = ", ".join(f"{n}: {c}" for n, c in sorted(outcomes.items()))
    report(f"inputs-cli-{command}", "inputs", f"`tdiag {command.replace('-html', ' -o x.html')}` on "
           f"{len(outcomes)} bad-record classes", len(outcomes), f"exit codes ({summary}); no traceback")


def test_tui_loader_refuses_unreadable_records(bad_files, capsys):
    # tui's loader is build(); on a readable record it would open the app, so only unreadable classes go here.
    ran = 0
    for name in ("empty", "foreign-text", "foreign-binary", "foreign-json", "truncated-header", "newer-version"):
        assert main(["tui", str(bad_files[name])]) == 2, name
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.startswith("tdiag tui: error:")
        ran += 1
    report("inputs-cli-tui", "inputs", "`tdiag tui` on unreadable records", ran, "exit 2 with a one-line error")
