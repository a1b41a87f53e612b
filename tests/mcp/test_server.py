"""`tdiag mcp` end to end: the SDK's own client drives a real `tdiag mcp` subprocess over stdio, which runs a real
program (a data-dependent branch, eager backend) under `tdiag run` and verifies its torch.where patch.

One server session for the whole module (the runs are the cost); each test asserts on what that session saw.
Expectations are written by hand: the branch is at line 10 of programs/branch.py, the graph-break count is torch's
own (its structured trace of the same program under plain python).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tdiag_testing import require_installed

require_installed("mcp", reason="tdiag mcp's SDK: pip install 'tdiag[mcp]'")

PROGRAMS = Path(__file__).parent / "programs"
BRANCH_LINE = 10
TOOLS = {"run_program", "list_findings", "explain_rule", "fix_findings", "undo_fix", "diff_records", "html_report",
         "list_records"}


async def _append(messages: list, message: str) -> None:
    messages.append(message)


def _text(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def _session(project: Path, env: dict[str, str]) -> dict:
    from mcp import Client, MCPError, StdioServerParameters

    seen: dict = {"progress": [], "fix_progress": []}
    started = time.monotonic()
    server = StdioServerParameters(command=sys.executable, args=["-m", "tdiag", "mcp", "--root", str(project)],
                                    cwd=str(project.parent), env=env)  # --root, as a desktop client starts it
    async with Client(server, read_timeout_seconds=300) as client:
        seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}

        async def on_progress(progress, total, message):
            seen["progress"].append(message)

        run = await client.call_tool("run_program", {"program": "branch.py"}, progress_callback=on_progress)
        seen["run"] = run.structured_content or json.loads(_text(run))
        seen["run_s"] = time.monotonic() - started
        record = seen["run"]["record"]
        found = await client.call_tool("list_findings", {"record": record, "select": ["BRK"], "limit": 5})
        seen["findings"] = found.structured_content
        seen["before_fix"] = (project / "branch.py").read_text()
        fixed = await client.call_tool("fix_findings", {"record": record, "select": ["BRK001"], "verify": True,
                                                        "apply": True, "repeat": 1, "rounds": 1},
                                       progress_callback=lambda p, t, m: _append(seen["fix_progress"], m))
        seen["fix"] = fixed.structured_content or {"error": _text(fixed)}
        seen["fix_done_s"] = time.monotonic() - started
        seen["applied_text"] = (project / "branch.py").read_text()
        seen["undo"] = (await client.call_tool("undo_fix", {"record": record})).structured_content
        seen["after_undo"] = (project / "branch.py").read_text()
        seen["html"] = (await client.call_tool("html_report", {"record": record})).structured_content
        seen["source"] = (await client.read_resource(seen["findings"]["findings"][0]["source_uri"])).contents[0].text
        seen["missing_tool"] = await client.call_tool("list_findings", {"record": "tdiag-runs/no-such-run"})
        try:
            await client.read_resource("tdiag://analysis/tdiag-runs/no-such-run")
            seen["missing_resource"] = None
        except MCPError as exc:
            seen["missing_resource"] = exc
        seen["after_error"] = _text(await client.call_tool("explain_rule", {"code": "BRK001"}))
        seen["outside"] = await client.call_tool("run_program", {"program": "../outside.py"})
        seen["bad_selector"] = await client.call_tool("list_findings", {"record": record, "select": ["NOPE9"]})
        seen["crash"] = await client.call_tool("run_program", {"program": "crashes.py", "profile": False})
        seen["last"] = (await client.call_tool("list_records", {})).structured_content
    seen["total_s"] = time.monotonic() - started
    print(f"mcp session: run {seen['run_s']:.1f} s, fix done at {seen['fix_done_s']:.1f} s, "
          f"all {seen['total_s']:.1f} s")  # -s shows it
    return seen


@pytest.fixture(scope="module")
def session(tmp_path_factory, session_env):
    import anyio

    base = tmp_path_factory.mktemp("mcp")
    project = base / "project"
    project.mkdir()
    for name in ("branch.py", "crashes.py"):
        shutil.copy(PROGRAMS / name, project / name)
    (base / "outside.py").write_text("print('must never run')\n")
    seen = anyio.run(_session, project, session_env)
    seen["project"] = project
    return seen


def test_lists_every_tool_with_a_schema_and_a_description(session):
    assert set(session["tools"]) == TOOLS
    for tool in session["tools"].values():
        assert tool.description and len(tool.description) > 40
        assert tool.input_schema["type"] == "object"
    assert session["tools"]["list_findings"].input_schema["required"] == ["record"]


def test_runs_the_program_and_returns_its_record_and_counts(session, torch_account, session_env):
    run = session["run"]
    assert run["exit_code"] == 0 and run["record"].startswith("tdiag-runs/branch-")
    assert (session["project"] / run["record"] / "events.jsonl").exists()
    plain = torch_account(PROGRAMS / "branch.py")
    assert run["counts"]["graph_breaks"] == len(plain.breaks) >= 1
    assert run["counts"]["graphs"] == plain.graphs
    assert run["stdout_tail"] == plain.stdout  # the program's own output, unchanged
    assert session["progress"] and all("compile" in m for m in session["progress"])


def test_findings_include_the_branch_with_its_patch_and_source(session):
    findings = session["findings"]["findings"]
    branch = [f for f in findings if f["code"] == "BRK001"]
    assert len(branch) == 1 and branch[0]["path"] == "branch.py" and branch[0]["line"] == BRANCH_LINE
    assert "torch.where" in branch[0]["suggestion"]["patch"]
    assert f"{BRANCH_LINE:>5}>     if y.sum() > 9.5:" in branch[0]["source"]["text"]
    assert "if y.sum() > 9.5:" in session["source"]  # the resource behind source_uri
    assert session["findings"]["incomplete"] == []


def test_fix_verify_returns_a_verified_torch_where_patch_and_apply_its_undo(session):
    fix = session["fix"]
    assert "error" not in fix, fix
    assert fix["ok"] and fix["verified"]
    kept = fix["kept"]
    assert [p["codes"] for p in kept] == [["BRK001"]] and "torch.where(" in kept[0]["patch"]
    first = fix["verification"][0]
    assert first["before"]["graph_breaks"] >= 1 and first["after"]["graph_breaks"] == 0
    assert first["stdout_identical"]
    # apply wrote the verified patch, and its undo put the file back byte for byte
    assert fix["applied"]["files"] == ["branch.py"] and fix["undo"]["manifest"]
    assert session["fix_progress"] and all("verifying" in m for m in session["fix_progress"])
    assert "torch.where(" in session["applied_text"] and "if y.sum() > 9.5:" not in session["applied_text"]
    assert session["undo"]["restored"] == ["branch.py"] and session["after_undo"] == session["before_fix"]


def test_html_report_path(session):
    path = session["project"] / session["html"]["path"]
    assert path.name == "report.html" and path.read_text().lstrip().lower().startswith("<!doctype html")


def test_errors_are_clear_and_the_server_keeps_serving(session):
    missing = session["missing_tool"]
    assert missing.is_error and "no record at tdiag-runs/no-such-run" in _text(missing)
    assert session["missing_resource"] is not None and "no record" in str(session["missing_resource"])
    assert session["after_error"].startswith("# BRK001 (data-dependent-branch)")
    outside = session["outside"]
    assert outside.is_error and "outside the server's working directory" in _text(outside)
    assert session["bad_selector"].is_error and "unknown rule code or prefix" in _text(session["bad_selector"])
    crash = session["crash"]
    assert crash.is_error and "exited with status 1" in _text(crash) and "tdiag-runs/crashes-" in _text(crash)
    assert len(session["last"]["records"]) == 2  # and it still answered after all of them


def test_without_the_sdk_it_says_how_to_install_it(tmp_path, session_env):
    """A Python where `import mcp` fails (the package hidden by a module that raises ImportError on import)."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nclass _Hide:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mcp' or name.startswith('mcp.'):\n            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _Hide())\n")
    env = {**session_env, "PYTHONPATH": str(blocker)}
    done = subprocess.run([sys.executable, "-m", "tdiag", "mcp"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "pip install 'tdiag[mcp]'" in done.stderr


def test_registering_the_command_imports_no_sdk():
    """`tdiag --help` imports every command module: the mcp command's must not load the SDK (tdiag run's own path,
    which imports only its command, is checked in tests/integration/test_startup_cost.py)."""
    probe = ("import json, sys\nfrom tdiag.cli import discover_commands\n"
             "names = [c.name for c in discover_commands()]\n"
             "heavy = [m for m in ('mcp', 'pydantic', 'anyio', 'tdiag.mcp_server') if m in sys.modules]\n"
             "print(json.dumps([names, heavy]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    names, loaded = json.loads(done.stdout)
    assert "mcp" in names and loaded == []
